"""What the links to velocity-only simulators share: a sibling of the Pioneer link under the link base.

Flat4 (:mod:`saphira.flat.client.link`) and Gamebots (:mod:`saphira.gamebots.client.link`) both report a pose and
take only velocities, so the same things happen on both sides of their wire:

* the setpoints become one (mm/s, deg/s) command each cycle (:func:`setpoint_velocities`): position
  moves already run on the client (:mod:`saphira.client.motion`), heading setpoints are closed here with a
  braking profile on the robot's rotational deceleration (:func:`heading_velocity`);
* the reported pose becomes the reflector's :class:`~saphira.client.reflector.PoseReport`
  (:meth:`VelocityLink._pose_report`), which the reflector applies as it does a SIP: the first one (or
  one after a relocation) is the global pose, later ones move the global pose and the sonar buffers by
  the robot's motion, velocities are the pose's change over the step's time, and a stall is inferred
  when a commanded speed moves nothing for a few steps (:meth:`VelocityLink._track_stall`); the links
  write no reflector attribute themselves;
* the connection is a TCP socket read without blocking (:meth:`VelocityLink._read_wire`); on a lock-step
  clock each cycle waits for the server's step (:meth:`VelocityLink._await`), in real time silence for the
  link timeout is a loss.

Like the Pioneer link, each is a :class:`~saphira.client.link.base.Link` chosen by URL scheme
(:mod:`saphira.client.link.registry`); the robot swaps between them keeping their events.

The protocol packages keep their wire: parsing, what a step output holds, how a command is written.
"""

from __future__ import annotations

import abc
import contextlib
import math
import select
import socket
import time
from collections.abc import Sized
from typing import ClassVar
from urllib.parse import urlsplit

from saphira.client.link.base import ConnectError, Link, LinkState
from saphira.client.motion import BRAKING_MARGIN, REACTION_TIME, MotionControl, RotMode, TransMode
from saphira.client.reflector import PoseReport
from saphira.client.transport import SocketTransport, TransportClosed
from saphira.core.geometry import Pose, change_vp, norm2_angle

HEADING_GAIN = 3.0
"""1/s: near the target heading the turn rate is at most this times the error."""
STALL_SPEED = 50.0
"""mm/s: a commanded speed at least this fast that moves the robot less than :data:`STALL_MOTION`…"""
STALL_MOTION = 1.0
"""mm: …per step for :data:`STALL_STEPS` steps in a row is a stall (these simulators may report none)."""
STALL_STEPS = 3


def heading_velocity(error: float, rvel: float, limit: float, decel: float, deadband: float) -> float:
    """Turn rate (deg/s) that brings a heading ``error`` (deg) to zero without overshoot at ``decel`` (deg/s²).

    ``rvel`` (deg/s) is the current turn rate: the distance turned during the reaction time is not
    there to brake in. Errors below ``deadband`` (deg) command no turn, so the robot does not hunt.
    """
    if abs(error) < deadband:
        return 0.0
    braking = max(0.0, abs(error) - abs(rvel) * REACTION_TIME)
    speed = min(limit, math.sqrt(2.0 * BRAKING_MARGIN * decel * braking), HEADING_GAIN * abs(error))
    return math.copysign(speed, error)


def setpoint_velocities(motion: MotionControl, rvel: float, decel: float, deadband: float) -> tuple[float, float]:
    """The (mm/s, deg/s) the motion setpoints ask for now, heading setpoints closed by :func:`heading_velocity`."""
    linear = motion.target_vel() if motion.trans_mode is not TransMode.NONE else 0.0
    if motion.rot_mode is RotMode.VELOCITY:
        angular = motion.rvelocity
    elif motion.rot_mode is RotMode.HEADING:
        angular = heading_velocity(motion.heading_error(), rvel, motion.limit_rvelocity, decel, deadband)
    else:
        angular = 0.0
    return linear, angular


class VelocityLink(Link):
    """A link to a simulator that reports poses and takes velocities.

    Subclasses set :attr:`SCHEME` and :attr:`HEADING_DEADBAND`, give :meth:`rot_decel`, read their
    wire into the reflector with :meth:`_pose_report` (applied by the reflector) and :meth:`_step_taken`, and write
    :meth:`setpoints` out.
    """

    SCHEME: ClassVar[str] = ""
    HEADING_DEADBAND: ClassVar[float] = 0.5
    """deg: a smaller heading error commands no turn."""
    NAME: ClassVar[str] = "velocity"

    _sock: socket.socket | None = None
    """The connection's socket (the transport wraps it; :meth:`_read_wire` waits on it)."""
    _commanded = 0.0
    """mm/s: the speed last commanded, for the stall inference."""
    _still_steps = 0

    @classmethod
    def handles(cls, url: str) -> bool:
        return urlsplit(url).scheme.lower() == cls.SCHEME

    @property
    def wait_limit(self) -> float:
        """Wall seconds a lock-step cycle waits for the server's step before the robot counts as lost:
        the link timeout, as for silence in real time (:meth:`_check_silence`)."""
        return self.options.loss_timeout

    # ------------------------------------------------------------------ connection
    def _open_socket(self, host: str, port: int, timeout: float) -> None:
        """Open the TCP connection to :attr:`url`'s server; a refusal fails the link with the reason."""
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            self.state = LinkState.FAILED
            self.error = f"cannot connect to {self.url}: {exc.strerror or exc}"
            self.on_connect_failed.emit(self.error)
            raise ConnectError(self.error) from exc
        self.transport = SocketTransport(self._sock, self.url)
        self.error = None

    def _drop(self, reason: str, state: LinkState, *, notify: bool) -> None:
        super()._drop(reason, state, notify=notify)
        self._sock = None

    # ------------------------------------------------------------------ input
    def _read_wire(self, wait: float) -> bytes | None:
        """What has arrived, waiting up to ``wait`` wall seconds for something; None if the line died."""
        if self.transport is None:
            return None
        if wait > 0.0 and self._sock is not None:
            with contextlib.suppress(OSError, ValueError):
                select.select([self._sock], [], [], wait)
        try:
            return self.transport.read()
        except TransportClosed as exc:
            self._lost(self._without_url(exc))
            return None

    @abc.abstractmethod
    def _pump(self, wait: float) -> bool:
        """Read and handle what has arrived (see :meth:`_read_wire`); False if the line died."""

    def _await(self, arrived: Sized, deadline: float) -> bool:
        """Pump until ``arrived`` (a queue of state reports) holds something; False (link lost) past the
        wall-clock ``deadline``."""
        while not arrived:
            left = deadline - time.monotonic()
            if left <= 0:
                self._lost(f"no {self.STATE_REPORT} for {self.wait_limit:g} s")
                return False
            if not self._pump(min(left, 0.5)):
                return False
        return True

    def _check_silence(self, now: float) -> None:
        """In real time, no state report for the link timeout: the robot is lost. (On a lock-step clock
        each cycle waits for its report instead: :meth:`_await`.)"""
        if not self.clock.is_lockstep:
            super()._check_silence(now)

    def _pose_report(self, pose: Pose, previous: Pose | None, dt: float, reported_stall: bool = False) -> PoseReport:
        """The reflector's report of a step's ``pose`` (mm, mm, deg); ``previous`` None places the robot.

        ``dt`` (s) is the time since ``previous``: velocities are the pose's change over it (kept as they
        were when no time passed). The wheel speeds are both the velocity; a subclass may replace them.
        """
        state = self.reflector.state
        if previous is None:
            return PoseReport(pose, None, 0.0, 0.0, 0.0, 0.0, state.stalled)
        x, y, th = pose
        px, py, pth = previous
        forward, left, _ = change_vp(Pose(px, py, pth), Pose(x, y))
        dth = norm2_angle(th - pth)
        vel, rvel = (forward / dt, dth / dt) if dt > 0 else (state.vel, state.rvel)
        stalled = self._track_stall(math.hypot(x - px, y - py), reported_stall)
        return PoseReport(pose, Pose(forward, left, dth), vel, rvel, vel, vel, stalled)

    def _track_stall(self, moved: float, reported: bool) -> bool:
        """A stall the server reports, or a commanded speed that moves nothing (``moved`` mm) for a while."""
        if abs(self._commanded) >= STALL_SPEED and moved < STALL_MOTION:
            self._still_steps += 1
        else:
            self._still_steps = 0
        return reported or self._still_steps >= STALL_STEPS

    def _step_taken(self, now: float, describe: str) -> None:
        """Count the step (the report is applied) as a state report and complete a pending connection."""
        self._report_state_arrived(now)
        if self.state == LinkState.CONFIGURING:
            self.LOG.info("connected to %s at %s", describe, self.url)
            self._connected()

    # ------------------------------------------------------------------ output
    @abc.abstractmethod
    def rot_decel(self) -> float:
        """deg/s²: the rotational deceleration heading setpoints brake with."""

    def setpoints(self) -> tuple[float, float]:
        """The (mm/s, deg/s) the setpoints ask for now (heading setpoints closed here)."""
        return setpoint_velocities(self.reflector.motion, self.reflector.state.rvel, self.rot_decel(),
                                   self.HEADING_DEADBAND)  # fmt: skip
