"""A run as a ROS 2 bag: MCAP with ROS 2's profile, ``ros2msg`` schemas and ``cdr`` messages.

The messages are :mod:`saphira.ros2.frames`'s, the same the DDS bridge publishes, serialized as DDS
sends them; each channel carries the QoS it was offered with (``offered_qos_profiles``, as ``ros2 bag
record`` writes it), so ``ros2 bag play`` republishes ``/map`` and ``/tf_static`` transient local. Log
time is the run's time plus the recording's epoch (0: the run starts at time 0).

The file is written beside its final name (:mod:`saphira.core.outfile`): an export's is moved into place
when complete, a recording's with its first cycle (it grows there), so a file the user keeps is replaced
only when there is a bag to put in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from cyclonedds.idl import IdlStruct

from saphira.core.outfile import OutputFile
from saphira.core.tasks import Phase, Task, TaskState
from saphira.record.extras import MessageTap, behavior_state
from saphira.record.snapshot import FrameSource
from saphira.ros2 import messages as m
from saphira.ros2.cdr import encode
from saphira.ros2.frames import messages
from saphira.ros2.topics import SUBSCRIBED, TOPICS, Kind

if TYPE_CHECKING:
    from saphira.core.arrays import FloatArray
    from saphira.params.robot_params import RobotParams
    from saphira.robot import Robot

__all__ = ["BagRecorder", "BagWriter", "export_bag", "qos_yaml"]

_KINDS = {t.name: t.kind for t in (*TOPICS, *SUBSCRIBED)}
_QOS = {  # (reliability, durability, depth): rmw's enums, 1 reliable / 2 best effort, 1 transient local / 2 volatile
    Kind.DEFAULT: (1, 2, 10), Kind.SENSOR: (2, 2, 5), Kind.LATCHED: (1, 1, 1), Kind.TF: (1, 2, 100),
    Kind.CLOCK: (2, 2, 1),
}  # fmt: skip
_FOREVER = "{sec: 2147483647, nsec: 4294967295}"


def qos_yaml(kind: str) -> str:
    """A channel's ``offered_qos_profiles`` as rosbag2 writes it (one profile, keep last)."""
    reliability, durability, depth = _QOS[kind]
    return (f"- history: 1\n  depth: {depth}\n  reliability: {reliability}\n  durability: {durability}\n"
            f"  deadline: {_FOREVER}\n  lifespan: {_FOREVER}\n  liveliness: 1\n"
            f"  liveliness_lease_duration: {_FOREVER}\n  avoid_ros_namespace_conventions: false\n")  # fmt: skip


class BagWriter:
    """Writes (topic, message) pairs to a ROS 2 MCAP bag at ``path`` (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        from mcap.writer import CompressionType, Writer

        self.path = Path(path)
        self.output = OutputFile(path)  # written beside; in place with its first message, or when complete
        self._stream: IO[bytes] | None = self.output.open("wb")
        self._writer = Writer(self._stream, compression=CompressionType.ZSTD)
        self._writer.start(profile="ros2", library="saphira")
        self._schemas: dict[type[IdlStruct], int] = {}
        self._channels: dict[str, int] = {}
        self.count = 0

    def _channel(self, topic: str, message: IdlStruct) -> int:
        channel = self._channels.get(topic)
        if channel is None:
            cls = type(message)
            schema = self._schemas.get(cls)
            if schema is None:
                schema = self._writer.register_schema(m.ros_name(cls), "ros2msg", m.definition(cls).encode())
                self._schemas[cls] = schema
            metadata = {"offered_qos_profiles": qos_yaml(_KINDS.get(topic, Kind.DEFAULT))}
            channel = self._writer.register_channel(topic, "cdr", schema, metadata)
            self._channels[topic] = channel
        return channel

    def write(self, topic: str, message: IdlStruct, time_ns: int) -> None:
        """One message, logged and published at ``time_ns``."""
        self._writer.add_message(self._channel(topic, message), time_ns, encode(message), time_ns)
        self.count += 1

    def close(self, *, keep: bool = True) -> None:
        """Finish the file and leave it in place if ``keep`` and it holds a message, else drop it (idempotent)."""
        if self._stream is None:
            return
        self._writer.finish()  # type: ignore[no-untyped-call]
        self._stream.close()
        self._stream = None
        self.output.finish(keep=keep and self.count > 0)


class _BagTask(Task):
    """An observe-phase task writing each cycle's messages to a bag; the source is made on the first
    connected cycle (what it reads, a simulated run's world, is known by then)."""

    def __init__(
        self, robot: Robot, make_source: Callable[[], FrameSource], writer: BagWriter, *, place_early: bool = False
    ) -> None:
        super().__init__("ros2 bag", phase=Phase.OBSERVE)
        self.robot, self.make_source, self.writer, self.place_early = robot, make_source, writer, place_early
        self.source: FrameSource | None = None
        self.epoch = 0.0

    def step(self, state: int) -> int:
        if self.robot.link.connected:
            if self.source is None:
                self.source = self.make_source()
            snap = self.source.take()
            ns = round((self.epoch + snap.time) * 1e9)
            for topic, message in messages(snap, self.epoch):
                self.writer.write(topic, message, ns)
            if self.writer.output.pending and self.place_early:  # a recording: in place with its first cycle
                self.writer.output.commit()
        return TaskState.RESUME if state == TaskState.INIT else state


class BagRecorder:
    """``saphira run --record RUN.mcap --ros2``: the run's ROS 2 messages written to a bag as it goes.

    ``source`` is the app's frame source (what is anchored, the walls); the world a simulated run notes
    (:meth:`note`) gives the walls when the source has none.
    """

    def __init__(self, robot: Robot, path: str | Path, make_source: Callable[[], FrameSource]) -> None:
        self.robot = robot
        self.writer = BagWriter(path)
        self.task = _BagTask(robot, make_source, self.writer, place_early=True)
        robot.scheduler.add(self.task, robot.scheduler.unique_name("recorder ros2"))
        self.tap = MessageTap(lambda level, name, text: None)  # the bag has no log topic: /rosout is not kept

    def note(self, key: str, value: str) -> None:
        """A recording's note: nothing a bag keeps (the walls come from the source)."""

    def close(self) -> None:
        """Finish the bag (idempotent)."""
        self.tap.detach()
        self.writer.close()
        if self.task.scheduler is not None:
            self.robot.scheduler.remove(self.task)


def export_bag(
    source: str | Path, target: str | Path, *, world: str | None = None, params: RobotParams | None = None
) -> tuple[int, int]:
    """Replay the recording ``source`` into the ROS 2 bag ``target``: (cycles played, messages written)."""
    from saphira.record.playback import Playback, recorded_world

    playback = Playback.open(source, params)
    shown = recorded_world(playback.info, world)
    walls: FloatArray | None = shown.segments if shown is not None else None
    frames = FrameSource(playback.robot, anchored=lambda: shown is not None, walls=lambda: walls,
                         behaviors=lambda: playback.behaviors or behavior_state(playback.robot))  # fmt: skip
    writer = BagWriter(target)
    try:
        playback.robot.scheduler.add(_BagTask(playback.robot, lambda: frames, writer))
        while not playback.done:
            playback.step()
    except BaseException:
        writer.close(keep=False)  # an existing file is left as it was
        raise
    writer.close()
    return playback.cycles, writer.count
