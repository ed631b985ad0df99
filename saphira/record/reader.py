"""Reading a recording (the format: :mod:`saphira.record.recording`), line by line, in bounded memory.

A recording may hold hours of a robot (up to :data:`MAX_RECORDING_BYTES`), so nothing that plays it reads
it whole. :func:`scan_recording` makes one pass that checks every line as a replay would and keeps only
what a replay needs before its first cycle (:class:`RecordingInfo`: the notes, where the recorded link
connected, the last cycle, where the file ends and why); :func:`recorded_cycles` then makes a second pass
and yields the events one cycle at a time (:class:`CycleEvents`). Memory is that of one cycle, whatever
the recording's length; a bad line is still an error of the reading, located by file and line, before
anything is played. The lines of a recording are in the order of their cycles (the recorder stamps them
with the scheduler's cycle as it writes them), which is what lets a cycle be played as soon as the next
one's first line is read. :func:`read_recording` keeps the whole recording in memory, by cycle, for a
program that looks at it all (a test, a tool).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.geometry import Pose
from saphira.core.inputfile import MIB, bounded_int, open_input, too_large
from saphira.record.extras import MAX_TASKS

__all__ = [
    "HEADER", "MAX_IDLE_CYCLES", "MAX_RECORDING_BYTES", "MAX_TASK_DEPTH", "VERSION", "CycleEvents",
    "JsonByCycle", "Recording", "RecordingInfo", "read_recording", "recorded_cycles", "scan_recording",
]  # fmt: skip

VERSION = 4
HEADER = f"# saphira recording {VERSION}"
MAX_RECORDING_BYTES = 256 * MIB
"""The largest recording read (some hours of a robot at 10 cycles a second)."""
MAX_IDLE_CYCLES = 100_000
"""Cycles without any event a recording may hold in all (replay runs them too, some 30 us each)."""
MAX_TASK_DEPTH = 32
"""The deepest an Activities row of a recording may be indented (children of children...)."""
_HEADER_RE = re.compile(r"# saphira recording (\w+)$")
_END_RE = re.compile(r"# end (\S+) events, cycle (\S+)$")
_NOTE_RE = re.compile(r"# (world|params) (.+)$")


@dataclass
class RecordingInfo:
    """What a pass over a recording found: all a replay needs before its first cycle, in constant memory.

    ``problem`` is empty for a whole recording; otherwise it says how and where it ended early.
    """

    source: str
    url: str = ""
    notes: dict[str, str] = field(default_factory=dict)
    """Version 3: ``world`` (the embedded simulator's) and ``params`` (the run's ``--params``), if any."""
    version: int = 0
    events: int = 0
    first_sent: int | None = None
    """The cycle of the first packet sent to the robot: the recorded link started its handshake there."""
    last_cycle: int = 0
    """The last cycle with a received packet or a state: a replay plays every cycle up to it."""
    has_behaviors: bool = False
    """Whether it holds the behaviors' state (``b`` lines, version 3)."""
    problem: str = ""
    lines: int = 0
    """The complete lines read: a second pass reads these and no more, should the file have grown since."""


@dataclass
class CycleEvents:
    """What a recording holds for one cycle; ``None`` where the cycle has no such line."""

    cycle: int
    received: bytes = b""
    """The packets received from the robot in the cycle, framed, back to back."""
    state: str | None = None
    """The reflector's state at the end of the cycle (:func:`saphira.record.recording.state_line`)."""
    pose: Pose | None = None
    behaviors: str | None = None
    """The behaviors' state as its JSON text (an object), when it changed in the cycle."""
    artifacts: str | None = None
    """The map's artifacts as their JSON text (a list of rows), when they changed in the cycle."""
    tasks: list[Any] | None = None
    messages: list[list[str]] = field(default_factory=list)
    """``[level, name, text]`` of every message and log record of the cycle."""


@dataclass
class Recording(RecordingInfo):
    """A whole recording in memory, by cycle (:func:`read_recording`)."""

    received: dict[int, bytes] = field(default_factory=lambda: defaultdict(bytes))
    sent: dict[int, list[bytes]] = field(default_factory=lambda: defaultdict(list))
    states: dict[int, str] = field(default_factory=dict)
    behaviors: JsonByCycle = field(default_factory=lambda: JsonByCycle(dict))
    """Version 3: the behaviors' state, in the cycles it changed in (:mod:`saphira.record.extras`)."""
    messages: dict[int, list[list[str]]] = field(default_factory=lambda: defaultdict(list))
    """Version 3: ``[level, name, text]`` of every message and log record, by cycle."""
    poses: dict[int, Pose] = field(default_factory=dict)
    """Version 3: the global pose (x, y mm, th deg) at the end of the cycles it changed in."""
    artifacts: JsonByCycle = field(default_factory=lambda: JsonByCycle(list))
    """Version 3: the map's artifacts ``[type, id, x, y, th, width, length]``, in the cycles they changed in."""
    tasks: dict[int, list[Any]] = field(default_factory=dict)
    """Version 4: the Activities rows ``[name, state, depth, kind, running]``, in the cycles they changed in."""


Event = tuple[int, str, Any]
"""One event line: its cycle, its kind (``<``, ``>``, ``=``, ``p``, ``b``, ``a``, ``t``, ``m``) and its value."""


def scan_recording(path: str | Path) -> RecordingInfo:
    """Check every line of a recording and say what it holds, keeping none of its events.

    A malformed line is a :class:`SourceError` naming file:line; an empty file, or one without an event
    (only its header and end line), is a :class:`SaphiraError`. A recording that ended early is read up to
    its last complete line, with :attr:`RecordingInfo.problem` set.
    """
    info = RecordingInfo(str(path))
    for _ in _events(info, None):
        pass
    return info


def read_recording(path: str | Path) -> Recording:
    """The whole recording in memory (errors as :func:`scan_recording`'s)."""
    rec = Recording(str(path))
    received: defaultdict[int, list[bytes]] = defaultdict(list)  # joined once at the end: linear
    for cycle, kind, value in _events(rec, None):
        if kind == "<":
            received[cycle].append(value)
        elif kind == ">":
            rec.sent[cycle].append(value)
        elif kind == "=":
            rec.states[cycle] = value
        elif kind == "p":
            rec.poses[cycle] = value
        elif kind == "b":
            rec.behaviors.texts[cycle] = value
        elif kind == "a":
            rec.artifacts.texts[cycle] = value
        elif kind == "t":
            rec.tasks[cycle] = value
        else:
            rec.messages[cycle].append(value)
    rec.received.update((cycle, b"".join(chunks)) for cycle, chunks in received.items())
    return rec


def recorded_cycles(info: RecordingInfo) -> Generator[CycleEvents]:
    """The events of every cycle from 0 to ``info.last_cycle`` (those without any too), read as they are
    played: ``info`` is :func:`scan_recording`'s, and only the lines it checked are read again."""
    current = CycleEvents(0)
    received: list[bytes] = []
    for cycle, kind, value in _events(RecordingInfo(info.source), info.lines):
        if cycle > info.last_cycle:
            break  # what was sent or said after the last state: nothing plays it
        while current.cycle < cycle:
            current.received = b"".join(received)
            received.clear()
            yield current
            current = CycleEvents(current.cycle + 1)
        if kind == "<":
            received.append(value)
        elif kind == "=":
            current.state = value
        elif kind == "p":
            current.pose = value
        elif kind == "b":
            current.behaviors = value
        elif kind == "a":
            current.artifacts = value
        elif kind == "t":
            current.tasks = value
        elif kind == "m":
            current.messages.append(value)
    if current.cycle < info.last_cycle:
        raise SaphiraError(f"{info.source}: the recording changed while it was replayed (it ends before cycle "
                           f"{info.last_cycle}, where it ended when it was read)")  # fmt: skip
    current.received = b"".join(received)
    yield current


def _number(text: str, what: str, position: SourcePosition, line: str) -> int:
    """``text`` as a whole number of at most 12 digits (0 or more), or a SourceError naming ``what``."""
    value = bounded_int(text, digits=12)
    if value is None or text[:1] in "+-":
        raise SourceError(f"{what} must be a whole number of at most 12 digits, not {quoted(text)}", position, line)
    return value


def _events(info: RecordingInfo, stop: int | None) -> Iterator[Event]:
    """Every event of the recording ``info.source`` in file order, each line checked; fills ``info`` as it
    goes and, unless ``stop`` (a count of lines to read) is given, checks the end at the end."""
    path = info.source
    with open_input(path, what="recording", limit=MAX_RECORDING_BYTES) as handle:
        yield from _lines(info, handle, stop)


def _lines(info: RecordingInfo, handle: IO[bytes], stop: int | None) -> Iterator[Event]:
    path = info.source
    end: tuple[int, int] | None = None
    offset = number = 0
    latest, idle = -1, 0
    tail = b""
    while stop is None or number < stop:
        try:
            raw = handle.readline(MAX_RECORDING_BYTES + 1 - offset)
        except OSError as exc:
            where = SourcePosition(path, number + 1)
            raise SourceError(f"cannot read recording: {exc.strerror or exc}", where) from None
        if not raw.endswith(b"\n"):
            if offset + len(raw) > MAX_RECORDING_BYTES:  # it grew after the check at opening
                raise too_large("recording", MAX_RECORDING_BYTES, SourcePosition(path, 0))
            tail = raw  # b"" at the end of a file whose last line is whole
            break
        number += 1
        offset += len(raw)
        raw = raw[:-1]
        line = raw.decode("ascii", errors="replace").rstrip("\r")
        position = SourcePosition(path, number)
        if number == 1:
            info.version = _header(raw, line, position)
            continue
        blank = not line.strip()
        if end is not None and not blank:
            raise SourceError("a line after the recording's end line", position, line)
        if line.startswith("#"):
            if line.startswith("# robot "):
                info.url = line[len("# robot ") :]
            if (note := _NOTE_RE.match(line)) is not None:
                info.notes[note[1]] = note[2]
            if (marker := _END_RE.match(line)) is not None:
                end = (_number(marker[1], "the event count", position, line),
                       _number(marker[2], "the cycle", position, line))  # fmt: skip
            continue
        if blank:
            continue
        parts = line.split(" ", 2)
        cycle = _number(parts[0], "a cycle", SourcePosition(path, number, 1), line)
        if cycle < latest:
            raise SourceError(f"cycle {cycle} after a line of cycle {latest}: the lines of a recording are in the "
                              "order of their cycles", SourcePosition(path, number, 1), line)  # fmt: skip
        if cycle > latest:
            idle += cycle - latest - 1
            if idle > MAX_IDLE_CYCLES:
                raise SourceError(
                    f"cycle {cycle} leaves {idle} cycles without an event up to here (at most {MAX_IDLE_CYCLES}: "
                    "replay runs every cycle up to the last)", SourcePosition(path, number, 1), line,
                )  # fmt: skip
            latest = cycle
        try:
            kind, value = _event(parts[1], parts[2], info.version)
        except (IndexError, ValueError) as exc:
            raise SourceError(f"malformed recording line: {exc}", position, line) from None
        info.events += 1
        if kind in "<=":
            info.last_cycle = cycle
        elif kind == ">" and info.first_sent is None:
            info.first_sent = cycle
        elif kind == "b":
            info.has_behaviors = True
        yield cycle, kind, value
    info.lines = number
    if stop is None:
        _check_end(info, end, tail, offset)


def _header(raw: bytes, line: str, position: SourcePosition) -> int:
    """The version the first line names, or the error saying why it is no recording's first line."""
    header = _HEADER_RE.match(line)
    if header is None:
        binary = re.search(r"[^\t\x20-\x7e]", line)
        if binary:  # the excerpt would be mostly escapes: name the byte instead
            position = SourcePosition(position.file, position.line, binary.start() + 1)
            code = raw[binary.start()]  # the ascii decode keeps one character per byte
            raise SourceError(f"not a saphira recording: byte 0x{code:02x} is not text", position)
        raise SourceError(f"not a saphira recording (expected {HEADER!r})", position, line)
    version = _number(header[1], "the version", position, line)
    if version > VERSION:
        raise SourceError(f"recording version {version} is newer than this saphira reads ({VERSION})", position, line)
    return version


def _event(kind: str, body: str, version: int) -> tuple[str, Any]:
    """An event line's kind and value, checked; a ValueError (or IndexError) for the reader to locate."""
    if kind == "<" or kind == ">":
        return kind, bytes.fromhex(body)
    if kind == "=":
        return kind, body
    if kind == "p" and version >= 3:
        x, y, th = (float(v) for v in body.split())
        return kind, Pose(x, y, th)
    if kind == "b" and version >= 3:
        _json_of(body, dict)
        return kind, body
    if kind == "a" and version >= 3:
        _json_of(body, list)
        return kind, body
    if kind == "t" and version >= 4:
        return kind, _task_rows_of(body)
    if kind == "m" and version >= 3:
        return kind, [str(v) for v in _json_of(body, list)][:3]
    raise ValueError(f"unknown event kind {kind!r}")


def _check_end(info: RecordingInfo, end: tuple[int, int] | None, tail: bytes, offset: int) -> None:
    """Set ``info.problem`` when the recording ended early; an error when it holds no event at all."""
    if not info.lines and not tail:
        raise SaphiraError(f"{info.source}: empty recording (0 bytes)")
    after = f"after cycle {info.last_cycle}" if info.events else "before its first event"
    if tail:
        info.problem = (f"cut mid-line at line {info.lines + 1} (byte offset {offset}), {after}: "
                        f"the {len(tail)} bytes of that line are ignored")  # fmt: skip
    elif info.version >= 2 and end is None:
        info.problem = f"no end line: it stops at line {info.lines} (byte offset {offset}), {after}"
    elif end is not None and end[0] != info.events:
        info.problem = f"{info.events} events where its end line counts {end[0]} (cycle {end[1]})"
    if not info.events:  # a run that never reached its robot: nothing to replay, draw or export
        raise SaphiraError(f"{info.source}: empty recording: no events ({info.problem or 'its end line counts 0'})")


class JsonByCycle(Mapping[int, Any]):
    """A recording's JSON events of one kind (behaviors, artifacts) by cycle, kept as their text and
    decoded when asked for: decoded all at once, a 18 MB recording's behavior rows took 95 MB (two
    million small objects). Each text was checked when it was read."""

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.texts: dict[int, str] = {}

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
