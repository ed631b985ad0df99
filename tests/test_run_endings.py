"""Runs that end, and say how: blocked motions, runtime errors with their file position, shutdown.

Through Colbert files on the embedded simulator in lock-step, the evaluator, and real ``saphira run``
subprocesses.
"""

from __future__ import annotations

import re
from pathlib import Path

from saphira.client.motion import Channel, MotionControl
from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.wld import parse_wld
from tests.test_cli import saphira

WALL_AHEAD = (
    "width 6000\nheight 4000\n0 0 6000 0\n6000 0 6000 4000\n6000 4000 0 4000\n0 4000 0 0\nposition 1000 2000 0\n"
)
"""A 6 m x 4 m box; the robot starts 5 m from the east wall, facing it."""


class Run:
    """An evaluator on a robot attached to the embedded simulator in a box, output lines kept."""

    def __init__(self) -> None:
        self.robot = Robot()
        self.sim = attach_simulator(self.robot, world=parse_wld(WALL_AHEAD, "box.wld"), seed=0)
        self.lines: list[str] = []
        self.ev = Evaluator(self.robot, output=self.lines.append, read_init=False)

    def load(self, text: str, name: str = "box.act") -> None:
        assert self.ev.eval_text(text, name, interactive=False), self.lines

    def until_ended(self, name: str, max_cycles: int) -> int:
        sched = self.robot.scheduler
        for _ in range(max_cycles):
            self.robot.step()
            if name not in sched:
                return sched.outcomes[name]
        return sched.get_task_state(name)


# ---------------------------------------------------------------------------------------- no progress


def test_no_progress_is_measured_against_the_target_in_clock_time() -> None:
    motion = MotionControl()
    motion.set_position(1000)
    assert not motion.blocked(Channel.TRANSLATION, 0.0)
    motion.pose.x = 8.0  # less than PROGRESS_DISTANCE closer: not progress
    assert not motion.blocked(Channel.TRANSLATION, 4.9)
    assert motion.blocked(Channel.TRANSLATION, 5.0)
    motion.pose.x = 30.0  # progress restarts the watch
    assert not motion.blocked(Channel.TRANSLATION, 5.1)
    assert not motion.blocked(Channel.TRANSLATION, 10.0)
    assert motion.blocked(Channel.TRANSLATION, 10.1)
    motion.no_progress_timeout = 20.0
    assert not motion.blocked(Channel.TRANSLATION, 10.1)
    motion.set_position(500)  # a new move starts a new watch
    assert not motion.blocked(Channel.TRANSLATION, 100.0)


def test_a_move_into_a_wall_fails_its_activity_after_the_no_progress_timeout() -> None:
    run = Run()
    run.load("int after;\nact wall\n{\n  move(20000);\n  after = 1;\n}\n")
    run.ev.eval_text("start wall")
    state = run.until_ended("wall", 1200)
    assert state == TaskState.FAILURE
    assert run.ev.value("after") == 0
    assert run.sim.wall_contacts >= 1
    message = [line for line in run.lines if "made no progress" in line]
    assert message == [
        "box.act:4:3: act wall: move(20000) made no progress for 5 s (blocked or stalled); the activity fails"
    ]
    assert run.robot.motion.target_vel() == 0.0


def test_a_move_with_its_own_timeout_ends_and_continues_instead() -> None:
    run = Run()
    run.load("int after;\nact wall\n{\n  move(20000) timeout 300;\n  after = 1;\n}\n")
    run.ev.eval_text("start wall")
    assert run.until_ended("wall", 1200) == TaskState.SUCCESS
    assert run.ev.value("after") == 1
    assert not [line for line in run.lines if "made no progress" in line]


def test_saphira_run_into_a_wall_ends_and_exits_1(tmp_path: Path) -> None:
    act = tmp_path / "wall.act"
    act.write_text("act wall\n{\n  move(20000);\n}\nstart wall;\n")
    result = saphira("run", str(act), timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{act}:3:3: act wall: move(20000) made no progress" in result.stdout
    assert "activity wall: FAILURE" in result.stdout


# ---------------------------------------------------------------------------------------- runtime errors

DIVIDE = """\
/* one act divides by zero; the other goes on counting */
int zero;
int count;

act divide
{
  int a;
  a = 10;
  a = a / zero;
  a = 20;
}

act other
{
  while (count < 30) count = count + 1;
}
start divide;
start other;
"""


def test_a_runtime_error_names_file_line_and_column_of_the_statement_and_the_act() -> None:
    lines: list[str] = []
    ev = Evaluator(output=lines.append, read_init=False)
    assert ev.eval_text(DIVIDE, "divide.act", interactive=False)
    for _ in range(40):
        ev.scheduler.step()
    assert lines == ["divide.act:9:3: act divide: division by zero", "      a = a / zero;", "      ^"]
    assert ev.value("count") == 30  # the other activity kept running
    assert ev.runtime.error_count == 1


def test_an_error_in_update_names_the_update_statement() -> None:
    lines: list[str] = []
    ev = Evaluator(output=lines.append, read_init=False)
    ev.eval_text("int zero; int x;\nact u\n{\n  update\n    x = 1 / zero;\n  waitfor 0;\n}\n", "u.act",
                 interactive=False)  # fmt: skip
    ev.eval_text("start u")
    ev.scheduler.step()
    assert lines[0] == "u.act:5:5: act u: division by zero"


def test_a_blocking_start_stops_waiting_for_a_child_disabled_by_an_error() -> None:
    lines: list[str] = []
    ev = Evaluator(output=lines.append, read_init=False)
    ev.eval_text("int zero; int after; int st;\nact child { zero = 1 / zero; }\n"
                 "act parent { start child; st = sfGetTaskState(\"child\"); after = 1; }\n", "p.act",
                 interactive=False)  # fmt: skip
    ev.eval_text("start parent")
    for _ in range(5):
        ev.scheduler.step()
    assert lines[0] == "p.act:2:13: act child: division by zero"
    assert (ev.value("after"), ev.value("st")) == (1, TaskState.SUSPEND)


def test_saphira_run_reports_the_error_position_keeps_the_others_and_exits_1(tmp_path: Path) -> None:
    act = tmp_path / "divide.act"
    act.write_text(DIVIDE)
    result = saphira("run", str(act), timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{act}:9:3: act divide: division by zero\n      a = a / zero;\n      ^\n" in result.stdout
    assert "activity other: SUCCESS" in result.stdout
    assert f"activity divide: error (suspended) at {act}:9:3\n" in result.stdout  # not a bare "SUSPEND"
    assert not re.search(r"activity divide: SUSPEND", result.stdout)


def test_quiet_run_lists_the_activity_an_error_stopped(tmp_path: Path) -> None:
    """``-q`` prints only errors: the error itself and the activity it left suspended."""
    act = tmp_path / "divide.act"
    act.write_text(DIVIDE)
    result = saphira("run", "-q", str(act), timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"activity divide: error (suspended) at {act}:9:3" in result.stdout
    assert "activity other" not in result.stdout and "---" not in result.stdout


# ---------------------------------------------------------------------------------------- shutdown


def test_duration_ending_in_a_motion_sequence_prints_no_error_and_exits_0(tmp_path: Path) -> None:
    """Issue 10 bug 4: the act's next motion ran after the robot was disconnected at the end of the run."""
    act = tmp_path / "b.act"
    act.write_text("act b\n{\n  move(2000);\n  move(100);\n  turn(10);\n}\nstart b;\n")
    result = saphira("run", str(act), "--duration", "1", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "needs a connected robot" not in result.stdout + result.stderr
    assert "activity b: still running" in result.stdout


def test_ending_a_session_suspends_the_activities_before_the_robot_stops() -> None:
    run = Run()
    run.load("act b\n{\n  move(200);\n  move(100);\n  turn(10);\n}\n")
    run.ev.eval_text("start b")
    run.robot.run(cycles=3)
    run.ev.runtime.suspend_all()
    run.robot.motion.halt()
    run.robot.run(cycles=20)  # without the suspension, the halted move 'completes' and move(100) starts
    assert run.ev.activity("b") is not None and run.ev.activity("b").suspended  # type: ignore[union-attr]
    assert run.robot.motion.target_vel() == 0.0
    run.robot.disconnect()
    run.robot.run(cycles=5)
    assert run.lines == []


def test_exit_at_the_prompt_while_an_act_moves_prints_no_error() -> None:
    run = Run()
    run.load("act b\n{\n  move(200);\n  move(100);\n  turn(10);\n}\n")
    run.ev.eval_text("start b")
    run.robot.run(cycles=3)
    assert run.ev.eval_text("exit")
    run.robot.run(cycles=30)  # a shell's scheduler thread may still run cycles before it is stopped
    assert not run.robot.connected and run.ev.exit_requested
    assert run.lines == []
