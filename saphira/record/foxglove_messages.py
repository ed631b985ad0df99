"""A run as Foxglove messages: what a cycle's :class:`~saphira.record.snapshot.Snapshot` makes (:func:`messages`).

One function per channel turns its part of the snapshot into the message of Foxglove's well-known schema
(the ``foxglove`` SDK's protobuf types; ``/behaviors`` is JSON); the MCAP files and the live server
(:mod:`saphira.record.mcap_export`) log what :func:`messages` returns, so they cannot differ. Units are
Foxglove's: metres, radians; stamps are the run's time. Importing this module needs the SDK (the
``foxglove`` extra): :func:`saphira.record.mcap_export.foxglove_sdk` says how to install it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import foxglove.messages as fm
import numpy as np

from saphira.client.sensors.laser import LaserScan
from saphira.record.snapshot import Line, Snapshot
from saphira.world.objects import SimObject
from saphira.world.world import World

__all__ = [
    "LEVELS", "artifact_scene", "laser_scan", "log_line", "messages", "odometry", "pose_in_world", "sonar_cloud",
    "stamp", "world_scene", "world_to_base",
]  # fmt: skip

LEVELS = {"DEBUG": "Debug", "INFO": "Info", "WARNING": "Warning", "ERROR": "Error", "CRITICAL": "Fatal"}
"""Python's logging levels by Foxglove's names."""


def stamp(seconds: float) -> tuple[fm.Timestamp, int]:
    """The message timestamp for the run's time ``seconds``, and the same in ns (the log time)."""
    ns = round(seconds * 1e9)
    return fm.Timestamp(ns // 1_000_000_000, ns % 1_000_000_000), ns


def _quaternion(degrees: float) -> fm.Quaternion:
    half = math.radians(degrees) / 2
    return fm.Quaternion(x=0.0, y=0.0, z=math.sin(half), w=math.cos(half))


def _pose(x: float, y: float, th: float) -> fm.Pose:
    return fm.Pose(position=fm.Vector3(x=x / 1000, y=y / 1000, z=0.0), orientation=_quaternion(th))


def pose_in_world(snap: Snapshot, when: fm.Timestamp) -> fm.PoseInFrame:
    """``/pose``: the global pose in ``world``."""
    return fm.PoseInFrame(timestamp=when, frame_id="world", pose=_pose(*snap.pose))


def odometry(snap: Snapshot, when: fm.Timestamp) -> fm.Odometry:
    """``/odom``: the odometric pose (``odom``) and the velocities of ``base_link``."""
    return fm.Odometry(timestamp=when, frame_id="odom", body_frame_id="base_link", pose=_pose(*snap.odom),
                       linear_velocity=fm.Vector3(x=snap.vel / 1000),
                       angular_velocity=fm.Vector3(z=math.radians(snap.rvel)))  # fmt: skip


def world_to_base(snap: Snapshot, when: fm.Timestamp) -> fm.FrameTransform:
    """``/tf``: ``world`` → ``base_link`` at the global pose."""
    ax, ay, ath = snap.pose
    return fm.FrameTransform(timestamp=when, parent_frame_id="world", child_frame_id="base_link",
                             translation=fm.Vector3(x=ax / 1000, y=ay / 1000, z=0.0),
                             rotation=_quaternion(ath))  # fmt: skip


def sonar_cloud(readings: list[tuple[float, float]], when: fm.Timestamp) -> fm.PointCloud:
    """``/sonar``: the current readings (x, y on ``base_link``, mm) as float32 x y z points."""
    f32 = fm.PackedElementFieldNumericType.Float32
    fields = [fm.PackedElementField(name=n, offset=4 * k, type=f32) for k, n in enumerate("xyz")]
    data = np.asarray([(x / 1000, y / 1000, 0.0) for x, y in readings], dtype="<f4").tobytes()
    return fm.PointCloud(timestamp=when, frame_id="base_link", pose=_pose(0, 0, 0), point_stride=12, fields=fields,
                         data=data)  # fmt: skip


def laser_scan(scan: LaserScan, when: fm.Timestamp) -> fm.LaserScan:
    """``/laser``: a scan on ``base_link`` from the laser's mount, no echo as infinity."""
    ranges = [r / 1000 if r < scan.max_range else math.inf for r in scan.ranges.tolist()]
    first, last = math.radians(float(scan.angles[0])), math.radians(float(scan.angles[-1]))
    return fm.LaserScan(timestamp=when, frame_id="base_link", pose=_pose(scan.mount_x, scan.mount_y, 0),
                        start_angle=first, end_angle=last, ranges=ranges)  # fmt: skip


def world_scene(world: World, when: fm.Timestamp) -> fm.SceneUpdate:
    """``/world``: the walls as one line list and each box as a cube, in ``world``."""
    points = [fm.Point3(x=x / 1000, y=y / 1000) for seg in world.segments.tolist() for x, y in (seg[:2], seg[2:])]
    walls = fm.LinePrimitive(type=fm.LinePrimitiveLineType.LineList, thickness=0.03, points=points,
                             pose=_pose(0, 0, 0), color=fm.Color(r=0.15, g=0.15, b=0.15, a=1.0))  # fmt: skip
    cubes = []
    for spec in world.objects:
        corners = SimObject(spec).corners()
        (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
        cubes.append(fm.CubePrimitive(pose=_pose((x0 + x1) / 2, (y0 + y1) / 2, 0),
                                      size=fm.Vector3(x=(x1 - x0) / 1000, y=(y1 - y0) / 1000, z=0.3),
                                      color=fm.Color(r=0.8, g=0.3, b=0.2, a=1.0)))  # fmt: skip
    entity = fm.SceneEntity(timestamp=when, frame_id="world", id="walls", lines=[walls], cubes=cubes)
    return fm.SceneUpdate(entities=[entity])


def artifact_scene(rows: list[list[float]], when: fm.Timestamp) -> fm.SceneUpdate:
    """``/artifacts``: every artifact as a cube (its type and id as metadata), replacing the ones sent before."""
    entities = []
    for k, (kind, ident, x, y, th, width, length) in enumerate(rows):
        size = fm.Vector3(x=(length or 200.0) / 1000, y=(width or 50.0) / 1000, z=0.05)
        cube = fm.CubePrimitive(pose=_pose(x, y, th), size=size, color=fm.Color(r=0.2, g=0.5, b=0.9, a=0.6))
        entities.append(fm.SceneEntity(timestamp=when, frame_id="world", id=f"artifact-{k}",
                                       metadata=[fm.KeyValuePair(key="type", value=str(int(kind))),
                                                 fm.KeyValuePair(key="id", value=str(int(ident)))],
                                       cubes=[cube]))  # fmt: skip
    deletion = fm.SceneEntityDeletion(timestamp=when, type=fm.SceneEntityDeletionType.All)
    return fm.SceneUpdate(deletions=[deletion], entities=entities)


def log_line(line: Line) -> tuple[fm.Log, int]:
    """``/log``: a log record (its logger's name) or an activity's message (``sfMessage``), at its own time."""
    seconds, level, name, text = line
    when, ns = stamp(seconds)
    return fm.Log(timestamp=when, level=getattr(fm.LogLevel, LEVELS.get(level, "Unknown")), message=text, name=name), ns


def messages(snap: Snapshot) -> list[tuple[str, Any, int]]:
    """The messages a snapshot makes, as (topic, message, log time in ns), in the order they are logged: the
    lines logged first (they came during the cycle or before it), ``/behaviors`` (its JSON value) last."""
    when, ns = stamp(snap.time)
    out: list[tuple[str, Any, int]] = [("/log", *log_line(line)) for line in snap.lines]
    out += [("/pose", pose_in_world(snap, when), ns), ("/odom", odometry(snap, when), ns),
            ("/tf", world_to_base(snap, when), ns)]  # fmt: skip
    if snap.sonar is not None:
        out.append(("/sonar", sonar_cloud(snap.sonar, when), ns))
    if snap.scan is not None:
        out.append(("/laser", laser_scan(snap.scan, when), ns))
    if snap.world is not None:
        out.append(("/world", world_scene(snap.world, when), ns))
    if snap.artifacts is not None:
        out.append(("/artifacts", artifact_scene(snap.artifacts, when), ns))
    if snap.behaviors is not None:
        out.append(("/behaviors", json.loads(snap.behaviors), ns))  # the SDK writes it back as json.dumps does
    return out
