"""The manual's own behavior example, Listing 5.2, loads as printed (no Init section, declarations with
initializers in Update) and drives the simulated robot to its goal exactly as the project's go_to.beh does.

tests/data/listing_5_2.beh says where the listing comes from and how its OCR damage was resolved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from saphira.behavior.library import find_behavior
from saphira.client.artifacts import create_local_point
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import point_dist
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator

ROOT = Path(__file__).resolve().parents[1]
LISTING = ROOT / "tests" / "data" / "listing_5_2.beh"
GO_TO = ROOT / "behaviors" / "go_to.beh"


def drive_to_goal(path: Path) -> tuple[list[tuple[float, float, float]], int, float]:
    """Load ``path``'s myGoto and run it towards a goal 2.5 m ahead, 1 m to the right: poses, end state, gap."""
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", seed=0, odometry_error=False, pose=(1500.0, 3000.0, 0.0))
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.load(path), lines
    goal = create_local_point(robot.state.global_pose, 2500.0, -1000.0, 0.0)
    robot.reflector.pointlist.add(goal)
    task = robot.start_behavior(ev.value("myGoto"), goal, 100.0, name="go", priority=1)
    robot.start_behavior(find_behavior("stop"), name="stop", priority=3)
    poses = []
    for _ in range(400):
        robot.step()
        pose = sim.true_pose
        poses.append((pose.x, pose.y, pose.th))
        if task.finished:
            break
    assert lines == []
    return poses, task.state, point_dist(goal)


def test_listing_5_2_as_printed_reaches_its_goal_like_go_to_beh() -> None:
    printed, printed_state, printed_gap = drive_to_goal(LISTING)
    ours, ours_state, _ = drive_to_goal(GO_TO)
    assert printed_state == ours_state == TaskState.SUCCESS
    assert printed_gap < 1.2 * 100.0  # Goal > 0.8 within 1.2 x radius
    assert printed == ours
    assert 30 < len(printed) < 400
    assert printed[-1][2] < -20.0  # it turned right, towards the goal


def load_behavior(tmp_path: Path, text: str) -> tuple[Evaluator, list[str], bool]:
    path = tmp_path / "b.beh"
    path.write_text(text)
    lines: list[str] = []
    ev = Evaluator(Robot(), output=lines.append, read_init=False)
    return ev, lines, ev.load(path)


def test_initializers_run_where_they_stand_init_once_update_every_cycle(tmp_path: Path) -> None:
    ev, lines, loaded = load_behavior(
        tmp_path,
        "BeginBehavior counter\nParams\n  sfFLOAT step\nRules\n"
        "Init\n  float first = 10 * step, unused;\n  float total = first;\n"
        "Update\n  float twice = 2 * step;\n  total = total + twice;\n"
        "Activity\nEndBehavior\n",
    )
    assert loaded, lines
    robot = ev.robot
    assert robot is not None
    task: Any = robot.start_behavior(ev.value("counter"), 0.5, name="c")
    assert (task.vars.first, task.vars.total, task.vars.twice) == (5.0, 5.0, 0.0)  # Init ran, Update not yet
    for _ in range(3):
        robot.executive.run_once()
    assert (task.vars.first, task.vars.total, task.vars.twice, task.vars.unused) == (5.0, 8.0, 1.0, 0.0)


def test_a_behavior_without_init_or_update_loads(tmp_path: Path) -> None:
    ev, lines, loaded = load_behavior(
        tmp_path, "BeginBehavior still\nParams\nRules\n  If 1.0 Then Speed 0.0\nActivity\n  Speed 1.0\nEndBehavior\n"
    )
    assert loaded, lines
    assert ev.value("still") is not None


def test_a_bad_initializer_names_its_place_and_colbert_acts_still_refuse_initializers(tmp_path: Path) -> None:
    _, lines, loaded = load_behavior(
        tmp_path, "BeginBehavior b\nParams\nRules\nUpdate\n  float phi = nowhere(1);\nActivity\nEndBehavior\n"
    )
    assert not loaded
    assert lines[0].startswith(f"{tmp_path / 'b.beh'}:5:15: ")
    assert "nowhere" in lines[0]
    act_lines: list[str] = []
    act = Evaluator(None, output=act_lines.append, read_init=False)
    assert not act.eval_text("act a { float x = 1.0; }", "a.act", interactive=False)
    assert act_lines[0] == (
        "a.act:1:17: Colbert has no initializers in declarations: variables start at 0; "
        "assign the value in a separate statement"
    )
