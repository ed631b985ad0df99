"""The DDS side of ``--ros2``, in a process of its own: ``python -m saphira.ros2.node``.

The run (:mod:`saphira.ros2.bridge`) starts this process and talks to it through its standard input
and output (:mod:`saphira.ros2.wire`'s frames). It is sent a :class:`NodeConfig`, then each cycle's
snapshot with its scan apart (a :class:`~saphira.ros2.frames.ScanRanges` or None), then None. It
answers ``("ready", gids)`` or ``("error", text)``, then sends what the subscriptions deliver
(``("sub", topic, value)``, plain numbers), its counts (``("stats", published, snapshots, seconds, cpu_seconds)``)
and what went wrong (``("failure", text)``, ``("note", text)``).

Here live the DDS participant, its writers and readers, the messages (:mod:`saphira.ros2.frames`) and
their CDR (Cyclone DDS's own serializer, through ``DataWriter.write``), and ``ros_discovery_info``
(:mod:`saphira.ros2.graph`), so that none of it holds the run's interpreter: the cycle only pickles
a snapshot and writes it to a pipe. The process ends when its input does (the run closed it, or died).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from saphira.ros2.frames import messages
from saphira.ros2.graph import DISCOVERY_TOPIC, entities_info, info_types
from saphira.ros2.topics import SUBSCRIBED, TOPICS, Kind, qos
from saphira.ros2.wire import FrameReader, frame

__all__ = ["STATS_EVERY", "NodeConfig", "main"]

STATS_EVERY = 10
"""Snapshots between two ``stats`` messages (and one when the input ends)."""
NICE = 10
"""How much nicer than the run this process is (see :func:`_give_way`)."""
POLL = 0.01
"""Seconds between two looks at the input when it is empty (see :func:`_give_way`)."""
WAIT = 0.2
"""Seconds the subscription thread waits for data before looking whether it should stop."""
_READ = 1 << 16


@dataclass(frozen=True)
class NodeConfig:
    """What the DDS process is told first: the domain, Cyclone DDS's configuration, the stamps' epoch, the gid size."""

    domain: int
    config: str
    epoch: float
    gid_size: int


def _frames(fd: int) -> Iterator[Any]:
    """The frames on ``fd`` until it ends, looked for every :data:`POLL` seconds (see :func:`_give_way`)."""
    reader = FrameReader()
    os.set_blocking(fd, False)
    while True:
        try:
            data = os.read(fd, _READ)
        except BlockingIOError:
            time.sleep(POLL)
            continue
        if not data:
            return
        yield from reader.feed(data)


class _Node:
    """The participant, its endpoints, and the subscription thread (see the module docstring)."""

    def __init__(self, config: NodeConfig, send: Callable[[Any], None]) -> None:
        from cyclonedds.core import Policy, Qos, ReadCondition, SampleState, WaitSet
        from cyclonedds.domain import Domain, DomainParticipant
        from cyclonedds.pub import DataWriter
        from cyclonedds.sub import DataReader
        from cyclonedds.topic import Topic as DdsTopic

        self.send = send
        self.epoch = config.epoch
        self.domain = Domain(config.domain, config.config or None)
        # rmw_cyclonedds says the participant's security enclave in its user data (ros2 node list --all shows it)
        self.participant = DomainParticipant(config.domain, qos=Qos(Policy.Userdata(b"enclave=/;")))
        dp = self.participant
        self.writers = {t.name: DataWriter(dp, DdsTopic(dp, "rt" + t.name, t.type), qos=qos(t.kind)) for t in TOPICS}
        self.readers = {t.name: DataReader(dp, DdsTopic(dp, "rt" + t.name, t.type), qos=qos(t.kind))
                        for t in SUBSCRIBED}  # fmt: skip
        info_type = info_types(config.gid_size)[2]
        self.info = DataWriter(dp, DdsTopic(dp, DISCOVERY_TOPIC, info_type), qos=qos(Kind.LATCHED))
        self.gids: dict[str, Any] = {
            "participant": dp.guid.bytes,
            "readers": {name: r.guid.bytes for name, r in self.readers.items()},
            "writers": {name: w.guid.bytes for name, w in self.writers.items()},
        }
        self.info.write(entities_info(dp.guid.bytes, list(self.gids["readers"].values()),
                                      list(self.gids["writers"].values()), config.gid_size))  # fmt: skip
        self.waitset = WaitSet(dp)
        for reader in self.readers.values():
            self.waitset.attach(ReadCondition(reader, SampleState.NotRead))
        self.stop = threading.Event()
        self.published = self.snapshots = 0
        self.seconds = self.cpu_seconds = 0.0
        self.thread = threading.Thread(target=self._subscribe_loop, name="ros2-subscribe", daemon=True)
        self.thread.start()

    def publish(self, snapshots: Iterator[Any]) -> None:
        """Publish each snapshot until None or the end of the input (and say how many went out)."""
        try:
            for sent in snapshots:
                if sent is None:
                    break
                snap, scan = sent
                started, cpu = time.perf_counter(), time.thread_time()
                for topic, message in messages(snap, self.epoch, scan):
                    self.writers[topic].write(message)
                    self.published += 1
                self.seconds += time.perf_counter() - started
                self.cpu_seconds += time.thread_time() - cpu
                self.snapshots += 1
                if self.snapshots % STATS_EVERY == 0:
                    self._stats()
        except Exception as exc:  # the run goes on without the graph; its summary says so
            self.send(("failure", f"ros2: publishing stopped: {type(exc).__name__}: {exc}"))
        self._stats()

    def _stats(self) -> None:
        self.send(("stats", self.published, self.snapshots, self.seconds, self.cpu_seconds))

    def _subscribe_loop(self) -> None:
        from cyclonedds.internal import InvalidSample
        from cyclonedds.util import duration

        try:
            while not self.stop.is_set():
                self.waitset.wait(duration(seconds=WAIT))
                for name, reader in self.readers.items():
                    samples = [s for s in reader.take(N=16) if not isinstance(s, InvalidSample)]
                    if samples:  # the latest wins (an invalid sample: a writer went away)
                        self._receive(name, samples[-1])
        except Exception as exc:
            self.send(("failure", f"ros2: subscriptions stopped: {type(exc).__name__}: {exc}"))

    def _receive(self, name: str, sample: Any) -> None:
        value: Any
        if name == "/cmd_vel":
            value = (float(sample.linear.x), float(sample.angular.z), time.monotonic())  # system-wide clock
        elif name == "/initialpose":
            p = sample.pose.pose
            q = p.orientation
            th = math.degrees(math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z)))
            value = (float(p.position.x) * 1000, float(p.position.y) * 1000, th)
            if not all(math.isfinite(v) for v in value):
                self.send(("note", "initialpose refused: not a finite pose"))
                return
        else:
            value = bool(sample.data)
        self.send(("sub", name, value))

    def close(self) -> None:
        """Stop the subscription thread and leave the graph (children first)."""
        self.stop.set()
        self.thread.join(timeout=5.0)
        del self.waitset, self.writers, self.readers, self.info, self.participant, self.domain


def _give_way() -> None:
    """Lower this process (and the threads it starts) below the run's: a batch task at :data:`NICE`.

    Linux lets a woken task preempt the running one; the run's write that wakes this process would then
    wait behind a snapshot's publishing on a busy machine. A batch task never preempts on waking, and the
    niceness gives the cycle the processor first; what this process then has no time for is dropped. For
    the same reason it looks at its input every :data:`POLL` seconds rather than wait on it: the cycle's
    write then wakes nobody (measured: a cycle's worst wall-clock cost at 10 Hz on a loaded machine fell
    from 6.5-13 ms to 0.3-3.3 ms), for at most :data:`POLL` seconds more before a snapshot goes out."""
    with contextlib.suppress(AttributeError, OSError):  # not on every system; then only the niceness
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    with contextlib.suppress(OSError):
        os.nice(NICE)


def main() -> int:
    """Run the DDS side until the input ends (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle: it closes our input
    _give_way()
    out = os.dup(1)
    os.dup2(2, 1)  # a stray print goes to stderr, never into the frames
    lock = threading.Lock()

    def send(value: Any) -> None:
        data = frame(value)
        with lock:
            try:
                while data:
                    data = data[os.write(out, data) :]
            except OSError:  # the run went away: its input ends too
                pass

    inputs = _frames(0)
    config = next(inputs, None)
    if not isinstance(config, NodeConfig):
        return 2
    try:
        node = _Node(config, send)
    except Exception as exc:
        send(("error", f"{type(exc).__name__}: {exc}"))
        return 1
    send(("ready", node.gids))
    node.publish(inputs)
    node.close()
    return 0


if __name__ == "__main__":  # the module's own classes, not __main__'s copies, are what the frames hold
    from saphira.ros2.node import main as node_main

    sys.exit(node_main())
