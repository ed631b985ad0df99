"""Where a robot may be put in a world: free, inside the map, and the nearest such place to a wish.

A map without a ``RobotHome`` starts the robot at (0, 0), as MobileSim does, but (0, 0) may lie
outside the map or inside a wall. The simulator then starts it at the nearest *free place inside
the map*: a disc of the robot's radius that touches no wall, lies inside the map's bounds and is
enclosed by walls. A home the file names is taken as the author meant it: it only has to be clear
of walls (and of robots already placed). "Enclosed" is judged by rays: from a place inside a building, rays in (nearly)
every direction meet a wall; from outside, at most about half of them do. Three quarters of
:data:`_RAY_ANGLES` must meet a wall, so that an open door does not make a room count as outside.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from saphira.world.world import World

_RAY_ANGLES = np.arange(0.0, 360.0, 22.5)
_ENCLOSED_FRACTION = 0.75
_GRID_LIMIT = 400_000  # candidate places at most; the grid coarsens on very large maps
_CLEARANCE_MM = 100.0  # a place the robot is moved to keeps this far from walls (the wish need not)
_REACH_RADII = 40.0  # around a named home, search this many robot radii away (10 m for a Pioneer)
OCCUPIED = "taken by another robot"


class Placement(NamedTuple):
    """The place chosen for a robot, and why it is not the place asked for (empty when it is)."""

    x: float
    y: float
    reason: str


def has_extent(world: World) -> bool:
    """Whether ``world`` holds anything (walls or scan points) that gives it an inside."""
    return bool(world.segments.shape[0] or world.points.shape[0])


def is_enclosed(world: World, x: float, y: float) -> bool:
    """Whether (x, y) lies inside the map: within its bounds and, if it has walls, walled in."""
    xmin, ymin, xmax, ymax = world.bounds
    if not (xmin <= x <= xmax and ymin <= y <= ymax):
        return False
    if not world.segments.shape[0]:
        return True
    distances = world.index.ray_distances((x, y), _RAY_ANGLES, math.inf)
    return bool(np.count_nonzero(np.isfinite(distances)) >= _ENCLOSED_FRACTION * len(_RAY_ANGLES))


def why_not_free(world: World, x: float, y: float, radius: float, inside: bool = True) -> str:
    """Why a disc of ``radius`` at (x, y) is no place for a robot, or ``""`` when it is one.

    Every place must be clear of walls; with ``inside`` it must also lie inside the map.
    """
    if world.segments.shape[0] and world.index.circle_collides((x, y), radius):
        return "in a wall"
    if inside and has_extent(world):
        xmin, ymin, xmax, ymax = world.bounds
        if not (xmin + radius <= x <= xmax - radius and ymin + radius <= y <= ymax - radius):
            return "outside the map"
    if inside and has_extent(world) and not is_enclosed(world, x, y):
        return "outside the map's walls"
    return ""


def _search_box(world: World, x: float, y: float, radius: float, inside: bool) -> tuple[float, float, float, float]:
    """Where candidates are sought: the map's bounds, widened around (x, y) unless ``inside``."""
    reach = _REACH_RADII * radius
    around = (x - reach, y - reach, x + reach, y + reach)
    if not has_extent(world):
        return around
    xmin, ymin, xmax, ymax = world.bounds
    if inside:
        return (xmin + radius, ymin + radius, xmax - radius, ymax - radius)
    return (min(xmin, around[0]), min(ymin, around[1]), max(xmax, around[2]), max(ymax, around[3]))


def nearest_free_place(
    world: World,
    x: float,
    y: float,
    radius: float,
    occupied: Callable[[float, float], bool] = lambda x, y: False,
    *,
    inside: bool = True,
) -> Placement | None:
    """The free place nearest to (x, y), or ``None`` when there is none.

    ``occupied(x, y)`` says that another robot stands too close. With ``inside`` (the default start
    (0, 0) of a map without a home) the place must lie inside the map; a home the file names is
    honoured wherever it is, as long as it is clear. Candidates lie on a grid through (x, y) with a
    spacing of half the radius and are tried nearest first, so the answer is the nearest free
    place to within that spacing; a place found so keeps 100 mm from every wall, so that the robot
    does not start touching one.
    """
    reason = why_not_free(world, x, y, radius, inside) or (OCCUPIED if occupied(x, y) else "")
    if not reason:
        return Placement(x, y, "")
    xmin, ymin, xmax, ymax = _search_box(world, x, y, radius, inside)
    step = max(radius / 2.0, 10.0)
    cells = ((xmax - xmin) / step + 1.0) * ((ymax - ymin) / step + 1.0)
    if cells > _GRID_LIMIT:
        step *= math.sqrt(cells / _GRID_LIMIT)
    xs = x + step * np.arange(math.ceil((xmin - x) / step), math.floor((xmax - x) / step) + 1)
    ys = y + step * np.arange(math.ceil((ymin - y) / step), math.floor((ymax - y) / step) + 1)
    gx, gy = np.meshgrid(xs, ys)
    order = np.argsort(np.hypot(gx - x, gy - y), axis=None, kind="stable")
    clear = radius + _CLEARANCE_MM
    for cx, cy in zip(gx.ravel()[order].tolist(), gy.ravel()[order].tolist(), strict=True):
        if not why_not_free(world, cx, cy, clear, inside) and not occupied(cx, cy):
            return Placement(cx, cy, reason)
    return None
