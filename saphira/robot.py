"""The robot session: one scheduler, one reflector, one link, and the basic micro-tasks (docs/architecture.md §1–§3).

:class:`Robot` is what the manual's ``sfStartup`` builds. Its basic tasks implement the state
reflector: ``packets`` (receive phase) reads the link, ``motor`` (reflect phase) sends setpoints. The
control layers — the behavior executive, Colbert — attach to the same scheduler as further tasks.
A task that raises (a plugin's, a brain's) has the motion channels it last set stopped and given
back to the behaviors (:meth:`MotionControl.stop_held_by`): its last setpoint does not stay in force.

Typical use, in lock-step against the embedded simulator or in real time against a robot::

    robot = Robot()
    robot.connect("tcp://127.0.0.1:8101")      # runs cycles until connected
    robot.motion.set_velocity(300)
    robot.run(seconds=2.0)
    robot.disconnect()
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from saphira.behavior.behavior import BehaviorDef
from saphira.behavior.executive import BehaviorExecutive, BehaviorTask
from saphira.client.link.pioneer import ConnectError, Link, LinkOptions, LinkState
from saphira.client.link.registry import link_for
from saphira.client.motion import MotionControl
from saphira.client.reflector import Reflector, RobotState
from saphira.client.sensors.sonar import Sonar
from saphira.client.transport import Transport
from saphira.core.clock import Clock, LockStepClock
from saphira.core.jit import warm_up
from saphira.core.tasks import Phase, Scheduler, TaskRef, TaskState
from saphira.params.robot_params import RobotParams

P = TypeVar("P")
V = TypeVar("V")


class Robot:
    """Scheduler + state reflector + link, with the basic reflector tasks and the behavior executive."""

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        params: RobotParams | None = None,
        link_options: LinkOptions | None = None,
    ) -> None:
        self.scheduler = Scheduler(clock if clock is not None else LockStepClock())
        self.reflector = Reflector(params or RobotParams())
        chooser = (lambda identity: params) if params is not None else None
        self.link = Link(self.reflector, self.scheduler.clock, link_options, params_chooser=chooser)
        self.link.on_connect.connect(self.scheduler.on_connect.emit)
        self.link.on_disconnect.connect(lambda reason: self.scheduler.on_disconnect.emit())
        self.scheduler.add(self._packets, "packets", phase=Phase.RECEIVE)
        self.scheduler.add(self._motor, "motor", phase=Phase.REFLECT)
        self.executive = BehaviorExecutive(self)
        scheduler = self.scheduler
        self.reflector.motion.holder = lambda: scheduler.current
        scheduler.on_task_failed.connect(self.reflector.motion.stop_held_by)

    # ------------------------------------------------------------------ parts
    @property
    def clock(self) -> Clock:
        return self.scheduler.clock

    @property
    def state(self) -> RobotState:
        return self.reflector.state

    @property
    def motion(self) -> MotionControl:
        return self.reflector.motion

    @property
    def sonar(self) -> Sonar:
        return self.reflector.sonar

    @property
    def params(self) -> RobotParams:
        return self.reflector.params

    @property
    def connected(self) -> bool:
        return self.link.connected

    # ------------------------------------------------------------------ behaviors
    def start_behavior(
        self,
        defn: BehaviorDef[P, V],
        *args: object,
        name: str | None = None,
        priority: int = 0,
        timeout: int | None = None,
        parent: TaskRef | None = None,
        suspended: bool = False,
        **params: object,
    ) -> BehaviorTask[P, V]:
        """Start a behavior instance (``sfStartBehavior``); see :meth:`BehaviorExecutive.start_behavior`."""
        return self.executive.start_behavior(
            defn,
            *args,
            name=name,
            priority=priority,
            timeout=timeout,
            parent=parent,
            suspended=suspended,
            **params,
        )

    # ------------------------------------------------------------------ basic tasks
    def _packets(self, state: int) -> int:
        self.link.receive()
        return TaskState.RESUME if state == TaskState.INIT else state

    def _motor(self, state: int) -> int:
        self.link.reflect()
        return TaskState.RESUME if state == TaskState.INIT else state

    # ------------------------------------------------------------------ connection
    def connect(self, target: str | Transport, *, wait: bool = True, timeout: float = 30.0) -> None:
        """Connect to a robot URL or transport. With ``wait``, run cycles until connected.

        Raises :class:`~saphira.client.link.pioneer.ConnectError` with the reason when the connection fails.
        """
        self._use_link_for(target)
        warm_up()  # the handshake's cycles are paced by the clock: none may stall on a kernel compiling
        self.link.connect(target)
        if wait:
            self.wait_connected(timeout)

    def _use_link_for(self, target: str | Transport) -> None:
        """The link a target needs, chosen by its URL's scheme (:mod:`saphira.client.link.registry`)."""
        link = link_for(self.link, target)
        if link is not self.link:
            if self.link.state not in (LinkState.DISCONNECTED, LinkState.FAILED):
                self.link.disconnect()
            self.link = link

    def wait_connected(self, timeout: float = 30.0) -> None:
        """Run (or, in async mode, wait for) cycles until the handshake ends; raise if it failed.

        A handshake still going on after ``timeout`` is abandoned, so it cannot connect later behind
        the caller's back. The limit is counted in cycles on a lock-step clock and in wall-clock
        seconds otherwise, so a scheduler that stalls cannot make the wait last forever. In async
        mode the caller may hold the scheduler's lock (the Colbert prompt does): it is released while
        waiting. An interrupt (Ctrl-C) while waiting abandons the handshake too.
        """
        limit = self.clock.cycles_for(timeout)
        self.link.awaited = True
        try:
            if self.scheduler.running_async:
                deadline = self.clock.cycle + limit
                wall_deadline = time.monotonic() + timeout
                while self.link.connecting and self.clock.cycle < deadline:
                    wall_left = wall_deadline - time.monotonic()
                    if not self.clock.is_lockstep and wall_left <= 0:
                        break
                    self.scheduler.pause(100, wall_timeout=None if self.clock.is_lockstep else wall_left)
            else:
                self.run_until(lambda: not self.link.connecting, max_cycles=limit)
        except BaseException:
            with self.scheduler.lock:
                self.link.abort(f"connection to {self.link.url} interrupted")
            raise
        finally:
            self.link.awaited = False
        with self.scheduler.lock:
            if self.link.connecting:
                self.link.abort(f"no connection to {self.link.url} within {timeout:g} s")
        if self.link.state != LinkState.CONNECTED:
            error = self.link.error or f"no connection to {self.link.url} within {timeout:g} s"
            raise ConnectError(error if self.link.url in error else f"{self.link.url}: {error}")  # names the robot

    def disconnect(self) -> None:
        self.link.disconnect()

    # ------------------------------------------------------------------ running
    def step(self) -> None:
        """One cycle."""
        if self.scheduler.running_async:
            self.scheduler.pause(0)
        else:
            self.scheduler.step()

    def run(self, seconds: float | None = None, *, cycles: int | None = None) -> int:
        """Run for ``seconds`` of clock time or ``cycles`` cycles (in the caller's thread)."""
        n = cycles if cycles is not None else self.clock.cycles_for(seconds or 0.0)
        return self.scheduler.run(n)

    def run_until(self, condition: Callable[[], bool], *, max_cycles: int | None = None) -> bool:
        """Run cycles until ``condition()`` holds; False if ``max_cycles`` ran out first."""
        self.scheduler.run(max_cycles, until=condition)
        return condition()

    def pause(self, ms: float) -> None:
        """``sfPause``: let ``ms`` milliseconds of clock time pass while every task keeps running."""
        self.scheduler.pause(ms)
