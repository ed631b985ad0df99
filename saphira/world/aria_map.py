"""Reader for ARIA/MobileSim `2D-Map` files (`.map`).

A ``2D-Map`` first line, then ``Key: value`` headers (``NumLines``, ``NumPoints``, ``Cairn:`` map
objects, …), then a ``LINES`` section of ``x1 y1 x2 y2`` walls and a ``DATA`` section of ``x y``
scan points, all in mm. Real maps hold tens of thousands of points, so each section is converted
in one numpy call; a line-by-line pass runs only to point at a bad line.

Maps from the field are read as ARIA reads them: a UTF-8 byte-order mark and CRLF line ends are
accepted, and ``NumLines``/``NumPoints`` may be missing (maps drawn in Mapper3 hold only lines and an
empty ``DATA`` section, or no ``DATA`` at all). When a count is given it must match its section: a
mismatch means a truncated or hand-edited file, which is refused rather than half loaded.
"""

from __future__ import annotations

import itertools
import math
import re
import shlex
from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.errors import SourcePosition, quoted
from saphira.core.geometry import Pose
from saphira.core.inputfile import bounded_int
from saphira.world.world import MAX_COORDINATE, MAX_WALLS, MapObject, World, WorldError, bounds_of, parse_number

_HEADER = re.compile(r"([A-Za-z_][\w.\-]*):\s*(.*)")
_TOKEN = re.compile(r"\S+")
_ROWS_AT_ONCE = 4096
"""Rows of a section turned into numbers at a time: a 14 MiB map's rows as lists of strings took 650 MB."""
_SECTIONS = {"LINES": ("NumLines", 4, "x1 y1 x2 y2"), "DATA": ("NumPoints", 2, "x y")}
_BOM = "\ufeff"
_GOAL_KINDS = ("goal", "goalwithheading")


def is_aria_map(text: str) -> bool:
    """Whether ``text`` starts (after a byte-order mark and blank lines) with an ARIA ``2D-Map`` line."""
    return text.lstrip(_BOM).lstrip().startswith("2D-Map")


def home_pose(item: MapObject) -> Pose:
    """Where a ``RobotHome``/``Dock`` object puts the robot.

    A plain object is its pose. An object with an extent is a home *area*: ARIA's
    ``ArMapObject::findCenter`` gives the centre of the ``x1 y1 x2 y2`` rectangle rotated by the
    object's heading about the map origin, and the robot faces that heading. (Mapper3 writes the
    area's first corner as the object's x y, which may lie outside the walls.)
    """
    if item.extent is None:
        return item.pose
    x1, y1, x2, y2 = item.extent
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    c, s = math.cos(math.radians(item.pose.th)), math.sin(math.radians(item.pose.th))
    return Pose(cx * c - cy * s, cx * s + cy * c, item.pose.th)


@dataclass
class _Section:
    """A ``LINES`` or ``DATA`` block: where its keyword is and the rows that follow it."""

    keyword: str
    line: int
    rows: FloatArray


@dataclass
class _Count:
    """A ``NumLines``/``NumPoints`` header value and where it was given."""

    value: int
    line: int


class _MapReader:
    def __init__(self, text: str, filename: str) -> None:
        self.file = filename
        self.lines = text.removeprefix(_BOM).splitlines()
        self.sections: dict[str, _Section] = {}
        self.counts: dict[str, _Count] = {}
        self.objects: list[MapObject] = []

    def error(self, message: str, index: int, column: int = 0) -> WorldError:
        """An error at 0-based line ``index``."""
        text = self.lines[index] if index < len(self.lines) else None
        return WorldError(message, SourcePosition(self.file, index + 1, column), text)

    def read(self) -> None:
        first = next((i for i, line in enumerate(self.lines) if line.strip()), 0)
        if first >= len(self.lines) or not self.lines[first].strip().startswith("2D-Map"):
            raise self.error("an ARIA map starts with a '2D-Map' line", first, 1)
        index = first + 1
        while index < len(self.lines):
            stripped = self.lines[index].strip()
            if not stripped:
                index += 1
            elif stripped in _SECTIONS:
                index = self.read_section(stripped, index)
            elif stripped[0].isdigit() or stripped[0] in "+-.":
                raise self.error("numbers outside a LINES or DATA section", index, 1)
            else:
                self.read_header(index)
                index += 1
        self.check_counts()

    def read_header(self, index: int) -> None:
        line = self.lines[index]
        match = _HEADER.fullmatch(line.strip())
        if match is None:
            raise self.error(f"expected 'Key: value', LINES or DATA, not {line.strip()!r}", index, 1)
        key, value = match.groups()
        if key == "Cairn":
            self.objects.append(self.read_cairn(value, index))
        elif key in ("NumLines", "NumPoints"):
            column = match.start(2) + 1 + len(line) - len(line.lstrip())
            if key in self.counts:
                raise self.error(f"{key} given twice (first on line {self.counts[key].line})", index, 1)
            count = bounded_int(value.strip(), digits=12)
            if count is None or count < 0:
                text = value.strip()
                raise self.error(f"{key} must be a whole number (at most 12 digits), not {quoted(text)}", index, column)
            self.counts[key] = _Count(count, index + 1)

    def read_cairn(self, value: str, index: int) -> MapObject:
        """``Cairn: Kind x y th "description" ICON "name" [x1 y1 x2 y2] ["description"]``.

        As in ARIA's ``ArMapObject::createMapObject``, 11 or more fields carry an extent and a field
        after the name (or after the extent) replaces the description.
        """
        try:
            fields = shlex.split(value)
        except ValueError as err:
            raise self.error(f"bad Cairn object: {err}", index, 1) from err
        if len(fields) < 4:
            raise self.error("a Cairn object needs a kind and a pose: Cairn: Kind x y th …", index, 1)
        numbers = [self.number(token, index) for token in fields[1:4]]
        extent = None
        description, icon, name = [*fields[4:7], "", "", ""][:3]
        if len(fields) in (8, 12):
            description = fields[-1]
        if len(fields) > 8:
            if len(fields) not in (11, 12):
                raise self.error(
                    f"a Cairn object's extent is 4 numbers (x1 y1 x2 y2), found {len(fields) - 7}", index, 1
                )
            x1, y1, x2, y2 = (self.number(token, index) for token in fields[7:11])
            extent = (x1, y1, x2, y2)
        return MapObject(
            kind=fields[0],
            pose=Pose(*numbers),
            description=description,
            icon=icon,
            name=name,
            extent=extent,
            line=index + 1,
        )

    def number(self, token: str, index: int) -> float:
        line = self.lines[index]
        column = line.find(token, line.index(":") + 1) + 1
        return parse_number(token, self.file, index + 1, column, line)

    def read_section(self, keyword: str, index: int) -> int:
        """Read the rows after ``keyword`` at ``index``; return the index of the first line after them."""
        if keyword in self.sections:
            earlier = self.sections[keyword].line
            raise self.error(f"a second {keyword} section (the first is on line {earlier})", index, 1)
        _, width, _ = _SECTIONS[keyword]
        end = index + 1
        lines = self.lines
        while end < len(lines):
            stripped = lines[end].lstrip()
            if stripped and stripped[0].isalpha():
                break
            end += 1
        if keyword == "LINES":
            filled = (i for i in range(index + 1, end) if lines[i].strip())
            beyond = next(itertools.islice(filled, MAX_WALLS, None), None)
            if beyond is not None:
                raise self.error(f"more than {MAX_WALLS} walls (the most a world may have)", beyond, 1)
        blocks: list[FloatArray] = []
        for start in range(index + 1, end, _ROWS_AT_ONCE):  # a few thousand rows of strings at a time
            rows = [row for row in (line.split() for line in lines[start : min(end, start + _ROWS_AT_ONCE)]) if row]
            block: FloatArray | None = None
            if all(len(row) == width for row in rows):
                try:
                    block = np.array(rows, dtype=np.float64).reshape(-1, width)
                except ValueError:
                    block = None
            if block is None or not (np.abs(block) <= MAX_COORDINATE).all():  # False for NaN too
                self.find_bad_row(keyword, index + 1, end)
            blocks.append(block)
        table = np.concatenate(blocks) if blocks else np.zeros((0, width))
        self.sections[keyword] = _Section(keyword, index + 1, table)
        return end

    def find_bad_row(self, keyword: str, start: int, end: int) -> NoReturn:
        """Raise the error for the first malformed row between ``start`` and ``end``."""
        _, width, layout = _SECTIONS[keyword]
        for index in range(start, end):
            tokens = list(_TOKEN.finditer(self.lines[index]))
            if not tokens:
                continue
            if len(tokens) != width:
                raise self.error(f"a {keyword} row is {width} numbers ({layout}), this one has {len(tokens)}", index, 1)
            for token in tokens:
                parse_number(token.group(), self.file, index + 1, token.start() + 1, self.lines[index])
        raise self.error(f"bad {keyword} section", start - 1, 1)  # pragma: no cover

    def check_counts(self) -> None:
        for keyword, (count_key, _, _) in _SECTIONS.items():
            section = self.sections.get(keyword)
            count = self.counts.get(count_key)
            found = 0 if section is None else section.rows.shape[0]
            if count is not None and count.value != found:
                where = f"the {keyword} section (line {section.line})" if section else f"there is no {keyword} section"
                has = f"has {found}" if section else "so 0"
                raise self.error(f"{count_key} is {count.value} but {where} {has}", count.line - 1, 1)

    def table(self, keyword: str) -> FloatArray:
        section = self.sections.get(keyword)
        return section.rows if section is not None else np.zeros((0, _SECTIONS[keyword][1]))

    def homes(self) -> tuple[Pose, ...]:
        """Every ``RobotHome`` in file order, else every ``Dock`` (MobileSim's fallback)."""
        for kind in ("robothome", "dock"):
            found = tuple(home_pose(item) for item in self.objects if item.kind.lower() == kind)
            if found:
                return found
        return ()


def parse_map(text: str, filename: str, name: str = "") -> World:
    """Build a :class:`World` from the text of a `2D-Map` file; errors name ``filename:line[:column]``.

    The start pose is the first ``RobotHome`` object, else the first ``Dock`` (as in MobileSim);
    with two or more homes, :attr:`World.homes` keeps them all in file order and the simulator
    puts each further robot on the next one. ``NumLines``/``NumPoints``, when given, must match the
    rows of the ``LINES``/``DATA`` sections.
    """
    reader = _MapReader(text, filename)
    reader.read()
    segments = reader.table("LINES")
    points = reader.table("DATA")
    homes = reader.homes()
    return World(
        name=name,
        source=filename,
        segments=segments,
        points=points,
        bounds=bounds_of(segments, points),
        start_pose=homes[0] if homes else None,
        homes=homes,
        goals=tuple((o.name, o.pose) for o in reader.objects if o.kind.lower() in _GOAL_KINDS),
        map_objects=tuple(reader.objects),
    )
