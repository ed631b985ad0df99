"""Truth beside belief: how far the robot's global pose is from where the simulator really has it.

With the embedded simulator the world frame is the global frame (the client starts at the true pose),
so the difference between ``sfRobot``'s global pose (dead reckoning, corrected by registration when it
runs) and the simulator's true pose is the robot's localisation error. ``saphira run`` prints it in
its summary as ``pose error N mm, D deg``.
"""

from __future__ import annotations

import math

from saphira.core.geometry import Pose, norm2_angle

__all__ = ["pose_error", "pose_error_line"]


def pose_error(belief: Pose, truth: Pose) -> tuple[float, float]:
    """(distance in mm between the two positions, absolute heading difference in degrees, 0..180)."""
    return math.hypot(belief.x - truth.x, belief.y - truth.y), abs(norm2_angle(belief.th - truth.th))


def pose_error_line(belief: Pose, truth: Pose) -> str:
    """The summary line: ``    pose error 123 mm, 4.5 deg (global pose against the simulator's)``."""
    distance, heading = pose_error(belief, truth)
    return f"    pose error {distance:.0f} mm, {heading:.1f} deg (global pose against the simulator's true pose)"
