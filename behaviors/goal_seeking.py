"""Goal behaviors: go_to_pos, attend_at_pos, turn_to (manual §5.9, docs/colbert.md §9).

The goal is a point artifact; its local coordinates are kept current by the pointlist, so each
behavior adds its goal to the pointlist when it starts (the manual's ``sfAddPointCheck``: adding a point
already there does nothing).

go_to_pos follows the manual's Listing 5.2: turn towards the goal when it is more than 10 degrees off
(fully from 30), drive at the given speed when on course and not near, stop near the goal. Choices the
listing leaves open: "near" runs from 5 success radii down to 0, so that the goal output passes 0.8
exactly at the success radius (and the approach slows over the last few radii); an "On course" rule
steers by the bearing itself within the 10-degree band, so the robot does not drift inside it; and
where the listing stops to turn towards a goal that is off to the side, this one keeps 30% of its
speed ("Come round"): with an obstacle behaviour turning the robot away from the goal, stopping would
leave the two turning it back and forth on the spot, while creeping on lets them take it round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    FuzzyVars,
    Rule,
    TurnModifier,
    behavior,
    down_straight,
    f_and,
    f_not,
    f_or,
    speed,
    straight_up,
    turn_by,
    turn_left,
    turn_right,
)
from saphira.client.artifacts import Artifact
from saphira.core.geometry import point_dist, point_phi

NEAR_RADII = 5.0
""""Near the goal" falls from 1 at the goal to 0 at this many success radii (0.8 at one radius)."""

TURNING_SPEED = 0.3
"""Fraction of its speed go_to_pos keeps while turning towards a goal more than 30 degrees off."""

FINE_TURN = 10.0
"""Largest heading change (degrees per cycle) of the proportional "On course" / facing rules."""


def _clamp(value: float, limit: float) -> float:
    return max(-limit, min(limit, value))


# ------------------------------------------------------------------------------ go_to_pos
@dataclass(kw_only=True)
class GoToPosParams:
    speed: Annotated[float, "mm/s the robot moves at towards the goal"] = 200.0
    goal: Annotated[Artifact, "the goal: a point artifact"]
    radius: Annotated[float, "success radius, mm: the goal is reached within this distance"] = 100.0


@dataclass
class GoToPosVars(FuzzyVars[GoToPosParams]):
    phi: float = 0.0
    dist: float = 0.0
    too_left: float = 0.0
    too_right: float = 0.0
    near_goal: float = 0.0


def init_goal(ctx: BehaviorContext[GoToPosParams, GoToPosVars] | BehaviorContext[AttendParams, AttendVars]) -> None:
    """Put the goal on the pointlist so the LPS keeps its local coordinates current."""
    ctx.pointlist.add(ctx.p.goal)


def update_go_to_pos(ctx: BehaviorContext[GoToPosParams, GoToPosVars]) -> None:
    """Move to a goal point; succeed within the success radius."""
    p, v = ctx.p, ctx.v
    v.phi = point_phi(p.goal)
    v.dist = point_dist(p.goal)
    v.too_right = straight_up(v.phi, 10.0, 30.0)  # the goal is to the left: turn left
    v.too_left = down_straight(v.phi, -30.0, -10.0)  # the goal is to the right: turn right
    v.near_goal = down_straight(v.dist, 0.0, NEAR_RADII * p.radius)


go_to_pos = behavior(
    "go_to_pos",
    params=GoToPosParams,
    vars=GoToPosVars,
    init=init_goal,
    update=update_go_to_pos,
    rules=[
        Rule("Goal right", when=lambda v: v.too_left, then=turn_right(TurnModifier.MODERATELY)),
        Rule("Goal left", when=lambda v: v.too_right, then=turn_left(TurnModifier.MODERATELY)),
        Rule(
            "On course",
            when=lambda v: f_not(f_or(v.too_left, v.too_right)),
            then=turn_by(lambda v: _clamp(v.phi, FINE_TURN)),
        ),
        Rule(
            "Go",
            when=lambda v: f_not(f_or(v.near_goal, f_or(v.too_left, v.too_right))),
            then=speed(lambda v: v.p.speed),
        ),
        Rule(
            "Come round",
            when=lambda v: f_and(f_or(v.too_left, v.too_right), f_not(v.near_goal)),
            then=speed(lambda v: TURNING_SPEED * v.p.speed),
        ),
        Rule("Arrive", when=lambda v: v.near_goal, then=speed(0.0)),
    ],
    activity=Activity(turn=lambda v: f_not(v.near_goal), speed=1.0, goal=lambda v: v.near_goal),
)


# ------------------------------------------------------------------------------ attend_at_pos
@dataclass(kw_only=True)
class AttendParams:
    speed: Annotated[float, "mm/s the robot moves at towards the goal"] = 200.0
    goal: Annotated[Artifact, "the goal: a point artifact"]
    radius: Annotated[float, "success radius, mm: how near the robot stops"] = 100.0


@dataclass
class AttendVars(FuzzyVars[AttendParams]):
    phi: float = 0.0
    near_goal: float = 0.0
    facing: float = 0.0
    misaligned: float = 0.0


FACING_BAND = 25.0
"""Degrees over which "facing the goal" falls from 1 to 0 (0.8 at 5 degrees)."""


def update_attend_at_pos(ctx: BehaviorContext[AttendParams, AttendVars]) -> None:
    """Move near a goal point and turn to face it; succeed when near and facing it."""
    p, v = ctx.p, ctx.v
    v.phi = point_phi(p.goal)
    v.near_goal = down_straight(point_dist(p.goal), 0.0, NEAR_RADII * p.radius)
    v.facing = down_straight(abs(v.phi), 0.0, FACING_BAND)
    v.misaligned = straight_up(abs(v.phi), 10.0, 30.0)


attend_at_pos = behavior(
    "attend_at_pos",
    params=AttendParams,
    vars=AttendVars,
    init=init_goal,
    update=update_attend_at_pos,
    rules=[
        Rule("Face goal", when=1.0, then=turn_by(lambda v: _clamp(v.phi, FINE_TURN))),
        Rule("Go", when=lambda v: f_not(f_or(v.near_goal, v.misaligned)), then=speed(lambda v: v.p.speed)),
        Rule("Wait", when=lambda v: f_or(v.near_goal, v.misaligned), then=speed(0.0)),
    ],
    activity=Activity(turn=1.0, speed=1.0, goal=lambda v: f_and(v.near_goal, v.facing)),
)


# ------------------------------------------------------------------------------ turn_to
@dataclass(kw_only=True)
class TurnToParams:
    goal: Annotated[Artifact, "the point artifact to face"]
    success_angle: Annotated[float, "degrees: succeeds when pointing within this angle of the goal"] = 5.0
    turn_speed: Annotated[float, "0.5 (slow) .. 2.0 (fast)"] = 1.0


@dataclass
class TurnToVars(FuzzyVars[TurnToParams]):
    phi: float = 0.0
    aligned: float = 0.0


def init_turn_to(ctx: BehaviorContext[TurnToParams, TurnToVars]) -> None:
    """Put the goal on the pointlist so the LPS keeps its local coordinates current."""
    ctx.pointlist.add(ctx.p.goal)


def update_turn_to(ctx: BehaviorContext[TurnToParams, TurnToVars]) -> None:
    """Turn in place, the shorter way, until facing the goal within the success angle."""
    p, v = ctx.p, ctx.v
    v.phi = point_phi(p.goal)
    # 0.8 exactly at the success angle, as for go_to_pos's radius.
    v.aligned = down_straight(abs(v.phi), 0.0, NEAR_RADII * max(p.success_angle, 0.1))


turn_to = behavior(
    "turn_to",
    params=TurnToParams,
    vars=TurnToVars,
    init=init_turn_to,
    update=update_turn_to,
    rules=[
        Rule(
            "Turn",
            when=1.0,
            then=turn_by(lambda v: _clamp(v.phi, TurnModifier.SHARPLY * v.p.turn_speed)),
        ),
        Rule("Stay", when=1.0, then=speed(0.0)),
    ],
    activity=Activity(turn=1.0, speed=1.0, goal=lambda v: v.aligned),
)
