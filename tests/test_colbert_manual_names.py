"""The manual's names that Colbert lacked (issue 10): each used from Colbert, against the embedded simulator
in lock-step where it concerns the robot, and checked against what the simulated robot really did.

Robot identity and sonar buckets, the pointlist and its origins, the process and
self forms of the task signals and sfStartBehavior, the turn modifiers, file loading,
error messages, sfIsExited (all in docs/colbert.md), and how floats typed at the prompt print.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from saphira.app.session import ColbertConnection
from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator


class Session:
    """An evaluator on a robot (simulated in lock-step, or never connected) whose output is kept."""

    def __init__(self, simulated: bool = True, pose: tuple[float, float, float] = (1500.0, 3000.0, 0.0)) -> None:
        self.robot = Robot()
        self.sim: EmbeddedSim | None = None
        if simulated:
            self.sim = attach_simulator(self.robot, "room", "p3dx", seed=0, odometry_error=False, pose=pose)
        self.lines: list[str] = []
        connection = ColbertConnection(self.robot)  # as saphira shell gives it: 'disconnect' works
        self.ev = Evaluator(self.robot, output=self.lines.append, read_init=False, connection=connection)

    def __call__(self, text: str) -> list[str]:
        """Type ``text`` at the prompt; the lines it printed."""
        start = len(self.lines)
        self.ev.eval_text(text)
        return self.lines[start:]

    def ok(self, text: str) -> None:
        assert self.ev.eval_text(text), self.lines

    def load(self, text: str) -> None:
        assert self.ev.eval_text(text, "test.act", interactive=False), self.lines

    def cycle(self, n: int = 1) -> None:
        for _ in range(n):
            self.robot.step()

    def value(self, name: str) -> object:
        return self.ev.value(name)

    def state(self, name: str) -> int:
        return self.robot.scheduler.get_task_state(name)


# ------------------------------------------------------------------------------------------ robot identity
def test_robot_name_class_and_subclass_are_the_sync2_strings() -> None:
    idle = Session(simulated=False)
    assert [idle(f"sfRobot{w}") for w in ("Name", "Class", "Subclass")] == [['"" (string)']] * 3
    s = Session()
    identity = s.robot.link.identity
    assert identity is not None
    assert s("sfRobotClass") == ['"Pioneer" (string)']
    assert s("sfRobotSubclass") == ['"p3dx" (string)']  # the simulated robot is a P3-DX
    assert s("sfRobotName") == [f'"{identity.name}" (string)']
    assert "read-only" in s('sfRobotName = "x"')[0]
    s.ok("disconnect")
    s.cycle(3)
    assert s("sfRobotSubclass") == ['"" (string)']


# ------------------------------------------------------------------------------------------ sonar buckets
def test_sonar_bucket_fields_follow_the_manual_and_the_simulated_wall() -> None:
    # Facing +x in the 6 m square "room" world, 3 m from its east wall (x = 6000 mm).
    s = Session(pose=(3000.0, 2500.0, 0.0))
    s.load(
        "sdata *b; int r; float x; float fx; float afx; int fresh; int seen;\n"
        "act read\n{ b = sfSonarBucket(3);\n  waitfor b->snew;\n"
        "  r = b->range; x = b->x; fx = b->fx; afx = b->afx; fresh = b->snew;\n"
        "  b->snew = 0; seen = sfSonarNew(3);\n}\n"
    )
    s.cycle(5)
    s.ok("move(500)")
    s.cycle(40)  # moved half a metre east, stopped
    s.ok("start read")
    s.cycle(5)
    assert s.robot.scheduler.find("read") is None and s.lines == []  # ran to its end and was reaped
    assert s.state("read") == TaskState.SUCCESS  # its name still says how it ended (issue 32 §3)
    unit = s.robot.params.sonar_units[3]
    assert unit.th == pytest.approx(10.0)  # a front sonar, 10 degrees left of ahead
    wall_distance = (6000.0 - (s.sim.true_pose.x if s.sim else 0) - unit.x) / math.cos(math.radians(unit.th))
    assert s.value("r") == pytest.approx(wall_distance, abs=60)
    assert s.value("x") == pytest.approx(unit.x + s.value("r") * math.cos(math.radians(10.0)), abs=1.0)
    assert s.value("fx") == pytest.approx(s.robot.state.odo_x, abs=5)  # odometric pose when read
    assert s.value("afx") == pytest.approx(s.robot.state.ax, abs=5)  # global pose when read
    assert s.value("afx") == pytest.approx(3500.0, abs=40)
    assert s.value("fresh") == 0xFFFF
    assert s.value("seen") == 0  # b->snew = 0 marked it read, as sfSonarNew would have
    assert s("b->range = 10")[0].endswith("slot 'range' of struct sdata is read-only")
    assert s("(*sfSonarBucket(3)).range == sfSonarRange(3) && b->x == sfSonarXCoord(3)") == ["1 (int)"]
    assert s("sfSonarBucket(16)") == ["NULL (sdata *)"]  # a P3-DX has sonars 0..15
    assert s("sfSonarBucket(-1)") == ["NULL (sdata *)"]
    assert (
        "struct sdata { float fx, float fy, float fth, float afx, float afy, float afth, float x, float y, "
        "int range, int snew }" in s("help structs")
    )


# ------------------------------------------------------------------------------------------ the pointlist
def test_the_point_list_is_walked_from_colbert_and_its_points_are_live() -> None:
    s = Session(pose=(1500.0, 2500.0, 0.0))
    s.load(
        "int n; int ids; float first_x; list *l;\n"
        "act walk\n{ n = 0; ids = 0; l = sfPointList;\n"
        "  if (l != NULL) first_x = l->data->x;\n"
        "  while (l != NULL) { n = n + 1; ids = ids + l->data->id; l = l->next; }\n}\n"
    )
    assert s("sfPointList") == ["NULL (list *)"]
    s.ok("point *a; a = sfCreateLocalArtifact(sfPOINT, 1, 1000.0, 0.0, 0.0, 0.0, 0.0)")
    s.ok("a = sfCreateLocalArtifact(sfDOOR, 20, 2000.0, 500.0, 90.0, 900.0, 0.0)")
    s.ok("a = sfCreateLocalArtifact(sfWALL, 300, 0.0, 1000.0, 0.0, 0.0, 2000.0)")
    s.ok("start walk")
    s.cycle(8)
    assert (s.value("n"), s.value("ids"), s.value("first_x")) == (3, 321, 1000.0)
    s.ok("sfRemArtifact(20)")
    s.ok("move(400)")
    s.cycle(40)
    s.ok("start walk")
    s.cycle(6)
    assert (s.value("n"), s.value("ids")) == (2, 301)
    # The cells hold the live points: the first one is now 400 mm closer.
    assert s.value("first_x") == pytest.approx(600.0, abs=30)
    assert s.lines == ["NULL (list *)"]


def test_global_and_robot_origins_are_system_points_kept_current() -> None:
    s = Session(pose=(1500.0, 2500.0, 0.0))
    ax, ay = s.robot.state.ax, s.robot.state.ay
    assert s("sfRobotOrigin->ax") == [f"{ax} (float)"]
    assert s("sfRobotOrigin->x") == ["0.0 (float)"]
    assert s("sfGlobalOrigin->ax") == ["0.0 (float)"]
    assert s("sfGlobalOrigin->cat == SYSTEM && sfRobotOrigin->cat == SYSTEM") == ["1 (int)"]
    s.ok("move(500)")
    s.cycle(40)
    s.ok("float d; d = sfPointDist(sfGlobalOrigin)")
    assert s.value("d") == pytest.approx(math.hypot(s.robot.state.ax, s.robot.state.ay), abs=0.5)
    assert s.value("d") == pytest.approx(math.hypot(ax + 500, ay), abs=30)
    s.ok("float rx; rx = sfRobotOrigin->ax")
    assert s.value("rx") == pytest.approx(s.robot.state.ax)
    s.ok("float gx; gx = sfGlobalOrigin->x")  # the origin, seen from the robot facing +x, is behind it
    assert s.value("gx") == pytest.approx(-s.robot.state.ax, abs=30)


# ------------------------------------------------------------------------------------------ tasks by pointer
def test_process_forms_of_the_task_signals() -> None:
    s = Session(simulated=False)
    s.load(
        "int n; int interrupted;\n"
        "act count\n{ top: n = n + 1; goto top;\noninterrupt:\n  interrupted = interrupted + 1; suspend;\n}\n"
    )
    s.ok("start count")
    s.ok('process *p; p = sfFindProcess("count")')
    assert s("p->name") == ['"count" (string)']
    assert s('sfFindProcess("nobody")') == ["NULL (process *)"]
    s.cycle(3)
    assert s("sfGetProcessState(p) == p->state && p->state > 10") == ["1 (int)"]
    s.ok("sfSuspendProcess(p, 4)")
    assert s("sfSuspended(p)") == ["1 (int)"]
    counts = []
    for _ in range(6):
        s.cycle()
        counts.append(s.value("n"))
    assert counts == [3, 3, 3, 3, 4, 5]  # skipped 4 cycles, then resumed
    s.ok("sfInterruptProcess(p)")
    s.cycle(2)
    assert (s.value("interrupted"), s.state("count")) == (1, TaskState.SUSPEND)
    s.ok("sfResumeProcess(p)")
    s.cycle(2)
    assert s.value("n") == 7  # restarted at its first statement, counting again
    s.ok("sfSetProcessState(p, sfSUSPEND)")
    s.cycle(2)
    assert (s.value("n"), s("sfSuspended(p)")) == (7, ["1 (int)"])
    for state in ("20", "sfINACTIVE"):
        assert s(f"sfSetProcessState(p, {state})")[0].endswith(
            "sfSetProcessState: 'count' takes only the reserved states: "
            "sfINIT, sfSUSPEND, sfRESUME, sfINTERRUPT, sfSUCCESS, sfFAILURE, sfTIMEOUT, sfREMOVE or -n"
        )
    assert s("sfFinished(p)") == ["0 (int)"]
    s.ok("sfRemoveProcess(p)")
    s.cycle()
    assert s("sfGetProcessState(p)") == ["0 (int)"]
    assert s("sfFinished(p)") == ["2 (int)"]
    assert s("sfResumeProcess(p)")[0] == "<prompt>:1: sfResumeProcess: process 'count' is no longer scheduled"
    assert s("sfSuspendProcess(NULL, 1)")[0] == "<prompt>:1: sfSuspendProcess: null process pointer"


def test_set_process_state_ends_a_task_with_the_given_state() -> None:
    s = Session(simulated=False)
    s.load("act idle { waitfor 0; }\nact holder { start idle noblock; waitfor 0; }")
    s.ok("start holder")
    s.cycle(2)
    s.ok('process *p; p = sfFindProcess("idle"); sfSetProcessState(p, sfFAILURE)')
    s.cycle()
    assert s.state("idle") == TaskState.FAILURE  # a child: kept for inspection
    assert s("sfFinished(p)") == ["1 (int)"]
    s.ok('sfSetProcessState(sfFindProcess("motor"), -3)')  # a plain micro-task: suspended 3 cycles
    assert s.state("motor") == -3
    s.ok("start idle iname sleeper")
    s.ok('sfSetTaskState("sleeper", sfSUSPEND)')
    s.cycle()
    assert s.state("sleeper") == TaskState.SUSPEND
    s.ok('sfSetTaskState("sleeper", sfRESUME)')
    s.cycle()
    assert s.state("sleeper") > 10  # back at its statements
    assert s('sfSetTaskState("ghost", sfSUSPEND)')[0].endswith("sfSetTaskState: no activity or behavior named 'ghost'")


# ------------------------------------------------------------------------------------------ tasks on themselves
def test_self_forms_act_on_the_calling_activity() -> None:
    s = Session(simulated=False)
    s.load(
        "int n; int after; int cleaned;\n"
        "act nap\n{ top: n = n + 1;\n  if (n == 3) { sfSuspendSelf(4); after = n; }\n  goto top;\n}\n"
        "act quit { sfRemoveSelf(); after = 99; waitfor 0; }\n"
        "act stop_me\n{ sfInterruptSelf();\n  waitfor 0;\noninterrupt:\n  cleaned = 1;\n}\n"
    )
    s.ok("start nap")
    seen = []
    for _ in range(9):
        s.cycle()
        seen.append(s.value("n"))
    assert seen == [1, 2, 3, 3, 3, 3, 3, 4, 5]  # suspended for 4 cycles, resumed at the first statement
    assert s.value("after") == 3  # the rest of the cycle ran, as after a C micro-task's sfSuspendSelf
    s.ok("start quit")
    s.cycle()
    assert s.value("after") == 99 and s.state("quit") == TaskState.INACTIVE
    s.ok("start stop_me")
    s.cycle(2)
    assert s.value("cleaned") == 1 and s.state("stop_me") == TaskState.SUCCESS  # fell off its end
    assert s("sfInterruptSelf()")[0] == (
        "<prompt>:1: sfInterruptSelf: only an activity can signal itself (use sfInterruptTask at the prompt)"
    )
    assert [line for line in s.lines if "line" in line] == []


# ------------------------------------------------------------------------------------------ sfStartBehavior
def test_start_behavior_drives_the_simulated_robot_and_returns_its_process() -> None:
    s = Session(pose=(1000.0, 2500.0, 0.0))
    s.ok('process *b; b = sfStartBehavior(sfConstantVelocity, "cruise", 0, 2, 0, 300.0)')
    assert s("b->name") == ['"cruise" (string)']
    x0 = s.sim.true_pose.x if s.sim else 0.0
    s.cycle(20)
    assert s.robot.state.vel == pytest.approx(300, abs=15)
    assert s.sim is not None and s.sim.true_pose.x - x0 > 300
    assert s('sfStartBehavior(sfConstantVelocity, "cruise", 0, 2, 0, 100.0)') == [
        "sfStartBehavior: an instance named 'cruise' already exists (RESUME)",
        "NULL (process *)",
    ]
    s.ok("sfRemoveProcess(b)")
    s.cycle(15)
    assert abs(s.robot.state.vel) < 20  # the executive stopped driving when it went
    assert s('sfStartBehavior(sfConstantVelocity, "", 0, 2, 0, 1.0, 2.0)') == [
        "sfStartBehavior: constant_velocity takes 1 parameter (speed), got 2",
        "NULL (process *)",
    ]


def test_start_behavior_options_timeout_suspended_default_name_and_parent() -> None:
    s = Session(simulated=False)
    s.load('process *b;\nact owner { b = sfStartBehavior(sfConstantVelocity, "", 0, 1, 0, 200.0); waitfor 0; }\n')
    s.ok("start owner")
    s.cycle(2)
    assert s("b->name") == ['"sfConstantVelocity" (string)']  # start's default: the Colbert name
    assert s.robot.scheduler.get("sfConstantVelocity").parent is s.robot.scheduler.get("owner")
    s.ok("succeed owner")
    s.cycle(2)
    assert s.state("sfConstantVelocity") == TaskState.INACTIVE  # ended with the activity that started it
    s.ok('process *t; t = sfStartBehavior(sfStop, "brief", 5, 3, 0)')
    s.ok('process *z; z = sfStartBehavior(sfStop, "later", 0, 3, 1)')
    assert s("sfSuspended(z)") == ["1 (int)"]
    seen = []
    for _ in range(6):
        seen.append(s.state("brief"))
        s.cycle()
    assert seen[:5] == [TaskState.INIT] + [TaskState.RESUME] * 4
    assert s.robot.scheduler.outcomes["brief"] == TaskState.TIMEOUT
    s.ok("sfResumeProcess(z)")
    s.cycle()
    assert s("sfSuspended(z)") == ["0 (int)"]


# ------------------------------------------------------------------------------------------ turn modifiers
def test_turn_modifier_constants_are_the_manuals_and_name_a_rule_modifier(tmp_path: Path) -> None:
    s = Session(simulated=False)
    assert s("sfVSLOWLY") == ["3.0 (float)"]
    assert s("sfSLOWLY") == ["4.0 (float)"]
    text = (
        "BeginBehavior {name}\nParams\nRules\n  If 1.0 Then Turn Left {modifier}\nInit\nUpdate\n"
        "Activity\n  Turn 1.0\nEndBehavior\n"
    )
    turns = {}
    for name, modifier in (("byname", "sfSLOWLY"), ("byword", "Slowly"), ("vslow", "sfVSLOWLY")):
        path = tmp_path / f"{name}.beh"
        path.write_text(text.format(name=name, modifier=modifier))
        run = Session(pose=(2500.0, 2500.0, 0.0))
        assert run.ev.load(path), run.lines
        run.ok(f"start {name} priority 1")
        run.cycle(20)
        assert run.sim is not None
        turns[name] = run.sim.true_pose.th
    assert turns["byname"] == turns["byword"]
    assert 0 < turns["vslow"] < turns["byname"]


# ------------------------------------------------------------------------------------------ files
def test_load_eval_file_is_load_as_a_function(tmp_path: Path) -> None:
    s = Session(simulated=False)
    s.ev.load_directory = tmp_path
    (tmp_path / "good.act").write_text("int loaded;\nloaded = 7;\n")
    (tmp_path / "bad.act").write_text("int x;\nx = ;\n")
    assert s('sfLoadEvalFile("good.act")') == ["0 (int)"]
    assert s.value("loaded") == 7
    assert s('sfLoadEvalFile("bad.act")') == [
        f"{tmp_path / 'bad.act'}:2:5: unexpected ';'; expected an expression",
        "    x = ;",
        "        ^",
        "-1 (int)",
    ]
    assert s.value("x") == 0  # what came before the error was loaded
    assert s('sfLoadEvalFile("none.act")') == [f"load: no such file: {tmp_path / 'none.act'}", "-1 (int)"]


def test_load_param_file_reconfigures_the_connected_robot(tmp_path: Path) -> None:
    s = Session(pose=(2000.0, 2500.0, 0.0))
    s.ok("move(300)")
    s.cycle(30)
    odo_x = s.robot.state.odo_x
    assert s("sfSonarBucket(15) != NULL") == ["1 (int)"]
    assert s('sfLoadParamFile("pion1m")') == ["0 (int)"]
    assert Path(s.robot.params.source).name == "pion1m.p"
    assert s("sfSonarBucket(7)") == ["NULL (sdata *)"]  # a Pioneer 1 has seven sonars
    assert s("sfSonarBucket(6) != NULL") == ["1 (int)"]
    s.cycle(3)
    assert s.robot.state.odo_x == pytest.approx(odo_x, abs=1.0)  # the odometric pose carried on
    s.ev.load_directory = tmp_path
    (tmp_path / "mine.p").write_text("RobotRadius 300\n")
    assert s('sfLoadParamFile("mine.p")') == ["0 (int)"]
    assert s.robot.params.robot_radius == 300
    (tmp_path / "broken.p").write_text("RobotRadius 300\nMaxVelocity fast\n")
    out = s('sfLoadParamFile("broken.p")')
    assert out[-1] == "-1 (int)"
    assert out[0].startswith(f"sfLoadParamFile: {tmp_path / 'broken.p'}:2")
    assert s.robot.params.robot_radius == 300  # unchanged by the failed load
    out = s('sfLoadParamFile("nonesuch")')
    assert out[0].startswith("sfLoadParamFile: no parameter file 'nonesuch'") and out[-1] == "-1 (int)"


# ------------------------------------------------------------------------------------------ messages, exit
def test_error_messages_are_marked() -> None:
    s = Session(simulated=False)
    assert s('sfErrMessage("sonar 3 is dead")') == ["error: sonar 3 is dead"]
    assert s('sfErrSMessage("sonar %d reads %.1f m", 3, 2.25)') == ["error: sonar 3 reads 2.2 m"]
    assert s('sfErrMessage("100% sure")') == ["error: 100% sure"]


def test_is_exited_is_set_by_exit() -> None:
    """``exit`` raises the flag; the activities are suspended first, so none commands the robot any more
    (leaving is not an error): the flag is for the prompt and for Python micro-tasks."""
    s = Session(simulated=False)
    s.load("int seen;\nact watch { waitfor sfIsExited; seen = 1; }\n")
    s.ok("start watch")
    s.cycle(3)
    assert (s("sfIsExited"), s.value("seen")) == (["0 (int)"], 0)
    s.ok("exit")
    s.cycle()
    assert s("sfIsExited") == ["1 (int)"]
    assert s.value("seen") == 0
    assert s('sfGetTaskState("watch") == sfSUSPEND') == ["1 (int)"]


# ------------------------------------------------------------------------------------------ floats
@pytest.mark.parametrize(
    ("typed", "printed"),
    [
        ("297.79", "297.79"),
        ("100.1 + 197.69", "297.79"),  # 297.78999999999996 in double precision
        ("sfNormAngle(-702.21)", "17.79"),
        ("1.1 * 270.71", "297.781"),
        ("0.1 + 0.2", "0.3"),
        ("1.0 / 3", "0.33333334"),
        ("2.5e-3", "0.0025"),
        ("-40.0 / 16", "-2.5"),
        ("16777217.0", "16777216.0"),  # beyond a C float's 24-bit mantissa
        ("1e20", "1e+20"),
        ("1e39", "inf"),
        ("sfNormAngle(-90.1)", "269.9"),
    ],
)
def test_floats_print_as_the_c_float_they_are(typed: str, printed: str) -> None:
    s = Session(simulated=False)
    assert s(typed) == [f"{printed} (float)"]


def test_traced_float_values_print_the_same_way() -> None:
    s = Session(simulated=False)
    s.load("float f;\nact sum\n{ f = 100.1 + 197.69;\n}\n")
    s.ok("trace sum")
    s.ok("start sum")
    s.cycle()
    assert s.lines == ["sum, line 1: f = 100.1 + 197.69  => 297.79", "sum: SUCCESS"]
