"""What a session does when its robot link is lost: end the run, or wait for the robot and go on.

The link (:mod:`saphira.client.link.base`) finds the loss — a closed connection or serial port at once, silence
for the link timeout — stops commanding motion (it sends nothing more, and a stop if the line still
takes one), and fires its disconnect event; from that cycle ``sfIsConnected`` is 0 and the scheduler's
``on_disconnect`` hooks have run. :class:`LinkWatch` hears any reason other than the client's own
disconnect (:data:`~saphira.client.link.base.CLIENT_CLOSED`) and says ``lost the robot link (URL: reason)``:

* without ``reconnect`` it sets :attr:`LinkWatch.lost`: ``saphira run`` ends after one more cycle (every
  activity has then run with ``sfIsConnected`` 0) with exit status 2, a connection error; the shell
  stays up;
* with ``reconnect`` (seconds) it suspends the top-level activities, behaviors and brains that were
  running, so none drives on stale state or fails for want of a robot, and tries the robot's URL again
  every :data:`RETRY_PERIOD` seconds; once a handshake is done (the robot's parameters loaded afresh)
  it resumes them. Nothing within ``reconnect`` seconds, or a run that ends first: it gives up as without
  (the shell leaves the activities suspended, for ``resume`` once a ``connect`` has reached a robot).

Times are the clock's. On a lock-step clock (a Flat server paces those runs) nothing paces the
cycles while the robot is away, so each waiting cycle naps one period of wall time: the wait lasts as
long as it says.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from saphira.client.link.base import CLIENT_CLOSED, ConnectError, LinkState
from saphira.core.tasks import Phase, Task, TaskKind, TaskState

if TYPE_CHECKING:
    from saphira.robot import Robot

log = logging.getLogger("saphira.client.link.watch")

RETRY_PERIOD = 1.0
"""Seconds between two attempts to reach a lost robot."""
TASK_NAME = "reconnect"
DEFAULT_RECONNECT = 60.0
"""Seconds ``--reconnect`` without a number waits for the robot."""
_HELD_KINDS = frozenset({TaskKind.ACTIVITY, TaskKind.BEHAVIOR, TaskKind.BRAIN})
"""The tasks a wait for the robot suspends: those that drive it (the library's own tasks go on)."""


class LinkWatch:
    """Listens for the loss of ``robot``'s link to ``target`` (the URL it was connected with)."""

    def __init__(
        self,
        robot: Robot,
        target: str,
        say: Callable[[str], None],
        *,
        reconnect: float | None = None,
        still_up: str = "",
        connector: Callable[[], None] | None = None,
    ) -> None:
        self.robot = robot
        self.target = target
        self.connector = connector or (lambda: robot.connect(target, wait=False))
        """Starts a handshake with the robot (or raises :class:`~saphira.client.link.base.ConnectError`)."""
        self.nap: Callable[[float], None] = time.sleep
        """How a lock-step cycle waits while the robot is away (tests count cycles instead)."""
        self.say = say
        self.reconnect = reconnect
        self.still_up = still_up
        """Appended to the loss messages when the session goes on regardless (the shell)."""
        self.lost: str | None = None
        """Why the robot is gone for good (``lost the robot link (URL: reason)``), or None."""
        self.losses = 0
        self.reconnects = 0
        self._outage = ""
        self._held: list[Task] = []
        self._give_up_at = math.inf
        self._next_try = 0.0
        self._task: Task | None = None
        robot.link.on_disconnect.connect(self._disconnected)

    @property
    def waiting(self) -> bool:
        """Waiting for the robot to come back (``reconnect``)."""
        return self._task is not None

    # ------------------------------------------------------------------ the loss
    def _disconnected(self, reason: str) -> None:
        if reason == CLIENT_CLOSED:
            return
        self.losses += 1
        self._outage = f"lost the robot link ({self.robot.link.url or self.target}: {reason})"
        if self.reconnect is None:
            self.lost = self._outage
            self.say(self._outage + self.still_up)
            return
        self.say(f"{self._outage}; waiting up to {self.reconnect:g} s for it to come back{self.still_up}")
        self._hold()
        now = self.robot.clock.now()
        self._give_up_at = now + self.reconnect
        self._next_try = now + RETRY_PERIOD
        if self._task is None:
            self._task = self.robot.scheduler.add(self._step, self.robot.scheduler.unique_name(TASK_NAME),
                                                  phase=Phase.OBSERVE)  # fmt: skip

    def _hold(self) -> None:
        """Suspend the running top-level activities, behaviors and brains (their children with them)."""
        scheduler = self.robot.scheduler
        for task in scheduler.tasks:
            if task.parent is None and task.active and task.kind in _HELD_KINDS:
                scheduler.suspend(task)
                if task not in self._held:
                    self._held.append(task)

    def _release(self) -> None:
        scheduler = self.robot.scheduler
        for task in self._held:
            if task.scheduler is scheduler and task.suspended:
                scheduler.resume(task)
        self._held.clear()

    # ------------------------------------------------------------------ waiting
    def _step(self, state: int) -> int:
        link = self.robot.link
        now = self.robot.clock.now()
        if link.connected:
            self.reconnects += 1
            self._release()
            self.say(f"reconnected to {link.url}; parameters from {self.robot.params.source}; activities resumed")
            return self._done()
        if now >= self._give_up_at and not link.connecting:
            self.lost = f"{self._outage}; no robot within {self.reconnect:g} s"
            self.say(self.lost + self.still_up)
            return self._done()
        if not link.connecting and now >= self._next_try:
            self._next_try = now + RETRY_PERIOD
            self._try()
        if self.robot.clock.is_lockstep and not link.connecting:
            self.nap(self.robot.clock.period)
        return TaskState.RESUME

    def _try(self) -> None:
        """Start a handshake with the robot (its parameters are chosen afresh when it answers)."""
        try:
            self.connector()
        except ConnectError as exc:
            log.info("robot not back yet: %s", exc)
        if self.robot.link.state == LinkState.FAILED:
            log.info("robot not back yet: %s", self.robot.link.error)

    def ending(self) -> None:
        """The session ends while the robot is still away: that is a lost link too (say so, set :attr:`lost`)."""
        if self.waiting and self.lost is None:
            self.lost = f"{self._outage}; not back when the run ended"
            self.say(self.lost)

    def _done(self) -> int:
        self._task = None
        return TaskState.REMOVE
