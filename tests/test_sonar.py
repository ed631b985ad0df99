"""Sonar buckets, LPS ring buffers (front clears, sides persist, registration) and occupancy queries."""

from __future__ import annotations

import pytest

from saphira.client.sensors.sonar import NO_ECHO, Region, Sonar, SonarPose

P1_POSES = [
    SonarPose(100, 100, 90),
    SonarPose(120, 80, 30),
    SonarPose(130, 40, 15),
    SonarPose(130, 0, 0),
    SonarPose(130, -40, -15),
    SonarPose(120, -80, -30),
    SonarPose(100, -100, -90),
]
ORIGIN = (0.0, 0.0, 0.0)


def test_bucket_reading_point_and_new_flag() -> None:
    s = Sonar(P1_POSES)
    assert s.range(3) == NO_ECHO
    assert s.add_reading(3, 1000, (5.0, 6.0, 7.0))
    b = s.buckets[3]
    assert (b.range, b.x, b.y) == (1000, 1130.0, 0.0)
    assert (b.robot_x, b.robot_y, b.robot_th) == (5.0, 6.0, 7.0)
    assert s.take_new(3) is True
    assert s.take_new(3) is False
    assert not s.add_reading(12, 500, ORIGIN)  # no such sonar: ignored
    assert s.range(12) == NO_ECHO


def test_front_buffer_keeps_misses_and_clears_itself() -> None:
    s = Sonar(P1_POSES, front_buffer=4)
    s.add_reading(3, 800, ORIGIN)
    assert s.occ_plane(Region.FRONT, Region.FRONT, 0, 500, 500) == 930
    for _ in range(3):
        s.add_reading(3, NO_ECHO, ORIGIN)
    assert s.occ_plane(Region.FRONT, Region.FRONT, 0, 500, 500) == 930  # still in the ring
    s.add_reading(3, NO_ECHO, ORIGIN)  # the 4th miss overwrites it
    assert s.occ_plane(Region.FRONT, Region.FRONT, 0, 500, 500) == NO_ECHO


def test_front_max_range_counts_far_readings_as_misses() -> None:
    s = Sonar(P1_POSES, front_max_range=2500)
    s.add_reading(3, 3000, ORIGIN)
    assert s.points(Region.FRONT)[0].size == 0
    s.front_max_range = 3500
    s.add_reading(3, 3000, ORIGIN)
    assert s.points(Region.FRONT)[0].size == 1


def test_side_buffers_keep_only_hits() -> None:
    s = Sonar(P1_POSES, side_buffer=3)
    s.add_reading(0, 400, ORIGIN)
    for _ in range(10):
        s.add_reading(0, NO_ECHO, ORIGIN)
    xs, ys = s.points(Region.SIDES)
    assert list(xs) == pytest.approx([100.0]) and list(ys) == pytest.approx([500.0])
    assert s.occ_plane(Region.LEFT, Region.SIDES, 0, 1000, 1000) == 500


def test_buffers_stay_registered_as_the_robot_moves() -> None:
    s = Sonar(P1_POSES)
    s.add_reading(3, 870, ORIGIN)  # obstacle at x = 1000 ahead
    s.move(300, 0, 0)
    assert s.occ_plane(Region.FRONT, Region.FRONT, 0, 500, 500) == 700
    s.move(0, 0, 90)  # turn left 90°: the point is now on the right
    xs, ys = s.points(Region.FRONT)
    assert xs[0] == pytest.approx(0.0, abs=1e-9) and ys[0] == pytest.approx(-700.0)
    assert s.occ_plane(Region.RIGHT, Region.ALL, 0, 500, 500) == 700


def test_occ_box_front_and_sides() -> None:
    s = Sonar(P1_POSES)
    s.add_reading(3, 470, ORIGIN)  # (600, 0)
    s.add_reading(0, 200, ORIGIN)  # (100, 300)
    assert s.occ_box(Region.FRONT, 600, 0, 400, 400) == 600
    d, x, y = s.occ_box_ret(Region.SIDES, 100, 300, 200, 200)
    assert (d, x, y) == (300, pytest.approx(100.0), pytest.approx(300.0))
    assert s.occ_box(Region.FRONT, 3000, 3000, 100, 100) == NO_ECHO


def test_occ_plane_side_limits_follow_the_manual_example() -> None:
    """sfOccPlane(sfFRONT, sfFRONT, 600, 400, 1200): x > 600 between y = +400 and y = −1200."""
    s = Sonar([SonarPose(0, 0, 0)])
    s.buffers[Region.FRONT].add(650, -1100, True)
    s.buffers[Region.FRONT].add(640, 500, True)  # left of the +400 limit: outside
    s.buffers[Region.FRONT].add(550, 0, True)  # before the baseline: outside
    assert s.occ_plane_ret(Region.FRONT, Region.FRONT, 600, 400, 1200) == (650, 650.0, -1100.0)


def test_buffer_resize_and_clear() -> None:
    s = Sonar(P1_POSES)
    s.add_reading(3, 500, ORIGIN)
    s.set_front_buffer(0)
    assert s.points(Region.FRONT)[0].size == 0
    assert s.buffers[Region.FRONT].limit == 20
    s.set_front_buffer(30)
    assert s.buffers[Region.FRONT].limit == 30
    with pytest.raises(ValueError):
        s.set_side_buffer(500)


def test_pooled_points_follow_every_change_to_the_buffers_and_the_laser() -> None:
    """Points are cached per state of the readings: a new reading, a move, a resize or a new laser scan
    must show in the very next query, and the shared arrays cannot be changed by a caller."""
    import numpy as np

    from saphira.client.sensors.laser import LaserRing

    s = Sonar(P1_POSES, front_buffer=4)
    s.add_reading(3, 800, ORIGIN)
    xs, _ = s.points()
    assert list(xs) == [930.0]
    with pytest.raises(ValueError):
        xs[0] = 1.0
    s.add_reading(3, 600, ORIGIN)
    assert sorted(s.points()[0]) == [730.0, 930.0]
    s.move(100.0, 0.0, 0.0)
    assert sorted(s.points()[0]) == [630.0, 830.0]
    s.join(laser := LaserRing())
    laser.replace(np.array([400.0]), np.array([0.0]))
    assert sorted(s.points(Region.FRONT)[0]) == [400.0, 630.0, 830.0]
    assert s.occ_plane(Region.FRONT, Region.ALL, 0, 100, 100) == 400
    s.move(50.0, 0.0, 0.0)
    assert s.occ_plane(Region.FRONT, Region.ALL, 0, 100, 100) == 350
    laser.clear()
    assert s.occ_plane(Region.FRONT, Region.ALL, 0, 100, 100) == 580
    s.set_front_buffer(4)
    assert s.occ_plane(Region.FRONT, Region.ALL, 0, 100, 100) == NO_ECHO


def test_pooled_points_are_the_buffers_points_after_a_resize_and_a_move() -> None:
    """Every source pools exactly its buffers' valid entries within their limits, in buffer order."""
    import numpy as np

    s = Sonar(P1_POSES, front_buffer=4, side_buffer=10)
    for r in range(10):
        s.add_reading(0, 500 + 10 * r, ORIGIN)  # left
        s.add_reading(6, 700 + 10 * r, ORIGIN)  # right
        s.add_reading(3, 900 + 10 * r, ORIGIN)  # front
    s.set_side_buffer(3)  # shrink: the ten side entries are gone
    s.add_reading(0, 400, ORIGIN)
    s.move(10.0, -5.0, 3.0)
    for source in Region:
        parts = [s.buffers[r].points() for r in (Region.FRONT, Region.BACK, Region.LEFT, Region.RIGHT)]
        chosen = {
            Region.FRONT: [0], Region.BACK: [1], Region.LEFT: [2], Region.RIGHT: [3], Region.SIDES: [2, 3],
            Region.ALL: [0, 1, 2, 3],
        }[source]  # fmt: skip
        xs, ys = s.points(source)
        assert np.array_equal(xs, np.concatenate([parts[i][0] for i in chosen]))
        assert np.array_equal(ys, np.concatenate([parts[i][1] for i in chosen]))
    assert s.points(Region.LEFT)[0].size == 1 and s.points(Region.RIGHT)[0].size == 0
    assert s.points(Region.FRONT)[0].size == 4
