"""A Python module as a batch activity, for tests/test_batch.py (written for this project): a behavior
that cruises at the module attribute SPEED, which the experiment's grid sets after loading."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from saphira.behavior.behavior import Activity, BehaviorContext, FuzzyVars, Rule, behavior, speed

SPEED = 100.0


@dataclass
class _Params:
    pass


@dataclass
class _Vars(FuzzyVars[_Params]):
    pass


def _update(ctx: BehaviorContext[_Params, _Vars]) -> None:
    pass


cruise = behavior(
    "cruise_at_SPEED",
    params=_Params,
    vars=_Vars,
    update=_update,
    rules=[Rule("Go", when=lambda v: 1.0, then=speed(lambda v: SPEED))],  # read each cycle: sees the grid's value
    activity=Activity(turn=0.0, speed=1.0),
)


def load_init(env: Any) -> None:
    env.robot.start_behavior(cruise, priority=1)
