"""Geometry of the LPS and the global frame (manual §8.3): angles, bearings, frame changes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.core.geometry import (
    ORIGIN,
    Pose,
    add2_angle,
    add_angle,
    change_vp,
    cos_sin,
    move_pose,
    norm2_angle,
    norm3_angle,
    norm_angle,
    point_baricenter,
    point_dist,
    point_dist_point,
    point_move,
    point_normal_dist,
    point_normal_dist_point,
    point_phi,
    point_xo,
    point_xo_point,
    point_yo,
    point_yo_point,
    sub2_angle,
    sub_angle,
    to_global,
    to_local,
    unchange_vp,
)

coord = st.floats(min_value=-1e5, max_value=1e5, allow_nan=False)
angle = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)


def same_angle(a: float, b: float) -> bool:
    return abs(norm2_angle(a - b)) < 1e-7


@pytest.mark.parametrize(
    ("a", "expected"),
    [
        (0.0, 0.0),
        (360.0, 0.0),
        (370.0, 10.0),
        (-10.0, 350.0),
        (-360.0, 0.0),
        (725.0, 5.0),
        (-0.0, 0.0),
        (-1e-20, 0.0),
    ],
)
def test_norm_angle_is_0_to_360(a: float, expected: float) -> None:
    assert norm_angle(a) == pytest.approx(expected)
    assert 0.0 <= norm_angle(a) < 360.0


@pytest.mark.parametrize(
    ("a", "expected"),
    [
        (0.0, 0.0),
        (180.0, 180.0),
        (-180.0, 180.0),
        (190.0, -170.0),
        (-190.0, 170.0),
        (540.0, 180.0),
        (359.0, -1.0),
    ],
)
def test_norm2_angle_is_minus_180_exclusive_to_180(a: float, expected: float) -> None:
    assert norm2_angle(a) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "expected"),
    [
        (100.0, 80.0),
        (-100.0, -80.0),
        (90.0, 90.0),
        (-90.0, -90.0),
        (180.0, 0.0),
        (30.0, 30.0),
        (200.0, -20.0),
        (350.0, -10.0),
    ],
)
def test_norm3_angle_folds_into_the_upper_half_plane(a: float, expected: float) -> None:
    assert norm3_angle(a) == pytest.approx(expected)


def test_angle_arithmetic() -> None:
    assert add_angle(350.0, 20.0) == pytest.approx(10.0)
    assert sub_angle(10.0, 20.0) == pytest.approx(350.0)
    assert add2_angle(170.0, 20.0) == pytest.approx(-170.0)
    assert sub2_angle(10.0, 350.0) == pytest.approx(20.0)
    assert sub2_angle(350.0, 10.0) == pytest.approx(-20.0)


@given(angle)
def test_normalised_ranges_hold(a: float) -> None:
    assert 0.0 <= norm_angle(a) < 360.0
    assert -180.0 < norm2_angle(a) <= 180.0
    assert -90.0 <= norm3_angle(a) <= 90.0
    assert same_angle(norm_angle(a), a)
    assert same_angle(norm2_angle(a), a)


def test_cos_sin_is_exact_at_right_angles() -> None:
    assert [cos_sin(a) for a in (0.0, 90.0, 180.0, 270.0, -90.0, 450.0)] == [
        (1.0, 0.0),
        (0.0, 1.0),
        (-1.0, 0.0),
        (0.0, -1.0),
        (0.0, -1.0),
        (0.0, 1.0),
    ]
    c, s = cos_sin(30.0)
    assert (c, s) == pytest.approx((math.sqrt(3) / 2, 0.5), abs=1e-9)


def test_bearing_and_distance_in_the_lps() -> None:
    assert point_phi(Pose(1000.0, 0.0)) == 0.0
    assert point_phi(Pose(0.0, 500.0)) == pytest.approx(90.0)  # to the left
    assert point_phi(Pose(1000.0, -1000.0)) == pytest.approx(-45.0)
    assert point_phi(Pose(-1000.0, 0.0)) == pytest.approx(180.0)
    assert point_phi(Pose(-1000.0, -0.0)) == pytest.approx(180.0)  # never -180
    assert point_dist(Pose(300.0, 400.0)) == pytest.approx(500.0)
    assert point_dist_point(Pose(1.0, 1.0), Pose(4.0, 5.0)) == pytest.approx(5.0)


def test_normal_distance_sign_follows_the_side_of_the_foot() -> None:
    assert point_normal_dist(Pose(2000.0, 500.0, 0.0)) == pytest.approx(500.0)  # lane to the left
    assert point_normal_dist(Pose(-300.0, -700.0, 0.0)) == pytest.approx(-700.0)  # lane to the right
    assert point_normal_dist(Pose(2000.0, 500.0, 180.0)) == pytest.approx(500.0)  # direction does not matter
    # A line x + y = 1000 (through (1000, 0) heading 135°): foot at (500, 500), to the left.
    assert point_normal_dist(Pose(1000.0, 0.0, 135.0)) == pytest.approx(1000.0 / math.sqrt(2))
    assert point_normal_dist(Pose(1000.0, 0.0, 90.0)) == pytest.approx(1000.0)  # foot dead ahead: positive


def test_normal_distance_from_another_point_uses_its_frame() -> None:
    line = Pose(0.0, 1000.0, 0.0)  # the line y = 1000
    assert point_normal_dist_point(line, Pose(500.0, 0.0, 0.0)) == pytest.approx(1000.0)
    assert point_normal_dist_point(line, Pose(500.0, 0.0, 180.0)) == pytest.approx(-1000.0)  # q faces -x
    assert point_normal_dist_point(line, Pose(500.0, 1500.0, 0.0)) == pytest.approx(-500.0)


def test_change_of_viewpoint() -> None:
    frame = Pose(1000.0, 0.0, 90.0)  # a point 1 m ahead, facing left
    p = change_vp(frame, Pose(1000.0, 500.0, 90.0))
    assert (p.x, p.y, p.th) == pytest.approx((500.0, 0.0, 0.0), abs=1e-9)
    q = change_vp(frame, Pose(0.0, 0.0, 0.0))  # the robot, seen from the point
    assert (q.x, q.y, q.th) == pytest.approx((0.0, 1000.0, 270.0), abs=1e-9)
    back = unchange_vp(frame, q)
    assert (back.x, back.y, back.th) == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    assert (point_xo(frame), point_yo(frame)) == pytest.approx((0.0, 1000.0), abs=1e-9)
    assert point_xo_point(frame, Pose(1000.0, 300.0)) == pytest.approx(300.0)
    assert point_yo_point(frame, Pose(1200.0, 0.0)) == pytest.approx(-200.0)


def test_point_move_and_baricenter() -> None:
    moved = point_move(Pose(100.0, 100.0, 90.0), 50.0, 20.0)  # 50 along +y, 20 to its left (-x)
    assert (moved.x, moved.y, moved.th) == pytest.approx((80.0, 150.0, 90.0), abs=1e-9)
    mid = point_baricenter(Pose(0.0, 0.0), Pose(100.0, -50.0))
    assert (mid.x, mid.y) == (50.0, -25.0)


def test_frames_for_a_robot_in_the_world() -> None:
    robot = Pose(2000.0, 1000.0, 90.0)  # facing global +y
    local = to_local(robot, 2000.0, 3000.0, 90.0)  # 2 m further along +y
    assert (local.x, local.y, local.th) == pytest.approx((2000.0, 0.0, 0.0), abs=1e-9)
    left = to_local(robot, 1000.0, 1000.0)  # 1 m to global -x: the robot's left
    assert (left.x, left.y) == pytest.approx((0.0, 1000.0), abs=1e-9)
    g = to_global(robot, 0.0, -500.0, 0.0)  # 0.5 m to the robot's right
    assert (g.x, g.y, g.th) == pytest.approx((2500.0, 1000.0, 90.0), abs=1e-9)
    assert to_local(ORIGIN, 5.0, 6.0, 7.0) == Pose(5.0, 6.0, 7.0)


@given(coord, coord, angle, coord, coord, angle)
def test_to_local_and_to_global_round_trip(rx: float, ry: float, rth: float, gx: float, gy: float, gth: float) -> None:
    robot = Pose(rx, ry, rth)
    local = to_local(robot, gx, gy, gth)
    back = to_global(robot, local.x, local.y, local.th)
    assert back.x == pytest.approx(gx, abs=1e-6)
    assert back.y == pytest.approx(gy, abs=1e-6)
    assert same_angle(back.th, gth)
    assert point_dist(local) == pytest.approx(math.hypot(gx - rx, gy - ry), abs=1e-6)


def test_move_pose_moves_in_the_robot_frame() -> None:
    moved = move_pose(Pose(0.0, 0.0, 90.0), 1000.0, 0.0)  # 1 m forward, facing +y
    assert (moved.x, moved.y, moved.th) == pytest.approx((0.0, 1000.0, 90.0), abs=1e-9)
    turned = move_pose(Pose(10.0, 20.0, 350.0), 0.0, 0.0, 30.0)
    assert (turned.x, turned.y, turned.th) == pytest.approx((10.0, 20.0, 20.0), abs=1e-9)
