"""Lane behaviors: follow (a lane), follow_corridor, follow_door (manual §5.9, docs/colbert.md §9).

All three hold the robot in a lane: a directed line through an artifact's point. In the lane's frame
the robot is at ``yo`` (mm, left of the line positive) heading ``tho`` (degrees from the lane's
direction). The robot steers towards a heading that points back at the line: the lane direction turned
by up to ``approach`` degrees, in proportion to ``yo`` over ``APPROACH_DISTANCE`` (a proportional
controller written as one fuzzy rule, "Steer", whose value is the heading error clipped to
±``STEER_LIMIT`` per cycle). ``turn ratio`` sets ``approach`` from 20 degrees (0.0: alignment with the
direction dominates) to 60 (1.0: centring dominates). "In lane" (between the edges) drives at the
in-lane speed, outside at the off-lane speed, and a robot pointing more than 30 degrees off its heading
slows (fully at 60) and turns on the spot. The goal point is reached when the robot, measured along the
lane, is within 100 mm of it or past it; the robot slows over the last 500 mm.

Each behavior sets the preferred turn direction (``sfPreferredTurnDir``) towards the lane heading, and
exposes the lane it follows as ``vars.lane`` (LPS coordinates) with its edges and goal; a live view
draws it (:func:`draw_lane`: the centre line and the edges dashed, as the manual's dotted lanes, from
behind the robot to the goal, where a cross bar marks it).

Decisions for the manual's gaps: follow_corridor's lane runs down the corridor's middle, pointed
towards the goal, with edges inset 100 mm plus the robot's radius from the walls; follow_door's
direction is a number, positive (``DOOR_OUT``) to go out through the door along its normal (into the
corridor) and zero or negative (``DOOR_IN``) to go in; it holds the robot in a lane the door's width
less the robot's diameter and 100 mm, and succeeds 500 mm plus a radius beyond the door.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    BehaviorDef,
    FuzzyVars,
    LpsPen,
    Rule,
    TurnDir,
    behavior,
    down_straight,
    f_and,
    f_not,
    f_or,
    speed,
    straight_up,
    turn_by,
)
from saphira.client.artifacts import Artifact, Corridor, Door
from saphira.core.geometry import ORIGIN, Located, Pose, change_vp, norm2_angle, norm_angle, point_move, unchange_vp

APPROACH_DISTANCE = 500.0
"""mm of offset from the lane's line at which the robot steers back at the full approach angle."""

STEER_LIMIT = 10.0
"""Largest heading change per cycle (degrees) the steering rule asks for."""

EDGE_SOFTNESS = 100.0
"""mm over which "in lane" falls from 1 to 0 beyond an edge."""

GOAL_SLOWDOWN = 500.0
"""mm along the lane over which the robot slows before the goal (goal output 0.8 at 100 mm)."""

DOOR_OUT = 1.0
"""follow_door direction: out through the door, along its normal (into the corridor)."""

DOOR_IN = -1.0
"""follow_door direction: in through the door, against its normal."""


@dataclass
class LaneVars:
    """The lane state the three behaviors share: fuzzy variables, speeds, and what a display draws."""

    lane: Pose = field(default_factory=Pose)
    yo: float = 0.0
    heading_error: float = 0.0
    in_lane: float = 0.0
    misaligned: float = 0.0
    at_goal: float = 0.0
    speed_in: float = 0.0
    speed_off: float = 0.0
    left_edge: float = 0.0
    right_edge: float = 0.0
    goal_along: float = 0.0
    """Where the goal lies along the lane (mm from the lane's point)."""


def track(v: LaneVars, lane: Located, goal: Located, right_edge: float, left_edge: float, turn_ratio: float) -> TurnDir:
    """Compute the lane variables for a lane and a goal (LPS coordinates); return the preferred
    turn direction (towards the heading the robot should have)."""
    v.lane = Pose(lane.x, lane.y, lane.th)
    robot = change_vp(lane, ORIGIN)  # the robot in the lane's frame
    v.yo = robot.y
    approach = 20.0 + 40.0 * min(max(turn_ratio, 0.0), 1.0)
    wanted = -approach * max(-1.0, min(1.0, v.yo / APPROACH_DISTANCE))
    v.heading_error = norm2_angle(wanted - robot.th)
    v.in_lane = f_and(
        down_straight(v.yo, left_edge, left_edge + EDGE_SOFTNESS),
        straight_up(v.yo, -right_edge - EDGE_SOFTNESS, -right_edge),
    )
    v.misaligned = straight_up(abs(v.heading_error), 30.0, 60.0)
    v.left_edge, v.right_edge = left_edge, right_edge
    v.goal_along = change_vp(lane, goal).x
    remaining = v.goal_along - robot.x
    v.at_goal = down_straight(remaining, 0.0, GOAL_SLOWDOWN)
    return TurnDir.LEFT if v.heading_error >= 0.0 else TurnDir.RIGHT


LANE_COLOR = "Blue"
LANE_BEHIND = 500.0
"""mm of lane drawn behind the robot."""


def draw_lane(ctx: BehaviorContext[Any, Any], pen: LpsPen) -> None:
    """The lane in the LPS: centre line and edges dashed, from behind the robot to the goal's cross bar."""
    v: LaneVars = ctx.v
    lane = v.lane
    start = min(change_vp(lane, ORIGIN).x - LANE_BEHIND, v.goal_along)
    for offset in (0.0, v.left_edge, -v.right_edge):
        a = unchange_vp(lane, Pose(start, offset))
        b = unchange_vp(lane, Pose(v.goal_along, offset))
        pen.line(a.x, a.y, b.x, b.y, LANE_COLOR, dashed=True)
    a = unchange_vp(lane, Pose(v.goal_along, v.left_edge))
    b = unchange_vp(lane, Pose(v.goal_along, -v.right_edge))
    pen.line(a.x, a.y, b.x, b.y, LANE_COLOR)


def _slow(v: LaneVars) -> float:
    return f_or(v.misaligned, v.at_goal)


LANE_RULES: list[Rule[LaneVars]] = [
    Rule("Steer", when=1.0, then=turn_by(lambda v: max(-STEER_LIMIT, min(STEER_LIMIT, v.heading_error)))),
    Rule("In lane", when=lambda v: f_and(v.in_lane, f_not(_slow(v))), then=speed(lambda v: v.speed_in)),
    Rule("Off lane", when=lambda v: f_and(f_not(v.in_lane), f_not(_slow(v))), then=speed(lambda v: v.speed_off)),
    Rule("Slow", when=_slow, then=speed(0.0)),
]
"""Steer back to the line; drive at the in-lane or off-lane speed; slow when misaligned or arriving."""

LANE_ACTIVITY: Activity[LaneVars] = Activity(turn=1.0, speed=1.0, goal=lambda v: v.at_goal)


# ------------------------------------------------------------------------------ follow
@dataclass(kw_only=True)
class FollowParams:
    lane: Annotated[Artifact, "the lane: a point or lane artifact (its direction is the lane's)"]
    goal: Annotated[Artifact, "a point artifact; the robot moves along the lane until it reaches it"]
    right_edge: Annotated[float, "mm the robot may deviate to the right of the line"] = 300.0
    left_edge: Annotated[float, "mm the robot may deviate to the left of the line"] = 300.0
    speed_off: Annotated[float, "mm/s outside the lane"] = 100.0
    speed_in: Annotated[float, "mm/s inside the lane"] = 300.0
    turn_ratio: Annotated[float, "0.0: alignment with the direction dominates .. 1.0: centring dominates"] = 0.5


@dataclass
class FollowVars(LaneVars, FuzzyVars[FollowParams]):
    pass


def init_follow(ctx: BehaviorContext[FollowParams, FollowVars]) -> None:
    """Keep the lane and the goal on the pointlist."""
    ctx.pointlist.add(ctx.p.lane)
    ctx.pointlist.add(ctx.p.goal)


def update_follow(ctx: BehaviorContext[FollowParams, FollowVars]) -> None:
    """Follow a lane towards a goal point."""
    p, v = ctx.p, ctx.v
    v.speed_in, v.speed_off = p.speed_in, p.speed_off
    ctx.preferred_turn_dir = track(v, p.lane, p.goal, p.right_edge, p.left_edge, p.turn_ratio)


follow: BehaviorDef[FollowParams, FollowVars] = behavior(
    "follow",
    params=FollowParams,
    vars=FollowVars,
    init=init_follow,
    update=update_follow,
    rules=LANE_RULES,
    activity=LANE_ACTIVITY,
    draw=draw_lane,
)


# ------------------------------------------------------------------------------ follow_corridor
CORRIDOR_INSET = 100.0
"""mm between a corridor wall and the robot's side at the lane's edge."""

CORRIDOR_SPEED_IN = 300.0
CORRIDOR_SPEED_OFF = 150.0
CORRIDOR_TURN_RATIO = 0.5


@dataclass(kw_only=True)
class FollowCorridorParams:
    corridor: Annotated[Corridor, "the corridor artifact"]
    goal: Annotated[Artifact, "a point artifact; the robot goes along the corridor until it reaches it"]


@dataclass
class FollowCorridorVars(LaneVars, FuzzyVars[FollowCorridorParams]):
    pass


def init_follow_corridor(ctx: BehaviorContext[FollowCorridorParams, FollowCorridorVars]) -> None:
    """Keep the corridor and the goal on the pointlist."""
    ctx.pointlist.add(ctx.p.corridor)
    ctx.pointlist.add(ctx.p.goal)


def update_follow_corridor(ctx: BehaviorContext[FollowCorridorParams, FollowCorridorVars]) -> None:
    """Follow a corridor's centre line towards a goal point."""
    p, v = ctx.p, ctx.v
    axis = p.corridor
    # Down the middle, pointed the way the goal lies along the corridor.
    towards = change_vp(axis, p.goal).x >= change_vp(axis, ORIGIN).x
    lane = Pose(axis.x, axis.y, norm_angle(axis.th if towards else axis.th + 180.0))
    edge = max(0.0, 0.5 * axis.width - ctx.robot_radius - CORRIDOR_INSET)
    v.speed_in, v.speed_off = CORRIDOR_SPEED_IN, CORRIDOR_SPEED_OFF
    ctx.preferred_turn_dir = track(v, lane, p.goal, edge, edge, CORRIDOR_TURN_RATIO)


follow_corridor: BehaviorDef[FollowCorridorParams, FollowCorridorVars] = behavior(
    "follow_corridor",
    params=FollowCorridorParams,
    vars=FollowCorridorVars,
    init=init_follow_corridor,
    update=update_follow_corridor,
    rules=LANE_RULES,
    activity=LANE_ACTIVITY,
    draw=draw_lane,
)


# ------------------------------------------------------------------------------ follow_door
DOOR_MARGIN = 50.0
"""mm between a door post and the robot's side at the lane's edge."""

DOOR_PASS = 500.0
"""mm beyond the door (plus the robot's radius) where follow_door succeeds."""

DOOR_SPEED_IN = 200.0
DOOR_SPEED_OFF = 100.0
DOOR_TURN_RATIO = 0.8


@dataclass(kw_only=True)
class FollowDoorParams:
    door: Annotated[Door, "the door artifact"]
    direction: Annotated[float, "DOOR_OUT (1, along the door's normal) or DOOR_IN (-1, against it)"] = DOOR_OUT


@dataclass
class FollowDoorVars(LaneVars, FuzzyVars[FollowDoorParams]):
    pass


def init_follow_door(ctx: BehaviorContext[FollowDoorParams, FollowDoorVars]) -> None:
    """Keep the door on the pointlist."""
    ctx.pointlist.add(ctx.p.door)


def update_follow_door(ctx: BehaviorContext[FollowDoorParams, FollowDoorVars]) -> None:
    """Go through a doorway in a narrow lane perpendicular to it."""
    p, v = ctx.p, ctx.v
    door = p.door
    lane = Pose(door.x, door.y, norm_angle(door.th if p.direction > 0.0 else door.th + 180.0))
    goal = point_move(lane, DOOR_PASS + ctx.robot_radius, 0.0)
    edge = max(0.0, 0.5 * door.width - ctx.robot_radius - DOOR_MARGIN)
    v.speed_in, v.speed_off = DOOR_SPEED_IN, DOOR_SPEED_OFF
    ctx.preferred_turn_dir = track(v, lane, goal, edge, edge, DOOR_TURN_RATIO)


follow_door: BehaviorDef[FollowDoorParams, FollowDoorVars] = behavior(
    "follow_door",
    params=FollowDoorParams,
    vars=FollowDoorVars,
    init=init_follow_door,
    update=update_follow_door,
    rules=LANE_RULES,
    activity=LANE_ACTIVITY,
    draw=draw_lane,
)
