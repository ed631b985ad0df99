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
to its last complete line, and :attr:`Recording.problem` says where it ends. The file is flushed at
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
stands instead of costing hours of replay.
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from saphira.client.reflector import RobotState
from saphira.client.transport import Transport, TransportClosed
from saphira.core.clock import LockStepClock
from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.inputfile import MIB, bounded_int, read_input
from saphira.core.outfile import OutputFile
from saphira.core.tasks import Phase, TaskState
from saphira.params.robot_params import RobotParams
from saphira.protocol.framing import encode_packet
from saphira.record.extras import MAX_TASKS, MessageTap, artifact_rows, behavior_state, encode, message_body, task_rows
from saphira.robot import Robot

VERSION = 4
HEADER = f"# saphira recording {VERSION}"
MAX_RECORDING_BYTES = 256 * MIB
"""The largest recording read (some hours of a robot at 10 cycles a second)."""
MAX_IDLE_CYCLES = 100_000
"""Cycles without any event a recording may hold in all (replay runs them too, some 30 us each)."""
_HEADER_RE = re.compile(r"# saphira recording (\w+)$")
_END_RE = re.compile(r"# end (\S+) events, cycle (\S+)$")
_NOTE_RE = re.compile(r"# (world|params) (.+)$")


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


@dataclass
class Recording:
    """A parsed recording: received bytes and expected states per cycle.

    ``problem`` is empty for a whole recording; otherwise it says how and where it ended early.
    """

    source: str
    url: str = ""
    received: dict[int, bytes] = field(default_factory=lambda: defaultdict(bytes))
    sent: dict[int, list[bytes]] = field(default_factory=lambda: defaultdict(list))
    states: dict[int, str] = field(default_factory=dict)
    behaviors: JsonByCycle = field(default_factory=lambda: JsonByCycle(dict))
    """Version 3: the behaviors' state, in the cycles it changed in (:mod:`saphira.record.extras`)."""
    messages: dict[int, list[list[str]]] = field(default_factory=lambda: defaultdict(list))
    """Version 3: ``[level, name, text]`` of every message and log record, by cycle."""
    poses: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    """Version 3: the global pose (x, y mm, th deg) at the end of the cycles it changed in."""
    artifacts: JsonByCycle = field(default_factory=lambda: JsonByCycle(list))
    """Version 3: the map's artifacts ``[type, id, x, y, th, width, length]``, in the cycles they changed in."""
    tasks: dict[int, list[Any]] = field(default_factory=dict)
    """Version 4: the Activities rows ``[name, state, depth, kind, running]``, in the cycles they changed in."""
    notes: dict[str, str] = field(default_factory=dict)
    """Version 3: ``world`` (the embedded simulator's) and ``params`` (the run's ``--params``), if any."""
    events: int = 0
    problem: str = ""

    @property
    def last_cycle(self) -> int:
        cycles = [*self.received, *self.states]
        return max(cycles) if cycles else 0


def _number(text: str, what: str, position: SourcePosition, line: str) -> int:
    """``text`` as a whole number of at most 12 digits (0 or more), or a SourceError naming ``what``."""
    value = bounded_int(text, digits=12)
    if value is None or text[:1] in "+-":
        raise SourceError(f"{what} must be a whole number of at most 12 digits, not {quoted(text)}", position, line)
    return value


def read_recording(path: str | Path) -> Recording:
    """Parse a recording; a malformed line is a :class:`SourceError` naming file:line.

    An empty file, or one without an event (only its header and end line), is a :class:`SaphiraError`.
    A recording that ended early is read up to its last complete line, with :attr:`Recording.problem` set.
    """
    p = Path(path)
    data = read_input(p, what="recording", limit=MAX_RECORDING_BYTES)
    if not data:
        raise SaphiraError(f"{p}: empty recording (0 bytes)")
    *lines, tail = data.split(b"\n")  # ``tail`` is what follows the last newline: b"" if none was cut
    rec = Recording(str(p))
    received: defaultdict[int, list[bytes]] = defaultdict(list)  # joined once at the end: linear
    version = 0
    end: tuple[int, int] | None = None
    offset = 0
    latest, idle = -1, 0
    for number, raw in enumerate(lines, 1):
        line = raw.decode("ascii", errors="replace").rstrip("\r")
        offset += len(raw) + 1
        position = SourcePosition(str(p), number)
        if number == 1:
            header = _HEADER_RE.match(line)
            if header is None:
                binary = re.search(r"[^\t\x20-\x7e]", line)
                if binary:  # the excerpt would be mostly escapes: name the byte instead
                    position = SourcePosition(str(p), number, binary.start() + 1)
                    code = raw[binary.start()]  # the ascii decode keeps one character per byte
                    raise SourceError(f"not a saphira recording: byte 0x{code:02x} is not text", position)
                raise SourceError(f"not a saphira recording (expected {HEADER!r})", position, line)
            version = _number(header[1], "the version", position, line)
            if version > VERSION:
                raise SourceError(f"recording version {version} is newer than this saphira reads ({VERSION})",
                                  position, line)  # fmt: skip
            continue
        if end is not None and line.strip():
            raise SourceError("a line after the recording's end line", position, line)
        if line.startswith("# robot "):
            rec.url = line[len("# robot ") :]
        if (note := _NOTE_RE.match(line)) is not None:
            rec.notes[note[1]] = note[2]
        if (marker := _END_RE.match(line)) is not None:
            end = _number(marker[1], "the event count", position, line), _number(marker[2], "the cycle", position, line)
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" ", 2)
        cycle = _number(parts[0], "a cycle", SourcePosition(str(p), number, 1), line)
        if cycle > latest:
            idle += cycle - latest - 1
            if idle > MAX_IDLE_CYCLES:
                raise SourceError(
                    f"cycle {cycle} leaves {idle} cycles without an event up to here (at most {MAX_IDLE_CYCLES}: "
                    "replay runs every cycle up to the last)", SourcePosition(str(p), number, 1), line,
                )  # fmt: skip
            latest = cycle
        try:
            kind, body = parts[1], parts[2]
            if kind == "<":
                received[cycle].append(bytes.fromhex(body))
            elif kind == ">":
                rec.sent[cycle].append(bytes.fromhex(body))
            elif kind == "=":
                rec.states[cycle] = body
            elif kind == "p" and version >= 3:
                x, y, th = (float(v) for v in body.split())
                rec.poses[cycle] = (x, y, th)
            elif kind == "b" and version >= 3:
                rec.behaviors.add(cycle, body)
            elif kind == "a" and version >= 3:
                rec.artifacts.add(cycle, body)
            elif kind == "t" and version >= 4:
                rec.tasks[cycle] = _task_rows_of(body)
            elif kind == "m" and version >= 3:
                rec.messages[cycle].append([str(v) for v in _json_of(body, list)][:3])
            else:
                raise ValueError(f"unknown event kind {kind!r}")
        except (IndexError, ValueError) as exc:
            raise SourceError(f"malformed recording line: {exc}", position, line) from None
        rec.events += 1
    rec.received.update((cycle, b"".join(chunks)) for cycle, chunks in received.items())
    after = f"after cycle {rec.last_cycle}" if rec.events else "before its first event"
    if tail:
        rec.problem = (f"cut mid-line at line {len(lines) + 1} (byte offset {offset}), {after}: "
                       f"the {len(tail)} bytes of that line are ignored")  # fmt: skip
    elif version >= 2 and end is None:
        rec.problem = f"no end line: it stops at line {len(lines)} (byte offset {offset}), {after}"
    elif end is not None and end[0] != rec.events:
        rec.problem = f"{rec.events} events where its end line counts {end[0]} (cycle {end[1]})"
    if not rec.events:  # a run that never reached its robot: nothing to replay, draw or export
        raise SaphiraError(f"{p}: empty recording: no events ({rec.problem or 'its end line counts 0'})")
    return rec


class JsonByCycle(Mapping[int, Any]):
    """A recording's JSON events of one kind (behaviors, artifacts) by cycle, kept as their text and
    decoded when asked for: decoded all at once, a 18 MB recording's behavior rows took 95 MB (two
    million small objects), while a replay looks at one cycle at a time. Each text is checked when
    added, so a malformed line is still an error of the reading, with its line."""

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.texts: dict[int, str] = {}

    def add(self, cycle: int, body: str) -> None:
        _json_of(body, self.kind)  # a ValueError for the reader to locate
        self.texts[cycle] = body

    def __getitem__(self, cycle: int) -> Any:
        return json.loads(self.texts[cycle])

    def __iter__(self) -> Iterator[int]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)


def _json_of(body: str, kind: type) -> Any:
    value = json.loads(body)  # a JSONDecodeError is a ValueError: reported with the line
    if not isinstance(value, kind):
        raise ValueError(f"expected a JSON {kind.__name__}")
    return value


MAX_TASK_DEPTH = 32
"""The deepest an Activities row of a recording may be indented (children of children...)."""


def _task_rows_of(body: str) -> list[list[Any]]:
    """A ``t`` line's rows, each checked: ``[name, state, depth, kind, running]``, at most :data:`MAX_TASKS`."""
    rows: list[list[Any]] = _json_of(body, list)
    if len(rows) > MAX_TASKS:
        raise ValueError(f"more than {MAX_TASKS} activity rows")
    for row in rows:
        if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str) and isinstance(row[1], str)
                and type(row[2]) is int and 0 <= row[2] <= MAX_TASK_DEPTH and isinstance(row[3], str)
                and isinstance(row[4], bool)):  # fmt: skip
            raise ValueError(f"an activity row is [name, state, depth 0..{MAX_TASK_DEPTH}, kind, running]")
    return rows


class ReplayTransport(Transport):
    """Plays a recording's received bytes back, each in the cycle it arrived in; swallows writes."""

    def __init__(self, recording: Recording, robot: Robot) -> None:
        self.recording = recording
        self.robot = robot
        self.url = f"replay:{recording.source}"
        self._closed = False
        self._cycle: int | None = None
        self._rest = bytearray()
        self.written: list[bytes] = []

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self, limit: int | None = None) -> bytes:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        cycle = self.robot.scheduler.cycle
        if cycle != self._cycle:  # a new cycle's bytes; what a limit left of the last cycle's comes first
            self._cycle = cycle
            self._rest += self.recording.received.get(cycle, b"")
        data = bytes(self._rest[:limit])
        del self._rest[: len(data)]
        return data

    def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        self.written.append(data)

    def close(self) -> None:
        self._closed = True


@dataclass
class ReplayReport:
    """How a replay went; ``problem`` says where the recording ended early ("" when it is whole)."""

    cycles: int
    compared: int
    mismatches: list[tuple[int, str, str]]
    problem: str = ""

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
    return ReplayReport(recording.last_cycle + 1, compared, mismatches, recording.problem)
