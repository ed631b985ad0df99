"""The simplest behaviors: constant_velocity and stop (manual §5.9, docs/colbert.md §9).

Both act on the speed channel only, with full activity, so the turn channel is left to others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    FuzzyVars,
    NoParams,
    Rule,
    behavior,
    speed,
)


@dataclass(kw_only=True)
class ConstantVelocityParams:
    speed: Annotated[float, "mm/s"] = 300.0


@dataclass
class ConstantVelocityVars(FuzzyVars[ConstantVelocityParams]):
    pass


def update_constant_velocity(ctx: BehaviorContext[ConstantVelocityParams, ConstantVelocityVars]) -> None:
    """Drive the velocity setpoint towards the given speed."""


constant_velocity = behavior(
    "constant_velocity",
    params=ConstantVelocityParams,
    vars=ConstantVelocityVars,
    update=update_constant_velocity,
    rules=[Rule("Cruise", when=1.0, then=speed(lambda v: v.p.speed))],
    activity=Activity(speed=1.0),
)


@dataclass
class StopVars(FuzzyVars[NoParams]):
    pass


def update_stop(ctx: BehaviorContext[NoParams, StopVars]) -> None:
    """Drive the velocity setpoint to 0; run it at a low priority so the robot halts when nothing else acts."""


stop = behavior(
    "stop",
    params=NoParams,
    vars=StopVars,
    update=update_stop,
    rules=[Rule("Stop", when=1.0, then=speed(0.0))],
    activity=Activity(speed=1.0),
)
