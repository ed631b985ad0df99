"""The drawing and colour API: vectors and rectangles in the LPS display, in global mm.

Saphira's model is a graphics state (line width, line type, colours) that persists until changed, and
user micro-tasks that draw every cycle. Here a draw call records a primitive with the current state;
every display period the live view takes what was drawn since the last frame and the page draws it
over the LPS, so a task that keeps drawing keeps its picture on screen and one that stops sees it go.
With no page watching the record is a bounded ring, so drawing costs little and memory stays flat.

The manual's colour table lost its numbers except ``sfColorDarkTurquoise`` (10) and
``sfColorDarkOliveGreen`` (11); the others are numbered here around those two.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass

from saphira.core.attached import Attached
from saphira.core.geometry import Pose

__all__ = [
    "COLORS",
    "COLOR_VARIABLES",
    "LINE_DASHED",
    "LINE_SOLID",
    "Drawing",
    "LocalPen",
    "Primitive",
    "drawing_for",
]

LINE_SOLID = 0
LINE_DASHED = 1

COLORS: dict[str, tuple[int, str]] = {
    "Black": (0, "#000000"),
    "White": (1, "#ffffff"),
    "Yellow": (2, "#e6c619"),
    "LightYellow": (3, "#fff7a8"),
    "Red": (4, "#d62728"),
    "LightRed": (5, "#ff9c9c"),
    "OrangeRed": (6, "#ff4500"),
    "Magenta": (7, "#c800c8"),
    "SteelBlue": (8, "#4682b4"),
    "BrickRed": (9, "#a8321e"),
    "DarkTurquoise": (10, "#00a8b0"),
    "DarkOliveGreen": (11, "#556b2f"),
    "Blue": (12, "#1f4fd6"),
    "Green": (13, "#2ca02c"),
    "Gray": (14, "#808080"),
}
"""``sfColor<Name>``: (Colbert value, CSS colour the page uses)."""

COLOR_VARIABLES: dict[str, str] = {
    "Robot": "SteelBlue",
    "Sonar": "BrickRed",
    "Wake": "Gray",
    "Artifact": "DarkOliveGreen",
    "Status": "Black",
    "Segment": "DarkTurquoise",
}
"""``sf<What>Color`` and its default colour: what the page draws the robot, sonar, … in."""

_CSS = {value: css for value, css in COLORS.values()}
MAX_PRIMITIVES = 4096


def css_color(value: int) -> str:
    """The CSS colour of a colour number (unknown numbers draw black)."""
    return _CSS.get(value, "#000000")


@dataclass(frozen=True, slots=True)
class Primitive:
    """A line segment (``kind`` "v") or rectangle outline ("r": x1, y1 lower left, x2, y2 upper right)."""

    kind: str
    x1: float
    y1: float
    x2: float
    y2: float
    color: int
    width: int
    dashed: bool

    def as_list(self) -> list[object]:
        return [self.kind, round(self.x1), round(self.y1), round(self.x2), round(self.y2), css_color(self.color),
                self.width, int(self.dashed)]  # fmt: skip


class Drawing:
    """One session's graphics state and what was drawn since the last frame (thread-safe)."""

    def __init__(self) -> None:
        self.line_width = 1
        self.line_type = LINE_SOLID
        self.line_color = COLORS["Black"][0]
        self.patch_color = COLORS["LightYellow"][0]
        self.text_color = COLORS["Black"][0]
        self.palette: dict[str, int] = {what: COLORS[name][0] for what, name in COLOR_VARIABLES.items()}
        self._drawn: deque[Primitive] = deque(maxlen=MAX_PRIMITIVES)
        self._lock = threading.Lock()

    def _add(self, kind: str, x1: float, y1: float, x2: float, y2: float) -> None:
        primitive = Primitive(kind, float(x1), float(y1), float(x2), float(y2), self.line_color,
                              max(1, int(self.line_width)), self.line_type == LINE_DASHED)  # fmt: skip
        with self._lock:
            self._drawn.append(primitive)

    def add(self, primitive: Primitive) -> None:
        """Record a primitive drawn with its own colour and line, leaving the graphics state alone."""
        with self._lock:
            self._drawn.append(primitive)

    def draw_vector(self, x1: float, y1: float, x2: float, y2: float) -> None:
        """A line from (x1, y1) to (x2, y2), global mm (``sfDrawVector``)."""
        self._add("v", x1, y1, x2, y2)

    def draw_rect(self, x: float, y: float, dx: float, dy: float) -> None:
        """A rectangle from its lower-left corner, ``dx`` wide and ``dy`` high (``sfDrawRect``)."""
        self._add("r", x, y, x + dx, y + dy)

    def draw_centered_rect(self, x: float, y: float, w: float, h: float) -> None:
        """A ``w`` x ``h`` rectangle centred on (x, y) (``sfDrawCenteredRect``)."""
        self._add("r", x - w / 2, y - h / 2, x + w / 2, y + h / 2)

    def set_line_width(self, width: int) -> None:
        self.line_width = max(1, int(width))

    def set_line_type(self, line_type: int) -> None:
        if line_type not in (LINE_SOLID, LINE_DASHED):
            raise ValueError(f"line type {line_type}: use sfLINESOLID ({LINE_SOLID}) or sfLINEDASHED ({LINE_DASHED})")
        self.line_type = line_type

    def set_line_color(self, color: int) -> None:
        self.line_color = int(color)

    def set_patch_color(self, color: int) -> None:
        self.patch_color = int(color)

    def set_text_color(self, color: int) -> None:
        self.text_color = int(color)

    def take(self) -> list[Primitive]:
        """Everything drawn since the last call (the next frame's drawing)."""
        with self._lock:
            drawn = list(self._drawn)
            self._drawn.clear()
        return drawn

    def palette_css(self) -> dict[str, str]:
        return {what.lower(): css_color(value) for what, value in self.palette.items()}


class LocalPen:
    """Draws in the LPS (the robot at the origin facing +x) onto a :class:`Drawing` in global mm,
    the robot being at global ``pose`` (x, y, th degrees); the behaviors' ``draw`` gets one
    (:class:`saphira.behavior.behavior.LpsPen`). Boxes turn with the robot, so unlike the manual's
    robot-centric rectangles they sit right in the global view too."""

    def __init__(self, drawing: Drawing, pose: Pose, width: int = 1) -> None:
        self.drawing = drawing
        self.x, self.y = pose[0], pose[1]
        rad = math.radians(pose[2])
        self.c, self.s = math.cos(rad), math.sin(rad)
        self.width = width

    def _global(self, x: float, y: float) -> tuple[float, float]:
        return self.x + self.c * x - self.s * y, self.y + self.s * x + self.c * y

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str, dashed: bool = False) -> None:
        (gx1, gy1), (gx2, gy2) = self._global(x1, y1), self._global(x2, y2)
        self.drawing.add(Primitive("v", gx1, gy1, gx2, gy2, COLORS[color][0], self.width, dashed))

    def box(self, xmin: float, ymin: float, xmax: float, ymax: float, color: str, dashed: bool = False) -> None:
        corners = [(xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax)]
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
            self.line(ax, ay, bx, by, color, dashed)


_DRAWINGS: Attached[object, Drawing] = Attached()


def drawing_for(owner: object) -> Drawing:
    """The drawing of a session, keyed by its scheduler (created on first use)."""
    return _DRAWINGS.get(owner, Drawing)
