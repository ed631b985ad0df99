"""Flat's laser rangefinders: where they sit on the robot, how they scan, and their robot-centric readings.

Flat has 0, 1 (``TOP``) or 2 (``LEFT`` / ``RIGHT``) lasers of 180 readings each, one per degree over
180 degrees, ranges measured from the laser. The seed gives the LEFT laser the angle −45 and the RIGHT
one 45, so Flat's robot angles count **clockwise from straight ahead** (as its sonars, numbered
clockwise from the front); we keep that for the mount angle on the wire. The lasers sit symmetrically:
``TOP`` on the centre, ``LEFT`` / ``RIGHT`` :data:`DEFAULT_SIDE_OFFSET` mm to either side (0: both on the centre).

A scan runs from the laser's right to its left (as a SICK does): reading *i* (0-based) looks
``i + 0.5`` degrees counter-clockwise from the laser's right-hand direction. Nothing within
:data:`~saphira.flat.robot.MAX_RANGE` gives it. Each laser is a :class:`~saphira.params.laser.LaserConfig`
(:func:`flat_laser`) and its rays are cast by the Pioneer simulator's laser caster
(:func:`saphira.sim.laser.cast_scan`: the walls within reach from the world's index, one fan of rays
from the laser's place), so the simulators' lasers see the same world the same way; only the
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
from saphira.params.laser import LaserConfig
from saphira.sim.laser import cast_scan
from saphira.world.world import World

DEFAULT_SIDE_OFFSET = 0.0
"""mm from the centre line to each of two lasers: both on the centre by default, so the merged scan has no
parallax (two viewpoints see round an edge differently, which would fake jumps where they meet)."""


@dataclass(frozen=True)
class LaserMount:
    """A laser on the robot: Flat's name for it and its configuration (:func:`flat_laser`)."""

    name: str
    config: LaserConfig

    @property
    def angle(self) -> float:
        """Flat's mount angle, as on the wire: degrees clockwise from straight ahead."""
        return -self.config.th


def flat_laser(name: str, angle: float, forward: float = 0.0, left: float = 0.0) -> LaserMount:
    """Flat's laser ``name`` at Flat's ``angle`` (deg, clockwise) and ``forward``, ``left`` mm on the body:
    180 readings one degree apart, half a degree in from either side, up to MAX_RANGE, exact."""
    half = LASER_READINGS / 2.0 - 0.5
    config = LaserConfig(x=forward, y=left, th=-angle, start=-half, end=half, increment=1.0, max_range=MAX_RANGE,
                         noise=0.0, laser_type="flat")  # fmt: skip
    return LaserMount(name, config)


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

    @classmethod
    def with_count(cls, count: int, side_offset: float = DEFAULT_SIDE_OFFSET) -> LaserRig:
        """Flat's configurations: none, one ``TOP`` laser, or ``LEFT`` at −45 and ``RIGHT`` at 45."""
        if count == 0:
            return cls(())
        if count == 1:
            return cls((flat_laser("TOP", 0.0),))
        if count == 2:
            return cls((flat_laser("LEFT", -45.0, 0.0, side_offset), flat_laser("RIGHT", 45.0, 0.0, -side_offset)))
        raise ValueError(f"Flat has 0, 1 or 2 lasers, not {count}")

    def scan(self, world: World, pose: Pose) -> tuple[LaserReading, ...]:
        """Every laser's 180 ranges from the robot's true ``pose`` in ``world``."""
        scans = []
        for mount in self.mounts:
            config = mount.config
            origin = to_world(pose, -config.y, config.x)
            first = pose.th + config.th + config.start
            distances = cast_scan(world.index, origin, first, config.increment, config.count, config.max_range)
            ranges = np.where(np.isfinite(distances), distances, config.max_range)
            scans.append(LaserReading(mount.name, mount.angle, tuple(float(r) for r in ranges)))
        return tuple(scans)

    def _config(self, scan: LaserReading) -> LaserConfig:
        """The configuration of the laser that took ``scan`` (by name; else Flat's laser at its angle)."""
        mount = next((m for m in self.mounts if m.name == scan.name), None)
        return (mount or flat_laser(scan.name, scan.angle)).config

    def readings(self, scans: tuple[LaserReading, ...]) -> tuple[tuple[str, tuple[Reading, ...]], ...]:
        """Each laser's readings in the robot's "y ahead" frame (no-echo readings included, at full range)."""
        out = []
        for scan in scans:
            config = self._config(scan)
            readings = []
            for bearing_on_laser, r in zip(config.angles(len(scan.ranges)), scan.ranges, strict=True):
                # Ahead-of-laser angle, counter-clockwise, then into the robot's frame.
                rad = math.radians(bearing_on_laser + config.th)
                ahead = config.x + r * math.cos(rad)
                left = config.y + r * math.sin(rad)
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
            reach = self._config(scan).max_range
            merged.extend(
                (reading, r < reach)
                for reading, r in zip(readings, scan.ranges, strict=True)
                if own is None or len(scans) == 1 or own(reading.theta)
            )
        merged.sort(key=lambda item: item[0].theta)
        return merged
