"""Flat's laser rangefinders: where they sit on the robot, how they scan, and their robot-centric readings.

Flat has 0, 1 (``TOP``) or 2 (``LEFT`` / ``RIGHT``) lasers of 180 readings each, one per degree over
180 degrees, ranges measured from the laser. The seed gives the LEFT laser the angle −45 and the RIGHT
one 45, so Flat's robot angles count **clockwise from straight ahead** (as its sonars, numbered
clockwise from the front); we keep that for the mount angle on the wire. The lasers sit symmetrically:
``TOP`` on the centre, ``LEFT`` / ``RIGHT`` :data:`DEFAULT_SIDE_OFFSET` mm to either side (0: both on the centre).

A scan runs from the laser's right to its left (as a SICK does): reading *i* (0-based) looks
``i + 0.5`` degrees counter-clockwise from the laser's right-hand direction. Nothing within
:data:`~saphira.flat.robot.MAX_RANGE` gives it. Rays are cast by the Pioneer simulator's laser
(:func:`saphira.sim.laser.cast_scan`: the walls within reach from the world's index, one fan of rays
from the laser's place), so the two simulators' lasers see the same world the same way; only the
configuration differs (Flat's ranges are exact: the seed gives its lasers no noise model).

Robot-centric readings (the ``l`` query, and what every laser query works on) are in Flat's right-handed
"y ahead" frame: x to the robot's right, y straight ahead (mm, from the robot's centre); ``theta`` is the
bearing counter-clockwise from the x axis (0 right, 90 ahead, 180 left), folded into [−90, 270) so that
the two lasers' bearings (−45 … 225) form one increasing sequence.

Our client (:mod:`saphira.flat.client.link`) merges a step's readings into one scan in Saphira's robot frame
(:func:`saphira.flat.robot.robot_frame_scan`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from saphira.core.geometry import Pose, change_vp, unchange_vp
from saphira.flat.codec import LASER_READINGS, LaserReading, Reading
from saphira.flat.robot import MAX_RANGE
from saphira.sim.laser import cast_scan
from saphira.world.world import World

DEFAULT_SIDE_OFFSET = 0.0
"""mm from the centre line to each of two lasers: both on the centre by default, so the merged scan has no
parallax (two viewpoints see round an edge differently, which would fake jumps where they meet)."""


@dataclass(frozen=True)
class LaserMount:
    """A laser on the robot: Flat's name and angle (deg, clockwise), and its place (mm ahead, mm to the left)."""

    name: str
    angle: float
    forward: float = 0.0
    left: float = 0.0


def to_robot(pose: Pose, x: float, y: float) -> tuple[float, float]:
    """A world point in the robot's "y ahead" frame: (mm to the right, mm ahead)."""
    local = change_vp(pose, Pose(x, y))  # (ahead, left)
    return -local.y, local.x


def to_world(pose: Pose, right: float, ahead: float) -> tuple[float, float]:
    """A point of the robot's "y ahead" frame in the world."""
    world = unchange_vp(pose, Pose(ahead, -right))
    return world.x, world.y


def bearing(right: float, ahead: float) -> float:
    """The "y ahead" bearing of a point, counter-clockwise from the right, in [−90, 270)."""
    theta = math.degrees(math.atan2(ahead, right))
    return theta + 360.0 if theta < -90.0 else theta


@dataclass(frozen=True)
class LaserRig:
    """The robot's lasers (0, 1 or 2 of them) and their reach."""

    mounts: tuple[LaserMount, ...] = ()
    max_range: float = MAX_RANGE

    @classmethod
    def with_count(cls, count: int, side_offset: float = DEFAULT_SIDE_OFFSET) -> LaserRig:
        """Flat's configurations: none, one ``TOP`` laser, or ``LEFT`` at −45 and ``RIGHT`` at 45."""
        if count == 0:
            return cls(())
        if count == 1:
            return cls((LaserMount("TOP", 0.0),))
        if count == 2:
            return cls((LaserMount("LEFT", -45.0, 0.0, side_offset), LaserMount("RIGHT", 45.0, 0.0, -side_offset)))
        raise ValueError(f"Flat has 0, 1 or 2 lasers, not {count}")

    def _origin(self, pose: Pose, mount: LaserMount) -> tuple[float, float, float]:
        """World x, y of the laser and the world heading (deg, counter-clockwise) of its straight-ahead."""
        x, y = to_world(pose, -mount.left, mount.forward)
        return x, y, pose.th - mount.angle

    def scan(self, world: World, pose: Pose) -> tuple[LaserReading, ...]:
        """Every laser's 180 ranges from the robot's true ``pose`` in ``world``."""
        scans = []
        offsets = np.arange(LASER_READINGS, dtype=np.float64) + 0.5 - 90.0
        for mount in self.mounts:
            x, y, heading = self._origin(pose, mount)
            distances = cast_scan(world.index, (x, y), heading + offsets, self.max_range)
            ranges = np.where(np.isfinite(distances), distances, self.max_range)
            scans.append(LaserReading(mount.name, mount.angle, tuple(float(r) for r in ranges)))
        return tuple(scans)

    def readings(self, scans: tuple[LaserReading, ...]) -> tuple[tuple[str, tuple[Reading, ...]], ...]:
        """Each laser's readings in the robot's "y ahead" frame (no-echo readings included, at full range)."""
        out = []
        by_name = {m.name: m for m in self.mounts}
        for scan in scans:
            mount = by_name.get(scan.name, LaserMount(scan.name, scan.angle))
            readings = []
            for i, r in enumerate(scan.ranges):
                # Ahead-of-laser angle, counter-clockwise, then into the robot's frame.
                rad = math.radians(i + 0.5 - 90.0 - mount.angle)
                ahead = mount.forward + r * math.cos(rad)
                left = mount.left + r * math.sin(rad)
                right = -left
                readings.append(Reading(right, ahead, math.hypot(right, ahead), bearing(right, ahead)))
            out.append((scan.name, tuple(readings)))
        return tuple(out)

    def echoes(self, scans: tuple[LaserReading, ...]) -> list[tuple[Reading, bool]]:
        """All readings of all lasers in bearing order, each with whether it hit something."""
        merged: list[tuple[Reading, bool]] = []
        for (_, readings), scan in zip(self.readings(scans), scans, strict=True):
            # Where two lasers overlap, each keeps its own half (RIGHT below 90 degrees, LEFT from 90), so
            # the sequence does not alternate between what two viewpoints see (that would fake jumps).
            own = (lambda t: t < 90.0) if scan.angle > 0 else (lambda t: t >= 90.0) if scan.angle < 0 else None
            merged.extend(
                (reading, r < self.max_range)
                for reading, r in zip(readings, scan.ranges, strict=True)
                if own is None or len(scans) == 1 or own(reading.theta)
            )
        merged.sort(key=lambda item: item[0].theta)
        return merged
