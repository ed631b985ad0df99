"""Maps users made with Mapper3/ARIA (``tests/data/aria-maps``): every one loads, and robots start where they should."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest

from saphira.core.geometry import Pose
from saphira.params.robot_params import RobotParams, find_params_file, load_params
from saphira.sim.simulation import Simulation
from saphira.world.world import World, WorldError, load_world

MAPS = Path(__file__).parent / "data" / "aria-maps"
MAP_FILES = sorted(MAPS.glob("*.map"))


@pytest.fixture(scope="module")
def p3dx() -> RobotParams:
    return load_params(find_params_file("p3dx"))


def rows_after(text: str, keyword: str) -> list[list[float]]:
    """The number rows that follow ``keyword`` up to the next word, read independently of the loader."""
    lines = [line.strip() for line in text.splitlines()]
    if keyword not in lines:
        return []
    rows = []
    for line in lines[lines.index(keyword) + 1 :]:
        if line and line[0].isalpha():
            break
        if line:
            rows.append([float(v) for v in line.split()])
    return rows


def test_the_set_holds_the_cases_the_field_has() -> None:
    blobs = {path.name: path.read_bytes() for path in MAP_FILES}
    assert len(blobs) >= 15
    assert sum(b"\r\n" in blob for blob in blobs.values()) >= 5
    assert [name for name, blob in blobs.items() if blob.startswith(b"\xef\xbb\xbf")] == ["office-bom.map"]
    assert sum(b"NumPoints" not in blob for blob in blobs.values()) >= 10
    assert sum(blob.count(b"Cairn: RobotHome") >= 2 for blob in blobs.values()) >= 3


@pytest.mark.parametrize("path", MAP_FILES, ids=lambda p: p.name)
def test_every_real_map_loads_with_all_its_lines(path: Path) -> None:
    text = path.read_bytes().decode("utf-8-sig")
    world = load_world(path)
    expected = rows_after(text, "LINES")
    assert world.segments.shape == (len(expected), 4)
    np.testing.assert_array_equal(world.segments, expected)
    assert world.points.shape == (len(rows_after(text, "DATA")), 2)
    homes = [line for line in text.splitlines() if line.startswith("Cairn: RobotHome")]
    assert len(world.homes) == len(homes)
    assert world.start_pose == (world.homes[0] if homes else None)


@pytest.mark.parametrize("path", MAP_FILES, ids=lambda p: p.name)
def test_a_robot_starts_clear_of_every_wall(path: Path, p3dx: RobotParams) -> None:
    world = load_world(path)
    robot = Simulation(world).add_robot(p3dx)
    assert world.clearance(robot.x, robot.y) >= robot.radius
    if world.start_pose is not None and world.clearance(world.start_pose.x, world.start_pose.y) >= robot.radius:
        assert (robot.x, robot.y, robot.th) == tuple(world.start_pose)


@pytest.mark.parametrize("name", [p.name for p in MAP_FILES if b"\r\n" in p.read_bytes()])
def test_crlf_maps_read_as_their_lf_twins(name: str, tmp_path: Path) -> None:
    twin = tmp_path / name
    twin.write_bytes((MAPS / name).read_bytes().replace(b"\r\n", b"\n"))
    crlf, lf = load_world(MAPS / name), load_world(twin)
    np.testing.assert_array_equal(crlf.segments, lf.segments)
    assert (crlf.homes, crlf.map_objects) == (lf.homes, lf.map_objects)


def test_a_byte_order_mark_is_not_content() -> None:
    with_bom, plain = load_world(MAPS / "office-bom.map"), load_world(MAPS / "office.map")
    np.testing.assert_array_equal(with_bom.segments, plain.segments)
    assert with_bom.start_pose == plain.start_pose == Pose(1000, 1498, 0)


def test_errors_in_a_map_with_a_bom_keep_their_columns(tmp_path: Path) -> None:
    path = tmp_path / "bom.map"
    path.write_bytes(b'\xef\xbb\xbf2D-Map\r\nCairn: Goal 10 2x 0 "" ICON "g"\r\n')
    with pytest.raises(WorldError) as caught:
        load_world(path)
    assert str(caught.value).startswith(f"{path}:2:16: bad number '2x'")


def test_a_lines_only_map_has_no_points_and_needs_no_counts() -> None:
    lab = load_world(MAPS / "ActivMediaLab.map")  # NumLines, an empty DATA, no NumPoints
    assert lab.segments.shape == (71, 4) and lab.points.shape == (0, 2)
    bare = load_world(MAPS / "ambiente01.map")  # LINES with no NumLines, no DATA at all
    assert bare.segments.tolist()[0] == [-6000, 6000, 6000, 6000]
    assert bare.bounds == (-6000, -6000, 6000, 6000)


def test_a_home_area_starts_the_robot_at_its_centre() -> None:
    world = load_world(MAPS / "MapThrun3.map")
    area, point = (o for o in world.map_objects if o.kind == "RobotHome")
    assert area.pose == Pose(-4785, 491, 0) and area.extent == (-4785, 491, -4179, 1184)
    assert world.start_pose == Pose((-4785 - 4179) / 2, (491 + 1184) / 2, 0)
    # The map's author put the second home at the area's centre, to within 20 mm.
    assert math.hypot(world.homes[0].x - point.pose.x, world.homes[0].y - point.pose.y) < 20


def test_a_rotated_home_area_uses_arias_centre(tmp_path: Path) -> None:
    path = tmp_path / "rotated.map"
    path.write_text('2D-Map\nCairn: RobotHome 0 0 90 "" ICON "dock area" 1000 0 3000 2000\nLINES\n0 0 1 1\n')
    # ArMapObject::findCenter: the rectangle's centre (2000, 1000) turned by 90 degrees about the origin.
    home = load_world(path).start_pose
    assert home is not None
    assert (home.x, home.y, home.th) == pytest.approx((-1000, 2000, 90))


def test_cairn_descriptions_after_the_name_or_the_extent(tmp_path: Path) -> None:
    path = tmp_path / "described.map"
    path.write_text(
        '2D-Map\nCairn: Goal 1 2 0 "" ICON "door" "the lab door"\n'
        'Cairn: ForbiddenArea 0 0 0 "" ICON "pit" -5 -5 5 5 "keep out"\n'
    )
    door, pit = load_world(path).map_objects
    assert (door.name, door.description, door.extent) == ("door", "the lab door", None)
    assert (pit.name, pit.description, pit.extent) == ("pit", "keep out", (-5, -5, 5, 5))
    assert load_world(path).goals == (("door", Pose(1, 2, 0)),)


def test_with_two_homes_the_first_is_the_start_and_the_next_robot_takes_the_second(p3dx: RobotParams) -> None:
    world = load_world(MAPS / "MapThrun2.map")
    assert world.homes == (Pose(-1250.5, 3186.5, 0), Pose(-4728, -1070, 0))
    sim = Simulation(world)
    first, second = sim.add_robot(p3dx), sim.add_robot(p3dx)
    assert (first.x, first.y) == (-1250.5, 3186.5)
    assert (second.x, second.y) == (-4728, -1070)


# --- a map without RobotHome: (0, 0) as MobileSim, but only a free place inside the map ---------


def test_without_a_home_the_robot_starts_at_the_origin_when_it_is_free(
    p3dx: RobotParams, caplog: pytest.LogCaptureFixture
) -> None:
    world = load_world(MAPS / "ambientEsparsoCruzSim.map")
    assert world.start_pose is None
    with caplog.at_level(logging.INFO, logger="saphira.sim"):
        robot = Simulation(world).add_robot(p3dx)
    assert (robot.x, robot.y, robot.th) == (0, 0, 0)
    assert caplog.records == []


def without_home(tmp_path: Path, name: str) -> World:
    text = (MAPS / name).read_text()
    path = tmp_path / name
    path.write_text("".join(line for line in text.splitlines(True) if "RobotHome" not in line))
    return load_world(path)


def test_origin_in_a_wall_moves_to_the_nearest_free_place_inside(
    tmp_path: Path, p3dx: RobotParams, caplog: pytest.LogCaptureFixture
) -> None:
    world = without_home(tmp_path, "triangle.map")  # (0, 0) is the corner of two outer walls
    with caplog.at_level(logging.WARNING, logger="saphira.sim"):
        robot = Simulation(world).add_robot(p3dx)
    r = robot.radius
    assert world.clearance(robot.x, robot.y) >= r
    assert r <= robot.x <= 10260 - r and r <= robot.y <= 10080 - r
    assert math.hypot(robot.x, robot.y) <= math.hypot(r, r) + r  # the corner of the room, to a grid step
    [record] = caplog.records
    assert "start (0, 0) is in a wall" in record.getMessage()
    assert f"({robot.x:.0f}, {robot.y:.0f})" in record.getMessage()


def test_origin_outside_the_map_moves_inside(
    tmp_path: Path, p3dx: RobotParams, caplog: pytest.LogCaptureFixture
) -> None:
    world = without_home(tmp_path, "PlantaAltaModuloK_ConObstaculos.map")
    path = tmp_path / "far.map"  # the same floor, 20 m east and 10 m north of the origin
    rows = [" ".join(f"{v + d:g}" for v, d in zip(row, (20000, 10000) * 2, strict=True)) for row in world.segments]
    path.write_text("2D-Map\nLINES\n" + "\n".join(rows) + "\n")
    far = load_world(path)
    with caplog.at_level(logging.WARNING, logger="saphira.sim"):
        robot = Simulation(far).add_robot(p3dx)
    assert "start (0, 0) is outside the map" in caplog.text
    assert far.clearance(robot.x, robot.y) >= robot.radius
    # The building's south-west room (walls x 20000..22500, y 10000..12500): the corner nearest the origin.
    assert 20000 < robot.x < 22500 and 10000 < robot.y < 12500


def test_origin_between_rooms_but_outside_the_walls_is_not_inside(tmp_path: Path, p3dx: RobotParams) -> None:
    # Two closed rooms side by side with (0, 0) in the yard between them: inside the bounds, outside the walls.
    path = tmp_path / "yard.map"
    room = "{0} -1000 {1} -1000\n{1} -1000 {1} 1000\n{1} 1000 {0} 1000\n{0} 1000 {0} -1000\n"
    path.write_text("2D-Map\nLINES\n" + room.format(-5000, -2000) + room.format(2000, 5000))
    world = load_world(path)
    robot = Simulation(world).add_robot(p3dx)
    assert abs(robot.x) > 2000 and world.clearance(robot.x, robot.y) >= robot.radius


def test_a_world_file_without_position_starts_inside_its_walls(tmp_path: Path, p3dx: RobotParams) -> None:
    # A room east of the origin: (0, 0) lies on its west wall; free places west of it are outside.
    path = tmp_path / "east.wld"
    path.write_text("0 -5000 0 5000\n0 5000 8000 5000\n8000 5000 8000 -5000\n8000 -5000 0 -5000\n")
    world = load_world(path)
    robot = Simulation(world).add_robot(p3dx)
    assert robot.radius <= robot.x <= robot.radius + 200 and abs(robot.y) <= 200
