"""Reader for world files in the Pyro-era block format (``OriginPad``, ``Start Line`` … ``End``).

No published file or documentation of this format was found (see ``tests/data/pyro-worlds``); this is
the reading we give it, in the units of every other Pioneer world (mm, degrees):

* ``OriginPad x y [th]``: the pad the robot starts on (at most one).
* ``Start Line [name]`` … ``End``: walls. Rows of ``x y`` are the vertices of a polyline (each
  joined to the next); rows of ``x1 y1 x2 y2`` are separate segments. A block holds one kind.
* ``Start Goal [name]`` … ``End``: one row ``x y [th]``, a named point (default ``goal N``).
* ``;`` and ``#`` start comments; keywords are case-insensitive.

Anything else (another block kind, a directive, a row outside a block) is something the simulator
cannot represent and is refused, naming file, line, column and the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from saphira.geometry import Pose
from saphira.sim.wldfile import SourceLine, source_lines
from saphira.sim.world import World, bounds_of

_BLOCKS = ("line", "goal")
_SIGNATURE = re.compile(r"^\s*(originpad|start|end)\b", re.IGNORECASE | re.MULTILINE)


def is_block_world(text: str) -> bool:
    """Whether ``text`` uses the block format: a line starts with ``OriginPad``, ``Start`` or ``End``.

    None of these is a Saphira world directive, so a `.wld` file never matches.
    """
    return _SIGNATURE.search(text) is not None


@dataclass
class _Block:
    """An open ``Start <kind>`` block: where it began and the rows read so far."""

    kind: str
    name: str
    header: SourceLine
    rows: list[SourceLine] = field(default_factory=list)


@dataclass
class _Reader:
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
    goals: list[tuple[str, Pose]] = field(default_factory=list)
    start: Pose | None = None
    start_line: int = 0

    def origin_pad(self, line: SourceLine) -> None:
        if self.start is not None:
            raise line.error(f"a second OriginPad (the first is on line {self.start_line})")
        if len(line.tokens) not in (3, 4):
            raise line.error(f"OriginPad takes x y [th], found {len(line.tokens) - 1} value(s)")
        values = line.numbers(first=1)
        self.start = Pose(values[0], values[1], values[2] if len(values) == 3 else 0.0)
        self.start_line = line.number

    def close(self, block: _Block) -> None:
        if block.kind == "line":
            self.close_line(block)
        else:
            self.close_goal(block)

    def close_line(self, block: _Block) -> None:
        if not block.rows:
            raise block.header.error("an empty 'Start Line' block (give x y vertices or x1 y1 x2 y2 segments)")
        width = len(block.rows[0].tokens)
        for row in block.rows:
            if len(row.tokens) not in (2, 4) or len(row.tokens) != width:
                raise row.error(
                    f"a Line row is x y (a vertex) or x1 y1 x2 y2 (a segment), one kind per block; this one "
                    f"has {len(row.tokens)} value(s) (the block starts on line {block.header.number})"
                )
        rows = np.array([row.numbers() for row in block.rows], dtype=np.float64)
        if width == 4:
            self.segments.extend((a, b, c, d) for a, b, c, d in rows.tolist())
        elif len(rows) < 2:
            raise block.rows[0].error("a polyline needs at least two x y vertices")
        else:
            self.segments.extend((a, b, c, d) for a, b, c, d in np.hstack([rows[:-1], rows[1:]]).tolist())

    def close_goal(self, block: _Block) -> None:
        if len(block.rows) != 1:
            where = block.rows[1] if block.rows else block.header
            raise where.error(f"a 'Start Goal' block holds one row x y [th], found {len(block.rows)}")
        row = block.rows[0]
        if len(row.tokens) not in (2, 3):
            raise row.error(f"a goal is x y [th], found {len(row.tokens)} value(s)")
        values = row.numbers()
        name = block.name or f"goal {len(self.goals) + 1}"
        self.goals.append((name, Pose(values[0], values[1], values[2] if len(values) == 3 else 0.0)))


def parse_pyro_world(text: str, filename: str, name: str = "") -> World:
    """Build a :class:`World` from a block-format world file; errors name ``filename:line:column``.

    Lines become walls, the origin pad the start pose, goals named points (:attr:`World.goals`).
    """
    reader = _Reader()
    block: _Block | None = None
    for line in source_lines(text, filename, comments=";#"):
        words = [m.group() for m in line.tokens]
        head = words[0].lower()
        if head == "start":
            if block is not None:
                raise line.error(f"'Start' inside the 'Start {block.kind.title()}' block of line {block.header.number}")
            kind = words[1].lower() if len(words) > 1 else ""
            if kind not in _BLOCKS:
                if len(words) == 1:
                    raise line.error("'Start' needs a kind (supported: Start Line, Start Goal)")
                raise line.error(f"cannot represent 'Start {words[1]}' blocks (supported: Start Line, Start Goal)", 1)
            block = _Block(kind, " ".join(words[2:]).strip('"'), line)
        elif head == "end":
            if block is None:
                raise line.error("'End' without a 'Start' block")
            if len(words) > 1:
                raise line.error(f"'End' takes nothing, found {' '.join(words[1:])!r}", token=1)
            reader.close(block)
            block = None
        elif block is not None:
            line.numbers()  # a bad number is reported where it is
            block.rows.append(line)
        elif head == "originpad":
            reader.origin_pad(line)
        else:
            raise line.error(
                f"cannot represent {words[0]!r} outside a block "
                "(expected OriginPad, Start Line … End or Start Goal … End)"
            )
    if block is not None:
        raise block.header.error(f"'Start {block.kind.title()}' has no 'End'")
    walls = np.array(reader.segments, dtype=np.float64).reshape(-1, 4)
    return World(
        name=name,
        source=filename,
        segments=walls,
        bounds=bounds_of(walls, np.zeros((0, 2))),
        start_pose=reader.start,
        goals=tuple(reader.goals),
    )
