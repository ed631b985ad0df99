"""The robot session: one scheduler, one reflector, one link, and the basic micro-tasks (docs/architecture.md §1–§3).

:class:`Robot` is what the manual's ``sfStartup`` builds. Its basic tasks implement the state
reflector: ``packets`` (receive phase) reads the link, ``motor`` (reflect phase) sends setpoints. The
control layers — the behavior executive, Colbert — attach to the same scheduler as further tasks.
A task that raises (a plugin's, a brain's) has the motion channels it last set stopped and given
back to the behaviors (:meth:`MotionControl.stop_held_by`): its last setpoint does not stay in force.

Typical use, against a robot or ``saphira sim`` (``with`` disconnects and stops the robot at the end,
also when the block raises)::

    with Robot() as robot:
        robot.connect("tcp://127.0.0.1:8101")  # runs cycles until connected
        robot.motion.set_velocity(300)
        robot.run(seconds=2.0)
        print(f"{robot.state.ax:.0f} mm ahead")  # the dead-reckoned pose: ax, ay, ath

The clock is chosen when the robot connects, from what it connects to (:meth:`Robot.connect`): a robot or
server that lives in real time gets a :class:`~saphira.core.clock.RealTimeClock`; the embedded simulator
(:func:`saphira.sim.embedded.attach_simulator`), or a link that paces the clock itself, keeps the lock-step
clock, which runs as fast as the CPU allows and makes a run deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from saphira.behavior.behavior import BehaviorDef
from saphira.behavior.executive import BehaviorExecutive, BehaviorTask
from saphira.client.link.base import CLIENT_CLOSED, ConnectError, Link, LinkEvents, LinkOptions, LinkState
from saphira.client.link.pioneer import PioneerLink
from saphira.client.link.registry import link_type
from saphira.client.motion import MotionControl
from saphira.client.reflector import Reflector, RobotState
from saphira.client.sensors.sonar import Sonar
from saphira.client.transport import Transport
from saphira.core.clock import Clock, LockStepClock, RealTimeClock
from saphira.core.events import Event
from saphira.core.jit import warm_up
from saphira.core.tasks import Phase, Scheduler, TaskRef, TaskState
from saphira.params.robot_params import RobotParams

P = TypeVar("P")
V = TypeVar("V")


class Robot:
    """Scheduler + state reflector + link, with the basic reflector tasks and the behavior executive.

    ``clock`` None (the usual) means: lock-step until the first :meth:`connect`, which keeps it for a peer
    stepped with it (the embedded simulator, a link that paces the clock) and switches to real time for a
    peer that lives in real time. A lock-step clock given explicitly refuses such a peer
    (:class:`~saphira.client.link.base.ConnectError` naming the clock and the fix).

    The link is the Pioneer link until a URL of another scheme asks for another protocol's
    (:mod:`saphira.client.link.registry`); the robot builds that one on its reflector, clock, options and
    events, and goes back to its Pioneer link for a Pioneer URL.
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        params: RobotParams | None = None,
        link_options: LinkOptions | None = None,
    ) -> None:
        self.scheduler = Scheduler(clock if clock is not None else LockStepClock())
        self._clock_chosen = clock is not None
        self.reflector = Reflector(params or RobotParams())
        chooser = (lambda identity: params) if params is not None else None
        self._link_events = LinkEvents()
        """The events every link of this robot fires: listeners stay when the link is swapped."""
        self._home_link: Link = PioneerLink(self.reflector, self.scheduler.clock, link_options,
                                            params_chooser=chooser, events=self._link_events)  # fmt: skip
        self.link: Link = self._home_link
        self.link.on_connect.connect(self.scheduler.on_connect.emit)
        self.link.on_disconnect.connect(lambda reason: self.scheduler.on_disconnect.emit())
        self.on_lost: Event[[str]] = Event("lost")
        """The robot was lost while connected (silence, a closed line, a reset): the reason. ARIA's
        ``addDisconnectOnErrorCB``; a disconnect the program asked for fires only :attr:`on_disconnect`."""
        self.link.on_disconnect.connect(self._lost)
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

    def __repr__(self) -> str:
        """``<Robot Pioneer p3dx at (1000, 2000, 90.0) on tcp://127.0.0.1:8101>``: who, where (the global
        pose, mm and degrees), on which link; what the shell prints for ``sfRobot``."""
        identity = self.link.identity if self.connected else None
        who = "robot"
        if identity is not None:
            same = identity.subclass.lower() == identity.name.lower()
            who = identity.name if same or not identity.subclass else f"{identity.name} {identity.subclass}"
        state = self.state
        where = f"at ({state.ax:.0f}, {state.ay:.0f}, {state.ath:.1f})"
        link = f"on {self.link.url}" if self.connected else "not connected"
        return f"<Robot {who} {where} {link}>"

    # ------------------------------------------------------------------ connection hooks
    @property
    def on_connect(self) -> Event[[]]:
        """The handshake ended and the robot is up (ARIA's ``addConnectCB``); also after a reconnection."""
        return self.link.on_connect

    @property
    def on_disconnect(self) -> Event[[str]]:
        """Any end of a connection that was up, with its reason (``CLIENT_CLOSED`` when the program closed it)."""
        return self.link.on_disconnect

    @property
    def on_connect_failed(self) -> Event[[str]]:
        """A connection attempt failed, with the reason (ARIA's ``addFailedConnectCB``)."""
        return self.link.on_connect_failed

    def _lost(self, reason: str) -> None:
        if reason != CLIENT_CLOSED:
            self.on_lost.emit(reason)

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

        A URL also settles the clock (see :class:`Robot`); a :class:`Transport` object is a line the caller
        made, and whatever is behind it is stepped as the caller arranged. Raises
        :class:`~saphira.client.link.base.ConnectError` with the reason when the connection fails.
        """
        self._use_link_for(target)
        if not isinstance(target, Transport):
            self._settle_clock(target)
        warm_up()  # the handshake's cycles are paced by the clock: none may stall on a kernel compiling
        self.link.connect(target)
        if wait:
            self.wait_connected(timeout)

    def _use_link_for(self, target: str | Transport) -> None:
        """Swap in the link a target needs, of the kind its URL's scheme names (:mod:`saphira.client.link.registry`).

        The current link when it is of that kind; the robot's Pioneer link when that is the kind; else a new
        link of the kind on this robot's reflector, clock, options and events (so their listeners stay). The
        link swapped out is disconnected first (the robot stopped), and its parameter file carries over.
        """
        kind = link_type(target)
        if type(self.link) is kind:
            return
        if self.link.state not in (LinkState.DISCONNECTED, LinkState.FAILED):
            self.link.disconnect()
        if type(self._home_link) is kind:
            link = self._home_link
        else:
            link = kind(self.reflector, self.clock, self._home_link.options, events=self._link_events)
        link.user_params = self.link.user_params
        self.link = link

    def _settle_clock(self, url: str) -> None:
        """Real time for a peer that lives in real time, unless the clock was given: then a reasoned refusal."""
        clock = self.clock
        if not isinstance(clock, LockStepClock) or clock.has_listeners or type(self.link).paces_clock:
            self._clock_chosen = True
            return
        if self._clock_chosen:
            refusal = (
                f"cannot connect to {url} on a lock-step clock: the robot there lives in real time and nothing "
                "in this process steps with the clock, so the handshake's timers would run out in microseconds; "
                "use Robot() (it runs in real time against such a robot) or Robot(RealTimeClock())"
            )
            self.on_connect_failed.emit(refusal)
            raise ConnectError(refusal)
        self._clock_chosen = True
        follower = RealTimeClock.following(clock)
        self.scheduler.clock = follower
        self.link.clock = self._home_link.clock = follower

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
                self.link.abort(self._no_connection(timeout))
        if self.link.state != LinkState.CONNECTED:
            error = self.link.error or self._no_connection(timeout)
            raise ConnectError(error if self.link.url in error else f"{self.link.url}: {error}")  # names the robot

    def _no_connection(self, timeout: float) -> str:
        """What a handshake that ran out of time tried: the URL, the time limit and how far it got (the
        Pioneer link: the SYNCs sent and their time limit)."""
        kind = "lock-step" if self.clock.is_lockstep else "real-time"
        return (
            f"no connection to {self.link.url} within {timeout:g} s of {kind} clock time "
            f"({self.link.handshake_progress()})"
        )

    def disconnect(self) -> None:
        """Stop the robot (:meth:`~saphira.client.link.base.Link.stop_robot`: on a Pioneer velocities 0 and motors
        off), close the connection; nothing happens when none is open."""
        self.link.disconnect()

    def close(self) -> None:
        """End the session: stop a background scheduler, then stop the robot and disconnect."""
        if self.scheduler.running_async:
            self.scheduler.stop()
        self.disconnect()

    def __enter__(self) -> Robot:
        return self

    def __exit__(self, *exc: object) -> None:
        """Leaving ``with`` (normally or by an exception) stops the robot and disconnects: :meth:`close`."""
        self.close()

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
