"""``saphira run --ros2``: the run as a ROS 2 node, over Eclipse Cyclone DDS, with no ROS installation.

The topics, their types and QoS are :mod:`saphira.ros2.topics`'; the DDS participant lives in a process
of its own (:mod:`saphira.ros2.node`), so that making messages, serializing and writing them never holds
this process's interpreter. Each cycle the bridge task takes a snapshot
(:class:`~saphira.record.snapshot.FrameSource`), pickles it and writes it to the DDS process's input
without waiting: what the pipe cannot take at once waits for the next cycle, and while it waits the
new snapshots are dropped (what they alone carried is sent again with the next one). The pipe is the
bound: a DDS process that falls behind costs the cycle nothing. What the subscriptions deliver comes
back the same way, read without waiting, and the task applies the latest of each: ``/cmd_vel``
(:mod:`saphira.ros2.drive`), ``/initialpose`` (the localizer's pose, or the global pose),
``/enable_motors`` (``std_msgs/Bool``: RosAria's ``enable_motors``/``disable_motors`` services as one topic).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.core.errors import SaphiraError
from saphira.core.tasks import Phase, Task, TaskState
from saphira.protocol.commands import Command
from saphira.ros2.discovery import Discovery
from saphira.ros2.drive import Drive
from saphira.ros2.frames import FrameSource, ScanRanges
from saphira.ros2.node import NodeConfig
from saphira.ros2.topics import SUBSCRIBED, TOPICS, Kind, Topic
from saphira.ros2.wire import FrameReader, frame

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["START_TIMEOUT", "SUBSCRIBED", "TOPICS", "Kind", "Ros2Bridge", "Ros2Missing", "Topic", "cyclonedds_module"]

log = logging.getLogger("saphira.ros2")

START_TIMEOUT = 120.0
"""Seconds the DDS process may take to join the graph (it answers as soon as it has: a loaded machine waits)."""
STOP_TIMEOUT = 30.0
"""Seconds the DDS process may take to send what was queued and leave the graph before it is killed."""
_READ = 1 << 16


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
    """The run on the ROS 2 graph (see the module docstring): an observe-phase task and the DDS process."""

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
        self.robot = robot
        self.source = source
        self.discovery = discovery
        self.set_pose = set_pose
        self.drive = Drive(robot)
        self.epoch = time.time() - robot.clock.now()
        """Added to the run's time for the stamps: wall-clock time in a real-time run."""
        self.published = self.dropped = self.snapshots = 0
        self.publish_seconds = self.publish_cpu_seconds = 0.0
        """Time (wall clock, and processor) the DDS process spent on the :attr:`snapshots` it sent (messages,
        CDR, writes)."""
        self.failure: str | None = None
        self._latest: dict[str, Any] = {}
        self._pending = bytearray()
        self._replies = FrameReader()
        self._closed = False
        self._process = subprocess.Popen([sys.executable, "-m", "saphira.ros2.node"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, close_fds=True)  # fmt: skip
        assert self._process.stdin is not None and self._process.stdout is not None
        self._to, self._from = self._process.stdin.fileno(), self._process.stdout.fileno()
        config = NodeConfig(discovery.domain, discovery.config(), self.epoch, discovery.gid_size)
        try:
            self._process.stdin.write(frame(config))
            self._process.stdin.flush()
            self.gids: dict[str, Any] = self._started()
        except BaseException:
            self._kill()
            raise
        os.set_blocking(self._to, False)  # from here on, the cycle never waits on the DDS process
        os.set_blocking(self._from, False)

    def _started(self) -> dict[str, Any]:
        """Wait for the DDS process's answer: the gids of its participant and endpoints, or why it could not."""
        deadline = time.monotonic() + START_TIMEOUT
        while (left := deadline - time.monotonic()) > 0:
            select.select([self._from], [], [], left)
            data = os.read(self._from, _READ)
            if not data:
                break
            for reply in self._replies.feed(data):
                if reply[0] == "ready":
                    return dict(reply[1])
                if reply[0] == "error":
                    raise SaphiraError(f"cannot join the ROS 2 graph ({self.discovery.describe()}): {reply[1]}")
        status = self._process.poll()
        why = f"its process ended (status {status})" if status is not None else f"no answer in {START_TIMEOUT:.0f} s"
        raise SaphiraError(f"cannot join the ROS 2 graph ({self.discovery.describe()}): {why}")

    # ------------------------------------------------------------------ the cycle
    def step(self, state: int) -> int:
        if self.robot.link.connected:
            if not self._closed:
                self._send(self.source.take())
                self._receive()
            self._apply_received()  # the watchdog's too, when the DDS process is gone
        return TaskState.RESUME if state == TaskState.INIT else state

    @property
    def dds_pid(self) -> int:
        """The DDS process's id (``ps``, or a test ending it to see the run carry on)."""
        return self._process.pid

    def _send(self, snap: Any) -> None:
        if self._pending:
            self._flush()
            if self._pending:  # the DDS process is behind: this one is dropped, its one-off parts sent again
                self.dropped += 1
                self.source.forget()
                return
        scan = None if snap.scan is None else ScanRanges.of(snap.scan)
        self._pending += frame((dataclasses.replace(snap, scan=None), scan))
        self._flush()

    def _flush(self) -> None:
        try:
            written = os.write(self._to, self._pending)
        except BlockingIOError:
            return
        except OSError as exc:  # the DDS process went away
            self._lost(f"its input closed ({exc.strerror})")
            return
        del self._pending[:written]

    def _receive(self) -> None:
        while True:
            try:
                data = os.read(self._from, _READ)
            except BlockingIOError:
                return
            if not data:
                self._lost(f"it ended (status {self._process.poll()})")
                return
            for reply in self._replies.feed(data):
                self._reply(reply)

    def _reply(self, reply: tuple[Any, ...]) -> None:
        kind = reply[0]
        if kind == "sub":
            self._latest[reply[1]] = reply[2]
        elif kind == "stats":
            self.published, self.snapshots, self.publish_seconds, self.publish_cpu_seconds = reply[1:5]
        elif kind == "failure":
            self.failure = reply[1]
            log.error(self.failure)
        elif kind == "note":
            log.warning("%s", reply[1])

    def _lost(self, why: str) -> None:
        """The DDS process is gone: no command can come any more, so the robot stops now; the run goes on."""
        if self.failure is None:
            self.failure = f"ros2: the DDS process stopped: {why}"
            log.error(self.failure)
        self._closed = True
        self.drive.release()

    def _apply_received(self) -> None:
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

    def summary(self) -> str:
        """The run summary's line: what went out, what came in."""
        d = self.drive
        return (
            f"    ros2: {self.published} messages published, {self.dropped} snapshots dropped; cmd_vel "
            f"{d.accepted} accepted ({d.clamped} clamped), {d.refused} refused, {d.stops} watchdog stops"
        )

    def close(self) -> None:
        """Send what is queued, let the DDS process leave the graph and end (idempotent; killed if it hangs)."""
        if self._process.returncode is None:
            deadline = time.monotonic() + STOP_TIMEOUT
            if not self._closed:
                self._pending += frame(None)
                while self._pending and not self._closed and (left := deadline - time.monotonic()) > 0:
                    select.select([], [self._to], [], left)
                    self._flush()
            self._pending.clear()
            self._closed = True
            while (left := deadline - time.monotonic()) > 0 and select.select([self._from], [], [], left)[0]:
                try:
                    data = os.read(self._from, _READ)
                except BlockingIOError:
                    continue
                if not data:
                    break
                for reply in self._replies.feed(data):
                    self._reply(reply)
            self._kill()
        if self.scheduler is not None:
            self.robot.scheduler.remove(self)

    def _kill(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            with contextlib.suppress(OSError):
                self._process.stdin.close()  # its input ends: it leaves the graph and ends
        try:
            self._process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
