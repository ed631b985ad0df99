"""Integrating the server's wrapping odometry counters into continuous poses (docs/protocol.md §5).

The server reports X/Y as wrapping counters (15 bits on PSOS, 16 on AMRISim) and Th in heading units.
Like ARIA, X/Y are taken modulo 2^15 and each step's difference is folded into ±2^14, so a counter
that wraps at either width integrates correctly, provided the robot moves less than 2^14 units per
SIP (metres, at any real speed). Heading differences are folded into (−180°, 180°].

Position starts at (0, 0) on the first SIP (the counters' absolute value is meaningless once they
have wrapped); the heading is the server's own. The same motion, expressed in the robot's previous
frame, moves the global pose and the LPS (see :class:`~saphira.client.reflector.Reflector`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from saphira.core.geometry import norm2_angle

_POS_MASK = 0x7FFF
_POS_MODULUS = 0x8000


def _fold(delta: int) -> int:
    """A counter difference folded into [−2^14, 2^14)."""
    return (delta + _POS_MODULUS // 2) % _POS_MODULUS - _POS_MODULUS // 2


@dataclass(frozen=True)
class Motion:
    """One SIP's motion: in the odometric frame (dx, dy) and in the robot's previous frame (fwd, left)."""

    dx: float
    dy: float
    dth: float
    forward: float
    left: float


class OdometryIntegrator:
    """Turns successive raw (x, y, th) counters into a continuous odometric pose in mm and degrees."""

    def __init__(self, dist_conv_factor: float, angle_conv_factor: float) -> None:
        self.dist_conv = dist_conv_factor
        self.angle_conv_deg = math.degrees(angle_conv_factor)
        self.x = 0.0
        self.y = 0.0
        self.th = 0.0
        self._last: tuple[int, int, int] | None = None

    def reset(self) -> None:
        """Forget the counters: the next SIP starts a new integration at the current pose."""
        self._last = None

    def set_pose(self, x: float, y: float, th: float) -> None:
        self.x, self.y, self.th = x, y, th

    def update(self, raw_x: int, raw_y: int, raw_th: int) -> Motion:
        """Fold in one SIP's counters and return the motion since the previous one (zero on the first)."""
        if self._last is None:
            self._last = (raw_x & _POS_MASK, raw_y & _POS_MASK, raw_th)
            self.th = norm2_angle(raw_th * self.angle_conv_deg)
            return Motion(0.0, 0.0, 0.0, 0.0, 0.0)
        last_x, last_y, last_th = self._last
        x, y = raw_x & _POS_MASK, raw_y & _POS_MASK
        dx = _fold(x - last_x) * self.dist_conv
        dy = _fold(y - last_y) * self.dist_conv
        dth = norm2_angle((raw_th - last_th) * self.angle_conv_deg)
        self._last = (x, y, raw_th)
        previous = math.radians(self.th)
        c, s = math.cos(previous), math.sin(previous)
        self.x += dx
        self.y += dy
        self.th = norm2_angle(self.th + dth)
        return Motion(dx, dy, dth, c * dx + s * dy, -s * dx + c * dy)
