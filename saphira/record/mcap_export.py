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

What a cycle sends is decided in one place, the cycle's snapshot (:mod:`saphira.record.snapshot`, what
ROS 2's messages are made from too), and rendered by one function per channel
(:mod:`saphira.record.foxglove_messages`): a file and the live server carry the same messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


class FoxgloveLog(Task):
    """An observe-phase task logging the robot to Foxglove channels every cycle (see the module docstring).

    Each cycle its :attr:`source` takes the snapshot (:mod:`saphira.record.snapshot`: what the cycle
    produced, and the world, the artifacts and the lines logged) and :func:`saphira.record.foxglove_messages.messages`
    renders it. ``behaviors``, ``artifacts`` and ``messages`` give what the robot does not hold itself: for a
    live robot the behaviors' state and the pointlist are read from it (:mod:`saphira.record.extras`) and
    :meth:`message` is called with each line; a replay gives what the recording holds. ``repeat`` sends the
    world and the artifacts again every so many cycles; without ``log`` there is no ``/log``.
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
        fc = fg.channels
        from saphira.record import foxglove_messages

        self._render = foxglove_messages
        self.robot = robot
        self.world = world
        """The world drawn on ``/world`` once known (a live run's is set when its simulator is attached)."""
        schema = fg.Schema(name="saphira.Behaviors", encoding="jsonschema", data=json.dumps(BEHAVIOR_SCHEMA).encode())
        self.channels: dict[str, Any] = {
            "/pose": fc.PoseInFrameChannel("/pose", context=context),
            "/odom": fc.OdometryChannel("/odom", context=context),
            "/tf": fc.FrameTransformChannel("/tf", context=context),
            "/sonar": fc.PointCloudChannel("/sonar", context=context),
            "/laser": fc.LaserScanChannel("/laser", context=context),
            "/world": fc.SceneUpdateChannel("/world", context=context),
            "/artifacts": fc.SceneUpdateChannel("/artifacts", context=context),
            "/behaviors": fg.Channel("/behaviors", schema=schema, message_encoding="json", context=context),
        }
        """Each topic's channel; ``/log`` only with ``log`` (the live server's default is without: see
        :class:`FoxgloveServer`)."""
        if log:
            self.channels["/log"] = fc.LogChannel("/log", context=context)
        self.log = log
        self.source = FrameSource(
            robot,
            behaviors=behaviors if behaviors is not None else (lambda: behavior_state(robot)),
            behavior_cycles=1,
            world=lambda: self.world,
            artifacts=artifacts if artifacts is not None else (lambda: artifact_rows(robot)),
            lines=messages if log else None,
            repeat=repeat,
        )
        """What each cycle produced (:mod:`saphira.record.snapshot`, what ROS 2's messages are made from too)."""
        self.cycles = 0
        """Cycles logged (those with the robot connected)."""

    def step(self, state: int) -> int:
        if self.robot.link.connected:
            self._log(self._render.messages(self.source.take()))
            self.cycles += 1
        else:
            self.flush()
        return TaskState.RESUME if state == TaskState.INIT else state

    def _log(self, messages: list[tuple[str, Any, int]]) -> None:
        for topic, message, ns in messages:
            self.channels[topic].log(message, log_time=ns)

    def message(self, level: str, name: str, text: str) -> None:
        """A line for ``/log`` (from any thread): a log record (its logger's name) or an activity's message
        (``sfMessage``), logged with the next cycle at the time it came; nothing without ``/log``."""
        if self.log:
            self.source.message(level, name, text)

    def flush(self) -> None:
        """Log the lines that came since the last cycle logged (none is while the robot is not connected)."""
        self._log([("/log", *self._render.log_line(line)) for line in self.source.pending()])


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
            self.channels.flush()
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
            self.channels.flush()
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
