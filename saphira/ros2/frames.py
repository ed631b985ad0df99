"""A run as ROS 2 messages: the messages a cycle's :class:`~saphira.record.snapshot.Snapshot` makes (:func:`messages`).

The snapshot is taken on the cycle (:mod:`saphira.record.snapshot`, what Foxglove's channels are made from
too); turning it into messages runs wherever its output wants: on the bridge's thread for DDS, in line
for a bag. Frames follow REP 105: ``map`` (the global frame, once the pose is anchored on a map),
``odom`` (odometry), ``base_link`` (the robot), ``laser`` and ``sonar`` (the sensors), ``sonar_N`` each
transducer. Units are ROS's: metres, radians, seconds; stamps are the run's time plus :attr:`epoch`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from cyclonedds.idl import IdlStruct

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.record.snapshot import FrameSource, Snapshot
from saphira.ros2 import messages as m
from saphira.ros2.mapgrid import occupancy_from_grid, occupancy_from_walls

if TYPE_CHECKING:
    from saphira.client.sensors.laser import LaserScan as SaphiraScan

__all__ = ["BUMPERS", "FrameSource", "ScanRanges", "Snapshot", "laser_scan", "map_to_odom", "messages",
           "sonar_cloud"]  # fmt: skip

BUMPERS = 5
"""Bumper segments per ring (front, rear), as a Pioneer 3's: ``/bumper_state`` has this many flags each."""
_ODOM_COVARIANCE = [0.0] * 36
for _k, _v in ((0, 1e-3), (7, 1e-3), (14, 1e6), (21, 1e6), (28, 1e6), (35, 3e-3)):
    _ODOM_COVARIANCE[_k] = _v


# ---------------------------------------------------------------- messages
def _stamp(seconds: float) -> m.Time:
    ns = max(0, round(seconds * 1e9))
    return m.Time(ns // 1_000_000_000, ns % 1_000_000_000)


def _yaw(degrees: float) -> m.Quaternion:
    half = math.radians(degrees) / 2
    return m.Quaternion(0.0, 0.0, math.sin(half), math.cos(half))


def _transform(stamp: m.Time, parent: str, child: str, x: float, y: float, th: float) -> m.TransformStamped:
    return m.TransformStamped(m.Header(stamp, parent), child,
                              m.Transform(m.Vector3(x / 1000, y / 1000, 0.0), _yaw(th)))  # fmt: skip


def map_to_odom(pose: Pose, odom: Pose) -> Pose:
    """The ``map`` → ``odom`` transform (mm, deg) that puts the odometric pose on the global one."""
    dth = pose[2] - odom[2]
    c, s = math.cos(math.radians(dth)), math.sin(math.radians(dth))
    return Pose(pose[0] - (c * odom[0] - s * odom[1]), pose[1] - (s * odom[0] + c * odom[1]), dth)


def messages(snap: Snapshot, epoch: float = 0.0, scan: ScanRanges | None = None) -> list[tuple[str, IdlStruct]]:
    """The messages a snapshot makes, as (topic, message), stamped ``epoch`` + the run's time; ``scan``, when
    given, is the snapshot's scan (sent apart: see :class:`ScanRanges`)."""
    scan = scan or (None if snap.scan is None else ScanRanges.of(snap.scan))
    stamp = _stamp(epoch + snap.time)
    ox, oy, oth = snap.odom
    out: list[tuple[str, IdlStruct]] = []
    if snap.clock:
        out.append(("/clock", m.Clock(stamp)))
    pose = m.PoseWithCovariance(m.Pose(m.Point(ox / 1000, oy / 1000, 0.0), _yaw(oth)), list(_ODOM_COVARIANCE))
    moving = m.Twist(m.Vector3(snap.vel / 1000, 0.0, 0.0), m.Vector3(0.0, 0.0, math.radians(snap.rvel)))
    twist = m.TwistWithCovariance(moving, list(_ODOM_COVARIANCE))
    out.append(("/odom", m.Odometry(m.Header(stamp, "odom"), "base_link", pose, twist)))
    transforms = [_transform(stamp, "odom", "base_link", ox, oy, oth)]
    if snap.anchored:
        transforms.append(_transform(stamp, "map", "odom", *map_to_odom(snap.pose, snap.odom)))
    out.append(("/tf", m.TFMessage(transforms)))
    if snap.static is not None:
        out.append(("/tf_static", m.TFMessage([_transform(stamp, "base_link", name, x, y, th)
                                               for name, x, y, th in snap.static])))  # fmt: skip
    if scan is not None:
        out.append(("/scan", laser_scan(scan, stamp)))
    if snap.sonar is not None:
        out.append(("/sonar", sonar_cloud(snap.sonar, stamp)))
    if snap.walls is not None:
        out.append(("/map", occupancy_from_walls(snap.walls, stamp)))
    elif snap.grid is not None:
        out.append(("/map", occupancy_from_grid(snap.grid, stamp)))
    if snap.battery is not None:
        nan = math.nan
        out.append(("/battery_state", m.BatteryState(m.Header(stamp, "base_link"), snap.battery, nan, nan, nan, nan,
                                                     nan, nan, present=True)))  # fmt: skip
    if snap.bumpers is not None:
        front, rear = snap.bumpers
        out.append(("/bumper_state", m.BumperState(m.Header(stamp, "base_link"),
                                                   [bool(front >> k & 1) for k in range(BUMPERS)],
                                                   [bool(rear >> k & 1) for k in range(BUMPERS)])))  # fmt: skip
    if snap.motors is not None:
        out.append(("/motors_state", m.Bool(snap.motors)))
    if snap.behaviors is not None:
        out.append(("/behaviors", m.String(snap.behaviors)))
    return out


@dataclass(frozen=True)
class ScanRanges:
    """What ``/scan`` is made of: a scan's first and last angles (degrees), its ranges (mm) and their limit.

    What the bridge sends its DDS process instead of the laser's own scan (that process need not load the
    sensor modules to read it)."""

    first: float
    last: float
    ranges: FloatArray
    max_range: float

    @classmethod
    def of(cls, scan: SaphiraScan) -> ScanRanges:
        return cls(float(scan.angles[0]), float(scan.angles[-1]), scan.ranges, float(scan.max_range))


def laser_scan(scan: ScanRanges, stamp: m.Time) -> m.LaserScan:
    """A scan in the ``laser`` frame: no echo is +inf (REP 117)."""
    first, last = math.radians(scan.first), math.radians(scan.last)
    ranges = np.where(scan.ranges < scan.max_range, scan.ranges / 1000.0, np.inf).astype(np.float32).tolist()
    return m.LaserScan(m.Header(stamp, "laser"), first, last, (last - first) / (len(scan.ranges) - 1), 0.0, 0.0,
                       0.02, scan.max_range / 1000, ranges)  # fmt: skip


_XYZ = [m.PointField(name, 4 * k, m.FLOAT32, 1) for k, name in enumerate("xyz")]


def sonar_cloud(points: list[tuple[float, float]], stamp: m.Time) -> m.PointCloud2:
    """The current sonar readings as points in the ``sonar`` frame (RosAria's ``sonar_pointcloud2``)."""
    xyz = np.zeros((len(points), 3), dtype="<f4")
    if points:
        xyz[:, :2] = np.asarray(points, dtype=np.float64) / 1000
    return m.PointCloud2(m.Header(stamp, "sonar"), 1, len(points), list(_XYZ), False, 12, 12 * len(points),
                         xyz.tobytes(), True)  # fmt: skip
