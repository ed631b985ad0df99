"""Pyro-era block-format worlds (``OriginPad``, ``Start Line`` … ``End``, ``Start Goal`` … ``End``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from saphira.core.geometry import Pose
from saphira.params.robot_params import find_params_file, load_params
from saphira.sim.simulation import Simulation
from saphira.world.world import WorldError, load_world

LAB = Path(__file__).parent / "data" / "pyro-worlds" / "lab.wld"


def test_lines_become_walls_the_pad_the_start_and_goals_named_points() -> None:
    world = load_world(LAB)
    assert world.name == "lab"
    np.testing.assert_array_equal(
        world.segments,
        [
            [0, 0, 10000, 0],  # the outer polyline, vertex to vertex
            [10000, 0, 10000, 6000],
            [10000, 6000, 0, 6000],
            [0, 6000, 0, 0],
            [0, 3000, 4000, 3000],  # the inner wall, two segments around the door
            [5000, 3000, 10000, 3000],
        ],
    )
    assert world.start_pose == Pose(1500, 1500, 90)
    assert world.goals == (("desk", Pose(8000, 1500, 0)), ("coffee machine", Pose(2000, 5000, 180)))
    assert world.bounds == (0, 0, 10000, 6000)


def test_goals_written_on_the_start_goal_line_as_pyros_2003_worlds_are_read() -> None:
    world = load_world(LAB.parent / "lab2003.wld")
    assert world.goals == (
        ("Chris", Pose(11390, 4334, 0)),
        ("coffee machine", Pose(6000, 7000, 90)),
        ("goal 3", Pose(2000, 6000, 0)),
    )
    assert world.start_pose == Pose(1500, 1500, 0) and len(world.segments) == 4


def test_the_format_is_recognised_by_content_whatever_the_suffix(tmp_path: Path) -> None:
    path = tmp_path / "world.txt"
    path.write_bytes(b"\xef\xbb\xbfStart Goal\r\n1 2\r\nEnd\r\n")
    assert load_world(path).goals == (("goal 1", Pose(1, 2, 0)),)


def test_a_robot_on_the_pad_drives_into_the_inner_wall() -> None:
    world = load_world(LAB)
    sim = Simulation(world, seed=1)
    robot = sim.add_robot(load_params(find_params_file("p3dx")))
    assert (robot.x, robot.y, robot.th) == (1500, 1500, 90)
    robot.cmd_vel(400)
    for _ in range(100):  # 10 s at 400 mm/s would pass y = 3000 without the wall
        sim.step(0.1)
    assert robot.y == pytest.approx(3000 - robot.radius, abs=2)
    assert abs(robot.x - 1500) < 50


ERRORS = [
    (
        "Start Light\n1 2\nEnd\n",
        1,
        7,
        "cannot represent 'Start Light' blocks (supported: Start Line, Start Text, Start",
    ),
    ("OriginPad 0 0 0\nDoor 100\n", 2, 1, "cannot represent 'Door' outside a block"),
    ("OriginPad 0 0\n0 0 1 1\n", 2, 1, "cannot represent '0' outside a block"),
    ("Start\n", 1, 1, "'Start' needs a kind (supported: Start Line, Start Text, Start Goal)"),
    ("Start Line\n0 0 1 1\n", 1, 1, "'Start Line' has no 'End'"),
    ("End\n", 1, 1, "'End' without a 'Start' block"),
    ("Start Line\n0 0 1 1\nEnd now\n", 3, 5, "'End' takes nothing, found 'now'"),
    ("Start Line\nStart Goal\n", 2, 1, "'Start' inside the 'Start Line' block of line 1"),
    ("Start Line\n0 0\n1 1 2 2\nEnd\n", 3, 1, "a Line row is x y (a vertex) or x1 y1 x2 y2 (a segment)"),
    ("Start Line\n0 0 1 x\nEnd\n", 2, 7, "bad number 'x'"),
    ("Start Line\n5 5\nEnd\n", 2, 1, "a polyline needs at least two x y vertices"),
    ("; empty\nStart Line\nEnd\n", 2, 1, "an empty 'Start Line' block"),
    ("Start Goal a\n1 2\n3 4\nEnd\n", 3, 1, "a goal is one x y [th]: on the 'Start Goal' line or as the one row"),
    ('Start Goal 1 2 "a"\n3 4\nEnd\n', 2, 1, "a goal is one x y [th]: on the 'Start Goal' line or as the one row"),
    ("Start Goal\nEnd\n", 1, 1, "a goal is one x y [th]: on the 'Start Goal' line or as the one row inside, found 0"),
    ("Start Goal a\n1 2 3 4\nEnd\n", 2, 1, "a goal is x y [th], found 4 value(s)"),
    ("OriginPad 1\n", 1, 1, "OriginPad takes x y [th], found 1 value(s)"),
    ("OriginPad 0 0\n\nOriginPad 1 1\n", 3, 1, "a second OriginPad (the first is on line 1)"),
    ("OriginPad 0 nan\n", 1, 13, "bad number 'nan'"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), ERRORS)
def test_what_cannot_be_represented_is_refused_naming_file_line_and_column(
    tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    path = tmp_path / "bad.wld"
    path.write_text(text)
    with pytest.raises(WorldError) as caught:
        load_world(path)
    error = caught.value
    assert str(error).startswith(f"{path}:{line}:{column}: {message}")
    assert error.source_line == text.splitlines()[line - 1]


OFFICE8 = Path(__file__).parent / "data" / "pyro-worlds" / "office8.wld"


def test_a_saphira8_world_loads_its_walls_start_size_and_labels() -> None:
    world = load_world(OFFICE8)
    np.testing.assert_array_equal(
        world.segments,
        [
            [0, 0, 12000, 0],  # the outer walls, each on its Start Line header
            [12000, 0, 12000, 8000],
            [12000, 8000, 0, 8000],
            [0, 8000, 0, 0],
            [0, 5000, 3000, 5000],  # the corridor wall's three pieces between the doors
            [4000, 5000, 8000, 5000],
            [9000, 5000, 12000, 5000],
            [6000, 5000, 6000, 8000],  # the polyline between the offices
        ],
    )
    assert world.start_pose == Pose(2000, 4000, 0)  # position wins over the origin pad
    assert world.bounds == (0, 0, 12000, 8000)
    labels = [(o.kind, o.description, o.pose.x, o.pose.y, o.line) for o in world.map_objects]
    assert labels == [
        ("Text", "Office 1", 1500, 6500, 35),  # closed by the next Start
        ("Text", "Office 2", 7500, 6500, 36),  # closed by its End
        ("Text", "Corridor", 6000, 2500, 38),  # closed by the end of the file
    ]


def test_the_origin_pad_starts_the_robot_when_no_position_is_given(tmp_path: Path) -> None:
    path = tmp_path / "pad.wld"
    path.write_text("width 5000\nheight 4000\nOriginPad 700 800\nStart Line 0 0 5000 0\nEnd\n")
    world = load_world(path)
    assert world.start_pose == Pose(700, 800, 0) and world.bounds == (0, 0, 5000, 4000)


def test_a_robot_drives_through_the_office_door_and_stops_at_the_wall_between_the_offices() -> None:
    sim = Simulation(load_world(OFFICE8), seed=1, odometry_error=False)
    robot = sim.add_robot(load_params(find_params_file("p3dx")), (3500.0, 4000.0, 90.0))
    robot.cmd_vel(400)
    for _ in range(100):  # through the door at x 3000-4000, then to the north wall at y 8000
        sim.step(0.1)
    assert robot.y == pytest.approx(8000 - robot.radius, abs=40)  # one step of 40 mm
    assert (robot.x, robot.th) == (pytest.approx(3500, abs=50), pytest.approx(90, abs=1))


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("OriginPad 0 0\nwidth 10\nwidth 20\n", 3, 1, "a second width (the first is on line 2)"),
        ("OriginPad 0 0\nheight -5\n", 2, 8, "height must be positive, not -5"),
        ("OriginPad 0 0\nposition 1 2\n", 2, 1, "position takes x y th, found 2 value(s)"),
        ("Start Line\nAttachID\n0 0 1 1\nEnd\n", 2, 1, "'AttachID' takes one number, found 0"),
        ("Start Line\nAttachID x\n0 0 1 1\nEnd\n", 2, 10, "bad number 'x'"),
        ("Start Line\nAttachID 3\nEnd\n", 1, 1, "an empty 'Start Line' block"),
        ("Start Text 5\nEnd\n", 1, 1, "'Start Text' takes x y and the words"),
        ("Start Line 0 0 1\nEnd\n", 1, 12, "a Line row is x y (a vertex) or x1 y1 x2 y2"),
    ],
)
def test_bad_saphira8_constructs_are_located(tmp_path: Path, text: str, line: int, column: int, message: str) -> None:
    path = tmp_path / "bad.wld"
    path.write_text(text)
    with pytest.raises(WorldError) as caught:
        load_world(path)
    assert str(caught.value).startswith(f"{path}:{line}:{column}: {message}")
