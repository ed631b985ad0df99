"""``saphira run --ros2``: the run as a ROS 2 node, over Eclipse Cyclone DDS, with no ROS installation.

ROS 2 names a topic ``/odom`` ``rt/odom`` on DDS and a type as its IDL mapping does
(:mod:`saphira.ros2.messages`); the QoS of each topic is what ROS 2's publishers of that kind use
(:data:`TOPICS`): sensor data best effort, ``/map`` and ``/tf_static`` reliable and transient local
(a late subscriber gets the last one), the rest ROS 2's default (reliable, volatile, depth 10).

The cycle only takes a snapshot (:class:`~saphira.ros2.frames.FrameSource`) and hands it to the
publishing thread through a bounded queue; a full queue drops the snapshot (and what it alone carried
is sent again with the next). A second thread waits on the subscriptions and keeps the latest of
each; the cycle task applies them: ``/cmd_vel`` (:mod:`saphira.ros2.drive`), ``/initialpose`` (the
localizer's pose, or the global pose), ``/enable_motors`` (``std_msgs/Bool``: RosAria's
``enable_motors``/``disable_motors`` services as one topic).
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cyclonedds.idl import IdlStruct

from saphira.core.errors import SaphiraError
from saphira.core.tasks import Phase, Task, TaskState
from saphira.protocol.commands import Command
from saphira.ros2 import messages as m
from saphira.ros2.cdr import encode
from saphira.ros2.discovery import Discovery
from saphira.ros2.drive import Drive
from saphira.ros2.frames import FrameSource, Snapshot, messages

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["QUEUE", "SUBSCRIBED", "TOPICS", "Kind", "Ros2Bridge", "Topic"]

log = logging.getLogger("saphira.ros2")

QUEUE = 8
"""Snapshots waiting for the publishing thread at most (0.8 s at 100 ms)."""
WAIT = 0.2
"""Seconds the subscription thread waits for data before looking whether it should stop."""


class Kind:
    """QoS kinds (rclcpp's profiles): what a topic's writer and reader are given."""

    DEFAULT = "default"
    """Reliable, volatile, keep last 10 (``rclcpp::QoS(10)``)."""
    SENSOR = "sensor"
    """Best effort, volatile, keep last 5 (``rclcpp::SensorDataQoS``)."""
    LATCHED = "latched"
    """Reliable, transient local, keep last 1 (a map server's ``/map``, ``/tf_static``)."""
    TF = "tf"
    """Reliable, volatile, keep last 100 (tf2's broadcaster)."""
    CLOCK = "clock"
    """Best effort, volatile, keep last 1 (``rclcpp::ClockQoS``)."""


@dataclass(frozen=True)
class Topic:
    name: str
    type: type[IdlStruct]
    kind: str
    doc: str


TOPICS: tuple[Topic, ...] = (
    Topic("/odom", m.Odometry, Kind.DEFAULT, "odometric pose and velocities, frame odom, child base_link"),
    Topic("/tf", m.TFMessage, Kind.TF, "odom → base_link every cycle; map → odom when anchored on a map"),
    Topic("/tf_static", m.TFMessage, Kind.LATCHED, "base_link → laser, sonar and each sonar_N"),
    Topic("/scan", m.LaserScan, Kind.SENSOR, "each laser scan, frame laser"),
    Topic("/sonar", m.PointCloud2, Kind.SENSOR, "the current sonar readings, frame sonar"),
    Topic("/map", m.OccupancyGrid, Kind.LATCHED, "the map's (or the simulated world's) walls"),
    Topic("/battery_state", m.BatteryState, Kind.DEFAULT, "the battery's voltage, every second"),
    Topic("/bumper_state", m.BumperState, Kind.DEFAULT, "front and rear bumpers (RosAria's), every second"),
    Topic("/motors_state", m.Bool, Kind.LATCHED, "whether the motors are enabled, every second"),
    Topic("/behaviors", m.String, Kind.DEFAULT, "the running activities and behaviors (JSON), when they change"),
    Topic("/clock", m.Clock, Kind.CLOCK, "the run's time, in a lock-step run only (use_sim_time)"),
)
SUBSCRIBED: tuple[Topic, ...] = (
    Topic("/cmd_vel", m.Twist, Kind.SENSOR, "drives the robot (best effort: matches any publisher)"),
    Topic("/initialpose", m.PoseWithCovarianceStamped, Kind.DEFAULT, "sets the global pose (RViz's 2D Pose Estimate)"),
    Topic("/enable_motors", m.Bool, Kind.DEFAULT, "true enables the motors, false disables them"),
)


def _qos(kind: str) -> Any:
    from cyclonedds.core import Policy, Qos
    from cyclonedds.util import duration

    reliable = Policy.Reliability.Reliable(duration(milliseconds=100))
    return {
        Kind.DEFAULT: Qos(reliable, Policy.Durability.Volatile, Policy.History.KeepLast(10)),
        Kind.SENSOR: Qos(Policy.Reliability.BestEffort, Policy.Durability.Volatile, Policy.History.KeepLast(5)),
        Kind.LATCHED: Qos(reliable, Policy.Durability.TransientLocal, Policy.History.KeepLast(1)),
        Kind.TF: Qos(reliable, Policy.Durability.Volatile, Policy.History.KeepLast(100)),
        Kind.CLOCK: Qos(Policy.Reliability.BestEffort, Policy.Durability.Volatile, Policy.History.KeepLast(1)),
    }[kind]


class Ros2Missing(SaphiraError):
    """The cyclonedds library is not installed."""


def cyclonedds_module() -> Any:
    """The ``cyclonedds`` package, or a :class:`Ros2Missing` saying how to install it."""
    try:
        import cyclonedds.domain
    except ImportError as exc:
        raise Ros2Missing("--ros2 needs Eclipse Cyclone DDS's Python binding: pip install 'saphira[ros2]'") from exc
    return cyclonedds


class Ros2Bridge(Task):
    """The run on the ROS 2 graph (see the module docstring): an observe-phase task and two threads."""

    def __init__(
        self,
        robot: Robot,
        discovery: Discovery,
        source: FrameSource,
        *,
        set_pose: Callable[[float, float, float], None],
    ) -> None:
        super().__init__("ros2", phase=Phase.OBSERVE)
        cyclonedds_module()
        from cyclonedds.core import DDSException, ReadCondition, SampleState, WaitSet
        from cyclonedds.domain import Domain, DomainParticipant
        from cyclonedds.pub import DataWriter
        from cyclonedds.sub import DataReader
        from cyclonedds.topic import Topic as DdsTopic

        self.robot = robot
        self.source = source
        self.discovery = discovery
        self.set_pose = set_pose
        self.drive = Drive(robot)
        self.epoch = time.time() - robot.clock.now()
        """Added to the run's time for the stamps: wall-clock time in a real-time run."""
        try:
            self._domain: Domain | None = Domain(discovery.domain, discovery.config() or None)
            self.participant: DomainParticipant | None = DomainParticipant(discovery.domain)
        except DDSException as exc:
            raise SaphiraError(f"cannot join the ROS 2 graph ({discovery.describe()}): {exc}") from exc
        self._writers = {t.name: DataWriter(self.participant, DdsTopic(self.participant, "rt" + t.name, t.type),
                                            qos=_qos(t.kind)) for t in TOPICS}  # fmt: skip
        self._readers = {t.name: DataReader(self.participant, DdsTopic(self.participant, "rt" + t.name, t.type),
                                            qos=_qos(t.kind)) for t in SUBSCRIBED}  # fmt: skip
        self._waitset: WaitSet | None = WaitSet(self.participant)
        for reader in self._readers.values():
            self._waitset.attach(ReadCondition(reader, SampleState.NotRead))
        self._queue: queue.Queue[Snapshot | None] = queue.Queue(QUEUE)
        self._latest: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.published = self.dropped = self.snapshots = 0
        self.publish_seconds = 0.0
        """Time the publishing thread spent on the :attr:`snapshots` it sent (messages, CDR, writes)."""
        self.failure: str | None = None
        self._threads = [threading.Thread(target=self._publish_loop, name="ros2-publish", daemon=True),
                         threading.Thread(target=self._subscribe_loop, name="ros2-subscribe", daemon=True)]  # fmt: skip
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------------ the cycle
    def step(self, state: int) -> int:
        if self.robot.link.connected:
            snap = self.source.take()
            try:
                self._queue.put_nowait(snap)
            except queue.Full:
                self.dropped += 1
                self.source.forget()
            self._apply_received()
        return TaskState.RESUME if state == TaskState.INIT else state

    def _apply_received(self) -> None:
        with self._lock:
            latest, self._latest = self._latest, {}
        twist = latest.get("/cmd_vel")
        if twist is not None:
            self.drive.offer(*twist)
        note = self.drive.step()
        if note is not None and self.drive.refused == 1:  # the first; the summary counts them all
            log.warning("%s (further refusals are counted in the summary)", note)
        pose = latest.get("/initialpose")
        if pose is not None:
            self.set_pose(*pose)
        motors = latest.get("/enable_motors")
        if motors is not None:
            self.robot.link.send_command(Command.ENABLE, int(motors))

    # ------------------------------------------------------------------ the threads
    def _publish_loop(self) -> None:
        try:
            while (snap := self._queue.get()) is not None:
                started = time.perf_counter()
                for topic, message in messages(snap, self.epoch):
                    self._write(self._writers[topic], encode(message))
                    self.published += 1
                self.publish_seconds += time.perf_counter() - started
                self.snapshots += 1
        except Exception as exc:  # the run goes on without the graph; the summary says so
            self.failure = f"ros2: publishing stopped: {type(exc).__name__}: {exc}"
            log.error(self.failure)

    @staticmethod
    def _write(writer: Any, data: bytes) -> None:
        """What ``DataWriter.write`` does once it has the CDR, given ours (:mod:`saphira.ros2.cdr`: the same
        bytes, made ten times faster than Cyclone's Python serializer makes them)."""
        from cyclonedds._clayer import ddspy_write  # type: ignore[import-not-found]
        from cyclonedds.core import DDSException

        code = ddspy_write(writer._ref, data)
        if code < 0:
            raise DDSException(code, f"while writing on {writer.topic.name}")

    def _subscribe_loop(self) -> None:
        from cyclonedds.internal import InvalidSample
        from cyclonedds.util import duration

        try:
            while not self._stop.is_set() and self._waitset is not None:
                self._waitset.wait(duration(seconds=WAIT))
                for name, reader in self._readers.items():
                    samples = [s for s in reader.take(N=16) if not isinstance(s, InvalidSample)]
                    if samples:  # the latest wins (an invalid sample: a writer went away)
                        self._receive(name, samples[-1])
        except Exception as exc:
            self.failure = f"ros2: subscriptions stopped: {type(exc).__name__}: {exc}"
            log.error(self.failure)

    def _receive(self, name: str, sample: Any) -> None:
        value: Any
        if name == "/cmd_vel":
            value = (float(sample.linear.x), float(sample.angular.z), time.monotonic())
        elif name == "/initialpose":
            p = sample.pose.pose
            q = p.orientation
            th = math.degrees(math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z)))
            value = (p.position.x * 1000, p.position.y * 1000, th)
            if not all(math.isfinite(v) for v in value):
                log.warning("initialpose refused: not a finite pose")
                return
        else:
            value = bool(sample.data)
        with self._lock:
            self._latest[name] = value

    def summary(self) -> str:
        """The run summary's line: what went out, what came in."""
        d = self.drive
        return (
            f"    ros2: {self.published} messages published, {self.dropped} snapshots dropped; cmd_vel "
            f"{d.accepted} accepted ({d.clamped} clamped), {d.refused} refused, {d.stops} watchdog stops"
        )

    def close(self) -> None:
        """Stop both threads and leave the graph (idempotent); what was queued is still sent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=5.0)
        # Leave the graph now (children first), not when the collector gets to it: the domain can be made again.
        self._waitset = None
        self._writers.clear()
        self._readers.clear()
        self.participant = None
        self._domain = None
        if self.scheduler is not None:
            self.robot.scheduler.remove(self)
