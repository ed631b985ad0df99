"""Reader for world files in the Saphira-8 / Pyro-era block format (``Start Line`` … ``End``).

Saphira 8 and Pyro distributed worlds in this form (ARIA's ``convertSfWorldToMap`` utility reads it
too). Units are those of every other Pioneer world: mm and degrees, y up.

* ``width w``, ``height h``: the world's size from the origin (each at most once).
* ``position x y th``: where the robot starts; ``OriginPad x y [th]``: the pad it starts on when no
  ``position`` is given (each at most once).
* ``Start Line [x1 y1 x2 y2 | name]`` … ``End``: walls. The header may carry the first segment; rows
  of ``x1 y1 x2 y2`` are segments, rows of ``x y`` the vertices of a polyline (one kind per block);
  ``AttachID n`` rows (which object a line is attached to in Saphira's editor) are accepted and ignored.
* ``Start Text x y "words"`` [… ``End``]: a label, kept as a ``Text`` map object; ``End`` may be left
  out (the next ``Start`` or directive closes it).
* ``Start Goal [name]`` … ``End``: one row ``x y [th]``, a named point (default ``goal N``); or, as the
  worlds Pyro shipped for Saphira's simulator write it, ``Start Goal x y [th] ["name"]`` with nothing
  inside before ``End``.
* ``;`` and ``#`` start comments; keywords are case-insensitive.

Anything else (another block kind, an unknown directive, a row outside a block) is refused, naming
file, line, column and the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from saphira.core.geometry import Pose
from saphira.world.wld import SourceLine, source_lines
from saphira.world.world import MAX_WALLS, MapObject, World, bounds_of

_BLOCKS = ("line", "goal", "text")
_SIGNATURE = re.compile(r"^\s*(originpad|start|end)\b", re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


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


def _is_number(word: str) -> bool:
    return _NUMBER.match(word) is not None


@dataclass
class _Reader:
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
    goals: list[tuple[str, Pose]] = field(default_factory=list)
    labels: list[MapObject] = field(default_factory=list)
    singles: dict[str, SourceLine] = field(default_factory=dict)
    origin_pad: Pose | None = None
    position: Pose | None = None
    size: dict[str, float] = field(default_factory=dict)

    def directive(self, line: SourceLine, keyword: str) -> None:
        """``width``, ``height``, ``position`` or ``OriginPad``, each at most once."""
        if keyword in self.singles:
            first = self.singles[keyword].number
            raise line.error(f"a second {line.tokens[0].group()} (the first is on line {first})")
        self.singles[keyword] = line
        given = len(line.tokens) - 1
        if keyword in ("width", "height"):
            if given != 1:
                raise line.error(f"{line.tokens[0].group()} takes one value (mm), found {given}")
            value = line.numbers(first=1)[0]
            if value <= 0:
                raise line.error(f"{keyword} must be positive, not {line.tokens[1].group()}", token=1)
            self.size[keyword] = value
            return
        if given not in ((3,) if keyword == "position" else (2, 3)):
            usage = "x y th" if keyword == "position" else "x y [th]"
            raise line.error(f"{line.tokens[0].group()} takes {usage}, found {given} value(s)")
        values = line.numbers(first=1)
        pose = Pose(values[0], values[1], values[2] if len(values) == 3 else 0.0)
        if keyword == "position":
            self.position = pose
        else:
            self.origin_pad = pose

    def close(self, block: _Block) -> None:
        if block.kind == "line":
            self.close_line(block)
        elif block.kind == "text":
            self.close_text(block)
        else:
            self.close_goal(block)

    def close_line(self, block: _Block) -> None:
        rows = [row for row in block.rows if row.tokens[0].group().lower() != "attachid"]
        for row in block.rows:
            if row.tokens[0].group().lower() == "attachid" and len(row.tokens) != 2:
                raise row.error(f"'AttachID' takes one number, found {len(row.tokens) - 1}")
        if not rows:
            raise block.header.error("an empty 'Start Line' block (give x1 y1 x2 y2 segments or x y vertices)")
        width = len(rows[0].tokens)
        for row in rows:
            if len(row.tokens) not in (2, 4) or len(row.tokens) != width:
                raise row.error(
                    f"a Line row is x y (a vertex) or x1 y1 x2 y2 (a segment), one kind per block; this one "
                    f"has {len(row.tokens)} value(s) (the block starts on line {block.header.number})"
                )
        room = MAX_WALLS - len(self.segments)  # a block of n segments or of n + 1 vertices
        if len(rows) - (width == 2) > room:
            beyond = rows[min(room + (width == 2), len(rows) - 1)]
            raise beyond.error(f"more than {MAX_WALLS} walls (the most a world may have)")
        coordinates = np.array([row.numbers() for row in rows], dtype=np.float64)
        if width == 4:
            self.segments.extend((a, b, c, d) for a, b, c, d in coordinates.tolist())
        elif len(coordinates) < 2:
            raise rows[0].error("a polyline needs at least two x y vertices")
        else:
            pairs = np.hstack([coordinates[:-1], coordinates[1:]])
            self.segments.extend((a, b, c, d) for a, b, c, d in pairs.tolist())

    def close_text(self, block: _Block) -> None:
        header = block.header
        if len(header.tokens) < 4 or not all(_is_number(m.group()) for m in header.tokens[2:4]):
            raise header.error("'Start Text' takes x y and the words: Start Text x y \"label\"")
        x, y = SourceLine(header.file, header.number, header.text, header.tokens[2:4]).numbers()
        words = [header.text[header.tokens[4].start() :]] if len(header.tokens) > 4 else []
        words += [row.text.strip() for row in block.rows]
        text = " ".join(" ".join(words).split()).strip().strip('"')
        self.labels.append(MapObject("Text", Pose(x, y, 0.0), description=text, line=header.number))

    def close_goal(self, block: _Block) -> None:
        if len(block.rows) != 1:
            where = block.rows[1] if block.rows else block.header
            raise where.error(
                f"a goal is one x y [th]: on the 'Start Goal' line or as the one row inside, found {len(block.rows)}"
            )
        row = block.rows[0]
        if len(row.tokens) not in (2, 3):
            raise row.error(f"a goal is x y [th], found {len(row.tokens)} value(s)")
        values = row.numbers()
        name = block.name or f"goal {len(self.goals) + 1}"
        self.goals.append((name, Pose(values[0], values[1], values[2] if len(values) == 3 else 0.0)))

    def bounds(self, walls: np.ndarray) -> tuple[float, float, float, float]:
        """The walls' box, grown to ``width`` × ``height`` from the origin when the file gives them."""
        low_x, low_y, high_x, high_y = bounds_of(walls, np.zeros((0, 2)))
        if "width" in self.size and "height" in self.size:
            if not len(walls):
                return (0.0, 0.0, self.size["width"], self.size["height"])
            return (min(low_x, 0.0), min(low_y, 0.0), max(high_x, self.size["width"]), max(high_y, self.size["height"]))
        return (low_x, low_y, high_x, high_y)


_SUPPORTED = "supported: Start Line, Start Text, Start Goal"
_DIRECTIVES = frozenset({"width", "height", "position", "originpad"})


def _open_block(line: SourceLine, words: list[str]) -> _Block:
    kind = words[1].lower() if len(words) > 1 else ""
    if kind not in _BLOCKS:
        if len(words) == 1:
            raise line.error(f"'Start' needs a kind ({_SUPPORTED})")
        raise line.error(
            f"cannot represent 'Start {words[1]}' blocks (supported: Start Line, Start Text, Start Goal)", 1
        )
    block = _Block(kind, "", line)
    rest = words[2:]
    if kind == "line" and rest and all(_is_number(w) for w in rest):
        block.rows.append(SourceLine(line.file, line.number, line.text, line.tokens[2:]))
        line.numbers(first=2)  # a bad number is reported where it is
    elif kind == "goal" and len(rest) >= 2 and _is_number(rest[0]) and _is_number(rest[1]):
        count = 3 if len(rest) >= 3 and _is_number(rest[2]) else 2  # Start Goal x y [th] ["name"]
        block.rows.append(SourceLine(line.file, line.number, line.text, line.tokens[2 : 2 + count]))
        block.name = " ".join(rest[count:]).strip('"')
    elif kind != "text":
        block.name = " ".join(rest).strip('"')
    return block


def parse_pyro_world(text: str, filename: str, name: str = "") -> World:
    """Build a :class:`World` from a block-format world file; errors name ``filename:line:column``.

    Lines become walls, ``position`` (else the origin pad) the start pose, goals named points
    (:attr:`World.goals`), texts ``Text`` map objects (:attr:`World.map_objects`).
    """
    reader = _Reader()
    block: _Block | None = None
    for line in source_lines(text, filename, comments=";#"):
        words = [m.group() for m in line.tokens]
        head = words[0].lower()
        if block is not None and block.kind == "text" and head in ("start", *_DIRECTIVES):
            reader.close(block)  # a label's End may be left out
            block = None
        if head == "start":
            if block is not None:
                raise line.error(f"'Start' inside the 'Start {block.kind.title()}' block of line {block.header.number}")
            block = _open_block(line, words)
        elif head == "end":
            if block is None:
                raise line.error("'End' without a 'Start' block")
            if len(words) > 1:
                raise line.error(f"'End' takes nothing, found {' '.join(words[1:])!r}", token=1)
            reader.close(block)
            block = None
        elif block is not None:
            if block.kind != "text":
                line.numbers(first=1 if head == "attachid" else 0)  # a bad number is reported where it is
            block.rows.append(line)
        elif head in _DIRECTIVES:
            reader.directive(line, head)
        else:
            raise line.error(
                f"cannot represent {words[0]!r} outside a block (expected width, height, position, OriginPad, "
                "Start Line … End, Start Text or Start Goal … End)"
            )
    if block is not None:
        if block.kind != "text":
            raise block.header.error(f"'Start {block.kind.title()}' has no 'End'")
        reader.close(block)
    walls = np.array(reader.segments, dtype=np.float64).reshape(-1, 4)
    return World(
        name=name,
        source=filename,
        segments=walls,
        bounds=reader.bounds(walls),
        start_pose=reader.position or reader.origin_pad,
        map_objects=tuple(reader.labels),
        goals=tuple(reader.goals),
    )
