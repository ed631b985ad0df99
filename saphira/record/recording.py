"""Recording a robot session and replaying it with no robot attached.

A recording is a text file, one line per event, stamped with the scheduler cycle::

    # saphira recording 2
    # robot tcp://127.0.0.1:8101
    12 < FAFB0603...       packet received from the robot (framed bytes, hex)
    12 > FAFB060B...       packet sent to the robot
    12 = 1000.0 -2.5 90.0 300.0 0.0 13.0 0     reflector state at the end of cycle 12
    12 p 5230.5 1410.0 90.0                      global pose, when it changed (version 3)
    12 b {"turn":-4.0,"speed":300.0,"rows":[...]}   behaviors, when they changed (version 3)
    12 m ["INFO","sfMessage","at the door"]     a message or log record (version 3)
    12 a [[5,3,2000.0,1500.0,90.0,0.0,3000.0]]   the map's artifacts, when they changed (version 3)
    12 t [["patrol","running",0,"activity",true]]   the activities, when they changed (version 4)
    # end 5321 events, cycle 602

State lines hold ``odo_x odo_y odo_th vel rvel battery stall_word`` rounded to 0.1. On replay the
received packets are fed back through the real link and reflector, each in the cycle it arrived in,
and every state line is compared: a replay "matches" when all of them agree.

The file is written beside its name and moved into place (:mod:`saphira.core.outfile`) at the end of
the first cycle in which a packet went either way, and written on there: a run that never reached a
robot leaves an existing file as it was. The end line, written when the recorder is closed, is how a reader
knows it has the whole session:
a recording without it (the process was killed, the disk filled) or with fewer events than it counts
ended early, and a last line without its newline was cut in the middle. Such a recording replays up
to its last complete line, and :attr:`RecordingInfo.problem` says where it ends. The file is flushed at
the end of every cycle, so a killed run loses at most the cycle it was in. Version 1 recordings (no
end line) are read too, without the check. Version 3 adds the behaviors and the messages
(:mod:`saphira.record.extras`) and ``# world NAME`` and ``# params FILE`` lines naming the embedded
simulator's world and the run's parameter file;
versions 1 and 2 replay the same, without them. It also keeps the global pose, which the packets do
not carry (the simulator's start pose, registration, ``sfMoveRobot``), so a replay draws the run where
it was.

A recording is read only from a regular file of at most :data:`MAX_RECORDING_BYTES`, and replay runs
every cycle up to the last one stamped: so cycles with no event (while no robot was connected) are
limited to :data:`MAX_IDLE_CYCLES` in all, and a line stamped far beyond the rest is refused where it
stands instead of costing hours of replay. The lines are in the order of their cycles, and a replay
reads them as it plays them (:mod:`saphira.record.reader`), so it holds one cycle at a time: a
recording of hours replays in the memory of one of seconds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from saphira.client.reflector import RobotState
from saphira.client.transport import Transport, TransportClosed
from saphira.core.clock import LockStepClock
from saphira.core.errors import SourceError
from saphira.core.outfile import OutputFile
from saphira.core.tasks import Phase, TaskState
from saphira.params.robot_params import RobotParams
from saphira.protocol.framing import encode_packet
from saphira.record.extras import MAX_TASKS, MessageTap, artifact_rows, behavior_state, encode, message_body, task_rows
from saphira.record.reader import (
    HEADER,
    MAX_IDLE_CYCLES,
    MAX_RECORDING_BYTES,
    VERSION,
    Recording,
    read_recording,
    recorded_cycles,
    scan_recording,
)
from saphira.robot import Robot

__all__ = [
    "HEADER", "MAX_IDLE_CYCLES", "MAX_MISMATCHES", "MAX_RECORDING_BYTES", "VERSION", "Recorder", "Recording",
    "ReplayReport", "ReplayTransport", "SourceError", "read_recording", "replay", "state_line",
]  # fmt: skip

MAX_MISMATCHES = 100
"""The differing states a replay report keeps (the first ones); it counts them all."""


def state_line(state: RobotState) -> str:
    values = (state.odo_x, state.odo_y, state.odo_th, state.vel, state.rvel, state.battery)
    return " ".join(f"{v:.1f}" for v in values) + f" {state.stall_word}"


class Recorder:
    """Writes every packet in both directions, and the reflector state each cycle, to a file."""

    def __init__(self, robot: Robot, path: str | Path) -> None:
        self.robot = robot
        self.path = Path(path)
        self.output = OutputFile(path)  # written beside: moved over ``path`` on close, if the run recorded
        file = self.output.open("w", encoding="ascii")
        file.write(f"{HEADER}\n# robot {robot.link.url or '(not connected yet)'}\n")
        self._file: IO[str] | None = file
        robot.link.on_packet_in.connect(self._received)
        robot.link.on_packet_out.connect(self._sent)
        self._task = robot.scheduler.add(self._observe, robot.scheduler.unique_name("recorder"), phase=Phase.OBSERVE)
        self.packets = 0
        self.events = 0
        self._lock = threading.Lock()
        self._behaviors = ""
        self._pose = ""
        self._artifacts = ""
        self._tasks = ""
        self.tap = MessageTap(lambda level, name, text: self._write("m " + message_body(level, name, text)))
        """Log records and, through ``tap.tee``, a session's messages go into the recording."""

    def note(self, key: str, value: str) -> None:
        """A ``# key value`` line: ``world`` (the simulator's, for a replay's plot), ``params`` (for its laser)."""
        if self._file is not None:
            self._file.write(f"# {key} {value}\n")

    def _write(self, text: str) -> None:
        with self._lock:  # a log record may come from another thread (the live view's server)
            if self._file is not None:
                self._file.write(f"{self.robot.scheduler.cycle} {text}\n")
                self.events += 1

    def _received(self, payload: bytes) -> None:
        self.packets += 1
        self._write("< " + encode_packet(payload).hex().upper())

    def _sent(self, packet: bytes) -> None:
        self.packets += 1
        self._write("> " + packet.hex().upper())

    def _observe(self, state: int) -> int:
        if self.robot.link.connected:
            self._write("= " + state_line(self.robot.state))
            st = self.robot.state
            pose = f"{st.ax:.1f} {st.ay:.1f} {st.ath:.1f}"
            if pose != self._pose:
                self._pose = pose
                self._write("p " + pose)
            behaviors = encode(behavior_state(self.robot))
            if behaviors != self._behaviors:
                self._behaviors = behaviors
                self._write("b " + behaviors)
            artifacts = encode(artifact_rows(self.robot))
            if artifacts != self._artifacts:
                self._artifacts = artifacts
                self._write("a " + artifacts)
            tasks = encode(task_rows(self.robot.scheduler.tasks)[:MAX_TASKS])
            if tasks != self._tasks:
                self._tasks = tasks
                self._write("t " + tasks)
        if self._file is not None:
            self._file.flush()
            if self.output.pending and self.has_data:  # from the first cycle with packets, the file at ``path``
                self.output.commit()
        return TaskState.RESUME if state == TaskState.INIT else state

    @property
    def has_data(self) -> bool:
        """Whether a packet went either way: only then does the recording replace the file at :attr:`path`."""
        return self.packets > 0

    def close(self) -> None:
        """Write the end line, close the file and move it into place, or drop it if no packet was recorded
        (a run that never reached a robot leaves an existing file as it was); idempotent."""
        if self._file is not None:
            self.tap.detach()
            with self._lock:
                self._file.write(f"# end {self.events} events, cycle {self.robot.scheduler.cycle}\n")
                self._file.close()
                self._file = None
            self.output.finish(keep=self.has_data)
            self.robot.link.on_packet_in.disconnect(self._received)
            self.robot.link.on_packet_out.disconnect(self._sent)
            if self._task.scheduler is not None:
                self.robot.scheduler.remove(self._task)


class ReplayTransport(Transport):
    """Plays a recording's received bytes back, each in the cycle it arrived in; swallows writes.

    Its player :meth:`feed` s it each cycle's bytes before the cycle runs; what the link does not read in
    that cycle is dropped (a link reads every cycle once connected), and what a read ``limit`` left
    comes first in the next.
    """

    def __init__(self, source: str) -> None:
        self.url = f"replay:{source}"
        self._closed = False
        self._incoming = b""
        self._rest = bytearray()

    @property
    def closed(self) -> bool:
        return self._closed

    def feed(self, data: bytes) -> None:
        """The bytes received in the cycle about to run."""
        self._incoming = data

    def read(self, limit: int | None = None) -> bytes:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        if self._incoming:
            self._rest += self._incoming
            self._incoming = b""
        data = bytes(self._rest[:limit])
        del self._rest[: len(data)]
        return data

    def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")

    def close(self) -> None:
        self._closed = True


@dataclass
class ReplayReport:
    """How a replay went; ``problem`` says where the recording ended early ("" when it is whole).

    ``mismatches`` holds the first :data:`MAX_MISMATCHES` differing states ``(cycle, recorded, replayed)``;
    ``differ`` counts them all.
    """

    cycles: int
    compared: int
    mismatches: list[tuple[int, str, str]] = field(default_factory=list)
    problem: str = ""
    differ: int = 0

    @property
    def matches(self) -> bool:
        return not self.differ and self.compared > 0


def replay(path: str | Path, params: RobotParams | None = None) -> ReplayReport:
    """Feed a recording back through a fresh link and reflector, a cycle as it is read; compare every
    recorded state. Memory is one cycle's, whatever the recording's length (:mod:`saphira.record.reader`)."""
    info = scan_recording(path)
    robot = Robot(LockStepClock(), params=params)
    transport = ReplayTransport(info.source)
    connect_cycle = info.first_sent or 0  # the recorded link started its handshake with its first packet
    report = ReplayReport(info.last_cycle + 1, 0, problem=info.problem)
    for events in recorded_cycles(info):
        transport.feed(events.received)
        if events.cycle == connect_cycle:
            robot.link.connect(transport)
        robot.scheduler.run_cycle()
        if events.state is not None:
            report.compared += 1
            got = state_line(robot.state)
            if got != events.state:
                report.differ += 1
                if len(report.mismatches) < MAX_MISMATCHES:
                    report.mismatches.append((events.cycle, events.state, got))
        robot.clock.wait_next()
    return report
