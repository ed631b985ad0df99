"""Movable coloured objects in the simulator's world: boxes the gripper can hold and the camera can see.

A world file places them with one directive per object (docs/architecture.md §7, world files)::

    box x y width depth [theta] colour

a ``width`` × ``depth`` mm box centred at (x, y) of the current frame (``push``/``pop`` apply, as
for walls), its width along the frame's x axis turned by ``theta`` degrees, ``colour`` one of
:data:`COLOURS`. Every box is :data:`BOX_HEIGHT` mm tall. :class:`WorldObject` is the box as the
file gives it (part of the frozen :class:`~saphira.world.world.World`); :class:`SimObject` is the
box in a running simulation, which the gripper can pick up and carry.

Choices: the robots' bodies, sonar and laser meet a box as a disc of half its smaller side (as they meet
other robots), which lets a box sit in the gripper's throat; the camera and the gripper's beams and
paddles see its true rectangle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.world.world import parse_number

if TYPE_CHECKING:
    from saphira.world.wld import Frame, SourceLine

OBJECT_DIRECTIVES: Final = ("box",)
"""World-file keywords that place an object."""

BOX_HEIGHT: Final = 300.0
"""mm: how tall every box is (the camera sees its sides from floor to top)."""

COLOURS: Final = {
    "red": (255, 0, 0),
    "green": (0, 160, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 220, 0),
    "orange": (255, 140, 0),
    "magenta": (255, 0, 255),
    "cyan": (0, 200, 255),
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "grey": (128, 128, 128),
}
"""The colours a box may have (names, for world files and the vision channels; RGB for drawing)."""


@dataclass(frozen=True)
class WorldObject:
    """A box as the world file places it: centre (x, y) mm, heading ``th`` deg, size mm, colour name."""

    x: float
    y: float
    th: float
    width: float
    depth: float
    colour: str
    line: int = 0

    @property
    def radius(self) -> float:
        """The disc the robots' bodies and sonar meet: half the smaller side."""
        return min(self.width, self.depth) / 2.0


def parse_object_directive(line: SourceLine, frame: Frame) -> WorldObject:
    """A ``box x y width depth [theta] colour`` line, placed in ``frame``; errors point at the token."""
    count = len(line.tokens) - 1
    if count not in (5, 6):
        raise line.error(f"'box' takes x y width depth [theta] colour, found {count} argument(s)")
    colour = line.tokens[-1].group().lower()
    if colour not in COLOURS:
        raise line.error(f"unknown colour {line.tokens[-1].group()!r} (one of {', '.join(COLOURS)})", count)
    values = [parse_number(m.group(), line.file, line.number, m.start() + 1, line.text) for m in line.tokens[1:count]]
    x, y, width, depth = values[:4]
    th = values[4] if len(values) == 5 else 0.0
    for index, size in ((3, width), (4, depth)):
        if size <= 0.0:
            raise line.error(f"a box's size must be positive, not {line.tokens[index].group()}", index)
    wx, wy = frame.to_world(x, y)
    return WorldObject(wx, wy, frame.th + th, width, depth, colour, line.number)


class SimObject:
    """A box in a running simulation: its true pose, and which robot's gripper holds it (if any)."""

    def __init__(self, spec: WorldObject) -> None:
        self.spec = spec
        self.x, self.y, self.th = spec.x, spec.y, spec.th
        self.holder: object | None = None
        """The gripper holding the box, or ``None`` while it stands free."""
        self.lifted = False

    @property
    def colour(self) -> str:
        return self.spec.colour

    @property
    def radius(self) -> float:
        return self.spec.radius

    def corners(self) -> FloatArray:
        """The footprint's four corners ``(4, 2)`` in world mm, counter-clockwise."""
        half_w, half_d = self.spec.width / 2.0, self.spec.depth / 2.0
        local = np.array([(-half_w, -half_d), (half_w, -half_d), (half_w, half_d), (-half_w, half_d)])
        c, s = math.cos(math.radians(self.th)), math.sin(math.radians(self.th))
        rotation = np.array([[c, -s], [s, c]])
        corners: FloatArray = local @ rotation.T + np.array([self.x, self.y])
        return corners

    def reset(self) -> None:
        """Back where the world file put it, standing free."""
        self.x, self.y, self.th = self.spec.x, self.spec.y, self.spec.th
        self.holder = None
        self.lifted = False


def spawn_objects(objects: tuple[WorldObject, ...]) -> list[SimObject]:
    """The running copies of a world's objects."""
    return [SimObject(spec) for spec in objects]
