"""Artifacts and the pointlist (manual §8.1–§8.2): creation, frames, staying put as the robot moves."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.client.artifacts import (
    Artifact,
    ArtifactType,
    Category,
    Corridor,
    Door,
    Junction,
    Lane,
    Point,
    PointList,
    Region,
    Wall,
    create_corridor,
    create_door,
    create_global_artifact,
    create_global_point,
    create_junction,
    create_lane,
    create_local_artifact,
    create_local_point,
    create_wall,
)
from saphira.core.geometry import Pose, move_pose, norm2_angle, point_dist, point_phi


def local_of(a: Artifact) -> tuple[float, float, float]:
    return (a.x, a.y, a.th)


def global_of(a: Artifact) -> tuple[float, float, float]:
    return (a.ax, a.ay, a.ath)


def approx3(x: float, y: float, th: float) -> tuple[object, object, object]:
    return (pytest.approx(x, abs=1e-9), pytest.approx(y, abs=1e-9), pytest.approx(th, abs=1e-9))


def test_a_local_point_one_metre_ahead_gets_global_coordinates_from_the_robot() -> None:
    robot = Pose(500.0, -200.0, 90.0)
    goal = create_local_point(robot, 1000.0, 0.0)
    assert isinstance(goal, Point)
    assert (goal.type, goal.cat, goal.id) == (ArtifactType.POS, Category.ARTIFACT, 0)
    assert local_of(goal) == (1000.0, 0.0, 0.0)
    assert global_of(goal) == approx3(500.0, 800.0, 90.0)


def test_a_global_point_gets_local_coordinates_from_the_robot() -> None:
    robot = Pose(1000.0, 1000.0, 180.0)  # facing global -x
    p = create_global_point(robot, 0.0, 1500.0, 270.0, id=7)
    assert local_of(p) == approx3(1000.0, -500.0, 90.0)  # ahead 1 m, 0.5 m to the right
    assert p.id == 7
    assert point_phi(p) == pytest.approx(-26.565051177, abs=1e-6)


def test_artifact_types_choose_their_class_and_keep_their_dimensions() -> None:
    robot = Pose()
    cases = [
        (ArtifactType.POINT, Point, {}),
        (ArtifactType.WALL, Wall, {"length": 2000.0}),
        (ArtifactType.LANE, Lane, {"width": 600.0, "length": 2000.0}),
        (ArtifactType.CORRIDOR, Corridor, {"width": 600.0, "length": 2000.0}),
        (ArtifactType.DOOR, Door, {"width": 600.0}),
        (ArtifactType.JUNCTION, Junction, {"width": 600.0}),
        (ArtifactType.OFFICE, Region, {"width": 600.0, "length": 2000.0}),
        (42, Region, {"width": 600.0, "length": 2000.0}),
    ]
    for type_, cls, dims in cases:
        a = create_local_artifact(robot, type_, 3, 100.0, 200.0, 30.0, width=600.0, length=2000.0)
        assert type(a) is cls
        assert a.type == type_
        assert {k: getattr(a, k) for k in ("width", "length") if hasattr(a, k)} == dims
    with pytest.raises(ValueError, match="INVALID"):
        create_local_artifact(robot, ArtifactType.INVALID, 1, 0.0, 0.0, 0.0)
    wall = create_global_artifact(Pose(0.0, 0.0, 90.0), ArtifactType.WALL, 9, 0.0, 1000.0, 90.0, length=500.0)
    assert isinstance(wall, Wall)
    assert (wall.id, wall.length) == (9, 500.0)
    assert local_of(wall) == approx3(1000.0, 0.0, 0.0)


def test_typed_creation_helpers_in_both_frames() -> None:
    robot = Pose(0.0, 0.0, 90.0)
    lane = create_lane(robot, 1000.0, 0.0, 0.0, 800.0, 5000.0)
    assert (lane.width, lane.length) == (800.0, 5000.0)
    assert global_of(lane) == approx3(0.0, 1000.0, 90.0)
    corridor = create_corridor(robot, 0.0, 1000.0, 90.0, 2000.0, global_coords=True, id=12)
    assert local_of(corridor) == approx3(1000.0, 0.0, 0.0)
    assert (corridor.width, corridor.id, corridor.type) == (2000.0, 12, ArtifactType.CORRIDOR)
    door = create_door(robot, 2000.0, 0.0, 180.0, 900.0)
    assert (door.width, door.ath) == pytest.approx((900.0, 270.0), abs=1e-9)
    junction = create_junction(robot, 0.0, 0.0, 45.0, 1500.0, global_coords=True)
    assert junction.th == pytest.approx(315.0)
    wall = create_wall(robot, 0.0, -500.0, 0.0, 3000.0)
    assert (wall.length, wall.ax, wall.ay) == pytest.approx((3000.0, 500.0, 0.0), abs=1e-9)


def test_angles_are_kept_in_0_to_360() -> None:
    p = create_local_point(Pose(0.0, 0.0, 10.0), 0.0, 0.0, -30.0)
    assert (p.th, p.ath) == pytest.approx((330.0, 340.0), abs=1e-9)


def test_editing_local_coordinates_then_setting_global_ones() -> None:
    robot = Pose(100.0, 0.0, 0.0)
    p = create_local_point(robot, 0.0, 0.0)
    p.x, p.y = 500.0, 500.0
    p.set_global_coords(robot)
    assert global_of(p) == approx3(600.0, 500.0, 0.0)
    p.ax = 0.0
    p.set_local_coords(robot)
    assert local_of(p) == approx3(-100.0, 500.0, 0.0)


def test_pointlist_add_remove_find() -> None:
    points = PointList()
    a = create_local_point(points.robot, 1.0, 2.0, id=1)
    b = create_local_point(points.robot, 1.0, 2.0, id=2)  # equal fields, still a different artifact
    assert points.add(a) and points.add(b)
    assert not points.add(a)
    assert len(points) == 2 and a in points and b in points
    assert points.find(2) is b
    assert points.find(99) is None
    assert points.remove(a) and not points.remove(a)
    assert list(points) == [b]
    assert points.remove_id(2) and not points.remove_id(2)
    assert len(points) == 0


def test_pointlist_creates_artifacts_onto_itself() -> None:
    points = PointList(Pose(0.0, 0.0, 90.0))
    door = points.create_local_artifact(ArtifactType.DOOR, 5, 1000.0, 0.0, 0.0, width=800.0)
    corridor = points.create_global_artifact(ArtifactType.CORRIDOR, 6, 0.0, 3000.0, 90.0, 2000.0, 10000.0)
    assert isinstance(door, Door) and isinstance(corridor, Corridor)
    assert points.find(5) is door and points.find(6) is corridor
    assert global_of(door) == approx3(0.0, 1000.0, 90.0)
    assert local_of(corridor) == approx3(3000.0, 0.0, 0.0)


def test_artifacts_stay_put_in_the_world_as_the_robot_moves() -> None:
    start = Pose(0.0, 0.0, 0.0)
    points = PointList(start)
    goal = create_local_point(start, 1000.0, 0.0)  # the manual's example: 1 m ahead
    points.add(goal)
    wall = create_wall(start, 0.0, 800.0, 0.0, 4000.0)  # a wall to the left, along the robot's path
    points.add(wall)

    robot = move_pose(start, 400.0, 0.0)  # 40 cm forward
    points.update_local(robot)
    assert local_of(goal) == approx3(600.0, 0.0, 0.0)
    assert local_of(wall) == approx3(-400.0, 800.0, 0.0)

    robot = move_pose(robot, 0.0, 0.0, 90.0)  # turn left in place
    points.update_local(robot)
    assert local_of(goal) == approx3(0.0, -600.0, 270.0)  # now to the robot's right
    assert point_phi(goal) == pytest.approx(-90.0)
    assert local_of(wall) == approx3(800.0, 400.0, 270.0)
    assert global_of(goal) == approx3(1000.0, 0.0, 0.0)  # global coordinates never change


def test_system_points_follow_the_robot() -> None:
    points = PointList()
    points.update_local(Pose(300.0, 400.0, 45.0))
    origin = points.global_origin
    assert global_of(origin) == (0.0, 0.0, 0.0)
    assert point_dist(origin) == pytest.approx(500.0)
    assert origin.th == pytest.approx(315.0)
    assert local_of(points.robot_origin) == (0.0, 0.0, 0.0)
    assert global_of(points.robot_origin) == (300.0, 400.0, 45.0)
    assert origin.cat is Category.SYSTEM and origin not in points


coord = st.floats(min_value=-1e5, max_value=1e5, allow_nan=False)
heading = st.floats(min_value=-720.0, max_value=720.0, allow_nan=False)
poses = st.builds(Pose, coord, coord, heading)


@given(poses, poses, st.lists(st.tuples(coord, coord, heading), min_size=1, max_size=5))
def test_local_after_motion_equals_local_created_at_the_new_pose(
    start: Pose, end: Pose, places: list[tuple[float, float, float]]
) -> None:
    points = PointList(start)
    created = [create_global_point(start, *place) for place in places]
    for p in created:
        points.add(p)
    points.update_local(end)
    for p, place in zip(created, places, strict=True):
        fresh = create_global_point(end, *place)
        assert p.x == pytest.approx(fresh.x, abs=1e-6)
        assert p.y == pytest.approx(fresh.y, abs=1e-6)
        assert abs(norm2_angle(p.th - fresh.th)) < 1e-7
        # and back: local -> global reproduces the fixed global coordinates
        g = create_local_point(end, p.x, p.y, p.th)
        assert (g.ax, g.ay) == pytest.approx((place[0], place[1]), abs=1e-6)
