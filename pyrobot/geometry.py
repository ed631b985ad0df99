"""Pyro's ``pyrobot.geometry``: distances and angle arithmetic in degrees, and its angle constants."""

from __future__ import annotations

import math
from typing import Final

__all__ = ["COSDEG90RADS", "DEG90RADS", "PIOVER180", "SINDEG90RADS", "angleAdd", "angleEqual", "distance"]

PIOVER180: Final = math.pi / 180.0
"""Radians per degree."""
DEG90RADS: Final = 0.5 * math.pi
"""90 degrees in radians."""
COSDEG90RADS: Final = math.cos(DEG90RADS) / 1000.0
"""Pyro's constant: cos(90°) per mm."""
SINDEG90RADS: Final = math.sin(DEG90RADS) / 1000.0
"""Pyro's constant: sin(90°) per mm."""


def distance(x1: float, y1: float, x2: float, y2: float) -> float:
    """The straight-line distance between (x1, y1) and (x2, y2)."""
    return math.hypot(x1 - x2, y1 - y2)


def angleAdd(angle: float, degrees: float) -> float:
    """``angle + degrees`` in 0..360 (angles in degrees)."""
    return (angle + degrees) % 360.0


def angleEqual(angle1: float, angle2: float, tolerance: float = 5.0) -> bool:
    """Whether two angles (degrees) are within ``tolerance`` degrees of each other, round the circle."""
    gap = abs(angle1 - angle2) % 360.0
    return min(gap, 360.0 - gap) < tolerance
