"""A run as Foxglove channels: written to MCAP (``export``, ``run --record X.mcap``) or served live
(``run --foxglove [HOST:]PORT``, the SDK's WebSocket server, on 127.0.0.1 unless told otherwise).

The channels use Foxglove's well-known schemas (protobuf, through the ``foxglove-sdk`` library, an
optional extra: ``pip install 'saphira[foxglove]'``), in metres and radians, the global frame
``world``, the odometric frame ``odom`` and the robot ``base_link``:

==================  ==================  =====================================================
``/pose``           PoseInFrame         the robot's global pose (``world``), every cycle
``/odom``           Odometry            the odometric pose and velocities (``odom``), every cycle
``/tf``             FrameTransform      ``world`` → ``base_link``, every cycle
``/sonar``          PointCloud          the current sonar readings (``base_link``), when new ones came
``/laser``          LaserScan           each new laser scan (``base_link``)
``/world``          SceneUpdate         the world's walls and boxes, once (when the world is known)
``/artifacts``      SceneUpdate         the map's artifacts (the pointlist), when it changes
``/behaviors``      JSON (saphira)      the desired turn and speed and every behavior's rules
``/log``            Log                 the log records and the activities' ``sfMessage`` lines
==================  ==================  =====================================================

Time is robot time (the cycle times the period) from the start of the run. Served live, ``/world`` and
``/artifacts`` are sent again every :data:`REPEAT_CYCLES`, so a viewer that connects later gets them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from saphira.client.sensors.laser import LaserScan
from saphira.core.errors import SaphiraError
from saphira.core.hosts import beyond_loopback, reachable_hosts, url_host
from saphira.core.outfile import OutputFile
from saphira.core.tasks import Phase, Task, TaskState
from saphira.params.robot_params import RobotParams
from saphira.record.extras import MessageTap, artifact_rows, behavior_state
from saphira.record.recording import Recorder
from saphira.record.snapshot import FrameSource

if TYPE_CHECKING:
    from saphira.robot import Robot
    from saphira.world.world import World

__all__ = [
    "BEHAVIOR_SCHEMA",
    "TOPICS",
    "FoxgloveLog",
    "FoxgloveServer",
    "McapRecorder",
    "Teleop",
    "export",
    "foxglove_sdk",
    "foxglove_urls",
    "open_recorder",
]

TOPICS = ("/pose", "/odom", "/tf", "/sonar", "/laser", "/world", "/artifacts", "/behaviors", "/log")
BEHAVIOR_SCHEMA: dict[str, Any] = {
    "title": "saphira.Behaviors",
    "type": "object",
    "properties": {
        "turn": {"type": ["number", "null"], "description": "blended desired turn (deg/s or deg)"},
        "speed": {"type": ["number", "null"], "description": "blended desired speed (mm/s)"},
        "rows": {"type": "array", "description": "each behavior: name, priority, running, its turn and "
                 "speed, goal, progress, params and rules [name, truth, direction, value]"},
    },
}  # fmt: skip
REPEAT_CYCLES = 50
"""Cycles between two copies of ``/world`` and ``/artifacts`` on a live server (5 s at 100 ms)."""
_LEVELS = {"DEBUG": "Debug", "INFO": "Info", "WARNING": "Warning", "ERROR": "Error", "CRITICAL": "Fatal"}
"""Python's logging levels by Foxglove's names."""


class FoxgloveMissing(SaphiraError):
    """The foxglove-sdk library is not installed."""


def foxglove_sdk() -> Any:
    """The ``foxglove`` module, or a :class:`FoxgloveMissing` saying how to install it."""
    try:
        import foxglove
    except ImportError as exc:
        raise FoxgloveMissing("MCAP and Foxglove need foxglove-sdk: pip install 'saphira[foxglove]'") from exc
    return foxglove


def _open_mcap(fg: Any, output: OutputFile, context: Any) -> Any:
    """The SDK's MCAP writer for ``output``'s temporary; a :class:`SaphiraError` naming the file when it
    cannot be written (the temporary is then removed)."""
    try:
        return fg.open_mcap(str(output.temp()), allow_overwrite=True, context=context)
    except OSError as exc:
        output.discard()
        raise SaphiraError(f"cannot write {output.path}: {exc.strerror or exc}") from None


def _quaternion(fm: Any, degrees: float) -> Any:
    half = math.radians(degrees) / 2
    return fm.Quaternion(x=0.0, y=0.0, z=math.sin(half), w=math.cos(half))


def _pose(fm: Any, x: float, y: float, th: float) -> Any:
    return fm.Pose(position=fm.Vector3(x=x / 1000, y=y / 1000, z=0.0), orientation=_quaternion(fm, th))


class FoxgloveLog(Task):
    """An observe-phase task logging the robot to Foxglove channels every cycle (see the module docstring).

    ``behaviors``, ``artifacts`` and ``messages`` give what the robot does not hold itself: for a live
    robot the behaviors' state and the pointlist are read from it (:mod:`saphira.record.extras`) and
    :meth:`message` is called with each line; a replay gives what the recording holds.
    """

    def __init__(
        self,
        robot: Robot,
        context: Any,
        *,
        world: World | None = None,
        behaviors: Callable[[], dict[str, Any]] | None = None,
        artifacts: Callable[[], list[list[float]]] | None = None,
        messages: Callable[[], list[list[str]]] = list,
        repeat: int = 0,
        log: bool = True,
    ) -> None:
        super().__init__("foxglove", phase=Phase.OBSERVE)
        fg = foxglove_sdk()
        fc, self._fm = fg.channels, fg.messages
        self.robot = robot
        self.world = world
        self.behaviors = behaviors if behaviors is not None else (lambda: behavior_state(robot))
        self.artifact_rows = artifacts if artifacts is not None else (lambda: artifact_rows(robot))
        self.messages = messages
        self.repeat = repeat
        """Cycles between two copies of the world and the artifacts (0: once, and on a change)."""
        self.pose = fc.PoseInFrameChannel("/pose", context=context)
        self.odom = fc.OdometryChannel("/odom", context=context)
        self.tf = fc.FrameTransformChannel("/tf", context=context)
        self.sonar = fc.PointCloudChannel("/sonar", context=context)
        self.laser = fc.LaserScanChannel("/laser", context=context)
        self.scene = fc.SceneUpdateChannel("/world", context=context)
        self.artifacts = fc.SceneUpdateChannel("/artifacts", context=context)
        schema = fg.Schema(name="saphira.Behaviors", encoding="jsonschema", data=json.dumps(BEHAVIOR_SCHEMA).encode())
        self.behavior_channel = fg.Channel("/behaviors", schema=schema, message_encoding="json", context=context)
        self.log = fc.LogChannel("/log", context=context) if log else None
        """``/log``, or None when the messages are kept off (the live server's default: see :class:`FoxgloveServer`)."""
        self._world_sent = False
        self.source = FrameSource(robot)
        """What each cycle produced (:mod:`saphira.record.snapshot`, what ROS 2's messages are made from too)."""
        self._artifact_rows: list[list[float]] = []
        self._behavior_json = ""
        self.cycles = 0
        """Cycles logged (those with the robot connected)."""

    def _time(self) -> tuple[Any, int]:
        ns = round(self.robot.clock.now() * 1e9)
        return self._fm.Timestamp(ns // 1_000_000_000, ns % 1_000_000_000), ns

    def step(self, state: int) -> int:
        if self.robot.link.connected:
            self._log_cycle()
            self.cycles += 1
        return TaskState.RESUME if state == TaskState.INIT else state

    def _log_cycle(self) -> None:
        fm, snap = self._fm, self.source.take()
        stamp, ns = self._time()
        (ax, ay, ath), (ox, oy, oth) = snap.pose, snap.odom
        where = fm.Vector3(x=ax / 1000, y=ay / 1000, z=0.0)
        self.pose.log(fm.PoseInFrame(timestamp=stamp, frame_id="world", pose=_pose(fm, ax, ay, ath)), log_time=ns)
        self.odom.log(fm.Odometry(timestamp=stamp, frame_id="odom", body_frame_id="base_link",
                                  pose=_pose(fm, ox, oy, oth), linear_velocity=fm.Vector3(x=snap.vel / 1000),
                                  angular_velocity=fm.Vector3(z=math.radians(snap.rvel))), log_time=ns)  # fmt: skip
        self.tf.log(fm.FrameTransform(timestamp=stamp, parent_frame_id="world", child_frame_id="base_link",
                                      translation=where, rotation=_quaternion(fm, ath)), log_time=ns)  # fmt: skip
        if snap.sonar is not None:
            self._log_sonar(snap.sonar, stamp, ns)
        if snap.scan is not None:
            self._log_laser(snap.scan, stamp, ns)
        again = self.repeat > 0 and self.robot.scheduler.cycle % self.repeat == 0
        if again:
            self._world_sent = False
            self._artifact_rows = [[-1.0]]  # differs from any list of rows: sent again
        if not self._world_sent and self.world is not None:
            self._world_sent = True
            self.scene.log(fm.SceneUpdate(entities=self._world_entities(stamp)), log_time=ns)
        self._log_artifacts(stamp, ns)
        for level, name, text in self.messages():
            self.message(level, name, text)
        behaviors = self.behaviors()
        text = json.dumps(behaviors, separators=(",", ":"))
        if behaviors and text != self._behavior_json:
            self._behavior_json = text
            self.behavior_channel.log(behaviors, log_time=ns)

    def _log_sonar(self, readings: list[tuple[float, float]], stamp: Any, ns: int) -> None:
        points = [(x / 1000, y / 1000, 0.0) for x, y in readings]
        fm = self._fm
        f32 = fm.PackedElementFieldNumericType.Float32
        fields = [fm.PackedElementField(name=n, offset=4 * k, type=f32) for k, n in enumerate("xyz")]
        data = np.asarray(points, dtype="<f4").tobytes()
        self.sonar.log(fm.PointCloud(timestamp=stamp, frame_id="base_link", pose=_pose(fm, 0, 0, 0), point_stride=12,
                                     fields=fields, data=data), log_time=ns)  # fmt: skip

    def _log_laser(self, scan: LaserScan, stamp: Any, ns: int) -> None:
        fm = self._fm
        ranges = [r / 1000 if r < scan.max_range else math.inf for r in scan.ranges.tolist()]
        mount = _pose(fm, scan.mount_x, scan.mount_y, 0)
        first, last = math.radians(float(scan.angles[0])), math.radians(float(scan.angles[-1]))
        message = fm.LaserScan(timestamp=stamp, frame_id="base_link", pose=mount, start_angle=first, end_angle=last,
                               ranges=ranges)  # fmt: skip
        self.laser.log(message, log_time=ns)

    def _world_entities(self, stamp: Any) -> list[Any]:
        fm, world = self._fm, self.world
        assert world is not None
        points = [fm.Point3(x=x / 1000, y=y / 1000) for seg in world.segments.tolist() for x, y in (seg[:2], seg[2:])]
        walls = fm.LinePrimitive(type=fm.LinePrimitiveLineType.LineList, thickness=0.03, points=points,
                                 pose=_pose(fm, 0, 0, 0), color=fm.Color(r=0.15, g=0.15, b=0.15, a=1.0))  # fmt: skip
        from saphira.world.objects import SimObject

        cubes = []
        for spec in world.objects:
            box = SimObject(spec)
            (x0, y0), (x1, y1) = box.corners().min(axis=0), box.corners().max(axis=0)
            cubes.append(fm.CubePrimitive(pose=_pose(fm, (x0 + x1) / 2, (y0 + y1) / 2, 0),
                                          size=fm.Vector3(x=(x1 - x0) / 1000, y=(y1 - y0) / 1000, z=0.3),
                                          color=fm.Color(r=0.8, g=0.3, b=0.2, a=1.0)))  # fmt: skip
        return [fm.SceneEntity(timestamp=stamp, frame_id="world", id="walls", lines=[walls], cubes=cubes)]

    def _log_artifacts(self, stamp: Any, ns: int) -> None:
        rows = self.artifact_rows()
        if rows == self._artifact_rows:
            return
        self._artifact_rows = rows
        fm = self._fm
        entities = []
        for k, (kind, ident, x, y, th, width, length) in enumerate(rows):
            size = fm.Vector3(x=(length or 200.0) / 1000, y=(width or 50.0) / 1000, z=0.05)
            cube = fm.CubePrimitive(pose=_pose(fm, x, y, th), size=size, color=fm.Color(r=0.2, g=0.5, b=0.9, a=0.6))
            entities.append(fm.SceneEntity(timestamp=stamp, frame_id="world", id=f"artifact-{k}",
                                           metadata=[fm.KeyValuePair(key="type", value=str(int(kind))),
                                                     fm.KeyValuePair(key="id", value=str(int(ident)))],
                                           cubes=[cube]))  # fmt: skip
        deletion = fm.SceneEntityDeletion(timestamp=stamp, type=fm.SceneEntityDeletionType.All)
        self.artifacts.log(fm.SceneUpdate(deletions=[deletion], entities=entities), log_time=ns)

    def message(self, level: str, name: str, text: str) -> None:
        """A line on ``/log``: a log record (its logger's name) or an activity's message (``sfMessage``)."""
        if self.log is None:
            return
        fm = self._fm
        stamp, ns = self._time()
        level_value = getattr(fm.LogLevel, _LEVELS.get(level, "Unknown"))
        self.log.log(fm.Log(timestamp=stamp, level=level_value, message=text, name=name), log_time=ns)


class McapRecorder:
    """``saphira run --record RUN.mcap``: the run's channels written to an MCAP file as it goes."""

    def __init__(self, robot: Robot, path: str | Path) -> None:
        fg = foxglove_sdk()
        self.robot = robot
        self.path = Path(path)
        self.output = OutputFile(path)  # written beside: moved over ``path`` on close, if the run recorded
        self._context = fg.Context()
        self._writer = _open_mcap(fg, self.output, self._context)
        self.channels = FoxgloveLog(robot, self._context)
        robot.scheduler.add(self.channels, robot.scheduler.unique_name("recorder"))
        self._placing = robot.scheduler.add(self._place, robot.scheduler.unique_name("recorder"), phase=Phase.OBSERVE)
        self.tap = MessageTap(self.channels.message)

    def _place(self, state: int) -> int:
        """Move the file into place at the end of the first cycle logged (the run has data), then end."""
        if not self.has_data:
            return TaskState.RESUME if state == TaskState.INIT else state
        self.output.commit()
        return TaskState.SUCCESS

    def note(self, key: str, value: str) -> None:
        """Only ``world`` matters here: its walls and boxes go on ``/world``."""
        if key == "world" and self.channels.world is None:
            from saphira.world.world import load_world

            self.channels.world = load_world(value)

    @property
    def has_data(self) -> bool:
        """Whether a cycle was logged with the robot connected: only then does the file replace :attr:`path`."""
        return self.channels.cycles > 0

    def close(self) -> None:
        """Finish the file (in place since its first cycle), or drop it if no cycle was logged (idempotent)."""
        if self._writer is not None:
            self.tap.detach()
            self._writer.close()
            self._writer = None
            self.output.finish(keep=self.has_data)
            for task in (self.channels, self._placing):
                if task.scheduler is not None:
                    self.robot.scheduler.remove(task)


class FoxgloveServer:
    """``saphira run --foxglove [HOST:]PORT``: the run's channels served live to Foxglove's viewers.

    Foxglove's WebSocket server (the SDK's) cannot tell which page a browser connection comes from, nor ask
    for a token: any page open in a browser on a host that reaches it can read what it serves. So what it
    serves is kept to the robot's state: ``/log`` (the log records and the activities' messages, which may
    say anything) only with ``log``, and the Teleop panel drives the robot only with ``control`` (a
    callback given ``/cmd_vel``'s linear x, m/s, and angular z, rad/s; the caller applies limits and a
    watchdog). Either is an explicit flag of the user's (``--foxglove-log``, ``--foxglove-control``).
    """

    def __init__(
        self,
        robot: Robot,
        address: tuple[str, int],
        *,
        say: Callable[[str], None] = print,
        log: bool = False,
        control: Callable[[float, float], None] | None = None,
    ) -> None:
        fg = foxglove_sdk()
        self.robot = robot
        self._context = fg.Context()
        host, port = address
        options: dict[str, Any] = {}
        if control is not None:
            from foxglove.websocket import Capability

            self.teleop: Teleop | None = Teleop(control)
            options = {"capabilities": [Capability.ClientPublish], "supported_encodings": ["json"],
                       "server_listener": self.teleop}  # fmt: skip
        else:
            self.teleop = None
        try:
            self._server = fg.start_server(name="saphira", host=host, port=port, context=self._context, **options)
        except RuntimeError as exc:
            raise SaphiraError(f"cannot serve Foxglove on {host}:{port}: {exc}") from exc
        self.port: int = self._server.port
        self.channels = FoxgloveLog(robot, self._context, repeat=REPEAT_CYCLES, log=log)
        robot.scheduler.add(self.channels, robot.scheduler.unique_name("foxglove"))
        self.tap = MessageTap(self.channels.message)
        say(
            f"foxglove: {' '.join(foxglove_urls(host, self.port))} (open it in Foxglove: Open connection, "
            "Foxglove WebSocket)"
        )
        if control is not None:
            say("foxglove: the Teleop panel drives the robot (/cmd_vel): so can any page open in a browser that "
                "reaches this server, which cannot tell them apart")  # fmt: skip
        if beyond_loopback(host) is not None:  # the live view's test: a wildcard or non-loopback address
            can = " and can drive the robot" if control else " (read only)"
            say(f"warning: the Foxglove server listens on {host or 'every interface'}, not only on loopback, with no "
                f"token: anyone who reaches it sees the run{can}; "
                "prefer the default 127.0.0.1 and an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host)")  # fmt: skip

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        if self._server is not None:
            self.tap.detach()
            self._server.stop()
            self._server = None
            if self.channels.scheduler is not None:
                self.robot.scheduler.remove(self.channels)


def foxglove_urls(host: str, port: int) -> list[str]:
    """The ``ws://`` URLs that reach a Foxglove server bound to ``host:port`` (a wildcard: this host's addresses)."""
    return [f"ws://{url_host(h)}:{port}" for h in reachable_hosts(host)]


class Teleop:
    """The Foxglove server's listener when control is on: a client's ``/cmd_vel`` (JSON ``geometry_msgs/Twist``,
    what the Teleop panel sends) passed on as (linear x, angular z); anything else is ignored, bounded."""

    MAX_MESSAGE = 4096
    """Bytes of one message read at most."""
    MAX_CHANNELS = 64
    """Client channels remembered at most."""

    def __init__(self, control: Callable[[float, float], None]) -> None:
        self.control = control
        self._topics: dict[tuple[int, int], str] = {}
        self.ignored = 0

    def on_client_advertise(self, client: Any, channel: Any) -> None:
        if len(self._topics) < self.MAX_CHANNELS:
            self._topics[(client.id, channel.id)] = str(channel.topic)

    def on_client_unadvertise(self, client: Any, client_channel_id: int) -> None:
        self._topics.pop((client.id, client_channel_id), None)

    def on_message_data(self, client: Any, client_channel_id: int, data: bytes) -> None:
        if self._topics.get((client.id, client_channel_id)) != "/cmd_vel" or len(data) > self.MAX_MESSAGE:
            self.ignored += 1
            return
        try:
            twist = json.loads(data)
            linear, angular = float(twist["linear"]["x"]), float(twist["angular"]["z"])
        except (ValueError, TypeError, KeyError):
            self.ignored += 1
            return
        self.control(linear, angular)


def open_recorder(robot: Robot, path: str | Path) -> Recorder | McapRecorder:
    """``--record PATH``: MCAP for a ``.mcap`` file, else a saphira recording (:mod:`saphira.record.recording`)."""
    return McapRecorder(robot, path) if Path(path).suffix.lower() == ".mcap" else Recorder(robot, path)


def export(
    source: str | Path, target: str | Path, *, world: str | None = None, params: RobotParams | None = None
) -> int:
    """Replay the recording ``source`` and write its channels to the MCAP file ``target``; the cycles played."""
    from saphira.record.playback import Playback, recorded_world

    fg = foxglove_sdk()
    playback = Playback.open(source, params)
    context = fg.Context()
    output = OutputFile(target)  # in place once whole: a failed export leaves an existing file
    with output, _open_mcap(fg, output, context):
        channels = FoxgloveLog(playback.robot, context, world=recorded_world(playback.info, world),
                               behaviors=lambda: playback.behaviors, artifacts=lambda: playback.artifacts,
                               messages=lambda: playback.messages)  # fmt: skip
        playback.robot.scheduler.add(channels)
        while not playback.done:
            playback.step()
    return playback.cycles
