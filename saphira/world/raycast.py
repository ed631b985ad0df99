"""Vectorised 2-D segment geometry for the simulator: rays for sonar, circles for the robot body.

Walls are an ``(N, 4)`` float64 array of segments ``x1 y1 x2 y2`` in mm; angles are in degrees,
counter-clockwise from +X, as everywhere in Saphira. Every function works on many segments (and,
for rays, many rays) in one call, because the simulator calls them for every robot on every step:
in one numpy pass, or, for rays against walls, a compiled loop (:func:`first_hit`, which the sonar
shares; saphira/core/jit.py). :class:`SegmentIndex` buckets the segments of a world in a uniform grid so a
query only looks at the walls near the robot.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from saphira.core.arrays import FloatArray, IntArray
from saphira.core.jit import kernel

_PARALLEL_SIN = 1e-12  # a ray and a segment closer than this to parallel (sine of the angle) are parallel
_ON_LINE_MM = 1e-6  # a parallel segment closer than this to the ray's line lies on it
_ENDPOINT_SLACK = 1e-9  # lets a ray through the shared corner of two walls hit them (in segment units)


class RayHits(NamedTuple):
    """Result of :func:`cast_rays`: per ray, the distance to the first wall and which wall it is.

    ``distances`` is ``inf`` and ``segments`` is ``-1`` for a ray that hits nothing within range.
    """

    distances: FloatArray
    segments: IntArray


def as_segments(segments: npt.ArrayLike) -> FloatArray:
    """``segments`` as a contiguous ``(N, 4)`` float64 array (an empty input gives shape ``(0, 4)``)."""
    array = np.ascontiguousarray(segments, dtype=np.float64)
    if array.size == 0:
        return np.zeros((0, 4), dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 4:
        raise ValueError(f"segments must have shape (N, 4), not {array.shape}")
    return array


def _as_point(point: npt.ArrayLike) -> tuple[float, float]:
    x, y = np.asarray(point, dtype=np.float64).reshape(2)
    return float(x), float(y)


def cast_rays(
    origins: npt.ArrayLike, angles_deg: npt.ArrayLike, segments: npt.ArrayLike, max_range: float = math.inf
) -> RayHits:
    """First wall hit by each ray, at most ``max_range`` away.

    ``origins`` is ``(K, 2)`` or one ``(2,)`` point shared by all rays; ``angles_deg`` is ``(K,)``.
    A ray starting on a wall hits it at distance 0; a ray running along a wall hits the wall's
    nearer end (or 0 when it starts on it); a ray through the corner where two walls meet hits them.
    """
    angles = np.asarray(angles_deg, dtype=np.float64).reshape(-1)
    count = angles.shape[0]
    points = np.asarray(origins, dtype=np.float64)
    points = np.broadcast_to(points, (count, 2)) if points.ndim == 1 else points.reshape(-1, 2)
    distances = np.empty(count)
    ids = np.empty(count, dtype=np.intp)
    _cast_rays(
        np.ascontiguousarray(points),
        np.ascontiguousarray(angles),
        as_segments(segments),
        float(max_range),
        distances,
        ids,
    )
    return RayHits(distances, ids)


def _cast_rays_example() -> tuple[object, ...]:
    return np.zeros((1, 2)), np.zeros(1), np.zeros((1, 4)), 1.0, np.empty(1), np.empty(1, dtype=np.intp)


@kernel(_cast_rays_example)
def _cast_rays(
    points: FloatArray,
    angles_deg: FloatArray,
    walls: FloatArray,
    max_range: float,
    distances: FloatArray,
    ids: IntArray,
) -> None:
    """:func:`cast_rays`' work, compiled: every ray against every wall, results into the last two arrays."""
    everything = np.arange(walls.shape[0])
    for k in range(angles_deg.shape[0]):
        rad = math.radians(angles_deg[k])
        t, wall = first_hit(points[k, 0], points[k, 1], math.cos(rad), math.sin(rad), walls, everything)
        if wall >= 0 and t <= max_range:
            distances[k], ids[k] = t, wall
        else:
            distances[k], ids[k] = math.inf, -1


@kernel()
def first_hit(ox: float, oy: float, c: float, s: float, walls: FloatArray, ids: IntArray) -> tuple[float, int]:
    """(distance, index) of the first of the walls ``ids`` selects met by the ray from (ox, oy) along the
    unit vector (c, s); (inf, -1) if none. Compiled; :func:`cast_rays` gives its rules.

    The ray o + t·d meets the wall a + u·e where t = cross(a - o, e) / cross(d, e) and
    u = cross(a - o, d) / cross(d, e). A wall parallel to the ray is met only where it lies on the
    ray's line, at its nearer end (0 if the ray starts on it). Of equally near walls, the first counts.
    """
    best, best_wall = math.inf, -1
    for j in ids:
        ax, ay, bx, by = walls[j, 0], walls[j, 1], walls[j, 2], walls[j, 3]
        ex, ey = bx - ax, by - ay
        rx, ry = ax - ox, ay - oy
        denom = ey * c - ex * s  # cross(d, e)
        cross_wd = rx * s - ry * c  # cross(a - o, d)
        if denom * denom <= _PARALLEL_SIN * _PARALLEL_SIN * (ex * ex + ey * ey):
            if abs(cross_wd) > _ON_LINE_MM:
                continue
            t_start, t_end = rx * c + ry * s, (bx - ox) * c + (by - oy) * s  # along the ray to each end
            if max(t_start, t_end) < 0.0:
                continue
            t = max(min(t_start, t_end), 0.0)
        else:
            # u in [0, 1] and t >= 0 (each with its slack), tested before dividing: most walls fail
            if denom < 0.0:
                denom, cross_wd = -denom, -cross_wd
                cross_we = ry * ex - rx * ey
            else:
                cross_we = rx * ey - ry * ex  # cross(a - o, e)
            if cross_wd < -_ENDPOINT_SLACK * denom or cross_wd > (1.0 + _ENDPOINT_SLACK) * denom:
                continue
            if cross_we < -_ON_LINE_MM * denom or cross_we >= best * denom:
                continue
            t = cross_we / denom
        if t < best:
            best, best_wall = t, j
    return max(best, 0.0), best_wall


@kernel()
def walls_in_fan(
    ox: float, oy: float, right_deg: float, left_deg: float, walls: FloatArray, candidates: IntArray
) -> int:
    """Write into ``candidates`` the walls a ray from (ox, oy) between the two bearings could meet; how
    many there are. Compiled, for the sonar's beams and the laser's fan.

    A wall is left out when both its ends lie more than :data:`_FAN_MARGIN_MM` beyond the line of the
    same outermost ray (a fan narrower than a half turn), or behind the origin across the line
    perpendicular to the middle ray (a fan of at most a half turn): half-planes no ray of the fan
    enters. A wider fan tries every wall.
    """
    spread = left_deg - right_deg
    right, left, middle = math.radians(right_deg), math.radians(left_deg), math.radians(right_deg + 0.5 * spread)
    rc, rs, lc, ls = math.cos(right), math.sin(right), math.cos(left), math.sin(left)
    mc, ms = math.cos(middle), math.sin(middle)
    count = 0
    for j in range(walls.shape[0]):
        ax, ay, bx, by = walls[j, 0] - ox, walls[j, 1] - oy, walls[j, 2] - ox, walls[j, 3] - oy
        if spread < 180.0:
            if lc * ay - ls * ax > _FAN_MARGIN_MM and lc * by - ls * bx > _FAN_MARGIN_MM:
                continue  # left of the leftmost ray
            if rc * ay - rs * ax < -_FAN_MARGIN_MM and rc * by - rs * bx < -_FAN_MARGIN_MM:
                continue  # right of the rightmost ray
        if spread <= 180.0 and mc * ax + ms * ay < -_FAN_MARGIN_MM and mc * bx + ms * by < -_FAN_MARGIN_MM:
            continue  # behind
        candidates[count] = j
        count += 1
    return count


_FAN_MARGIN_MM = 1.0
"""A wall this close to a fan of rays is still tried (far beyond the ray casting's tolerances)."""

_FAN_SLACK_DEG = 1e-6  # a ray this close to the direction of a wall's end still tries the wall
_FAN_NEAR_MM = 1.0  # a wall this close to the origin is tried by every ray (its extent is unclear)


class FanWalls:
    """Walls made ready for :func:`cast_fan`: what does not depend on the fan's origin, computed once.

    The simulated laser casts a fan at the same walls from a new pose every step, so it keeps one
    of these per world rather than recomputing the walls' edges and lengths on every scan.
    """

    def __init__(self, segments: npt.ArrayLike) -> None:
        walls = as_segments(segments)
        count = walls.shape[0]
        self.segments = walls
        self.edge_x = walls[:, 2] - walls[:, 0]
        self.edge_y = walls[:, 3] - walls[:, 1]
        length = np.hypot(self.edge_x, self.edge_y)
        self.on_line = _ON_LINE_MM * length
        """|cross(start - origin, edge)| at most this: no length, or a line through the origin."""
        self.near_line = _FAN_NEAR_MM * length
        """|cross(start - origin, edge)| at most this: the wall's line passes within 1 mm of the origin."""
        self.run_walls: IntArray = np.arange(2 * count, dtype=np.intp) % max(count, 1)
        """The wall of each run of rays: one run per wall, and one more for the part past a full turn."""

    def __len__(self) -> int:
        return int(self.segments.shape[0])


def cast_fan(
    origin: npt.ArrayLike,
    angles_deg: npt.ArrayLike,
    segments: npt.ArrayLike | FanWalls,
    max_range: float = math.inf,
) -> FloatArray:
    """:func:`cast_rays` for many rays from one point (a laser scan): the same distances, faster.

    Each ray is tried only against the walls whose angular extent, seen from ``origin``, holds its
    bearing, and such a ray meets the wall: its distance is :func:`cast_rays`' ``t`` (the cross
    product of the wall's start and its edge over that of the ray and the edge). One (ray, wall)
    pair per candidate, instead of every ray against every wall. A ray within 1e-6 degrees of a
    wall's end counts as meeting it (so no ray slips through the corner where two walls meet).
    Walls that pass within a millimetre of the origin, lie on a line through it, or have no length
    are left to :func:`cast_rays` itself, with its rules for rays along a wall.
    """
    ox, oy = _as_point(origin)
    angles = np.asarray(angles_deg, dtype=np.float64).reshape(-1)
    walls = segments if isinstance(segments, FanWalls) else FanWalls(segments)
    count = angles.shape[0]
    if len(walls) == 0 or count == 0:
        return np.full(count, np.inf)
    # Bearings relative to the first ray; a scan in increasing order is already sorted.
    relative = (angles - angles[0]) % 360.0
    if count == 1 or bool(np.all(relative[1:] > relative[:-1])):
        return _fan(walls, ox, oy, angles, relative, max_range)
    order = np.argsort(relative, kind="stable")
    result = np.empty(count)
    result[order] = _fan(walls, ox, oy, angles[order], relative[order], max_range)
    return result


def cast_even_fan(
    origin: tuple[float, float],
    first_deg: float,
    increment_deg: float,
    count: int,
    walls: FanWalls,
    max_range: float = math.inf,
) -> FloatArray:
    """:func:`cast_fan` for ``count`` rays ``increment_deg`` apart from ``first_deg`` (a laser scan).

    The same (ray, wall) pairs and distances, compiled (:func:`_even_fan`): each wall's rays are one run
    found by arithmetic on the even bearings. A fan that wraps past a full turn goes the general way.
    """
    spread = increment_deg * (count - 1)
    if count < 2 or len(walls) == 0 or spread <= 0.0 or spread + increment_deg > 360.0:
        return cast_fan(origin, first_deg + increment_deg * np.arange(count), walls, max_range)
    result = np.empty(count)
    _even_fan(
        float(origin[0]), float(origin[1]), float(first_deg), float(increment_deg), walls.segments, float(max_range),
        result,
    )  # fmt: skip
    return result


def _even_fan_example() -> tuple[object, ...]:
    return 0.0, 0.0, 0.0, 1.0, np.array([[1000.0, -10.0, 1000.0, 10.0]]), 1.0, np.empty(2)


@kernel(_even_fan_example)
def _even_fan(
    ox: float,
    oy: float,
    first_deg: float,
    increment_deg: float,
    walls: FloatArray,
    max_range: float,
    result: FloatArray,
) -> None:
    """:func:`cast_even_fan`'s work, compiled: the distance along each ray to the first wall into ``result``.

    A wall is tried only by the rays whose bearing lies within its angular extent seen from the origin
    (within 1e-6 degrees), which meet it: the distance is ``cross(start - origin, edge)`` over
    ``cross(ray, edge)``. Walls that pass within a millimetre of the origin, lie on a line through it,
    or have no length are tried by every ray with :func:`first_hit`'s rules for rays along a wall.
    """
    count = result.size
    cos_k, sin_k = np.empty(count), np.empty(count)
    for k in range(count):
        rad = math.radians(first_deg + increment_deg * k)
        cos_k[k], sin_k[k] = math.cos(rad), math.sin(rad)
        result[k] = math.inf
    special = np.empty(walls.shape[0], dtype=np.intp)
    specials = 0
    candidates = np.empty(walls.shape[0], dtype=np.intp)
    tried = walls_in_fan(ox, oy, first_deg, first_deg + increment_deg * (count - 1), walls, candidates)
    for j in candidates[:tried]:
        ax, ay, bx, by = walls[j, 0] - ox, walls[j, 1] - oy, walls[j, 2] - ox, walls[j, 3] - oy
        ex, ey = bx - ax, by - ay
        h = ax * ey - ay * ex  # cross(start - origin, edge): the line's distance from the origin x its length
        length = math.hypot(ex, ey)
        if abs(h) <= _FAN_NEAR_MM * length:
            along = min(max(-(ax * ex + ay * ey) / (length * length), 0.0), 1.0) if length > 0.0 else 0.0
            if abs(h) <= _ON_LINE_MM * length or math.hypot(ax + along * ex, ay + along * ey) < _FAN_NEAR_MM:
                special[specials] = j
                specials += 1
                continue
        start, end = math.degrees(math.atan2(ay, ax)), math.degrees(math.atan2(by, bx))
        span = (end - start + 180.0) % 360.0 - 180.0
        low = (min(start, start + span) - first_deg - _FAN_SLACK_DEG) % 360.0  # the clockwise end, from ray 0
        high = low + abs(span) + 2.0 * _FAN_SLACK_DEG
        for base in (low, low - 360.0):  # and once more where the extent wraps past a full turn
            k = max(math.ceil(base / increment_deg), 0)
            last = min(math.floor((base + high - low) / increment_deg), count - 1)
            while k <= last:
                t = h / (cos_k[k] * ey - sin_k[k] * ex)
                if t < result[k]:
                    result[k] = t
                k += 1
    for k in range(count):
        if specials:
            t, _ = first_hit(ox, oy, cos_k[k], sin_k[k], walls, special[:specials])
            result[k] = min(result[k], t)
        if result[k] > max_range:
            result[k] = math.inf


def _fan(
    walls: FanWalls,
    ox: float,
    oy: float,
    angles: FloatArray,
    positions: FloatArray,
    max_range: float,
) -> FloatArray:
    """:func:`cast_fan`'s work for rays in increasing bearing within one turn of ``angles[0]``.

    ``positions`` are the rays' bearings in degrees from ``angles[0]``, in [0, 360), sorted.
    """
    count = angles.shape[0]
    period, slack = 360.0, _FAN_SLACK_DEG
    rel = walls.segments - (ox, oy, ox, oy)
    h = rel[:, 0] * walls.edge_y - rel[:, 1] * walls.edge_x  # the line's distance from the origin × its length
    ends = np.arctan2(rel[:, 1::2], rel[:, 0::2]) * (180.0 / math.pi)
    span = (ends[:, 1] - ends[:, 0] + period / 2.0) % period - period / 2.0
    low = (ends[:, 0] + np.minimum(span, 0.0) - (angles[0] + slack)) % period
    high = low + (np.abs(span) + 2.0 * slack)
    result = np.full(count, np.inf)
    size = np.abs(h)
    near = size <= walls.near_line
    if near.any():
        ids = np.flatnonzero(near)
        close = np.hypot(*_to_nearest(ox, oy, walls.segments[ids])) < _FAN_NEAR_MM
        special = ids[(size[ids] <= walls.on_line[ids]) | close]
        if special.size:
            result = cast_rays((ox, oy), angles, walls.segments[special]).distances
            high[special] = -1.0
    # Each wall's rays: a run of the sorted bearings, and a second run from 0 when it wraps past a turn.
    # (Direct ufunc and method calls: at a few hundred walls each numpy call's overhead is the cost.)
    lows = np.concatenate((low, low - period))
    highs = np.concatenate((high, high - period))
    starts = positions.searchsorted(lows, "left")
    stops = positions.searchsorted(highs, "right")
    runs = np.maximum(stops - starts, 0)
    total = int(runs.sum())
    if total:
        wall = walls.run_walls.repeat(runs)
        ray = (starts - np.add.accumulate(runs) + runs).repeat(runs) + np.arange(total)
        radians = np.radians(angles)
        t = h[wall] / (np.cos(radians)[ray] * walls.edge_y[wall] - np.sin(radians)[ray] * walls.edge_x[wall])
        np.minimum.at(result, ray, t)
    result[result > max_range] = np.inf
    return result


def ray_segment_distances(
    origins: npt.ArrayLike, angles_deg: npt.ArrayLike, segments: npt.ArrayLike, max_range: float = math.inf
) -> FloatArray:
    """``(K,)`` distances from each ray origin to the first wall along it; ``inf`` beyond ``max_range``."""
    return cast_rays(origins, angles_deg, segments, max_range).distances


def _to_nearest(px: float, py: float, walls: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(N,)`` x and y offsets from the point to the nearest point of each wall."""
    ax, ay = walls[:, 0], walls[:, 1]
    ex = walls[:, 2] - ax
    ey = walls[:, 3] - ay
    length2 = ex * ex + ey * ey
    s = ((px - ax) * ex + (py - ay) * ey) / np.where(length2 > 0.0, length2, 1.0)
    s = np.clip(s, 0.0, 1.0)
    return ax + s * ex - px, ay + s * ey - py


def point_segment_distances(point: npt.ArrayLike, segments: npt.ArrayLike) -> FloatArray:
    """``(N,)`` distance from one point to each segment (a zero-length segment is a point)."""
    px, py = _as_point(point)
    return np.hypot(*_to_nearest(px, py, as_segments(segments)))


def min_distance_point_segments(point: npt.ArrayLike, segments: npt.ArrayLike) -> float:
    """Distance from ``point`` to the nearest segment; ``inf`` when there are none."""
    distances = point_segment_distances(point, segments)
    return float(distances.min()) if distances.size else math.inf


def circle_collides(center: npt.ArrayLike, radius: float, segments: npt.ArrayLike) -> bool:
    """Whether a disc overlaps any segment (a segment exactly tangent to it does not)."""
    return min_distance_point_segments(center, segments) < radius


def _crossings(p0: tuple[float, float], p1: tuple[float, float], walls: FloatArray) -> npt.NDArray[np.bool_]:
    """Per segment: does the closed segment p0-p1 touch it? (orientation tests, collinear overlap included)"""
    ax, ay, bx, by = walls[:, 0], walls[:, 1], walls[:, 2], walls[:, 3]
    mx, my = p1[0] - p0[0], p1[1] - p0[1]
    ex, ey = bx - ax, by - ay
    o1 = mx * (ay - p0[1]) - my * (ax - p0[0])  # side of A relative to the move
    o2 = mx * (by - p0[1]) - my * (bx - p0[0])  # side of B
    o3 = ex * (p0[1] - ay) - ey * (p0[0] - ax)  # side of p0 relative to the wall
    o4 = ex * (p1[1] - ay) - ey * (p1[0] - ax)  # side of p1
    proper = (o1 * o2 <= 0.0) & (o3 * o4 <= 0.0)
    collinear = (o1 == 0.0) & (o2 == 0.0) & (o3 == 0.0) & (o4 == 0.0)
    if not collinear.any():
        return proper
    # Collinear pieces (or a zero-length one on the other's line) touch only if their extents overlap.
    overlap_x = (np.minimum(ax, bx) <= max(p0[0], p1[0])) & (np.maximum(ax, bx) >= min(p0[0], p1[0]))
    overlap_y = (np.minimum(ay, by) <= max(p0[1], p1[1])) & (np.maximum(ay, by) >= min(p0[1], p1[1]))
    return np.where(collinear, overlap_x & overlap_y, proper)


def segment_crosses(p0: npt.ArrayLike, p1: npt.ArrayLike, segments: npt.ArrayLike) -> bool:
    """Whether the straight move from ``p0`` to ``p1`` crosses or touches any segment."""
    walls = as_segments(segments)
    return bool(walls.shape[0] and _crossings(_as_point(p0), _as_point(p1), walls).any())


def _points_to_segment(points: FloatArray, segment: tuple[float, float, float, float]) -> FloatArray:
    """Distance from each of ``(M, 2)`` points to one segment."""
    ax, ay, bx, by = segment
    ex, ey = bx - ax, by - ay
    length2 = ex * ex + ey * ey
    if length2 == 0.0:
        return np.hypot(points[:, 0] - ax, points[:, 1] - ay)
    s = np.clip(((points[:, 0] - ax) * ex + (points[:, 1] - ay) * ey) / length2, 0.0, 1.0)
    return np.hypot(ax + s * ex - points[:, 0], ay + s * ey - points[:, 1])


def _pairs_distance(px: FloatArray, py: FloatArray, walls: FloatArray) -> FloatArray:
    """Distance from each point (``px``, ``py``) to the segment in the same row of ``(M, 4)`` ``walls``
    (the arithmetic of :func:`_points_to_segment`, pair by pair)."""
    ax, ay, bx, by = walls.T
    ex, ey = bx - ax, by - ay
    length2 = ex * ex + ey * ey
    along = np.divide((px - ax) * ex + (py - ay) * ey, length2, out=np.zeros_like(px), where=length2 != 0.0)
    s = np.clip(along, 0.0, 1.0)
    distance: FloatArray = np.where(
        length2 == 0.0, np.hypot(px - ax, py - ay), np.hypot(ax + s * ex - px, ay + s * ey - py)
    )
    return distance


def segment_segment_distances(p0: npt.ArrayLike, p1: npt.ArrayLike, segments: npt.ArrayLike) -> FloatArray:
    """``(N,)`` distance between the segment ``p0``-``p1`` and each of ``segments`` (0 where they touch)."""
    walls = as_segments(segments)
    a, b = _as_point(p0), _as_point(p1)
    from_ends = np.minimum(point_segment_distances(a, walls), point_segment_distances(b, walls))
    move = (a[0], a[1], b[0], b[1])
    to_move = np.minimum(_points_to_segment(walls[:, 0:2], move), _points_to_segment(walls[:, 2:4], move))
    return np.where(_crossings(a, b, walls), 0.0, np.minimum(from_ends, to_move))


def min_distance_segment_segments(p0: npt.ArrayLike, p1: npt.ArrayLike, segments: npt.ArrayLike) -> float:
    """Smallest distance between the segment ``p0``-``p1`` and any of ``segments``; ``inf`` if none."""
    distances = segment_segment_distances(p0, p1, segments)
    return float(distances.min()) if distances.size else math.inf


def swept_circle_collides(p0: npt.ArrayLike, p1: npt.ArrayLike, radius: float, segments: npt.ArrayLike) -> bool:
    """Whether a disc moved in a straight line from ``p0`` to ``p1`` overlaps any segment on the way."""
    return min_distance_segment_segments(p0, p1, segments) < radius


_CONTACT_MM = 1e-6  # a wall this close to the disc's rim counts as touching


def circle_sweep_fraction(p0: npt.ArrayLike, p1: npt.ArrayLike, radius: float, segments: npt.ArrayLike) -> float:
    """Fraction in [0, 1] of the straight move ``p0`` → ``p1`` a disc can make before it touches a wall.

    The disc's centre sweeps a ray against each wall's capsule (two offset sides, two end circles),
    so the result is exact rather than sampled. A wall the disc already touches or overlaps at
    ``p0`` blocks only motion towards it (fraction 0): a robot stopped against a wall can slide
    along it or back away.
    """
    a = np.array(_as_point(p0))
    move = np.array(_as_point(p1)) - a
    length = float(np.hypot(move[0], move[1]))
    walls = as_segments(segments)
    if length == 0.0 or walls.shape[0] == 0:
        return 1.0
    qx, qy = _to_nearest(float(a[0]), float(a[1]), walls)
    gap = np.hypot(qx, qy)
    if gap.min() >= radius + length + _CONTACT_MM:
        return 1.0  # nothing within reach of this move: the usual case
    unit = move / length
    touching = gap < radius + _CONTACT_MM
    if touching.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            towards = (qx * unit[0] + qy * unit[1]) / gap
        if np.any(touching & (towards > 1e-9)):
            return 0.0
        walls = walls[~touching]
        if walls.shape[0] == 0:
            return 1.0
    ax, ay = walls[:, 0], walls[:, 1]
    ex, ey = walls[:, 2] - ax, walls[:, 3] - ay
    length2 = ex * ex + ey * ey

    best = length
    solid = length2 > 0.0
    if solid.any():
        # Each side of the capsule: the wall's line moved out by the radius. The centre reaches it
        # when its distance h from the wall's line has shrunk to the radius, if that happens
        # within the wall's extent. A move parallel to the wall never meets a side.
        ax, ay, ex, ey, length2 = ax[solid], ay[solid], ex[solid], ey[solid], length2[solid]
        norm = np.sqrt(length2)
        h = ((a[0] - ax) * ey - (a[1] - ay) * ex) / norm  # signed distance from the wall's line
        closing = -np.sign(h) * (unit[0] * ey - unit[1] * ex) / norm  # speed towards the line
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (np.abs(h) - radius) / closing
            along = ((a[0] + t * unit[0] - ax) * ex + (a[1] + t * unit[1] - ay) * ey) / length2
        t = t[(closing > 0.0) & (t >= 0.0) & (along >= 0.0) & (along <= 1.0)]
        if t.size:
            best = min(best, float(t.min()))
    ends = np.concatenate([walls[:, 0:2], walls[:, 2:4]])
    fx = a[0] - ends[:, 0]
    fy = a[1] - ends[:, 1]
    half_b = fx * unit[0] + fy * unit[1]
    disc = half_b * half_b - (fx * fx + fy * fy - radius * radius)
    with np.errstate(invalid="ignore"):
        t = -half_b - np.sqrt(disc)
    t = t[(disc > 0.0) & (t >= 0.0)]  # a tangent graze (disc = 0) is not a contact
    if t.size:
        best = min(best, float(t.min()))
    return min(best / length, 1.0)


_QUERY_CACHE_SIZE = 4096


COVER_CHUNK = 1 << 20
"""Candidate (cell, segment) pairs a :class:`SegmentIndex` checks at once while it is built (memory)."""


class SegmentIndex:
    """A uniform grid of segment ids, built once per world, so queries test only nearby walls.

    Each cell lists the segments that pass through it (a conservative test against the cell's
    circumscribed circle). The lists are stored row-major in one array, so the cells of a query box
    row are one contiguous slice.
    """

    def __init__(self, segments: npt.ArrayLike, cell_size: float = 1000.0) -> None:
        if not cell_size > 0.0:
            raise ValueError(f"cell_size must be positive, not {cell_size}")
        self.segments = as_segments(segments)
        self.segments.setflags(write=False)
        self.cell_size = float(cell_size)
        walls = self.segments
        if walls.shape[0]:
            self.x0 = float(min(walls[:, 0].min(), walls[:, 2].min()))
            self.y0 = float(min(walls[:, 1].min(), walls[:, 3].min()))
            x1 = float(max(walls[:, 0].max(), walls[:, 2].max()))
            y1 = float(max(walls[:, 1].max(), walls[:, 3].max()))
        else:
            self.x0 = self.y0 = x1 = y1 = 0.0
        self.nx = int((x1 - self.x0) // self.cell_size) + 1
        self.ny = int((y1 - self.y0) // self.cell_size) + 1
        cells, ids = self._cover()
        order = np.lexsort((ids, cells))
        self._items: IntArray = ids[order]
        counts = np.bincount(cells, minlength=self.nx * self.ny)
        self._starts: IntArray = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        # A moving robot asks about the same block of cells step after step.
        self._cache: dict[tuple[int, int, int, int], IntArray] = {}

    def _cover(self) -> tuple[IntArray, IntArray]:
        """(cell, segment) pairs for every cell each segment passes through.

        Vectorised over the segments, in chunks of at most :data:`COVER_CHUNK` candidate cells (those of
        each segment's bounding box): a loop per segment cost ~0.3 ms a wall, minutes for a large world.
        """
        walls = self.segments
        if not walls.shape[0]:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        size = self.cell_size
        reach = size * math.sqrt(0.5) + 1e-9  # half the cell diagonal
        ax, ay, bx, by = walls.T
        i0, j0 = self._cells(np.minimum(ax, bx), np.minimum(ay, by))
        i1, j1 = self._cells(np.maximum(ax, bx), np.maximum(ay, by))
        wide = i1 - i0 + 1
        boxes = wide * (j1 - j0 + 1)
        ends = np.cumsum(boxes)
        cells: list[IntArray] = []
        ids: list[IntArray] = []
        start = 0
        while start < len(boxes):
            base = ends[start] - boxes[start]
            stop = max(start + 1, int(np.searchsorted(ends, base + COVER_CHUNK, side="right")))
            counts = boxes[start:stop]
            seg = np.repeat(np.arange(start, stop, dtype=np.intp), counts)
            offset = np.arange(int(counts.sum()), dtype=np.intp) - np.repeat(ends[start:stop] - counts - base, counts)
            ii = i0[seg] + offset % wide[seg]
            jj = j0[seg] + offset // wide[seg]
            near = _pairs_distance(self.x0 + (ii + 0.5) * size, self.y0 + (jj + 0.5) * size, walls[seg]) <= reach
            cells.append(jj[near] * self.nx + ii[near])
            ids.append(seg[near])
            start = stop
        return np.concatenate(cells), np.concatenate(ids)

    def _cells(self, x: FloatArray, y: FloatArray) -> tuple[IntArray, IntArray]:
        """Grid columns and rows of points, clamped to the grid (:meth:`_cell` for arrays)."""
        i = np.clip((x - self.x0) // self.cell_size, 0.0, self.nx - 1.0)
        j = np.clip((y - self.y0) // self.cell_size, 0.0, self.ny - 1.0)
        return i.astype(np.intp), j.astype(np.intp)

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        """Grid column and row of a point, clamped to the grid."""
        i = min(max((x - self.x0) // self.cell_size, 0.0), self.nx - 1.0)
        j = min(max((y - self.y0) // self.cell_size, 0.0), self.ny - 1.0)
        return int(i), int(j)

    def query_box(self, xmin: float, ymin: float, xmax: float, ymax: float) -> IntArray:
        """Sorted ids of the segments in the grid cells that the box overlaps (a superset of those in it).

        The result is read-only: recent answers are cached and shared.
        """
        size = self.cell_size
        if (
            xmax < self.x0
            or ymax < self.y0
            or xmin >= self.x0 + self.nx * size
            or ymin >= self.y0 + self.ny * size
            or not self._items.size
        ):
            return np.zeros(0, dtype=np.intp)
        i0, j0 = self._cell(xmin, ymin)
        i1, j1 = self._cell(xmax, ymax)
        key = (i0, j0, i1, j1)
        found = self._cache.get(key)
        if found is None:
            starts = self._starts
            rows = [self._items[starts[j * self.nx + i0] : starts[j * self.nx + i1 + 1]] for j in range(j0, j1 + 1)]
            found = np.unique(np.concatenate(rows))
            found.setflags(write=False)
            if len(self._cache) >= _QUERY_CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = found
        return found

    def query_circle(self, center: npt.ArrayLike, radius: float) -> IntArray:
        """Ids of the segments that may come within ``radius`` of ``center``."""
        x, y = _as_point(center)
        return self.query_box(x - radius, y - radius, x + radius, y + radius)

    def cast_rays(self, origins: npt.ArrayLike, angles_deg: npt.ArrayLike, max_range: float) -> RayHits:
        """:func:`cast_rays` over the nearby walls only; segment ids index :attr:`segments`."""
        points = np.asarray(origins, dtype=np.float64).reshape(-1, 2)
        if math.isinf(max_range):
            ids = np.arange(self.segments.shape[0], dtype=np.intp)
        else:
            low = points.min(axis=0) - max_range
            high = points.max(axis=0) + max_range
            ids = self.query_box(float(low[0]), float(low[1]), float(high[0]), float(high[1]))
        hits = cast_rays(origins, angles_deg, self.segments[ids], max_range)
        found = hits.segments >= 0
        return RayHits(hits.distances, np.where(found, ids[np.where(found, hits.segments, 0)], -1).astype(np.intp))

    def ray_distances(self, origins: npt.ArrayLike, angles_deg: npt.ArrayLike, max_range: float) -> FloatArray:
        """:func:`ray_segment_distances` over the nearby walls only."""
        return self.cast_rays(origins, angles_deg, max_range).distances

    def min_distance(self, point: npt.ArrayLike, max_distance: float) -> float:
        """Distance to the nearest wall if it is within ``max_distance``, else ``inf``."""
        distance = min_distance_point_segments(point, self.segments[self.query_circle(point, max_distance)])
        return distance if distance <= max_distance else math.inf

    def circle_collides(self, center: npt.ArrayLike, radius: float) -> bool:
        """:func:`circle_collides` over the nearby walls only."""
        return circle_collides(center, radius, self.segments[self.query_circle(center, radius)])

    def _near_move(self, p0: npt.ArrayLike, p1: npt.ArrayLike, margin: float) -> FloatArray:
        a, b = _as_point(p0), _as_point(p1)
        ids = self.query_box(
            min(a[0], b[0]) - margin,
            min(a[1], b[1]) - margin,
            max(a[0], b[0]) + margin,
            max(a[1], b[1]) + margin,
        )
        return self.segments[ids]

    def segment_crosses(self, p0: npt.ArrayLike, p1: npt.ArrayLike) -> bool:
        """:func:`segment_crosses` over the nearby walls only."""
        return segment_crosses(p0, p1, self._near_move(p0, p1, 0.0))

    def swept_circle_collides(self, p0: npt.ArrayLike, p1: npt.ArrayLike, radius: float) -> bool:
        """:func:`swept_circle_collides` over the nearby walls only."""
        return swept_circle_collides(p0, p1, radius, self._near_move(p0, p1, radius))

    def circle_sweep_fraction(self, p0: npt.ArrayLike, p1: npt.ArrayLike, radius: float) -> float:
        """:func:`circle_sweep_fraction` over the nearby walls only."""
        return circle_sweep_fraction(p0, p1, radius, self._near_move(p0, p1, radius + _CONTACT_MM))
