"""Segment geometry: hand-computed rays, distances, crossings and sweeps, and the grid index."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from saphira.world.raycast import (
    SegmentIndex,
    cast_rays,
    circle_collides,
    circle_sweep_fraction,
    min_distance_point_segments,
    min_distance_segment_segments,
    point_segment_distances,
    ray_segment_distances,
    segment_crosses,
    swept_circle_collides,
)
from saphira.world.world import World, load_world

WALL_X1000 = [[1000, -500, 1000, 500]]
CORNER = [[1000, 0, 1000, 1000], [1000, 1000, 0, 1000]]


@pytest.fixture(scope="module")
def amr_office(maps_dir: Path) -> World:
    return load_world(maps_dir / "AMROffice.map")


# --- rays --------------------------------------------------------------------------------------


def test_ray_hits_a_wall_at_the_exact_distance() -> None:
    hits = cast_rays((0, 0), [0, 180, 20, 45], WALL_X1000)
    assert hits.distances[0] == 1000
    assert hits.distances[1] == math.inf  # pointing away
    assert hits.distances[2] == pytest.approx(1000 / math.cos(math.radians(20)))  # meets it at y = 364
    assert hits.distances[3] == math.inf  # would meet x = 1000 at y = 1000, past the wall's end
    assert hits.segments.tolist() == [0, -1, 0, -1]


def test_oblique_ray_distance_and_miss() -> None:
    # At 26.565° (atan 0.5) the ray meets x=1000 at y=500, the wall's end; a little steeper misses.
    hit, miss = ray_segment_distances((0, 0), [math.degrees(math.atan(0.5)), 30], WALL_X1000)
    assert hit == pytest.approx(math.hypot(1000, 500))
    assert miss == math.inf


def test_ray_to_segment_endpoints_is_inclusive() -> None:
    assert ray_segment_distances((0, 500), [0], WALL_X1000)[0] == 1000
    assert ray_segment_distances((0, -500), [0], WALL_X1000)[0] == 1000
    assert ray_segment_distances((0, 500.01), [0], WALL_X1000)[0] == math.inf


def test_ray_through_the_corner_where_two_walls_meet_does_not_leak() -> None:
    hits = cast_rays((0, 0), [45], CORNER)
    assert hits.distances[0] == pytest.approx(1000 * math.sqrt(2))
    assert hits.segments[0] in (0, 1)


def test_max_range_cuts_off_hits() -> None:
    assert ray_segment_distances((0, 0), [0], WALL_X1000, max_range=999.9)[0] == math.inf
    assert ray_segment_distances((0, 0), [0], WALL_X1000, max_range=1000)[0] == 1000


def test_parallel_ray_beside_a_wall_misses() -> None:
    assert ray_segment_distances((0, 0), [0], [[100, 10, 500, 10]])[0] == math.inf
    assert ray_segment_distances((0, 0), [90], [[10, 100, 10, 500]])[0] == math.inf


@pytest.mark.parametrize(
    ("origin", "angle", "wall", "expected"),
    [
        ((0, 0), 0, [100, 0, 500, 0], 100),  # runs along the wall: hits its near end
        ((0, 0), 0, [500, 0, 100, 0], 100),  # whichever way the wall is written
        ((200, 0), 0, [100, 0, 500, 0], 0),  # starts on it
        ((0, 0), 0, [-500, 0, -100, 0], math.inf),  # behind
        ((0, 0), 90, [0, 100, 0, 500], 100),  # cos(90°) is not exactly 0
        ((0, 0), -90, [0, -700, 0, -300], 300),
        ((0, 0), 180, [-300, 0, -700, 0], 300),
    ],
)
def test_ray_along_a_collinear_wall(
    origin: tuple[float, float], angle: float, wall: list[float], expected: float
) -> None:
    assert ray_segment_distances(origin, [angle], [wall])[0] == pytest.approx(expected, abs=1e-6)


def test_ray_starting_on_a_wall_hits_it_at_zero() -> None:
    assert ray_segment_distances((1000, 0), [0, 90, 180], WALL_X1000).tolist() == [0, 0, 0]


def test_many_rays_many_origins_pick_the_nearest_wall() -> None:
    walls = [[1000, -500, 1000, 500], [2000, -500, 2000, 500], [-500, 300, 500, 300]]
    origins = [[0, 0], [1500, 0], [0, 0], [3000, 0]]
    hits = cast_rays(origins, [0, 0, 90, 0], walls)
    assert hits.distances.tolist() == [1000, 500, 300, math.inf]
    assert hits.segments.tolist() == [0, 1, 2, -1]


def test_no_walls_or_no_rays() -> None:
    assert ray_segment_distances((0, 0), [0, 90], np.zeros((0, 4))).tolist() == [math.inf, math.inf]
    assert ray_segment_distances((0, 0), [], WALL_X1000).shape == (0,)


def _reference_ray(ox: float, oy: float, angle: float, walls: np.ndarray) -> float:
    """Plain scalar ray cast, written independently of the vectorised one."""
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    best = math.inf
    for ax, ay, bx, by in walls.tolist():
        ex, ey = bx - ax, by - ay
        denom = dx * ey - dy * ex
        if abs(denom) < 1e-12:
            continue
        t = ((ax - ox) * ey - (ay - oy) * ex) / denom
        u = ((ax - ox) * dy - (ay - oy) * dx) / denom
        if t >= 0 and 0 <= u <= 1:
            best = min(best, t)
    return best


def test_random_rays_agree_with_a_scalar_reference() -> None:
    rng = np.random.default_rng(7)
    walls = rng.uniform(-5000, 5000, size=(60, 4))
    origins = rng.uniform(-5000, 5000, size=(300, 2))
    angles = rng.uniform(-180, 180, size=300)
    distances = ray_segment_distances(origins, angles, walls)
    expected = [_reference_ray(x, y, a, walls) for (x, y), a in zip(origins, angles, strict=True)]
    np.testing.assert_allclose(distances, expected, rtol=1e-9)
    assert np.isfinite(distances).sum() > 100


# --- distances and collisions ------------------------------------------------------------------


def test_point_to_segment_distances() -> None:
    walls = [[-100, 50, 100, 50], [100, 0, 200, 0], [3, 4, 3, 4]]
    assert point_segment_distances((0, 0), walls).tolist() == [50, 100, 5]
    assert min_distance_point_segments((0, 0), walls) == 5
    assert min_distance_point_segments((0, 0), np.zeros((0, 4))) == math.inf


def test_circle_collision_at_the_tangent() -> None:
    assert not circle_collides((0, 0), 50, [[-100, 50, 100, 50]])  # tangent: touching, not overlapping
    assert circle_collides((0, 0), 50.001, [[-100, 50, 100, 50]])
    assert circle_collides((0, 0), 10, [[-5, -5, 5, 5]])  # a wall through the centre
    assert not circle_collides((0, 0), 100, np.zeros((0, 4)))


@pytest.mark.parametrize(
    ("p0", "p1", "expected"),
    [
        ((0, 0), (2000, 0), True),  # straight through
        ((0, 0), (1000, 0), True),  # ends on the wall
        ((0, 0), (999, 0), False),  # stops short
        ((0, 600), (2000, 600), False),  # passes beyond its end
        ((0, 500), (2000, 500), True),  # grazes its end
        ((1000, -600), (1000, -500), True),  # collinear, touching the end
        ((1000, -900), (1000, -600), False),  # collinear, apart
        ((1000, -900), (1000, 900), True),  # collinear, overlapping
    ],
)
def test_segment_crosses(p0: tuple[float, float], p1: tuple[float, float], expected: bool) -> None:
    assert segment_crosses(p0, p1, WALL_X1000) is expected


def test_segment_crosses_degenerate_pieces() -> None:
    diagonal = [[0, 0, 1000, 1000]]
    assert segment_crosses((500, 500), (500, 500), diagonal)  # a point on the wall
    assert not segment_crosses((0, 1000), (0, 1000), diagonal)  # inside its box, off the wall
    assert not segment_crosses((2000, 2000), (2000, 2000), diagonal)  # on its line, past its end
    assert segment_crosses((0, 1000), (1000, 0), [[500, 500, 500, 500]])  # a zero-length wall on the move
    assert not segment_crosses((0, 1000), (1000, 0), [[600, 600, 600, 600]])


def test_segment_to_segment_distance() -> None:
    assert min_distance_segment_segments((0, 0), (2000, 0), WALL_X1000) == 0
    assert min_distance_segment_segments((0, 600), (2000, 600), WALL_X1000) == 100  # to the wall's end
    assert min_distance_segment_segments((0, 0), (900, 0), WALL_X1000) == 100  # from the move's end
    assert min_distance_segment_segments((1200, -100), (1200, 100), WALL_X1000) == 200  # parallel
    assert swept_circle_collides((0, 600), (2000, 600), 101, WALL_X1000)
    assert not swept_circle_collides((0, 600), (2000, 600), 100, WALL_X1000)


# --- sweeping a disc ---------------------------------------------------------------------------


def test_sweep_stops_at_a_wall_face() -> None:
    # Radius 100 moving east from 0 to 1000: touches x=1000 when the centre is at 900.
    assert circle_sweep_fraction((0, 0), (1000, 0), 100, WALL_X1000) == pytest.approx(0.9)
    assert circle_sweep_fraction((0, 0), (800, 0), 100, WALL_X1000) == 1.0
    assert circle_sweep_fraction((0, 0), (-1000, 0), 100, WALL_X1000) == 1.0


def test_sweep_stops_at_a_wall_end() -> None:
    # The wall's end (1000, 500) is 60 off the path y=560: contact at x = 1000 - sqrt(100² - 60²) = 920.
    assert circle_sweep_fraction((0, 560), (2000, 560), 100, WALL_X1000) == pytest.approx(0.46)
    assert circle_sweep_fraction((0, 600), (2000, 600), 100, WALL_X1000) == 1.0  # just clears it


def test_sweep_at_an_angle() -> None:
    # Moving at 45° towards x=1000: the side offset line x=900 is met after 900·√2.
    fraction = circle_sweep_fraction((0, 0), (2000, 2000), 100, [[1000, -5000, 1000, 5000]])
    assert fraction * 2000 * math.sqrt(2) == pytest.approx(900 * math.sqrt(2))


def test_disc_against_a_wall_can_back_away_or_slide_but_not_push_in() -> None:
    fraction = circle_sweep_fraction((0, 0), (1000, 0), 100, WALL_X1000)
    stopped = (1000 * fraction, 0.0)
    assert circle_sweep_fraction(stopped, (stopped[0] + 50, 0), 100, WALL_X1000) == 0.0
    assert circle_sweep_fraction(stopped, (stopped[0] - 50, 0), 100, WALL_X1000) == 1.0
    assert circle_sweep_fraction(stopped, (stopped[0], 200), 100, WALL_X1000) == 1.0
    # Overlapping already (placed too close): still free to leave, not to go deeper.
    assert circle_sweep_fraction((950, 0), (900, 0), 100, WALL_X1000) == 1.0
    assert circle_sweep_fraction((950, 0), (960, 0), 100, WALL_X1000) == 0.0


def test_sweep_without_motion_or_walls() -> None:
    assert circle_sweep_fraction((0, 0), (0, 0), 100, WALL_X1000) == 1.0
    assert circle_sweep_fraction((0, 0), (5000, 0), 100, np.zeros((0, 4))) == 1.0


def test_sweep_never_ends_inside_a_wall(amr_office: World) -> None:
    rng = np.random.default_rng(3)
    start = amr_office.start_pose
    assert start is not None
    index = amr_office.index
    x, y, stops = start.x, start.y, 0
    for heading in rng.uniform(0, 2 * math.pi, size=300):
        target = (x + 400 * math.cos(heading), y + 400 * math.sin(heading))
        fraction = index.circle_sweep_fraction((x, y), target, 250)
        stops += fraction < 1.0
        x, y = x + fraction * (target[0] - x), y + fraction * (target[1] - y)
        assert min_distance_point_segments((x, y), amr_office.segments) >= 250 - 1e-6
    assert stops > 0


# --- the grid index ----------------------------------------------------------------------------


def test_index_box_query_returns_every_segment_inside_the_box(amr_office: World) -> None:
    index = SegmentIndex(amr_office.segments, cell_size=700)
    walls = amr_office.segments
    t = np.linspace(0, 1, 200)[None, :]
    samples_x = walls[:, 0:1] + t * (walls[:, 2:3] - walls[:, 0:1])
    samples_y = walls[:, 1:2] + t * (walls[:, 3:4] - walls[:, 1:2])
    rng = np.random.default_rng(11)
    xmin, ymin, xmax, ymax = amr_office.bounds
    for _ in range(100):
        cx, cy = rng.uniform(xmin, xmax), rng.uniform(ymin, ymax)
        half = rng.uniform(10, 3000)
        found = set(index.query_box(cx - half, cy - half, cx + half, cy + half).tolist())
        inside = (np.abs(samples_x - cx) <= half) & (np.abs(samples_y - cy) <= half)
        assert set(np.flatnonzero(inside.any(axis=1)).tolist()) <= found
        assert len(found) < walls.shape[0] or half > 2000


def test_index_query_outside_the_map_is_empty(amr_office: World) -> None:
    assert amr_office.index.query_box(1e6, 1e6, 1e6 + 10, 1e6 + 10).size == 0
    assert SegmentIndex(np.zeros((0, 4))).query_box(-1, -1, 1, 1).size == 0


def test_index_rays_match_a_full_scan(amr_office: World) -> None:
    rng = np.random.default_rng(5)
    start = amr_office.start_pose
    assert start is not None
    index = amr_office.index
    for _ in range(50):
        origin = np.array([start.x, start.y]) + rng.uniform(-3000, 3000, size=2)
        origins = origin + rng.uniform(-200, 200, size=(16, 2))
        angles = rng.uniform(-180, 180, size=16)
        mine = index.cast_rays(origins, angles, 5000)
        full = cast_rays(origins, angles, amr_office.segments, 5000)
        np.testing.assert_array_equal(mine.distances, full.distances)
        hit = np.isfinite(full.distances)
        # The wall found is the same one, or another at exactly the same distance (a shared corner).
        same = mine.segments[hit] == full.segments[hit]
        assert same.all() or np.allclose(
            ray_segment_distances(origins[hit], angles[hit], amr_office.segments[mine.segments[hit]]),
            full.distances[hit],
        )
        assert (mine.segments[~hit] == -1).all()


def test_index_distance_and_collision_queries_match_full_scans(amr_office: World) -> None:
    rng = np.random.default_rng(9)
    index = amr_office.index
    walls = amr_office.segments
    xmin, ymin, xmax, ymax = amr_office.bounds
    for _ in range(200):
        p = (rng.uniform(xmin, xmax), rng.uniform(ymin, ymax))
        q = (p[0] + rng.uniform(-300, 300), p[1] + rng.uniform(-300, 300))
        nearest = min_distance_point_segments(p, walls)
        assert index.min_distance(p, 1000) == (nearest if nearest <= 1000 else math.inf)
        assert index.circle_collides(p, 250) == circle_collides(p, 250, walls)
        assert index.segment_crosses(p, q) == segment_crosses(p, q, walls)
        assert index.swept_circle_collides(p, q, 250) == swept_circle_collides(p, q, 250, walls)
        assert index.circle_sweep_fraction(p, q, 250) == circle_sweep_fraction(p, q, 250, walls)


def test_sweep_is_exact_on_random_walls() -> None:
    """The swept path never comes closer than the radius, and going any further would."""
    rng = np.random.default_rng(1)
    radius = 200.0
    checked = stopped = 0
    for _ in range(600):
        walls = rng.uniform(-2000, 2000, size=(5, 4))
        p0 = rng.uniform(-2000, 2000, size=2)
        p1 = p0 + rng.uniform(-1500, 1500, size=2)
        if min_distance_point_segments(p0, walls) < radius + 1e-3:
            continue
        checked += 1
        fraction = circle_sweep_fraction(p0, p1, radius, walls)
        assert min_distance_segment_segments(p0, p0 + fraction * (p1 - p0), walls) >= radius - 1e-6
        if fraction < 1.0:
            stopped += 1
            further = p0 + (fraction + 1e-4) * (p1 - p0)
            assert min_distance_segment_segments(p0, further, walls) < radius
    assert checked > 300 and stopped > 50
