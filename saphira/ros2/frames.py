"""A run as ROS 2 messages: what a cycle saw (a :class:`Snapshot`) and the messages it makes (:func:`messages`).

Taking a snapshot is the only part that runs on the cycle (:meth:`Snapshot.take`): plain numbers, and
references to what is new (a laser scan, the sonar points, the map's walls) that are not changed
after. Turning it into messages runs wherever its output wants: on the bridge's thread for DDS, in
line for a bag. Frames follow REP 105: ``map`` (the global frame, once the pose is anchored on a map),
``odom`` (odometry), ``base_link`` (the robot), ``laser`` and ``sonar`` (the sensors), ``sonar_N`` each
transducer. Units are ROS's: metres, radians, seconds; stamps are the run's time plus :attr:`epoch`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from cyclonedds.idl import IdlStruct

from saphira.client.sensors.laser import LaserScan as SaphiraScan
from saphira.client.sensors.sonar import NO_ECHO
from saphira.core.arrays import FloatArray
from saphira.ros2 import messages as m
from saphira.ros2.mapgrid import occupancy_from_walls

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["BUMPERS", "STATUS_CYCLES", "FrameSource", "Snapshot", "messages"]

BUMPERS = 5
"""Bumper segments per ring (front, rear), as a Pioneer 3's: ``/bumper_state`` has this many flags each."""
STATUS_CYCLES = 10
"""Cycles between two copies of the slow topics (battery, bumpers, motors): 1 s at 100 ms."""
MAP_CHECK_CYCLES = 50
"""Cycles between two looks at whether the map's walls changed (:data:`STATUS_CYCLES` while there are none)."""
BEHAVIOR_CYCLES = 5
"""Cycles between two looks at the running activities and behaviors."""
_ODOM_COVARIANCE = [0.0] * 36
for _k, _v in ((0, 1e-3), (7, 1e-3), (14, 1e6), (21, 1e6), (28, 1e6), (35, 3e-3)):
    _ODOM_COVARIANCE[_k] = _v


@dataclass
class Snapshot:
    """What one cycle saw, for the messages (mm, degrees as saphira holds them; None: nothing new)."""

    time: float
    odom: tuple[float, float, float]
    pose: tuple[float, float, float]
    vel: float
    rvel: float
    anchored: bool
    scan: SaphiraScan | None = None
    sonar: list[tuple[float, float]] | None = None
    walls: FloatArray | None = None
    static: list[tuple[str, float, float, float]] | None = None
    """The static frames (name, x, y, th on ``base_link``) when they changed."""
    battery: float | None = None
    bumpers: tuple[int, int] | None = None
    motors: bool | None = None
    behaviors: str | None = None
    clock: bool = False


class FrameSource:
    """Takes a robot's :class:`Snapshot` every cycle, keeping what it last sent to send only what is new.

    ``anchored`` says whether the global pose stands on a map (``map`` → ``odom`` is then published);
    ``walls`` gives the map's walls (rows x1 y1 x2 y2, mm) or None; ``behaviors`` the activities' and
    behaviors' state as a JSON-able value.
    """

    def __init__(
        self,
        robot: Robot,
        *,
        anchored: Callable[[], bool],
        walls: Callable[[], FloatArray | None],
        behaviors: Callable[[], Any],
        clock: bool = False,
    ) -> None:
        self.robot = robot
        self.anchored = anchored
        self.walls = walls
        self.behaviors = behaviors
        self.clock = clock
        self._scans = -1
        self._sonar_seen: dict[int, int] = {}
        self._walls_key: tuple[int, float] | None = None
        self._static: list[tuple[str, float, float, float]] | None = None
        self._behaviors = ""
        self._first = True

    def forget(self) -> None:
        """What was last sent may not have gone out (a dropped snapshot): send the one-off parts again."""
        self._static = None
        self._walls_key = None
        self._behaviors = ""

    def take(self) -> Snapshot:
        """This cycle's snapshot (the robot must be connected)."""
        robot, st = self.robot, self.robot.state
        cycle = robot.scheduler.cycle
        snap = Snapshot(robot.clock.now(), (st.odo_x, st.odo_y, st.odo_th), (st.ax, st.ay, st.ath), st.vel,
                        st.rvel, self.anchored(), clock=self.clock)  # fmt: skip
        laser = robot.reflector.laser
        if laser.scan is not None and laser.scans != self._scans and laser.scan.count >= 2:
            self._scans = laser.scans
            snap.scan = laser.scan
        buckets = robot.sonar.buckets
        if any(b.count != self._sonar_seen.get(b.index, 0) for b in buckets):
            self._sonar_seen = {b.index: b.count for b in buckets}
            snap.sonar = [(b.x, b.y) for b in buckets if b.range < NO_ECHO and b.count > 0]
        static = self._static_frames(snap.scan)
        if static != self._static:
            self._static = snap.static = static
        first, self._first = self._first, False
        every = STATUS_CYCLES if self._walls_key in (None, (0, 0.0)) else MAP_CHECK_CYCLES  # none yet: look soon
        if first or cycle % every == 0:
            walls = self.walls()
            key = (0, 0.0) if walls is None else (len(walls), round(float(walls.sum()), 3))
            if key != self._walls_key:
                self._walls_key = key
                snap.walls = walls.copy() if walls is not None and len(walls) else None
        if first or cycle % STATUS_CYCLES == 0:
            snap.battery, snap.motors = st.battery, st.motors_enabled
            snap.bumpers = (st.front_bumpers, st.rear_bumpers)
        if first or cycle % BEHAVIOR_CYCLES == 0:
            text = json.dumps(self.behaviors(), separators=(",", ":"))
            if text != self._behaviors:
                self._behaviors = snap.behaviors = text
        return snap

    def _static_frames(self, scan: SaphiraScan | None) -> list[tuple[str, float, float, float]]:
        frames = self._static or [("sonar", 0.0, 0.0, 0.0)] + [
            (f"sonar_{u.index}", u.x, u.y, u.th) for u in self.robot.params.sonar_units
        ]
        if scan is not None and not any(name == "laser" for name, *_ in frames):
            frames = [*frames, ("laser", scan.mount_x, scan.mount_y, 0.0)]
        return frames


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


def map_to_odom(pose: tuple[float, float, float], odom: tuple[float, float, float]) -> tuple[float, float, float]:
    """The ``map`` → ``odom`` transform (mm, deg) that puts the odometric pose on the global one."""
    dth = pose[2] - odom[2]
    c, s = math.cos(math.radians(dth)), math.sin(math.radians(dth))
    return pose[0] - (c * odom[0] - s * odom[1]), pose[1] - (s * odom[0] + c * odom[1]), dth


def messages(snap: Snapshot, epoch: float = 0.0) -> list[tuple[str, IdlStruct]]:
    """The messages a snapshot makes, as (topic, message), stamped ``epoch`` + the run's time."""
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
    if snap.scan is not None:
        out.append(("/scan", laser_scan(snap.scan, stamp)))
    if snap.sonar is not None:
        out.append(("/sonar", sonar_cloud(snap.sonar, stamp)))
    if snap.walls is not None:
        out.append(("/map", occupancy_from_walls(snap.walls, stamp)))
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


def laser_scan(scan: SaphiraScan, stamp: m.Time) -> m.LaserScan:
    """A scan in the ``laser`` frame: no echo is +inf (REP 117)."""
    first, last = math.radians(float(scan.angles[0])), math.radians(float(scan.angles[-1]))
    ranges = np.where(scan.ranges < scan.max_range, scan.ranges / 1000.0, np.inf).astype(np.float32).tolist()
    return m.LaserScan(m.Header(stamp, "laser"), first, last, (last - first) / (scan.count - 1), 0.0, 0.0,
                       0.02, scan.max_range / 1000, ranges)  # fmt: skip


_XYZ = [m.PointField(name, 4 * k, m.FLOAT32, 1) for k, name in enumerate("xyz")]


def sonar_cloud(points: list[tuple[float, float]], stamp: m.Time) -> m.PointCloud2:
    """The current sonar readings as points in the ``sonar`` frame (RosAria's ``sonar_pointcloud2``)."""
    xyz = np.zeros((len(points), 3), dtype="<f4")
    if points:
        xyz[:, :2] = np.asarray(points, dtype=np.float64) / 1000
    return m.PointCloud2(m.Header(stamp, "sonar"), 1, len(points), list(_XYZ), False, 12, 12 * len(points),
                         xyz.tobytes(), True)  # fmt: skip
