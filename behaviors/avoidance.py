"""Obstacle behaviors: avoid_collision, stop_collision, keep_off (manual §5.9, digest §6.7).

They read the sonar buffers of the LPS (robot radius r, distances in mm):

* **path clearance** — how far the robot can drive straight ahead before its body meets a reading:
  ``occ_plane(FRONT)`` over nested bands of the robot's width, each band's distance reduced by the
  depth of the disc's front at the band's inner edge (a stepped disc, never optimistic);
* **left / right clearance** — the distance from the body to the nearest reading on that side, from
  half a radius behind the centre forwards (an obstacle there is something to turn away from).

Decisions the manual leaves open, made here:

* Sensitivities are gains on the truth of "obstacle": 1.0 gives full truth at the body, 3.0 reaches
  full truth a third of the way out, 0.5 never more than one half (an insensitive behavior never
  fully masks the ones below it).
* avoid_collision's front bubble grows with the robot's speed by its stopping distance (v²/2a plus
  0.4 s of sensing and command latency), so it stops in time at any speed; the sides use ``standoff``.
  Beside an obstacle it slows to 100 mm/s; it stops only for what is in its path.
* When the path is blocked the robot turns towards the side with more room; when both sides are
  within 200 mm of each other, towards the preferred turn direction (``sfPreferredTurnDir``). The
  choice is held while the path stays blocked, so a symmetric dead end cannot make it dither.
* keep_off looks out to 4000 mm x sensitivity beyond the body (the manual's range 0.2 .. 2.0 gives
  0.8 m .. 8 m, capped by the front sonar range), turns Slowly and slows to the caution speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    FuzzyVars,
    Rule,
    TurnDir,
    TurnModifier,
    behavior,
    down_straight,
    f_and,
    f_not,
    f_or,
    go_straight,
    param,
    speed,
    turn,
    turn_left,
    turn_right,
)
from saphira.geometry import norm2_angle
from saphira.sonar import NO_ECHO, Region

SENSING_LATENCY = 0.4
"""Seconds between an obstacle coming into view and the robot responding (sonar cycle + command)."""

BODY_MARGIN = 20.0
"""mm added to the robot's radius for the path clearance."""

BANDS = (0.5, 0.8, 0.92, 1.0)
"""Outer edges of the path bands, as fractions of the (margined) radius."""

SIDES_EQUAL = 200.0
"""mm: sides whose clearances differ by less than this are "equally open"."""

SIDE_SLOW_SPEED = 100.0
"""mm/s the robot slows to beside an obstacle (it stops only for obstacles in its path)."""

HOLD = 0.5
"""Path-blocked truth from which the escape direction is held…"""
RELEASE = 0.2
"""…until the truth falls below this."""


def _truth(sensitivity: float, clearance: float, reach: float) -> float:
    """Obstacle truth: 1 at the body falling to 0 at ``reach``, times the sensitivity, capped at 1."""
    return min(1.0, sensitivity * down_straight(clearance, 0.0, reach))


def path_clearance(ctx: BehaviorContext[Any, Any]) -> float:
    """How far (mm) the robot can drive straight ahead before its body meets a sonar reading."""
    radius = ctx.robot_radius + BODY_MARGIN
    sonar = ctx.sonar
    best = float(NO_ECHO)
    inner = 0.0
    for edge in BANDS:
        half = edge * radius
        nearest = sonar.occ_plane(Region.FRONT, Region.ALL, 0.0, half, half)
        if nearest < NO_ECHO:
            best = min(best, nearest - math.sqrt(radius * radius - inner * inner))
        inner = half
    return best


class PathMemory:
    """Keeps a path obstacle in mind after the sonar loses it.

    The front buffer forgets a reading when later firings hear nothing (a wall end seen head-on
    echoes only now and then), but the obstacle is still there. While the robot keeps its heading,
    the remembered clearance shrinks by the distance driven and may grow by at most ``GROWTH`` mm a
    cycle; a turn of more than ``TURN_RESET`` degrees starts afresh from what the sonar says.
    """

    GROWTH = 20.0
    TURN_RESET = 15.0

    __slots__ = ("clearance", "heading", "x", "y")

    def __init__(self) -> None:
        self.clearance = float(NO_ECHO)
        self.x = self.y = self.heading = math.nan

    def update(self, ctx: BehaviorContext[Any, Any], measured: float) -> float:
        """The path clearance to act on, given this cycle's measurement."""
        robot = ctx.robot
        moved = math.hypot(robot.odo_x - self.x, robot.odo_y - self.y)
        turned = abs(norm2_angle(robot.odo_th - self.heading))
        if not (turned <= self.TURN_RESET):  # also true for the first call (NaN)
            self.heading = robot.odo_th
            self.clearance = measured
        else:
            self.clearance = min(measured, self.clearance - moved + self.GROWTH)
        self.x, self.y = robot.odo_x, robot.odo_y
        return self.clearance


def side_clearances(ctx: BehaviorContext[Any, Any], reach: float) -> tuple[float, float]:
    """(left, right): distance from the body to the nearest reading on each side within ``reach``."""
    r = ctx.robot_radius
    xs, ys = ctx.sonar.points(Region.ALL)
    keep = xs > -0.5 * r
    xs, ys = xs[keep], ys[keep]
    dist = np.hypot(xs, ys) - r
    near = dist < reach
    left = dist[near & (ys >= 0.0)]
    right = dist[near & (ys < 0.0)]
    return (
        float(left.min()) if left.size else float(NO_ECHO),
        float(right.min()) if right.size else float(NO_ECHO),
    )


ESCAPE_REACH = 1500.0
"""mm: how far to each side the escape direction looks for room."""


def _escape_direction(ctx: BehaviorContext[Any, Any]) -> TurnDir:
    """The side with more room, else the preferred turn direction."""
    left, right = side_clearances(ctx, ESCAPE_REACH)
    if abs(left - right) < SIDES_EQUAL:
        return ctx.preferred_turn_dir
    return TurnDir.LEFT if left > right else TurnDir.RIGHT


# ------------------------------------------------------------------------------ avoid_collision
@dataclass(kw_only=True)
class AvoidCollisionParams:
    front: float = param(1.0, "front sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)")
    side: float = param(1.0, "side sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)")
    gain: float = param(8.0, "turning gain, degrees per cycle: 4.0 (slow turn) .. 10.0 (fast turn)")
    standoff: float = param(300.0, "the avoidance bubble extends from the robot's radius out to radius + standoff, mm")


@dataclass
class AvoidVars(FuzzyVars[AvoidCollisionParams]):
    obstacle_front: float = 0.0
    obstacle_left: float = 0.0
    obstacle_right: float = 0.0
    side_close: float = 0.0
    escape: TurnDir = TurnDir.LEFT
    blocked: bool = False
    path: PathMemory = field(default_factory=PathMemory)


def _stopping_reach(ctx: BehaviorContext[Any, Any], standoff: float) -> float:
    """The front bubble: ``standoff`` plus the distance needed to stop from the current speed."""
    v = max(0.0, ctx.robot.vel)
    decel = max(ctx.motion.deceleration, 1.0)
    return standoff + v * v / (2.0 * decel) + v * SENSING_LATENCY


def _update_escape(ctx: BehaviorContext[Any, Any], v: AvoidVars | KeepOffVars) -> None:
    """The way to turn when the path is blocked: chosen afresh every cycle while the path is fairly
    clear, held once it is blocked (truth 0.5) until it clears again (below 0.2)."""
    if v.blocked and v.obstacle_front < RELEASE:
        v.blocked = False
    if not v.blocked:
        v.escape = _escape_direction(ctx)
        v.blocked = v.obstacle_front >= HOLD


def _nearest(v: AvoidVars | KeepOffVars) -> float:
    """How much an obstacle is around at all: the turn activity (and 1 - the "Clear" truth)."""
    return f_or(v.obstacle_front, f_or(v.obstacle_left, v.obstacle_right))


def update_avoid_collision(ctx: BehaviorContext[AvoidCollisionParams, AvoidVars]) -> None:
    """Slow down and turn sharply away from obstacles inside the avoidance bubble."""
    p, v = ctx.p, ctx.v
    left, right = side_clearances(ctx, p.standoff)
    front = v.path.update(ctx, path_clearance(ctx))
    v.obstacle_front = _truth(p.front, front, _stopping_reach(ctx, p.standoff))
    v.obstacle_left = _truth(p.side, left, p.standoff)
    v.obstacle_right = _truth(p.side, right, p.standoff)
    v.side_close = _truth(p.side, min(left, right), 0.5 * p.standoff)
    _update_escape(ctx, v)


avoid_collision = behavior(
    "avoid_collision",
    params=AvoidCollisionParams,
    vars=AvoidVars,
    update=update_avoid_collision,
    rules=[
        Rule(
            "Obstacle left",
            when=lambda v: f_and(v.obstacle_left, f_not(v.obstacle_front)),
            then=turn_right(lambda v: v.p.gain),
        ),
        Rule(
            "Obstacle right",
            when=lambda v: f_and(v.obstacle_right, f_not(v.obstacle_front)),
            then=turn_left(lambda v: v.p.gain),
        ),
        Rule("Front blocked", when=lambda v: v.obstacle_front, then=turn(lambda v: v.escape, lambda v: v.p.gain)),
        Rule("Clear", when=lambda v: f_not(_nearest(v)), then=go_straight()),
        Rule("Stop", when=lambda v: v.obstacle_front, then=speed(0.0)),
        Rule("Slow", when=lambda v: f_and(v.side_close, f_not(v.obstacle_front)), then=speed(SIDE_SLOW_SPEED)),
    ],
    activity=Activity(turn=_nearest, speed=1.0),
)


# ------------------------------------------------------------------------------ stop_collision
@dataclass(kw_only=True)
class StopCollisionParams:
    front: float = param(1.0, "front sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)")
    side: float = param(1.0, "side sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)")
    standoff: float = param(300.0, "the avoidance bubble extends from the robot's radius out to radius + standoff, mm")


@dataclass
class StopVars(FuzzyVars[StopCollisionParams]):
    obstacle_front: float = 0.0
    obstacle_side: float = 0.0
    path: PathMemory = field(default_factory=PathMemory)


def update_stop_collision(ctx: BehaviorContext[StopCollisionParams, StopVars]) -> None:
    """Slow down sharply near obstacles without turning: another behavior must steer."""
    p, v = ctx.p, ctx.v
    left, right = side_clearances(ctx, p.standoff)
    front = v.path.update(ctx, path_clearance(ctx))
    v.obstacle_front = _truth(p.front, front, _stopping_reach(ctx, p.standoff))
    v.obstacle_side = _truth(p.side, min(left, right), p.standoff)


stop_collision = behavior(
    "stop_collision",
    params=StopCollisionParams,
    vars=StopVars,
    update=update_stop_collision,
    rules=[
        Rule("Stop", when=lambda v: v.obstacle_front, then=speed(0.0)),
        Rule("Slow", when=lambda v: f_and(v.obstacle_side, f_not(v.obstacle_front)), then=speed(SIDE_SLOW_SPEED)),
    ],
    activity=Activity(speed=1.0),
)


# ------------------------------------------------------------------------------ keep_off
@dataclass(kw_only=True)
class KeepOffParams:
    caution_speed: float = param(100.0, "mm/s the robot slows to when it sees more distant obstacles")
    sensitivity: float = param(0.25, "0.2 (not sensitive) .. 2.0 (very sensitive)")


@dataclass
class KeepOffVars(FuzzyVars[KeepOffParams]):
    obstacle_front: float = 0.0
    obstacle_left: float = 0.0
    obstacle_right: float = 0.0
    escape: TurnDir = TurnDir.LEFT
    blocked: bool = False
    path: PathMemory = field(default_factory=PathMemory)


KEEP_OFF_RANGE = 4000.0
"""mm beyond the body that keep_off looks at sensitivity 1.0."""


def update_keep_off(ctx: BehaviorContext[KeepOffParams, KeepOffVars]) -> None:
    """Steer gently away from distant obstacles and slow to the caution speed when one is ahead."""
    p, v = ctx.p, ctx.v
    r = ctx.robot_radius
    reach = min(KEEP_OFF_RANGE * p.sensitivity, ctx.sonar.front_max_range - r)
    left, right = side_clearances(ctx, reach)
    v.obstacle_front = down_straight(v.path.update(ctx, path_clearance(ctx)), 0.0, reach)
    v.obstacle_left = down_straight(left, 0.0, reach)
    v.obstacle_right = down_straight(right, 0.0, reach)
    _update_escape(ctx, v)


keep_off = behavior(
    "keep_off",
    params=KeepOffParams,
    vars=KeepOffVars,
    update=update_keep_off,
    rules=[
        Rule(
            "Keep off left",
            when=lambda v: f_and(v.obstacle_left, f_not(v.obstacle_right)),
            then=turn_right(TurnModifier.SLOWLY),
        ),
        Rule(
            "Keep off right",
            when=lambda v: f_and(v.obstacle_right, f_not(v.obstacle_left)),
            then=turn_left(TurnModifier.SLOWLY),
        ),
        Rule("Obstacle ahead", when=lambda v: v.obstacle_front, then=turn(lambda v: v.escape, TurnModifier.SLOWLY)),
        Rule("Clear", when=lambda v: f_not(_nearest(v)), then=go_straight()),
        Rule("Caution", when=lambda v: v.obstacle_front, then=speed(lambda v: v.p.caution_speed)),
    ],
    activity=Activity(turn=_nearest, speed=1.0),
)
