"""Obstacle behaviors: avoid_collision, stop_collision, keep_off (manual §5.9, docs/colbert.md §9).

They read the sonar buffers of the LPS (robot radius r, distances in mm), and a laser's points when the
robot has one: ``Sonar.points`` and the occupancy queries pool them with the sonar's
(:mod:`saphira.client.sensors.laser`).

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
  Beside an obstacle (within half the standoff) it slows to 100 mm/s; it stops only for what is in
  its path. The turning gain is the heading change per cycle; once the path is blocked (and the robot
  nearly stopped) it turns on the spot three times as fast.
* The path clearance is remembered (:class:`PathMemory`): the front buffer lets go of an obstacle when
  later firings hear nothing, but the obstacle has not gone.
* The turn activity of avoid_collision and keep_off is how near the nearest obstacle is, so in the
  open they leave the turn channel to lower priorities; keep_off also has a "Clear" rule (turn 0) so
  that its steering fades as obstacles recede rather than turning by a full increment.
* When the path is blocked the robot turns towards the side whose path, 60 degrees off ahead, is
  freer; when the two are about equal (within 50 mm plus a quarter), towards the preferred turn direction
  (``sfPreferredTurnDir``). The choice is held while the path stays blocked (from truth 0.5 until it
  falls below 0.2), so a symmetric dead end cannot make it dither.
* keep_off looks out to 4000 mm x sensitivity beyond the body (the manual's range 0.2 .. 2.0 gives
  0.8 m .. 8 m, capped by the front sonar range), turns Slowly and slows to the caution speed.

A live view draws each behavior's sensitivity boxes (:func:`draw_boxes`, the manual's obstacle
sensitivity rectangles): the path ahead, as wide as the margined body, out to where an obstacle
starts to count (avoid/stop_collision: the standoff plus the stopping distance at the current speed),
and a box on each side out to the side reach. Where a sensitivity above 1 reaches full truth before
the body, that distance is drawn dashed inside the box. avoid_collision draws in red, stop_collision in
orange-red, keep_off in yellow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    FuzzyVars,
    LpsPen,
    Rule,
    TurnDir,
    TurnModifier,
    behavior,
    down_straight,
    f_and,
    f_not,
    f_or,
    go_straight,
    speed,
    turn,
    turn_left,
    turn_right,
)
from saphira.client.sensors.sonar import NO_ECHO, Region, Sonar
from saphira.core.arrays import FloatArray
from saphira.core.geometry import norm2_angle
from saphira.core.jit import kernel

SENSING_LATENCY = 0.4
"""Seconds between an obstacle coming into view and the robot responding (sonar cycle + command)."""

BODY_MARGIN = 20.0
"""mm added to the robot's radius for the path clearance."""

BANDS = (0.5, 0.8, 0.92, 1.0)
"""Outer edges of the path bands, as fractions of the (margined) radius."""

ESCAPE_BOOST = 3.0
"""How many times faster than its turning gain avoid_collision turns once its path is blocked
(truth 0.5 and more): it is then nearly stopped, and turning on the spot is safe."""

SIDES_EQUAL = (50.0, 0.25)
"""Two free paths are "equally open" when they differ by less than 50 mm plus a quarter of the longer."""

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
    """How far (mm) the robot can drive straight ahead before its body meets a sonar reading.

    Computed once per state of the readings (:meth:`Sonar.cached`): every obstacle behavior asks."""
    radius = ctx.robot_radius + BODY_MARGIN
    return ctx.sonar.cached(("path_clearance", radius), lambda: _path_clearance(ctx.sonar, radius))


def _path_clearance(sonar: Sonar, radius: float) -> float:
    """Each band's nearest reading is ``occ_plane(FRONT, ALL, 0, half, half)``, from one pass over the points."""
    xs, ys = sonar.points(Region.ALL)
    return _band_clearance(xs, ys, radius, _BANDS)


_BANDS = np.array(BANDS)


def _points_example() -> tuple[FloatArray, FloatArray]:
    """Points as Sonar.points hands them out (read-only), for the kernels' warm-up examples."""
    xs, ys = np.zeros(1), np.zeros(1)
    xs.flags.writeable = ys.flags.writeable = False
    return xs, ys


@kernel(lambda: (*_points_example(), 1.0, _BANDS))
def _band_clearance(xs: FloatArray, ys: FloatArray, radius: float, bands: FloatArray) -> float:
    """:func:`_path_clearance` on the points, compiled: the nearest reading ahead in each band (rounded
    to the mm, as ``occ_plane`` reports it), less the disc's depth at the band's inner edge."""
    best, inner = float(NO_ECHO), 0.0
    for edge in bands:
        half = edge * radius
        nearest = math.inf
        for k in range(xs.size):
            if 0.0 < xs[k] < nearest and abs(ys[k]) <= half:
                nearest = xs[k]
        if math.isfinite(nearest) and round(nearest) < NO_ECHO:
            best = min(best, round(nearest) - math.sqrt(radius * radius - inner * inner))
        inner = half
    return best


class PathMemory:
    """Keeps a path obstacle in mind after the sonar loses it.

    The front buffer forgets a reading when later firings hear nothing (a wall end seen head-on
    echoes only now and then), but the obstacle is still there. So the remembered clearance shrinks
    by the distance driven and grows, towards what the sonar says, by at most ``GROWTH`` mm a cycle
    plus ``GROWTH_PER_DEGREE`` for every degree the robot turned (turning takes the path elsewhere).
    """

    GROWTH = 20.0
    GROWTH_PER_DEGREE = 15.0

    __slots__ = ("clearance", "heading", "x", "y")

    def __init__(self) -> None:
        self.clearance = math.nan
        self.x = self.y = self.heading = 0.0

    def update(self, ctx: BehaviorContext[Any, Any], measured: float) -> float:
        """The path clearance to act on, given this cycle's measurement."""
        robot = ctx.robot
        if math.isnan(self.clearance):
            self.clearance = measured
        else:
            moved = math.hypot(robot.odo_x - self.x, robot.odo_y - self.y)
            turned = abs(norm2_angle(robot.odo_th - self.heading))
            allowed = self.clearance - moved + self.GROWTH + self.GROWTH_PER_DEGREE * turned
            self.clearance = min(measured, allowed)
        self.x, self.y, self.heading = robot.odo_x, robot.odo_y, robot.odo_th
        return self.clearance


def side_clearances(ctx: BehaviorContext[Any, Any], reach: float) -> tuple[float, float]:
    """(left, right): distance from the body to the nearest reading on each side within ``reach``."""
    r = ctx.robot_radius
    left, right = ctx.sonar.cached(("side_clearances", r), lambda: _nearest_sides(ctx.sonar, r))
    return (left if left < reach else float(NO_ECHO), right if right < reach else float(NO_ECHO))


def _nearest_sides(sonar: Sonar, r: float) -> tuple[float, float]:
    """(left, right): distance from the body to the nearest reading on each side, at any range."""
    xs, ys = sonar.points(Region.ALL)
    return _side_distances(xs, ys, r)


@kernel(lambda: (*_points_example(), 1.0))
def _side_distances(xs: FloatArray, ys: FloatArray, r: float) -> tuple[float, float]:
    """:func:`_nearest_sides` on the points, compiled (readings from half a radius behind the centre on)."""
    left = right = math.inf
    for k in range(xs.size):
        if xs[k] > -0.5 * r:
            dist = math.hypot(xs[k], ys[k]) - r
            if ys[k] >= 0.0:
                left = min(left, dist)
            else:
                right = min(right, dist)
    return left, right


ESCAPE_ANGLE = 60.0
"""Degrees either side of ahead at which the escape direction compares the free path."""


def free_path(ctx: BehaviorContext[Any, Any], bearing: float) -> float:
    """How far (mm) the robot could drive towards ``bearing`` (degrees, left positive) before its
    body met a sonar reading, were it turned that way on the spot."""
    radius = ctx.robot_radius + BODY_MARGIN
    return ctx.sonar.cached(("free_path", radius, bearing), lambda: _free_path(ctx.sonar, radius, bearing))


def _free_path(sonar: Sonar, radius: float, bearing: float) -> float:
    xs, ys = sonar.points(Region.ALL)
    return _free_distance(xs, ys, radius, math.cos(math.radians(bearing)), math.sin(math.radians(bearing)))


@kernel(lambda: (*_points_example(), 1.0, 1.0, 0.0))
def _free_distance(xs: FloatArray, ys: FloatArray, radius: float, c: float, s: float) -> float:
    """:func:`_free_path` on the points, compiled: how far a disc of ``radius`` moves along (c, s)
    before it meets one (``NO_ECHO`` if none is in its way)."""
    best = math.inf
    for k in range(xs.size):
        along = c * xs[k] + s * ys[k]
        across = -s * xs[k] + c * ys[k]
        if along > 0.0 and abs(across) < radius:
            best = min(best, along - math.sqrt(radius * radius - across * across))
    return best if math.isfinite(best) else float(NO_ECHO)


def _escape_direction(ctx: BehaviorContext[Any, Any]) -> TurnDir:
    """The side whose path (60 degrees off ahead) is freer, else the preferred turn direction."""
    left, right = free_path(ctx, ESCAPE_ANGLE), free_path(ctx, -ESCAPE_ANGLE)
    floor, fraction = SIDES_EQUAL
    if abs(left - right) < floor + fraction * max(left, right):
        return ctx.preferred_turn_dir
    return TurnDir.LEFT if left > right else TurnDir.RIGHT


def draw_boxes(
    ctx: BehaviorContext[Any, Any], pen: LpsPen, front: tuple[float, float], side: tuple[float, float], color: str
) -> None:
    """The sensitivity boxes in the LPS: ``front`` and ``side`` are (reach beyond the body, sensitivity)."""
    r = ctx.robot_radius
    half = r + BODY_MARGIN
    reach, sensitivity = front
    pen.box(r, -half, r + reach, half, color)
    if sensitivity > 1.0:  # full truth from here in
        full = r + reach * (1.0 - 1.0 / sensitivity)
        pen.line(full, -half, full, half, color, dashed=True)
    reach, sensitivity = side
    for sign in (1.0, -1.0):
        pen.box(-0.5 * r, sign * r, r, sign * (r + reach), color)
        if sensitivity > 1.0:
            full = sign * (r + reach * (1.0 - 1.0 / sensitivity))
            pen.line(-0.5 * r, full, r, full, color, dashed=True)


# ------------------------------------------------------------------------------ avoid_collision
@dataclass(kw_only=True)
class AvoidCollisionParams:
    front: Annotated[float, "front sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)"] = 1.0
    side: Annotated[float, "side sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)"] = 1.0
    gain: Annotated[float, "turning gain, degrees per cycle: 4.0 (slow turn) .. 10.0 (fast turn)"] = 8.0
    standoff: Annotated[float, "the avoidance bubble extends from the robot's radius out to radius + standoff, mm"] = (
        300.0
    )


@dataclass
class ObstacleVars:
    """What avoid_collision and keep_off both compute: obstacle truths and the escape direction."""

    obstacle_front: float = 0.0
    obstacle_left: float = 0.0
    obstacle_right: float = 0.0
    escape: TurnDir = TurnDir.LEFT
    blocked: bool = False
    path: PathMemory = field(default_factory=PathMemory)


@dataclass
class AvoidVars(ObstacleVars, FuzzyVars[AvoidCollisionParams]):
    side_close: float = 0.0


def _stopping_reach(ctx: BehaviorContext[Any, Any], standoff: float) -> float:
    """The front bubble: ``standoff`` plus the distance needed to stop from the current speed."""
    v = max(0.0, ctx.robot.vel)
    decel = max(ctx.motion.deceleration, 1.0)
    return standoff + v * v / (2.0 * decel) + v * SENSING_LATENCY


def _update_escape(ctx: BehaviorContext[Any, Any], v: ObstacleVars) -> None:
    """The way to turn when the path is blocked: chosen afresh every cycle while the path is fairly
    clear, held once it is blocked (truth 0.5) until it clears again (below 0.2)."""
    if v.blocked and v.obstacle_front < RELEASE:
        v.blocked = False
    if not v.blocked:
        v.escape = _escape_direction(ctx)
        v.blocked = v.obstacle_front >= HOLD


def _nearest(v: ObstacleVars) -> float:
    """How much an obstacle is around at all: the turn activity (and keep_off's 1 - "Clear")."""
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
        Rule(
            "Front blocked",
            when=lambda v: v.obstacle_front,
            then=turn(lambda v: v.escape, lambda v: v.p.gain * (ESCAPE_BOOST if v.blocked else 1.0)),
        ),
        Rule("Stop", when=lambda v: v.obstacle_front, then=speed(0.0)),
        Rule("Slow", when=lambda v: f_and(v.side_close, f_not(v.obstacle_front)), then=speed(SIDE_SLOW_SPEED)),
    ],
    activity=Activity(turn=lambda v: _nearest(v), speed=1.0),
    draw=lambda ctx, pen: draw_boxes(
        ctx, pen, (_stopping_reach(ctx, ctx.p.standoff), ctx.p.front), (ctx.p.standoff, ctx.p.side), "Red"
    ),
)


# ------------------------------------------------------------------------------ stop_collision
@dataclass(kw_only=True)
class StopCollisionParams:
    front: Annotated[float, "front sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)"] = 1.0
    side: Annotated[float, "side sensitivity: 0.5 (insensitive) .. 3.0 (very sensitive)"] = 1.0
    standoff: Annotated[float, "the avoidance bubble extends from the robot's radius out to radius + standoff, mm"] = (
        300.0
    )


@dataclass
class StopCollisionVars(FuzzyVars[StopCollisionParams]):
    obstacle_front: float = 0.0
    obstacle_side: float = 0.0
    path: PathMemory = field(default_factory=PathMemory)


def update_stop_collision(ctx: BehaviorContext[StopCollisionParams, StopCollisionVars]) -> None:
    """Slow down sharply near obstacles without turning: another behavior must steer."""
    p, v = ctx.p, ctx.v
    left, right = side_clearances(ctx, p.standoff)
    front = v.path.update(ctx, path_clearance(ctx))
    v.obstacle_front = _truth(p.front, front, _stopping_reach(ctx, p.standoff))
    v.obstacle_side = _truth(p.side, min(left, right), p.standoff)


stop_collision = behavior(
    "stop_collision",
    params=StopCollisionParams,
    vars=StopCollisionVars,
    update=update_stop_collision,
    rules=[
        Rule("Stop", when=lambda v: v.obstacle_front, then=speed(0.0)),
        Rule("Slow", when=lambda v: f_and(v.obstacle_side, f_not(v.obstacle_front)), then=speed(SIDE_SLOW_SPEED)),
    ],
    activity=Activity(speed=1.0),
    draw=lambda ctx, pen: draw_boxes(
        ctx, pen, (_stopping_reach(ctx, ctx.p.standoff), ctx.p.front), (ctx.p.standoff, ctx.p.side), "OrangeRed"
    ),
)


# ------------------------------------------------------------------------------ keep_off
@dataclass(kw_only=True)
class KeepOffParams:
    caution_speed: Annotated[float, "mm/s the robot slows to when it sees more distant obstacles"] = 100.0
    sensitivity: Annotated[float, "0.2 (not sensitive) .. 2.0 (very sensitive)"] = 0.25


@dataclass
class KeepOffVars(ObstacleVars, FuzzyVars[KeepOffParams]):
    pass


KEEP_OFF_RANGE = 4000.0
"""mm beyond the body that keep_off looks at sensitivity 1.0."""


def _keep_off_reach(ctx: BehaviorContext[KeepOffParams, KeepOffVars]) -> float:
    return min(KEEP_OFF_RANGE * ctx.p.sensitivity, ctx.sonar.front_max_range - ctx.robot_radius)


def update_keep_off(ctx: BehaviorContext[KeepOffParams, KeepOffVars]) -> None:
    """Steer gently away from distant obstacles and slow to the caution speed when one is ahead."""
    v = ctx.v
    reach = _keep_off_reach(ctx)
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
    activity=Activity(turn=lambda v: _nearest(v), speed=1.0),
    draw=lambda ctx, pen: draw_boxes(ctx, pen, (_keep_off_reach(ctx), 1.0), (_keep_off_reach(ctx), 1.0), "Yellow"),
)
