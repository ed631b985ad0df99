"""Flat's robot as both sides know it: its drive, its body, its sonar ring, and its lasers' readings as one scan.

The client link (:mod:`saphira.flat.client.link`) and the simulator (:mod:`saphira.flat.server.simulation`) share these,
so a ``flat://`` client loads none of the simulator. Choices where the seed is silent are marked * in
:mod:`saphira.flat.server.simulation`'s docstring.

Our client gives the reflector one laser scan per step in Saphira's robot frame (:func:`robot_frame_scan`):
bearings counter-clockwise from straight ahead, the two lasers merged as the queries merge them (each keeps
the half nearer its own axis), so ``TOP`` gives 180 readings from −89.5 to 89.5 degrees and
``LEFT``/``RIGHT`` 270 from −134.5 to 134.5, one per degree, as one wide laser on the centre would. The
wire does not say where the lasers sit, so the client takes them on the centre (the server's default).
"""

from __future__ import annotations

import math

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.flat.codec import LASER_READINGS, LaserReading
from saphira.params.robot_params import RobotParams, SonarUnit

TRANS_ACCEL = 500.0
"""mm/s²: Flat's constant linear acceleration and deceleration."""
ROT_ACCEL = 50.0
"""deg/s²: Flat's constant angular acceleration and deceleration."""
MAX_VELOCITY = 1500.0
MAX_RVELOCITY = 180.0
ROBOT_RADIUS = 250.0
SONAR_RING_RADIUS = 200.0
SONAR_COUNT = 12
SONAR_HALF_ANGLE = 15.0
"""deg: each sonar's cone, so the 12 cones, 30 degrees apart, leave no gap (a thin post between two
narrower cones would be invisible until the robot hit it)."""
MAX_RANGE = 8000.0
"""mm: the laser's reach (a SICK LMS in its 8 m mode); also the reading when nothing is hit."""


def flat_sonar_units() -> tuple[SonarUnit, ...]:
    """Flat's ring: sonar 0 straight ahead, then clockwise every 30 degrees (angles counter-clockwise)."""
    units = []
    for k in range(SONAR_COUNT):
        th = -30.0 * k
        th = th + 360.0 if th <= -180.0 else th
        rad = math.radians(th)
        units.append(
            SonarUnit(k, round(SONAR_RING_RADIUS * math.cos(rad), 3), round(SONAR_RING_RADIUS * math.sin(rad), 3), th)
        )
    return tuple(units)


def flat_params() -> RobotParams:
    """Flat's robot as a parameter set: what both the simulator and our client's reflector use."""
    return RobotParams(
        name="flat",
        robot_class="Flat",
        subclass="flat4",
        robot_radius=ROBOT_RADIUS,
        robot_width=2 * ROBOT_RADIUS,
        robot_length=2 * ROBOT_RADIUS,
        robot_length_front=ROBOT_RADIUS,
        robot_length_rear=ROBOT_RADIUS,
        max_velocity=MAX_VELOCITY,
        max_rvelocity=MAX_RVELOCITY,
        max_acceleration=TRANS_ACCEL,
        trans_vel_max=int(MAX_VELOCITY),
        rot_vel_max=int(MAX_RVELOCITY),
        trans_accel=int(TRANS_ACCEL),
        trans_decel=int(TRANS_ACCEL),
        rot_accel=int(ROT_ACCEL),
        rot_decel=int(ROT_ACCEL),
        sonar_units=flat_sonar_units(),
        angle_jitter=0.0,
        angle_drift=0.0,
        dist_jitter=0.0,
        source="Flat4 (saphira.flat.robot)",
    )


def robot_frame_scan(scans: tuple[LaserReading, ...]) -> tuple[FloatArray, FloatArray]:
    """Every laser's ranges (mm) as one scan, with bearings (deg, counter-clockwise from ahead) increasing.

    Reading *i* of a laser at Flat's (clockwise) mount angle *a* looks ``i + 0.5 − 90 − a`` degrees off
    ahead. Where lasers overlap, a bearing is kept by the laser whose axis is nearest it (for LEFT and
    RIGHT: RIGHT below 0 degrees, LEFT above, the queries' rule), so no bearing appears twice.
    """
    if not scans:
        return np.zeros(0), np.zeros(0)
    axes = np.array([-scan.angle for scan in scans])
    ranges, angles = [], []
    offsets = np.arange(LASER_READINGS) + 0.5 - 90.0
    for k, scan in enumerate(scans):
        bearings = offsets + axes[k]
        gaps = np.abs(bearings[:, None] - axes[None, :])
        own = np.argmin(gaps, axis=1) == k
        ranges.append(np.asarray(scan.ranges, dtype=np.float64)[own])
        angles.append(bearings[own])
    merged_angles = np.concatenate(angles)
    order = np.argsort(merged_angles, kind="stable")
    return np.concatenate(ranges)[order], merged_angles[order]
