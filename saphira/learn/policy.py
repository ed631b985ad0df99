"""How an action reaches the robot: straight to the motion setpoints, or as one behavior in the fuzzy blend.

Alone, a policy's action sets the robot's velocity and rotational velocity directly (``set_velocity``,
``set_rvelocity``), as a Pyro brain's ``move`` does. Beside a hand-written stack (predefined behaviors or a
Colbert activity), the policy runs as the behavior :data:`policy_behavior` at a priority, so the executive
blends it with the others as it blends any behavior (docs/architecture.md §5): an ``avoid_collision`` of
higher priority (a smaller number; 0 is the highest) still wins near a wall, and learning refines the stack
instead of replacing it. In the blend a turn is a heading change, so the rotational velocity becomes the
change it would make in :data:`TURN_HORIZON` seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    BehaviorDef,
    FuzzyVars,
    NoParams,
    Rule,
    behavior,
    speed,
    turn_by,
)
from saphira.behavior.executive import BehaviorTask
from saphira.behavior.library import find_behavior
from saphira.robot import Robot

TURN_HORIZON = 1.0
"""Seconds over which the policy's rotational velocity is turned into the blend's heading change."""

BehaviorSpec = str | tuple[str, int] | tuple[str, int, Mapping[str, Any]]
"""A behavior to run beside the policy: a predefined name (``avoid_collision`` or ``sfAvoidCollision``),
with a priority (0 is the highest, as in the blend, and the default) and parameters."""


@dataclass
class PolicyVars(FuzzyVars[NoParams]):
    """The policy's latest action: velocity (mm/s) and rotational velocity (deg/s)."""

    vel: float = 0.0
    rvel: float = 0.0


def _update(ctx: BehaviorContext[NoParams, PolicyVars]) -> None:
    """Nothing to compute: the environment writes the action into the variables before each cycle."""


policy_behavior: BehaviorDef[NoParams, PolicyVars] = behavior(
    "policy",
    params=NoParams,
    vars=PolicyVars,
    update=_update,
    rules=[
        Rule("Speed", when=1.0, then=speed(lambda v: v.vel)),
        Rule("Turn", when=1.0, then=turn_by(lambda v: v.rvel * TURN_HORIZON)),
    ],
    activity=Activity(turn=1.0, speed=1.0),
)
"""The policy as a behavior: full activity on both channels, at the priority the environment gives it."""


class Driver:
    """Applies actions to one robot: directly, or through :data:`policy_behavior` beside ``behaviors``."""

    def __init__(
        self, robot: Robot, behaviors: Sequence[BehaviorSpec] = (), policy_priority: int | None = None
    ) -> None:
        self.robot = robot
        for spec in behaviors:
            name, priority, params = _spec(spec)
            robot.start_behavior(find_behavior(name), priority=priority, **params)
        self._task: BehaviorTask[NoParams, PolicyVars] | None = None
        if policy_priority is not None:
            self._task = robot.start_behavior(policy_behavior, name="policy", priority=policy_priority)

    def apply(self, vel: float, rvel: float) -> None:
        """This cycle's action: ``vel`` mm/s, ``rvel`` deg/s."""
        if self._task is not None:
            self._task.vars.vel, self._task.vars.rvel = vel, rvel
        else:
            self.robot.motion.set_velocity(vel)
            self.robot.motion.set_rvelocity(rvel)


def _spec(spec: BehaviorSpec) -> tuple[str, int, Mapping[str, Any]]:
    if isinstance(spec, str):
        return spec, 0, {}
    if len(spec) == 2:
        return spec[0], spec[1], {}
    return spec[0], spec[1], spec[2]
