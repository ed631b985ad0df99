"""Reader for Saphira simulator world description files (`.wld`, manual §11; docs/architecture.md §7).

One directive per line; ``;`` starts a comment. ``width w`` and ``height h`` give the world's size
(origin at the lower left); a line of four numbers ``x1 y1 x2 y2`` is a wall; ``push x y th``
starts a frame at (x, y) turned by th, relative to the current frame (pushes nest); ``pop``
returns to the previous frame; ``position x y th`` places the robot, in the current frame;
``box x y width depth [th] colour`` places a movable coloured box (:mod:`saphira.world.objects`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from saphira.core.errors import SourcePosition
from saphira.core.geometry import Pose
from saphira.world.objects import OBJECT_DIRECTIVES, WorldObject, parse_object_directive
from saphira.world.world import MAX_WALLS, World, WorldError, bounds_of, parse_number

_TOKEN = re.compile(r"\S+")
_DIRECTIVE_ARITY = {"width": 1, "height": 1, "push": 3, "pop": 0, "position": 3}
_DIRECTIVE_ARGUMENTS = {"width": "w", "height": "h", "push": "x y theta", "pop": "", "position": "x y theta"}


@dataclass(frozen=True)
class Frame:
    """A coordinate frame: origin (x, y) in world mm and the direction of its x axis in degrees."""

    x: float = 0.0
    y: float = 0.0
    th: float = 0.0

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        """A point given in this frame, in world coordinates."""
        c = math.cos(math.radians(self.th))
        s = math.sin(math.radians(self.th))
        return (self.x + c * x - s * y, self.y + s * x + c * y)

    def child(self, x: float, y: float, th: float) -> Frame:
        """The frame a ``push x y th`` opens inside this one."""
        wx, wy = self.to_world(x, y)
        return Frame(wx, wy, self.th + th)


@dataclass(frozen=True)
class SourceLine:
    """One non-blank line of the file, split into tokens that remember their columns."""

    file: str
    number: int
    text: str
    tokens: list[re.Match[str]]

    def error(self, message: str, token: int = 0) -> WorldError:
        column = self.tokens[token].start() + 1 if token < len(self.tokens) else 1
        return WorldError(message, SourcePosition(self.file, self.number, column), self.text)

    def numbers(self, first: int = 0) -> list[float]:
        return [parse_number(m.group(), self.file, self.number, m.start() + 1, self.text) for m in self.tokens[first:]]


def source_lines(text: str, filename: str, comments: str = ";") -> Iterator[SourceLine]:
    """The lines that hold something once comments (from any character of ``comments`` on) are removed.

    One at a time: a file of a million walls is not held twice over as tokens.
    """
    cut = re.compile(f"[{re.escape(comments)}]")
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = list(_TOKEN.finditer(cut.split(raw, maxsplit=1)[0]))
        if tokens:
            yield SourceLine(filename, number, raw, tokens)


def parse_wld(text: str, filename: str, name: str = "") -> World:
    """Build a :class:`World` from the text of a `.wld` file; errors name ``filename:line:column``.

    The start pose's heading is the ``position`` angle plus the angles of the enclosing frames.
    """
    frames = [Frame()]
    segments: list[tuple[float, float, float, float]] = []
    size: dict[str, tuple[float, int]] = {}
    start: Pose | None = None
    objects: list[WorldObject] = []

    for line in source_lines(text, filename):
        head = line.tokens[0].group()
        if head[0].isdigit() or head[0] in "+-.":
            if len(line.tokens) != 4:
                raise line.error(f"a wall is 4 numbers (x1 y1 x2 y2), this line has {len(line.tokens)}")
            if len(segments) == MAX_WALLS:
                raise line.error(f"more than {MAX_WALLS} walls (the most a world may have)")
            x1, y1, x2, y2 = line.numbers()
            frame = frames[-1]
            segments.append((*frame.to_world(x1, y1), *frame.to_world(x2, y2)))
            continue

        keyword = head.lower()
        if keyword in OBJECT_DIRECTIVES:
            objects.append(parse_object_directive(line, frames[-1]))
            continue
        if keyword not in _DIRECTIVE_ARITY:
            raise line.error(
                f"unknown directive {head!r} (expected width, height, push, pop, position, box or a wall x1 y1 x2 y2)"
            )
        arity = _DIRECTIVE_ARITY[keyword]
        if len(line.tokens) - 1 != arity:
            usage = f"{keyword} {_DIRECTIVE_ARGUMENTS[keyword]}".strip()
            raise line.error(f"{keyword!r} takes {arity} argument(s) ({usage}), found {len(line.tokens) - 1}")
        values = line.numbers(first=1)
        if keyword in ("width", "height"):
            if keyword in size:
                raise line.error(f"{keyword!r} given twice (first on line {size[keyword][1]})")
            if values[0] <= 0:
                raise line.error(f"{keyword} must be positive, not {line.tokens[1].group()}", token=1)
            size[keyword] = (values[0], line.number)
        elif keyword == "push":
            frames.append(frames[-1].child(*values))
        elif keyword == "pop":
            if len(frames) == 1:
                raise line.error("'pop' without a matching 'push'")
            frames.pop()
        else:
            x, y = frames[-1].to_world(values[0], values[1])
            start = Pose(x, y, frames[-1].th + values[2])

    walls = np.array(segments, dtype=np.float64).reshape(-1, 4)
    points = np.zeros((0, 2))
    if "width" in size and "height" in size:
        bounds = (0.0, 0.0, size["width"][0], size["height"][0])
    else:
        bounds = bounds_of(walls, points)
    return World(
        name=name,
        source=filename,
        segments=walls,
        points=points,
        bounds=bounds,
        start_pose=start,
        objects=tuple(objects),
    )
