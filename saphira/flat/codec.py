"""The Flat4 controller protocol as text: every line the controller sends and every form Flat answers.

Flat (UT Austin's robot simulator) talks to its controller over TCP in lines of text. The controller
sends one line per step, read by Flat with ``sscanf("%c %lf %lf %lf %s")`` — a command letter
(``c`` continue, ``e`` end), linear velocity (mm/s), angular velocity (deg/s), applicability and a
one-word message — or a query letter with its arguments (``b d j l m o t s x``). Flat answers with
LISP-like forms: the step output ``( (n1 … n12) (X Y theta) time ( laser… ) )`` and the query replies
``(time :BLOB …)``, ``(time :DOORWAYS …)``, ``(time :JUMPS …)``, ``(time (:LEFT …) (:RIGHT …))``,
``(time :MAP-CHANGED …)``, ``(time :OPEN-SPACE 1|0)`` and ``(time seg1 seg2 …)``.

This module is the only place that knows the text: :func:`parse_input` / :func:`format_input` for the
controller's lines, :func:`parse_reply` / :func:`format_reply` for Flat's forms. Errors are
:class:`CodecError` and quote the offending text with its column. Numbers print as integers when whole,
else with one decimal (mm and degrees need no more); a message's blanks travel as ``_`` because
``%s`` stops at the first blank.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from saphira.core.errors import SaphiraError
from saphira.core.geometry import Pose

LASER_READINGS = 180
"""Readings in one laser scan: one per degree over 180 degrees."""


class CodecError(SaphiraError):
    """Text that is not a Flat line or form; the message quotes it and names the column."""

    def __init__(self, message: str, text: str, column: int) -> None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        super().__init__(f"{message} at column {column} of {shown!r}")
        self.text = text
        self.column = column


# ============================================================================ controller input
@dataclass(frozen=True)
class Control:
    """The per-step input: ``c`` (continue) or ``e`` (end), mm/s, deg/s, applicability, message."""

    command: str = "c"
    linear: float = 0.0
    angular: float = 0.0
    applicability: float = 1.0
    message: str = ""


@dataclass(frozen=True)
class BlobQuery:
    """``b``: clusters of laser points. Distances in mm, sizes in points."""

    min_inter_blob_distance: float
    max_intra_blob_distance: float
    max_blob_distance: float
    min_blob_size: float
    max_blob_size: float


@dataclass(frozen=True)
class DoorwayQuery:
    """``d``: openings in the laser data between ``min_theta`` and ``max_theta`` (deg)."""

    min_theta: float
    max_theta: float
    min_jump_size: float


@dataclass(frozen=True)
class JumpQuery:
    """``j``: every jump between neighbouring laser readings of at least ``min_jump_size`` mm."""

    min_jump_size: float


@dataclass(frozen=True)
class LaserQuery:
    """``l``: the robot-centric laser readings."""


@dataclass(frozen=True)
class MapQuery:
    """``m``: use another map file and put the robot at (x, y, theta)."""

    map_file: str
    x: float
    y: float
    theta: float


@dataclass(frozen=True)
class OpenSpaceQuery:
    """``o``: is there a free lane ``min_width`` wide to ``min_distance`` in the bearing range?"""

    min_theta: float
    max_theta: float
    min_distance: float
    min_width: int


@dataclass(frozen=True)
class TransitionQuery:
    """``t``: a map transition command of the Flat World file (case-sensitive)."""

    command: str


@dataclass(frozen=True)
class SegmentQuery:
    """``s``: line segments in the laser data (the twelve parameters of the seed's table)."""

    min_theta: float
    max_theta: float
    max_distance: float
    discontinuity_threshold: float
    squid_window_size: int
    squid_window_std_dev: float
    collinear_range_threshold: float
    collinear_theta_threshold: float
    collinear_contig_threshold: float
    min_segment_length: float
    use_filter: int
    filter_window_size: int


@dataclass(frozen=True)
class DefaultQuery:
    """``x``: the default sensor data (the step output, without a step)."""


Query = (
    BlobQuery
    | DoorwayQuery
    | JumpQuery
    | LaserQuery
    | MapQuery
    | OpenSpaceQuery
    | TransitionQuery
    | SegmentQuery
    | DefaultQuery
)
Input = Control | Query

# Letter → (class, field kinds): "f" a number, "i" an integer, "s" a word.
_QUERIES: dict[str, tuple[type[Query], str]] = {
    "b": (BlobQuery, "fffff"),
    "d": (DoorwayQuery, "fff"),
    "j": (JumpQuery, "f"),
    "l": (LaserQuery, ""),
    "m": (MapQuery, "sfff"),
    "o": (OpenSpaceQuery, "fffi"),
    "t": (TransitionQuery, "s"),
    "s": (SegmentQuery, "ffffifffffii"),
    "x": (DefaultQuery, ""),
}
_LETTERS = {cls: letter for letter, (cls, _) in _QUERIES.items()}


def _words(line: str) -> list[tuple[str, int]]:
    """Blank-separated words with their 1-based columns."""
    return [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", line)]


def _number(word: str, column: int, line: str, integer: bool = False) -> float:
    try:
        value = float(int(word)) if integer else float(word)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise CodecError(f"expected {kind}, not {word!r},", line, column) from None
    if not math.isfinite(value):
        raise CodecError(f"expected a finite number, not {word!r},", line, column)
    return value


def parse_input(line: str) -> Input:
    """One controller line as a :class:`Control` or a query. Raises :class:`CodecError`.

    ``c``/``e`` lines follow ``sscanf``: fields that are missing keep their defaults (0 velocities,
    applicability 1, no message), and only the message's first word counts. A query needs all its
    arguments.
    """
    text = line.rstrip("\r\n")
    words = _words(text)
    if not words:
        raise CodecError("empty line", text, 1)
    letter, column = words[0]
    if letter in ("c", "e"):
        numbers = [_number(w, c, text) for w, c in words[1:4]]
        numbers += [0.0, 0.0, 1.0][len(numbers) :]
        message = words[4][0] if len(words) > 4 else ""
        return Control(letter, numbers[0], numbers[1], numbers[2], message)
    if letter not in _QUERIES:
        raise CodecError(f"unknown command {letter!r} (expected one of c e b d j l m o t s x)", text, column)
    cls, kinds = _QUERIES[letter]
    args = words[1:]
    if len(args) < len(kinds):
        end = len(text) + 1
        raise CodecError(f"'{letter}' needs {len(kinds)} arguments, got {len(args)},", text, end)
    if len(args) > len(kinds):
        raise CodecError(
            f"'{letter}' takes {len(kinds)} arguments; unexpected {args[len(kinds)][0]!r}", text, args[len(kinds)][1]
        )
    values: list[Any] = []
    for kind, (word, col) in zip(kinds, args, strict=True):
        if kind == "s":
            values.append(word)
        elif kind == "i":
            values.append(int(_number(word, col, text, integer=True)))
        else:
            values.append(_number(word, col, text))
    return cls(*values)


def format_number(value: float) -> str:
    """A number as Flat prints it: an integer when whole (after rounding to 0.1), else one decimal."""
    rounded = round(float(value), 1)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.1f}"


def message_word(message: str) -> str:
    """A message as one ``%s`` word: blanks become ``_`` (nothing is lost to ``sscanf``)."""
    return re.sub(r"\s+", "_", message.strip())


def format_input(item: Input) -> str:
    """The line (without newline) a controller sends for ``item``."""
    if isinstance(item, Control):
        parts = [
            item.command,
            format_number(item.linear),
            format_number(item.angular),
            format_number(item.applicability),
        ]
        word = message_word(item.message)
        return " ".join([*parts, word] if word else parts)
    letter = _LETTERS[type(item)]
    fields = [getattr(item, name) for name in item.__dataclass_fields__]
    return " ".join([letter, *(f if isinstance(f, str) else format_number(f) for f in fields)])


# ============================================================================ Flat's forms
@dataclass(frozen=True)
class LaserReading:
    """One laser's data in the step output: ``(NAME angle n1 … n180)``, ranges in mm from the laser."""

    name: str
    angle: float
    ranges: tuple[float, ...]


@dataclass(frozen=True)
class StepOutput:
    """The per-step list: 12 sonar ranges (or none), pose (mm, mm, deg), time (ms), laser scans."""

    sonar: tuple[float, ...]
    pose: Pose
    time: int
    lasers: tuple[LaserReading, ...] = ()


@dataclass(frozen=True)
class Blob:
    x: float
    y: float
    r: float
    points: int


@dataclass(frozen=True)
class BlobReply:
    time: int
    blobs: tuple[Blob, ...]


@dataclass(frozen=True)
class Doorway:
    theta: float
    jump: float


@dataclass(frozen=True)
class DoorwaysReply:
    time: int
    doorways: tuple[Doorway, ...]


@dataclass(frozen=True)
class Jump:
    """A jump of ``size`` mm between reading ``(angle1, value1)`` and its neighbour ``(angle2, value2)``."""

    size: float
    angle1: float
    value1: float
    angle2: float
    value2: float


@dataclass(frozen=True)
class JumpsReply:
    time: int
    jumps: tuple[Jump, ...]


@dataclass(frozen=True)
class Reading:
    """A robot-centric laser reading: x, y (mm), range r (mm) and bearing theta (deg)."""

    x: float
    y: float
    r: float
    theta: float


@dataclass(frozen=True)
class LaserReply:
    """``(time (:LEFT r…) (:RIGHT r…))`` (or one ``(:TOP …)``): per laser, its readings."""

    time: int
    lasers: tuple[tuple[str, tuple[Reading, ...]], ...]


@dataclass(frozen=True)
class MapChanged:
    """``(time :MAP-CHANGED file)``; ``map_file`` None is ``:NO-TRANSITION-MATCH``."""

    time: int
    map_file: str | None


@dataclass(frozen=True)
class OpenSpaceReply:
    time: int
    open: bool


@dataclass(frozen=True)
class Segment:
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True)
class SegmentsReply:
    time: int
    segments: tuple[Segment, ...]


Reply = StepOutput | BlobReply | DoorwaysReply | JumpsReply | LaserReply | MapChanged | OpenSpaceReply | SegmentsReply
NO_TRANSITION_MATCH = ":NO-TRANSITION-MATCH"


def _n(values: object) -> str:
    if isinstance(values, tuple | list):
        return "(" + " ".join(_n(v) for v in values) + ")"
    if isinstance(values, str):
        return values
    assert isinstance(values, int | float)
    return format_number(values)


def format_reply(reply: Reply) -> str:
    """The one-line form Flat sends for ``reply`` (without newline)."""
    t = reply.time if not isinstance(reply, StepOutput) else 0
    if isinstance(reply, StepOutput):
        lasers = [(scan.name, scan.angle, *scan.ranges) for scan in reply.lasers]
        return _n((tuple(reply.sonar), tuple(reply.pose), reply.time, tuple(lasers)))
    if isinstance(reply, BlobReply):
        return _n((t, ":BLOB", *((b.x, b.y, b.r, b.points) for b in reply.blobs)))
    if isinstance(reply, DoorwaysReply):
        return _n((t, ":DOORWAYS", *((d.theta, d.jump) for d in reply.doorways)))
    if isinstance(reply, JumpsReply):
        return _n((t, ":JUMPS", *((j.size, (j.angle1, j.value1), (j.angle2, j.value2)) for j in reply.jumps)))
    if isinstance(reply, LaserReply):
        return _n((t, *((":" + name, *((r.x, r.y, r.r, r.theta) for r in rs)) for name, rs in reply.lasers)))
    if isinstance(reply, MapChanged):
        return _n((t, ":MAP-CHANGED", reply.map_file if reply.map_file is not None else NO_TRANSITION_MATCH))
    if isinstance(reply, OpenSpaceReply):
        return _n((t, ":OPEN-SPACE", int(reply.open)))
    return _n((t, *(((s.x1, s.y1), (s.x2, s.y2)) for s in reply.segments)))


# ---------------------------------------------------------------------------- reading forms
@dataclass(frozen=True)
class _Atom:
    text: str
    column: int


@dataclass(frozen=True)
class _List:
    items: tuple[_Atom | _List, ...]
    column: int


Node = _Atom | _List
_TOKEN = re.compile(r"\s*(?:(\()|(\))|([^\s()]+))")


def read_form(text: str) -> _List:
    """The one list ``text`` holds (anything after it is an error)."""
    stack: list[list[Node]] = []
    starts: list[int] = []
    result: _List | None = None
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN.match(stripped, pos)
        if match is None:  # pragma: no cover - the pattern matches any non-blank text
            raise CodecError("unreadable text", text, pos + 1)
        column = match.start(match.lastindex or 0) + 1
        pos = match.end()
        if result is not None:
            raise CodecError("text after the end of the form", text, column)
        if match.group(1):
            stack.append([])
            starts.append(column)
        elif match.group(2):
            if not stack:
                raise CodecError("unbalanced ')'", text, column)
            done = _List(tuple(stack.pop()), starts.pop())
            if stack:
                stack[-1].append(done)
            else:
                result = done
        else:
            if not stack:
                raise CodecError(f"{match.group(3)!r} outside a list", text, column)
            stack[-1].append(_Atom(match.group(3), column))
    if stack:
        raise CodecError("unclosed '('", text, starts[-1])
    if result is None:
        raise CodecError("no form", text, 1)
    return result


class _Reader:
    """Typed access to a form's parts, with errors that point into the text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def fail(self, what: str, node: Node) -> CodecError:
        return CodecError(what, self.text, node.column)

    def num(self, node: Node) -> float:
        if not isinstance(node, _Atom):
            raise self.fail("expected a number, not a list,", node)
        return _number(node.text, node.column, self.text)

    def lst(self, node: Node, size: int | None = None) -> tuple[Node, ...]:
        if not isinstance(node, _List):
            raise self.fail(f"expected a list, not {node.text!r},", node)
        if size is not None and len(node.items) != size:
            raise self.fail(f"expected a list of {size}, got {len(node.items)} items,", node)
        return node.items

    def nums(self, node: Node, size: int | None = None) -> tuple[float, ...]:
        return tuple(self.num(item) for item in self.lst(node, size))

    def word(self, node: Node) -> str:
        if not isinstance(node, _Atom):
            raise self.fail("expected a word, not a list,", node)
        return node.text


def parse_reply(text: str) -> Reply:
    """One of Flat's forms, told apart by its shape. Raises :class:`CodecError`."""
    form = read_form(text)
    r = _Reader(text)
    items = form.items
    if not items:
        raise r.fail("empty form", form)
    if isinstance(items[0], _List):
        return _step_output(r, form)
    time = int(r.num(items[0]))
    rest = items[1:]
    tag = rest[0].text if rest and isinstance(rest[0], _Atom) else None
    if tag == ":BLOB":
        blobs = [r.nums(b, 4) for b in rest[1:]]
        return BlobReply(time, tuple(Blob(x, y, rad, int(n)) for x, y, rad, n in blobs))
    if tag == ":DOORWAYS":
        return DoorwaysReply(time, tuple(Doorway(*r.nums(d, 2)) for d in rest[1:]))
    if tag == ":JUMPS":
        jumps = []
        for node in rest[1:]:
            size, first, second = r.lst(node, 3)
            jumps.append(Jump(r.num(size), *r.nums(first, 2), *r.nums(second, 2)))
        return JumpsReply(time, tuple(jumps))
    if tag == ":MAP-CHANGED":
        if len(rest) != 2:
            raise r.fail("':MAP-CHANGED' takes one map file or :NO-TRANSITION-MATCH", rest[0])
        name = r.word(rest[1])
        return MapChanged(time, None if name == NO_TRANSITION_MATCH else name)
    if tag == ":OPEN-SPACE":
        if len(rest) != 2 or r.word(rest[1]) not in ("0", "1"):
            raise r.fail("':OPEN-SPACE' takes 1 or 0", rest[-1])
        return OpenSpaceReply(time, r.word(rest[1]) == "1")
    if tag is not None:
        raise r.fail(f"unknown reply keyword {tag!r}", rest[0])
    if (
        rest
        and isinstance(rest[0], _List)
        and rest[0].items
        and isinstance(rest[0].items[0], _Atom)
        and rest[0].items[0].text.startswith(":")
    ):
        lasers = []
        for node in rest:
            head, *readings = r.lst(node)
            name = r.word(head)
            if not name.startswith(":"):
                raise r.fail(f"expected a laser name such as :LEFT, not {name!r},", head)
            lasers.append((name[1:], tuple(Reading(*r.nums(reading, 4)) for reading in readings)))
        return LaserReply(time, tuple(lasers))
    segments = []
    for node in rest:
        first, second = r.lst(node, 2)
        segments.append(Segment(*r.nums(first, 2), *r.nums(second, 2)))
    return SegmentsReply(time, tuple(segments))


def _step_output(r: _Reader, form: _List) -> StepOutput:
    if len(form.items) != 4:
        raise r.fail(f"a step output has 4 parts (sonar, pose, time, lasers), not {len(form.items)},", form)
    sonar_node, pose_node, time_node, laser_node = form.items
    sonar = r.nums(sonar_node)
    if len(sonar) not in (0, 12):
        raise r.fail(f"expected 12 sonar readings or none, got {len(sonar)},", sonar_node)
    x, y, th = r.nums(pose_node, 3)
    scans = []
    for node in r.lst(laser_node):
        head, angle, *ranges = r.lst(node)
        name = r.word(head).lstrip(":")
        if len(ranges) != LASER_READINGS:
            raise r.fail(f"laser {name} has {len(ranges)} readings, not {LASER_READINGS},", node)
        scans.append(LaserReading(name, r.num(angle), tuple(r.num(v) for v in ranges)))
    return StepOutput(sonar, Pose(x, y, th), int(r.num(time_node)), tuple(scans))
