"""Plane geometry of the LPS and the global frame (manual §8.3), in plain Python floats.

Conventions (docs/architecture.md §4): millimetres and degrees, angles counter-clockwise positive, robot
frame +x forward and +y left. The LPS is the robot frame: the robot sits at its origin facing +x.

Anything with ``x``, ``y`` and ``th`` attributes (a :class:`Pose`, an artifact's local coordinates)
is a :class:`Located`. Saphira's point functions set a third point; here they return a new
:class:`Pose` instead, and the caller stores it where it wants.

Manual → Python: ``sfNormAngle`` → :func:`norm_angle`, ``sfNorm2Angle`` → :func:`norm2_angle`,
``sfNorm3Angle`` → :func:`norm3_angle`, ``sfPointPhi`` → :func:`point_phi`, ``sfChangeVP`` →
:func:`change_vp`, ``sfMoveRobot`` → :func:`move_pose`, and so on by the same pattern.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol

__all__ = [
    "ORIGIN",
    "Located",
    "Pose",
    "add2_angle",
    "add_angle",
    "change_vp",
    "cos_sin",
    "move_pose",
    "norm2_angle",
    "norm3_angle",
    "norm_angle",
    "point_baricenter",
    "point_dist",
    "point_dist_point",
    "point_move",
    "point_normal_dist",
    "point_normal_dist_point",
    "point_phi",
    "point_xo",
    "point_xo_point",
    "point_yo",
    "point_yo_point",
    "sub2_angle",
    "sub_angle",
    "to_global",
    "to_local",
    "unchange_vp",
]


class Located(Protocol):
    """Anything placed in a frame: position (mm) and direction (degrees)."""

    @property
    def x(self) -> float: ...

    @property
    def y(self) -> float: ...

    @property
    def th(self) -> float: ...


class Pose(NamedTuple):
    """A position and heading: mm, mm, degrees (not normalised on construction).

    A named tuple, so a pose unpacks as ``x, y, th`` wherever a plain triple is expected.
    """

    x: float = 0.0
    y: float = 0.0
    th: float = 0.0


ORIGIN = Pose()
"""The robot in the LPS: the origin, facing +x."""


def norm_angle(a: float) -> float:
    """Normalise an angle to [0, 360)."""
    r = math.fmod(a, 360.0)
    if r < 0.0:
        r += 360.0
    return 0.0 if r >= 360.0 else r + 0.0


def norm2_angle(a: float) -> float:
    """Normalise an angle to (-180, 180]: the discontinuity is directly behind."""
    r = norm_angle(a)
    return r - 360.0 if r > 180.0 else r


def norm3_angle(a: float) -> float:
    """Fold an angle into [-90, 90] by reflecting across the y axis (100 → 80, -100 → -80).

    Used for line directions, where ``a`` and ``a + 180`` describe the same line.
    """
    r = norm2_angle(a)
    if r > 90.0:
        return 180.0 - r
    if r < -90.0:
        return -180.0 - r
    return r


def add_angle(a1: float, a2: float) -> float:
    """``a1 + a2`` in [0, 360)."""
    return norm_angle(a1 + a2)


def sub_angle(a1: float, a2: float) -> float:
    """``a1 - a2`` in [0, 360)."""
    return norm_angle(a1 - a2)


def add2_angle(a1: float, a2: float) -> float:
    """``a1 + a2`` in (-180, 180]."""
    return norm2_angle(a1 + a2)


def sub2_angle(a1: float, a2: float) -> float:
    """``a1 - a2`` in (-180, 180]: the signed turn from ``a2`` to ``a1``."""
    return norm2_angle(a1 - a2)


_RIGHT_ANGLES = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}


def cos_sin(th: float) -> tuple[float, float]:
    """Cosine and sine of an angle in degrees, exact at multiples of 90°."""
    r = norm_angle(th)
    exact = _RIGHT_ANGLES.get(r)
    if exact is not None:
        return exact
    rad = math.radians(r)
    return math.cos(rad), math.sin(rad)


def change_vp(frame: Located, p: Located) -> Pose:
    """``p`` (given in the current frame) expressed in ``frame``'s coordinates (``sfChangeVP``)."""
    c, s = cos_sin(frame.th)
    dx, dy = p.x - frame.x, p.y - frame.y
    return Pose(c * dx + s * dy, -s * dx + c * dy, norm_angle(p.th - frame.th))


def unchange_vp(frame: Located, p: Located) -> Pose:
    """``p`` (given in ``frame``'s coordinates) expressed in the current frame (``sfUnchangeVP``)."""
    c, s = cos_sin(frame.th)
    return Pose(frame.x + c * p.x - s * p.y, frame.y + s * p.x + c * p.y, norm_angle(p.th + frame.th))


def to_local(robot: Pose, gx: float, gy: float, gth: float = 0.0) -> Pose:
    """A global position and direction seen from the robot at global pose ``robot`` (LPS)."""
    return change_vp(robot, Pose(gx, gy, gth))


def to_global(robot: Pose, lx: float, ly: float, lth: float = 0.0) -> Pose:
    """An LPS position and direction in global coordinates, the robot being at ``robot``."""
    return unchange_vp(robot, Pose(lx, ly, lth))


def move_pose(pose: Pose, dx: float, dy: float, dth: float = 0.0) -> Pose:
    """``pose`` moved by (dx, dy) in its own frame and turned by dth (``sfMoveRobot`` on a pose)."""
    moved = unchange_vp(pose, Pose(dx, dy, dth))
    return Pose(moved.x, moved.y, norm_angle(pose.th + dth))


def point_phi(p: Located) -> float:
    """Bearing of ``p`` from the robot, in (-180, 180]; +phi is to the robot's left."""
    return norm2_angle(math.degrees(math.atan2(p.y, p.x)))


def point_dist(p: Located) -> float:
    """Distance from the robot to ``p``."""
    return math.hypot(p.x, p.y)


def point_dist_point(p1: Located, p2: Located) -> float:
    """Distance between two points."""
    return math.hypot(p2.x - p1.x, p2.y - p1.y)


def point_normal_dist(line: Located) -> float:
    """Signed perpendicular distance from the robot to the line through ``line`` along ``line.th``.

    As the manual says: positive when the foot of the normal lies to the robot's left (y > 0),
    negative to its right; a foot on the robot's x axis counts as positive.
    """
    return point_normal_dist_point(line, ORIGIN)


def point_normal_dist_point(line: Located, q: Located) -> float:
    """Signed distance from ``q`` to the line through ``line`` along ``line.th``.

    Positive when the foot of the normal lies to the left of ``q``'s x axis (in ``q``'s frame).
    """
    c, s = cos_sin(line.th)
    along = (q.x - line.x) * c + (q.y - line.y) * s
    foot = Pose(line.x + along * c, line.y + along * s)
    dist = point_dist_point(q, foot)
    left = change_vp(q, foot).y
    return -dist if left < 0.0 else dist


def point_baricenter(p1: Located, p2: Located) -> Pose:
    """The midpoint of ``p1`` and ``p2`` (direction 0)."""
    return Pose(0.5 * (p1.x + p2.x), 0.5 * (p1.y + p2.y))


def point_xo(p: Located) -> float:
    """The robot's x in ``p``'s frame."""
    return change_vp(p, ORIGIN).x


def point_yo(p: Located) -> float:
    """The robot's y in ``p``'s frame (how far the robot is to the left of a lane through ``p``)."""
    return change_vp(p, ORIGIN).y


def point_xo_point(p: Located, q: Located) -> float:
    """``q``'s x in ``p``'s frame."""
    return change_vp(p, q).x


def point_yo_point(p: Located, q: Located) -> float:
    """``q``'s y in ``p``'s frame."""
    return change_vp(p, q).y


def point_move(p: Located, dx: float, dy: float) -> Pose:
    """``p`` moved by (dx, dy) in its own frame, keeping its direction (``sfPointMove``)."""
    moved = unchange_vp(p, Pose(dx, dy))
    return Pose(moved.x, moved.y, p.th)
