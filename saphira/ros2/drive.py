"""``/cmd_vel`` driving the robot through the behavior executive, with RosAria's watchdog.

A ``geometry_msgs/Twist`` asks for a forward speed (``linear.x``, m/s) and a turn rate
(``angular.z``, rad/s); the other components mean nothing to a differential drive and are ignored, as
RosAria ignores them. A command with a NaN or infinite component is refused (never passed on); one
beyond the robot's limits (its parameters' ``MaxVelocity``, ``MaxRVelocity``) is clamped to them.

The accepted command becomes the behavior :data:`cmd_vel` (priority :data:`PRIORITY`, 0 the highest,
so it has the robot while commands come; other behaviors blend in below it): its speed rule asks for
the speed, its turn rule for a heading :data:`LOOKAHEAD` seconds of the turn rate ahead, every cycle.
When no command came for :data:`WATCHDOG` seconds (RosAria's 600 ms), the behavior is removed and
the executive stops the robot in that cycle; the next command starts it again.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from saphira.behavior.behavior import Activity, BehaviorContext, FuzzyVars, Rule, behavior, speed, turn_by

if TYPE_CHECKING:
    from saphira.behavior.executive import BehaviorTask
    from saphira.robot import Robot

__all__ = ["LOOKAHEAD", "PRIORITY", "WATCHDOG", "Drive", "DriveCommand", "cmd_vel"]

PRIORITY = 0
"""The ``cmd_vel`` behavior's priority (0, the highest: a person or a planner drives)."""
WATCHDOG = 0.6
"""Seconds (wall clock, as the commands come) without a ``/cmd_vel`` before the robot is stopped."""
LOOKAHEAD = 0.3
"""Seconds of the turn rate the heading setpoint leads by."""


@dataclass
class DriveCommand:
    """What ``/cmd_vel`` last asked for, in saphira's units."""

    speed: float = 0.0
    """mm/s, forward positive."""
    turn_rate: float = 0.0
    """deg/s, counter-clockwise positive."""


@dataclass(kw_only=True)
class CmdVelParams:
    command: Annotated[DriveCommand, "the command /cmd_vel last gave"]


@dataclass
class CmdVelVars(FuzzyVars[CmdVelParams]):
    pass


def _update(ctx: BehaviorContext[CmdVelParams, CmdVelVars]) -> None:
    """Nothing to sense: the rules read the command."""


cmd_vel = behavior(
    "cmd_vel",
    params=CmdVelParams,
    vars=CmdVelVars,
    update=_update,
    rules=[
        Rule("Speed", when=1.0, then=speed(lambda v: v.p.command.speed)),
        Rule("Turn", when=1.0, then=turn_by(lambda v: v.p.command.turn_rate * LOOKAHEAD)),
    ],
    activity=Activity(turn=1.0, speed=1.0),
)


Offer = tuple[float, float, float]
"""A ``/cmd_vel`` as offered: linear x (m/s), angular z (rad/s), when (``time.monotonic()`` s)."""


class Drive:
    """Accepts ``/cmd_vel`` commands (from any thread: :meth:`offer`) and applies them on the cycle (:meth:`step`)."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot
        self.command = DriveCommand()
        self._offered: Offer | None = None
        self._last = -math.inf
        self.task: BehaviorTask[CmdVelParams, CmdVelVars] | None = None
        self.accepted = self.refused = self.clamped = self.stops = 0

    def offer(self, linear_x: float, angular_z: float, now: float | None = None) -> None:
        """A ``/cmd_vel`` arrived (m/s, rad/s), at ``now`` (``time.monotonic()``); the latest one wins."""
        self._offered = (linear_x, angular_z, time.monotonic() if now is None else now)

    def step(self, now: float | None = None) -> str | None:
        """Apply a new command, or stop on the watchdog; what happened worth a line (a refusal), else None."""
        now = time.monotonic() if now is None else now
        note = None
        offered, self._offered = self._offered, None
        if offered is not None:
            note = self._apply(*offered)
        if self.task is not None and now - self._last > WATCHDOG:
            self.release()
        return note

    def release(self) -> None:
        """Stop driving: the ``cmd_vel`` behavior is removed and the executive stops the robot (a watchdog stop)."""
        if self.task is not None:
            self.robot.scheduler.remove(self.task)  # nothing left behind to keep a run going
            self.task = None
            self.stops += 1

    def _apply(self, linear_x: float, angular_z: float, at: float) -> str | None:
        if not (math.isfinite(linear_x) and math.isfinite(angular_z)):
            self.refused += 1
            return f"cmd_vel refused: not a finite velocity (linear.x {linear_x}, angular.z {angular_z})"
        params = self.robot.params
        vel, rvel = linear_x * 1000, math.degrees(angular_z)
        limited_vel = max(-params.max_velocity, min(params.max_velocity, vel))
        limited_rvel = max(-params.max_rvelocity, min(params.max_rvelocity, rvel))
        if (limited_vel, limited_rvel) != (vel, rvel):
            self.clamped += 1
        self.command.speed, self.command.turn_rate = limited_vel, limited_rvel
        self.accepted += 1
        self._last = at
        if self.task is None or self.task.finished or self.task.scheduler is None:  # none, or ended: a new one
            name = self.robot.scheduler.unique_name("cmd_vel")
            self.task = self.robot.start_behavior(cmd_vel, name=name, priority=PRIORITY, command=self.command)
        return None
