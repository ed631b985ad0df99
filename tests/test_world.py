"""World loading: real ARIA maps, the bundled Saphira worlds, frame arithmetic and error messages."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from saphira.core.geometry import Pose
from saphira.core.paths import data_dir
from saphira.world.world import MapObject, World, WorldError, WorldNotFoundError, load_world

BUNDLED = ["simple", "corridor", "room"]


@pytest.fixture(scope="module")
def amr_office(maps_dir: Path) -> World:
    return load_world(maps_dir / "AMROffice.map")


@pytest.fixture(scope="module")
def columbia(maps_dir: Path) -> World:
    return load_world(maps_dir / "columbia.map")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load_error(path: Path) -> WorldError:
    with pytest.raises(WorldError) as caught:
        load_world(path)
    return caught.value


# --- the real MobileSim maps -------------------------------------------------------------------


def test_amr_office_loads_every_line_and_point(amr_office: World) -> None:
    assert amr_office.name == "AMROffice"
    assert amr_office.segments.shape == (243, 4)
    assert amr_office.points.shape == (23181, 2)
    # First LINES row and last DATA row of the file.
    assert amr_office.segments[0].tolist() == [3680, 25836, 3677, 24307]
    assert amr_office.points[-1].tolist() == [3644, 5351]
    # LineMinPos/LineMaxPos and MinPos/MaxPos headers bound the data.
    assert amr_office.bounds == (-11682, -4389, 5213, 26519)


def test_amr_office_starts_on_its_dock_as_mobilesim_does(amr_office: World) -> None:
    # The map has no RobotHome; MobileSim then uses the first Dock object.
    kinds = [item.kind for item in amr_office.map_objects]
    assert "RobotHome" not in kinds
    assert amr_office.start_pose == Pose(-2822, -2937, -91.9)
    assert amr_office.clearance(-2822, -2937) > 500


def test_amr_office_map_objects(amr_office: World) -> None:
    objects = amr_office.map_objects
    assert len(objects) == 18
    assert [o.kind for o in objects].count("ForbiddenLine") == 7
    assert objects[0] == MapObject(
        "ForbiddenLine", Pose(-8721, 26096, 0), "", "ICON", "", (-8721, 26096, 3707, 26136), line=17
    )
    far_away = next(o for o in objects if o.name == "Far Away")
    assert (far_away.kind, far_away.pose, far_away.extent) == ("Goal", Pose(-5959, 24231, 0), None)
    boxes = [o for o in objects if o.kind == "Sim.BoxObstacle"]
    assert boxes[-1].extent == (-7981, 15786, -6479, 16118)


def test_columbia_loads_with_its_robot_home(columbia: World) -> None:
    assert columbia.segments.shape == (470, 4)
    assert columbia.points.shape == (63311, 2)
    assert columbia.segments[0].tolist() == [-4756, 7542, -4756, 3523]
    assert columbia.points[0].tolist() == [-4780, -16460]
    assert columbia.start_pose == Pose(-182, 176, 0)
    lobby = next(o for o in columbia.map_objects if o.name == "Lobby door")
    assert lobby.kind == "GoalWithHeading"
    assert lobby.pose.th == pytest.approx(-48.5763)
    assert columbia.clearance(-182, 176) > 500


def test_world_arrays_are_read_only(columbia: World) -> None:
    with pytest.raises(ValueError):
        columbia.segments[0, 0] = 1.0
    with pytest.raises(ValueError):
        columbia.points[0, 0] = 1.0


def test_a_2d_map_is_recognised_by_content_whatever_its_name(tmp_path: Path) -> None:
    path = write(tmp_path, "office.txt", "2D-Map\nNumLines: 1\nNumPoints: 2\nLINES\n0 0 1000 0\nDATA\n5 6\n7 8\n")
    world = load_world(path)
    assert world.segments.tolist() == [[0, 0, 1000, 0]]
    assert world.points.tolist() == [[5, 6], [7, 8]]
    assert world.start_pose is None
    assert world.bounds == (0.0, 0.0, 1000.0, 8.0)


# --- bundled worlds ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_world_start_is_in_enclosed_free_space(name: str) -> None:
    world = load_world(name)
    assert world.source == str(data_dir("maps") / f"{name}.wld")
    start = world.start_pose
    assert start is not None
    assert world.clearance(start.x, start.y) >= 500
    assert world.is_free(start.x, start.y, 500)
    # Enclosed: every direction meets a wall inside the world's bounds.
    distances = world.index.ray_distances((start.x, start.y), np.arange(0.0, 360.0, 5.0), math.inf)
    xmin, ymin, xmax, ymax = world.bounds
    assert np.all(distances <= math.hypot(xmax - xmin, ymax - ymin))


@pytest.mark.parametrize("name", ["simple.wld", "corridor.wld", "room.wld"])
def test_bundled_worlds_load_by_file_name(name: str) -> None:
    assert load_world(name).name == name.removesuffix(".wld")


def test_simple_world_keeps_the_manual_listing() -> None:
    world = load_world("simple")
    assert world.bounds == (0.0, 0.0, 38000.0, 30000.0)
    walls = {tuple(row) for row in world.segments.tolist()}
    # World frontiers, as listed.
    assert (0, 0, 0, 30000) in walls and (38000, 30000, 38000, 0) in walls
    # The upper corridor's office wall, given in the frame pushed at (10000, 14000).
    for x1, x2 in [(0, 3000), (3900, 4200), (5100, 8000), (12800, 14600)]:
        assert (10000 + x1, 26000, 10000 + x2, 26000) in walls
    assert world.start_pose == Pose(16500, 25000, 0)
    # Upper corridor: 2000 wide, the robot on its centre line.
    up, down = world.index.ray_distances((16500, 25000), [90, -90], 10000)
    assert (up, down) == (1000, 1000)


def test_corridor_world_geometry() -> None:
    world = load_world("corridor")
    start = world.start_pose
    assert start == Pose(4000, 6000, 0)
    north, south, east, west = world.index.ray_distances((start.x, start.y), [90, -90, 0, 180], 30000)
    assert (north, south) == (1000, 1000)  # 2 m wide
    assert east + west == 20000  # 20 m long
    # Looking north through a door (3000..4000) and south through another (5000..6000) into the rooms.
    assert world.index.ray_distances((3500, 6000), [90], 30000)[0] == 5000
    assert world.index.ray_distances((5500, 6000), [-90], 30000)[0] == 5000
    # Doorways on both sides: rays along each corridor wall's line find gaps.
    doors_north = _gaps(world, 7000)
    doors_south = _gaps(world, 5000)
    assert len(doors_north) >= 3 and len(doors_south) >= 3


def _gaps(world: World, y: float) -> list[tuple[float, float]]:
    """Open stretches (door openings) along the horizontal line y inside the corridor."""
    xs = np.arange(2050.0, 22000.0, 100.0)
    blocked = [world.index.min_distance((x, y), 10.0) < 1.0 for x in xs]
    gaps: list[tuple[float, float]] = []
    for x, wall in zip(xs, blocked, strict=True):
        if not wall:
            if gaps and gaps[-1][1] == x - 100.0:
                gaps[-1] = (gaps[-1][0], x)
            else:
                gaps.append((x, x))
    return gaps


def test_room_world_box_is_ahead_of_the_start() -> None:
    world = load_world("room")
    assert world.bounds == (0.0, 0.0, 6000.0, 6000.0)
    start = world.start_pose
    assert start is not None
    assert world.index.ray_distances((start.x, start.y), [start.th], 10000)[0] == 2200
    assert not world.is_free(3650, 4000, 100)  # 50 mm from the box's face
    assert world.is_free(3550, 4000, 100)
    assert not world.is_free(50, 3000, 100)  # 50 mm from the west wall


def test_unknown_world_name_lists_the_places_looked_at() -> None:
    with pytest.raises(WorldNotFoundError) as caught:
        load_world("no-such-world")
    message = str(caught.value)
    assert "no-such-world" in message
    assert str(data_dir("maps") / "no-such-world.wld") in message


# --- world file frames -------------------------------------------------------------------------


def test_nested_push_pop_frames(tmp_path: Path) -> None:
    text = """; frames
push 1000 2000 90
0 0 100 0            ; (1000,2000)-(1000,2100)
push 100 0 90        ; origin (1000,2100), x axis at 180
0 0 10 0             ; (1000,2100)-(990,2100)
position 10 20 -90   ; (990,2080), heading 90
pop
50 0 60 0            ; back in the first frame: (1000,2050)-(1000,2060)
pop

1 2 3 4              ; world frame
"""
    world = load_world(write(tmp_path, "frames.wld", text))
    expected = [
        [1000, 2000, 1000, 2100],
        [1000, 2100, 990, 2100],
        [1000, 2050, 1000, 2060],
        [1, 2, 3, 4],
    ]
    np.testing.assert_allclose(world.segments, expected, atol=1e-9)
    assert world.start_pose is not None
    assert world.start_pose.x == pytest.approx(990)
    assert world.start_pose.y == pytest.approx(2080)
    assert world.start_pose.th == pytest.approx(90)
    # Without width/height the bounds come from the walls.
    assert world.bounds == pytest.approx((1, 2, 1000, 2100))


def test_push_left_open_at_the_end_is_allowed(tmp_path: Path) -> None:
    world = load_world(write(tmp_path, "open.wld", "width 100\nheight 100\npush 10 10 0\n0 0 5 5\n"))
    assert world.segments.tolist() == [[10, 10, 15, 15]]
    assert world.bounds == (0.0, 0.0, 100.0, 100.0)


# --- precise errors ----------------------------------------------------------------------------

WLD_ERRORS = [
    ("width 100\nheight 100\n0 0 abc 10\n", 3, 5, "bad number 'abc'"),
    ("width 100\n\n; comment\n0 0 nan 10\n", 4, 5, "bad number 'nan'"),
    ("0 0 10\n", 1, 1, "a wall is 4 numbers (x1 y1 x2 y2), this line has 3"),
    ("push 0 0 0\npop\npop\n", 3, 1, "'pop' without a matching 'push'"),
    ("width 100\nwall 0 0 1 1\n", 2, 1, "unknown directive 'wall'"),
    ("push 1 2\n", 1, 1, "'push' takes 3 argument(s) (push x y theta), found 2"),
    ("pop 1\n", 1, 1, "'pop' takes 0 argument(s) (pop), found 1"),
    ("position 1 2 x\n", 1, 14, "bad number 'x'"),
    ("width 100\nwidth 200\n", 2, 1, "'width' given twice (first on line 1)"),
    ("height -5\n", 1, 8, "height must be positive, not -5"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), WLD_ERRORS)
def test_world_file_errors_name_file_line_and_column(
    tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    path = write(tmp_path, "bad.wld", text)
    error = load_error(path)
    assert str(error).startswith(f"{path}:{line}:{column}: {message}")
    assert (error.file, error.line, error.column) == (str(path), line, column)
    assert error.source_line == text.splitlines()[line - 1]


MAP_HEAD = "2D-Map\nNumPoints: 2\nNumLines: 1\n"
MAP_ERRORS = [
    ("LINES\n0 0 1 1\n", 1, "an ARIA map starts with a '2D-Map' line"),
    (MAP_HEAD + "LINES\n0 0 1 1\nDATA\n1 2\n3 x\n", 8, "bad number 'x'"),
    (
        MAP_HEAD + "LINES\n0 0 1\nDATA\n1 2\n3 4\n",
        5,
        "a LINES row is 4 numbers (x1 y1 x2 y2), this one has 3",
    ),
    (
        MAP_HEAD + "LINES\n0 0 1 1\n2 2 3 3\nDATA\n1 2\n3 4\n",
        3,
        "NumLines is 1 but the LINES section (line 4) has 2",
    ),
    (MAP_HEAD + "LINES\n0 0 1 1\n", 2, "NumPoints is 2 but there is no DATA section"),
    ("2D-Map\nNumLines: many\n", 2, "NumLines must be a whole number (at most 12 digits), not 'many'"),
    ("2D-Map\n1 2\n", 2, "numbers outside a LINES or DATA section"),
    ("2D-Map\nthis is not a header\n", 2, "expected 'Key: value', LINES or DATA"),
    ('2D-Map\nCairn: Goal 1 2 0 "unclosed ICON "x"\n', 2, "bad Cairn object: No closing quotation"),
    ("2D-Map\nCairn: Goal 1 2\n", 2, "a Cairn object needs a kind and a pose"),
    ('2D-Map\nCairn: Goal 1 2 0 "" ICON "" 1 2 3\n', 2, "a Cairn object's extent is 4 numbers"),
    ("2D-Map\nNumLines: 0\nLINES\nLINES\n", 4, "a second LINES section (the first is on line 3)"),
]


@pytest.mark.parametrize(("text", "line", "message"), MAP_ERRORS)
def test_map_file_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, "bad.map", text)
    error = load_error(path)
    assert str(error).startswith(f"{path}:{line}:")
    assert message in str(error)
    assert error.line == line


def test_bad_cairn_number_points_at_it(tmp_path: Path) -> None:
    path = write(tmp_path, "cairn.map", '2D-Map\nCairn: Goal 10 2x 0 "" ICON "g"\n')
    assert str(load_error(path)).startswith(f"{path}:2:16: bad number '2x'")


def test_corrupted_real_map_points_at_the_bad_line(tmp_path: Path, maps_dir: Path) -> None:
    lines = (maps_dir / "columbia.map").read_text().splitlines()
    data_start = lines.index("DATA")
    bad = data_start + 40000
    lines[bad] = lines[bad].replace(" ", " 1O", 1)  # a letter O typed for a zero
    path = write(tmp_path, "columbia.map", "\n".join(lines) + "\n")
    error = load_error(path)
    assert error.line == bad + 1
    assert "bad number '1O" in str(error)
    assert error.pretty().splitlines()[1].strip() == lines[bad].strip()


def test_dropped_real_map_line_breaks_the_count(tmp_path: Path, maps_dir: Path) -> None:
    lines = (maps_dir / "AMROffice.map").read_text().splitlines()
    del lines[lines.index("LINES") + 10]
    path = write(tmp_path, "AMROffice.map", "\n".join(lines) + "\n")
    error = load_error(path)
    assert error.line == lines.index("NumLines: 243") + 1
    assert "NumLines is 243 but the LINES section" in str(error)
    assert "has 242" in str(error)


def test_map_suffix_without_header_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "world.map", "width 100\nheight 100\n")
    assert "2D-Map" in str(load_error(path))


# --- reading a world again -----------------------------------------------------------------------


def test_a_world_read_again_is_shared_until_its_file_changes(tmp_path: Path) -> None:
    path = write(tmp_path, "box.wld", "0 0 4000 0\n4000 0 4000 3000\n")
    first = load_world(path)
    assert load_world(path) is first  # immutable, so a batch's trials share one reading
    path.write_text("0 0 5000 0\n5000 0 5000 3000\n0 3000 5000 3000\n")
    changed = load_world(path)
    assert changed is not first and changed.segments.shape == (3, 4)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # same size, touched
    assert load_world(path) is not changed


def test_a_broken_world_file_is_an_error_every_time_and_loads_once_mended(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.wld", "0 0 10\n")
    assert "this line has 3" in str(load_error(path))
    assert "this line has 3" in str(load_error(path))  # errors are never kept
    path.write_text("0 0 10 0\n")
    assert load_world(path).segments.tolist() == [[0, 0, 10, 0]]
