"""A simulator world (``.wld``, ARIA ``2D-Map``, Pyro blocks) as a Saphira map of WALLs (``saphira map``).

The manual (§8.6) says simulator worlds and client maps are different formats with no converter between
them, to be kept consistent by hand. This is the converter: every wall segment of the world becomes a
``WALL`` artifact (centre, direction in [0, 180), length), in the world's frame, which the embedded
simulator makes the global frame.

Segments on one line that overlap or touch (within :data:`JOIN_GAP` mm) are merged into one wall, so
a wall drawn in pieces (a `.wld`'s corridor side between two doors is one segment per piece; ARIA maps
split long walls) comes out as few artifacts as possible, while a doorway, a real gap, stays open.
Two segments are on one line when their directions agree within :data:`ANGLE_TOLERANCE` degrees and
their distances from the origin within :data:`OFFSET_TOLERANCE` mm. Zero-length segments and a map's
scan points are left out: a map is made of surfaces, not sensor returns. The command is
:mod:`saphira.app.map`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from saphira.client.artifacts import Wall, create_wall
from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.perception.mapfile import format_map
from saphira.world.world import World

__all__ = ["merge_segments", "world_map_text", "world_walls"]

JOIN_GAP = 1.0
"""mm: collinear segments this close end to end are one wall."""
ANGLE_TOLERANCE = 0.05
"""deg: segments this close in direction may lie on one line."""
OFFSET_TOLERANCE = 1.0
"""mm: and their lines this close to each other."""
MIN_LENGTH = 1e-6
"""mm: shorter segments are dropped."""


@dataclass
class _Line:
    """Segments found to lie on one line: direction (deg in [0, 180)), unit vector, normal offset."""

    th: float
    ux: float
    uy: float
    offset: float
    spans: list[tuple[float, float]]


_ANGLE_CELL = 2 * ANGLE_TOLERANCE
"""deg: the lines are filed by direction in cells this wide (see :class:`_LineIndex`)."""


class _LineIndex:
    """The lines found so far, filed so that finding the line a segment lies on looks at a few lines
    instead of every one (``saphira map`` was quadratic: 30,000 distinct walls took 80 s).

    A line within :data:`ANGLE_TOLERANCE` of a segment's direction is in the segment's direction cell or
    a neighbour (cells wrap at 180 degrees). Each cell files its lines twice:

    * by exact direction, then by normal offset in bands of ``2 * OFFSET_TOLERANCE``: the segment's first
      point, measured along a group's own normal, names the one or two bands that can hold its line.
      Walls are mostly drawn at a few directions, so this is the way while a cell has few directions;
    * by the offset of each line's first point along the cell's own normal, in bands as wide as two
      points of one line can differ there (``2 * reach * sin(cell width)``, ``reach`` the largest distance
      from the origin): three bands hold every candidate, whatever the directions.

    Either way the candidates are checked exactly and the first line found wins, as a scan of every
    line would have it.
    """

    GROUPS = 8
    """A cell with more directions than this is searched by its offset bands."""

    def __init__(self, reach: float) -> None:
        self.cell_count = round(180.0 / _ANGLE_CELL)
        self.window = max(2 * reach * math.sin(math.radians(_ANGLE_CELL)) + 2 * OFFSET_TOLERANCE, 1.0)
        self.groups: dict[int, dict[float, tuple[float, float, dict[int, list[int]]]]] = {}
        self.bands: dict[tuple[int, int], list[int]] = {}
        self.lines: list[_Line] = []

    def _cell_normal(self, cell: int) -> tuple[float, float]:
        th = math.radians((cell + 0.5) * _ANGLE_CELL)
        return -math.sin(th), math.cos(th)

    def _candidates(self, cell: int, x1: float, y1: float) -> list[int]:
        groups = self.groups.get(cell, {})
        found: list[int] = []
        if len(groups) <= self.GROUPS:
            width = 2 * OFFSET_TOLERANCE
            for ux, uy, bands in groups.values():
                offset = -uy * x1 + ux * y1
                for key in range(
                    int((offset - OFFSET_TOLERANCE) // width), int((offset + OFFSET_TOLERANCE) // width) + 1
                ):
                    found.extend(bands.get(key, ()))
            return found
        nx, ny = self._cell_normal(cell)
        offset = nx * x1 + ny * y1
        for key in range(int((offset - self.window) // self.window), int((offset + self.window) // self.window) + 1):
            found.extend(self.bands.get((cell, key), ()))
        return found

    def find(self, th: float, x1: float, y1: float, x2: float, y2: float) -> _Line | None:
        """The first line (in the order found) that the segment lies on, or None."""
        cell = int(th // _ANGLE_CELL)
        best: int | None = None
        for neighbour in {(cell - 1) % self.cell_count, cell % self.cell_count, (cell + 1) % self.cell_count}:
            for index in self._candidates(neighbour, x1, y1):
                if (best is None or index < best) and _on_line(self.lines[index], th, x1, y1, x2, y2):
                    best = index
        return None if best is None else self.lines[best]

    def add(self, line: _Line, x1: float, y1: float) -> None:
        """File ``line``, whose first segment starts at (``x1``, ``y1``)."""
        cell = int(line.th // _ANGLE_CELL) % self.cell_count
        number = len(self.lines)
        group = self.groups.setdefault(cell, {}).setdefault(line.th, (line.ux, line.uy, {}))[2]
        group.setdefault(int(line.offset // (2 * OFFSET_TOLERANCE)), []).append(number)
        nx, ny = self._cell_normal(cell)
        self.bands.setdefault((cell, int((nx * x1 + ny * y1) // self.window)), []).append(number)
        self.lines.append(line)


def _on_line(line: _Line, th: float, x1: float, y1: float, x2: float, y2: float) -> bool:
    diff = abs(th - line.th)
    return (
        min(diff, 180.0 - diff) <= ANGLE_TOLERANCE
        and abs(-line.uy * x1 + line.ux * y1 - line.offset) <= OFFSET_TOLERANCE
        and abs(-line.uy * x2 + line.ux * y2 - line.offset) <= OFFSET_TOLERANCE
    )


def merge_segments(segments: FloatArray) -> FloatArray:
    """``(N, 4)`` segments → ``(M, 4)`` with collinear overlapping or touching segments joined.

    Lines keep the order in which their first segment appears; each line's pieces run along its direction.
    Time and memory are linear in the number of segments (:class:`_LineIndex`).
    """
    rows = np.asarray(segments, dtype=np.float64).reshape(-1, 4)
    finite = rows[np.isfinite(rows).all(axis=1)]
    index = _LineIndex(float(np.hypot(finite[:, 0::2], finite[:, 1::2]).max()) if finite.size else 0.0)
    for x1, y1, x2, y2 in rows.tolist():
        length = math.hypot(x2 - x1, y2 - y1)
        if not length >= MIN_LENGTH:
            continue
        th = math.degrees(math.atan2(y2 - y1, x2 - x1)) % 180.0
        line = index.find(th, x1, y1, x2, y2)
        if line is None:
            ux, uy = math.cos(math.radians(th)), math.sin(math.radians(th))
            line = _Line(th, ux, uy, -uy * x1 + ux * y1, [])
            index.add(line, x1, y1)
        a, b = line.ux * x1 + line.uy * y1, line.ux * x2 + line.uy * y2
        line.spans.append((min(a, b), max(a, b)))
    lines = index.lines
    merged: list[tuple[float, float, float, float]] = []
    for line in lines:
        spans = sorted(line.spans)
        lo, hi = spans[0]
        joined = []
        for a, b in spans[1:]:
            if a <= hi + JOIN_GAP:
                hi = max(hi, b)
            else:
                joined.append((lo, hi))
                lo, hi = a, b
        joined.append((lo, hi))
        nx, ny = -line.uy * line.offset, line.ux * line.offset  # the line's point nearest the origin
        for a, b in joined:
            merged.append((nx + a * line.ux, ny + a * line.uy, nx + b * line.ux, ny + b * line.uy))
    return np.array(merged, dtype=np.float64).reshape(-1, 4)


def world_walls(world: World, *, merge: bool = True) -> list[Wall]:
    """The world's segments (merged unless ``merge`` is False) as global ``WALL`` artifacts."""
    segments = merge_segments(world.segments) if merge else world.segments
    walls = []
    origin = Pose()
    for x1, y1, x2, y2 in segments:
        length = math.hypot(x2 - x1, y2 - y1)
        if length < MIN_LENGTH:
            continue
        th = math.degrees(math.atan2(y2 - y1, x2 - x1)) % 180.0
        cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
        walls.append(create_wall(origin, _round(cx), _round(cy), _round(th), _round(length), global_coords=True))
    return walls


def _round(value: float) -> float:
    """Map files are in mm: a thousandth of a mm is plenty, and keeps the file free of float noise."""
    return round(float(value), 3) + 0.0


def world_map_text(world: World, *, merge: bool = True) -> str:
    """The Saphira map file for ``world``: a header naming the source, one ``WALL`` per wall, then the
    world's named goals as ``GOAL`` lines (for ``sfFindGoal`` once the map is loaded)."""
    walls = world_walls(world, merge=merge)
    header = (
        f"Saphira map converted from the simulator world {Path(world.source).name}\n"
        f"by 'saphira map': {len(world.segments)} segments -> {len(walls)} WALL artifacts "
        f"({'collinear touching segments merged' if merge else 'one per segment'}).\n"
        "Global frame = the world's frame; mm and degrees."
    )
    return format_map(walls, header=header, goals=world.goals)
