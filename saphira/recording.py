"""Recording a robot session and replaying it with no robot attached.

A recording is a text file, one line per event, stamped with the scheduler cycle::

    # saphira recording 1
    # robot tcp://127.0.0.1:8101
    12 < FAFB0603...       packet received from the robot (framed bytes, hex)
    12 > FAFB060B...       packet sent to the robot
    12 = 1000.0 -2.5 90.0 300.0 0.0 13.0 0     reflector state at the end of cycle 12

State lines hold ``odo_x odo_y odo_th vel rvel battery stall_word`` rounded to 0.1. On replay the
received packets are fed back through the real link and reflector, each in the cycle it arrived in,
and every state line is compared: a replay "matches" when all of them agree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from saphira.clock import LockStepClock
from saphira.errors import SourceError, SourcePosition
from saphira.params import RobotParams
from saphira.protocol.framing import encode_packet
from saphira.reflector import RobotState
from saphira.robot import Robot
from saphira.tasks import Phase, TaskState
from saphira.transport import Transport, TransportClosed

HEADER = "# saphira recording 1"


def state_line(state: RobotState) -> str:
    values = (state.odo_x, state.odo_y, state.odo_th, state.vel, state.rvel, state.battery)
    return " ".join(f"{v:.1f}" for v in values) + f" {state.stall_word}"


class Recorder:
    """Writes every packet in both directions, and the reflector state each cycle, to a file."""

    def __init__(self, robot: Robot, path: str | Path) -> None:
        self.robot = robot
        self.path = Path(path)
        self._file: TextIO | None = self.path.open("w", encoding="ascii")
        self._file.write(f"{HEADER}\n# robot {robot.link.url or '(not connected yet)'}\n")
        robot.link.on_packet_in.connect(self._received)
        robot.link.on_packet_out.connect(self._sent)
        self._task = robot.scheduler.add(self._observe, robot.scheduler.unique_name("recorder"), phase=Phase.OBSERVE)
        self.packets = 0

    def _write(self, text: str) -> None:
        if self._file is not None:
            self._file.write(f"{self.robot.scheduler.cycle} {text}\n")

    def _received(self, payload: bytes) -> None:
        self.packets += 1
        self._write("< " + encode_packet(payload).hex().upper())

    def _sent(self, packet: bytes) -> None:
        self.packets += 1
        self._write("> " + packet.hex().upper())

    def _observe(self, state: int) -> int:
        if self.robot.link.connected:
            self._write("= " + state_line(self.robot.state))
        return TaskState.RESUME if state == TaskState.INIT else state

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self.robot.link.on_packet_in.disconnect(self._received)
            self.robot.link.on_packet_out.disconnect(self._sent)
            if self._task.scheduler is not None:
                self.robot.scheduler.remove(self._task)


@dataclass
class Recording:
    """A parsed recording: received bytes and expected states per cycle."""

    source: str
    url: str = ""
    received: dict[int, bytes] = field(default_factory=lambda: defaultdict(bytes))
    sent: dict[int, list[bytes]] = field(default_factory=lambda: defaultdict(list))
    states: dict[int, str] = field(default_factory=dict)

    @property
    def last_cycle(self) -> int:
        cycles = [*self.received, *self.states]
        return max(cycles) if cycles else 0


def read_recording(path: str | Path) -> Recording:
    """Parse a recording; a malformed line is a :class:`SourceError` naming file:line."""
    p = Path(path)
    rec = Recording(str(p))
    for number, line in enumerate(p.read_text(encoding="ascii", errors="replace").splitlines(), 1):
        if line.startswith("# robot "):
            rec.url = line[len("# robot ") :]
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" ", 2)
        try:
            cycle = int(parts[0])
            kind, body = parts[1], parts[2]
            if kind == "<":
                rec.received[cycle] += bytes.fromhex(body)
            elif kind == ">":
                rec.sent[cycle].append(bytes.fromhex(body))
            elif kind == "=":
                rec.states[cycle] = body
            else:
                raise ValueError(f"unknown event kind {kind!r}")
        except (IndexError, ValueError) as exc:
            raise SourceError(f"malformed recording line: {exc}", SourcePosition(str(p), number), line) from None
    return rec


class ReplayTransport(Transport):
    """Plays a recording's received bytes back, each in the cycle it arrived in; swallows writes."""

    def __init__(self, recording: Recording, robot: Robot) -> None:
        self.recording = recording
        self.robot = robot
        self.url = f"replay:{recording.source}"
        self._closed = False
        self.written: list[bytes] = []

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> bytes:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        return self.recording.received.get(self.robot.scheduler.cycle, b"")

    def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        self.written.append(data)

    def close(self) -> None:
        self._closed = True


@dataclass
class ReplayReport:
    cycles: int
    compared: int
    mismatches: list[tuple[int, str, str]]

    @property
    def matches(self) -> bool:
        return not self.mismatches and self.compared > 0


def replay(path: str | Path, params: RobotParams | None = None) -> ReplayReport:
    """Feed a recording back through a fresh link and reflector; compare every recorded state."""
    recording = read_recording(path)
    robot = Robot(LockStepClock(), params=params)
    transport = ReplayTransport(recording, robot)
    # The recorded link started its handshake in the cycle of the first packet it sent.
    connect_cycle = min(recording.sent) if recording.sent else 0
    mismatches: list[tuple[int, str, str]] = []
    compared = 0
    for cycle in range(recording.last_cycle + 1):
        if cycle == connect_cycle:
            robot.link.connect(transport)
        robot.scheduler.run_cycle()
        expected = recording.states.get(cycle)
        if expected is not None:
            compared += 1
            got = state_line(robot.state)
            if got != expected:
                mismatches.append((cycle, expected, got))
        robot.clock.wait_next()
    return ReplayReport(recording.last_cycle + 1, compared, mismatches)
