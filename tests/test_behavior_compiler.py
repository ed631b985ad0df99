""".beh behaviors compiled into BehaviorDef objects (docs/colbert.md §10): they drive the robot exactly as their
Python twins do, and their rules, Init/Update code, activity and parameters compile as the manual reads."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from saphira.app.check import check_file, check_files
from saphira.behavior.behavior import (
    ActionKind,
    Activity,
    BehaviorContext,
    BehaviorDef,
    BehaviorError,
    FuzzyVars,
    Rule,
    TurnDir,
    behavior,
    down_straight,
    f_not,
    f_or,
    speed,
    straight_up,
    turn_left,
    turn_right,
)
from saphira.behavior.executive import BehaviorTask, ExecutiveRecord
from saphira.behavior.library import find_behavior
from saphira.client.artifacts import Point, create_local_point
from saphira.colbert.beh.compiler import (
    BehaviorArguments,
    BehaviorFrame,
    check_behavior_text,
    compile_behavior_text,
)
from saphira.colbert.compile.symbols import ColbertCompileError
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import point_dist, point_phi
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator

BEHAVIORS = Path(__file__).resolve().parents[1] / "behaviors"


class Session:
    """A robot (simulated or not) with a Colbert environment whose output is collected."""

    def __init__(self, simulated: bool = False, pose: tuple[float, float, float] = (1500.0, 3000.0, 0.0)) -> None:
        self.robot = Robot()
        self.sim: EmbeddedSim | None = None
        if simulated:
            self.sim = attach_simulator(self.robot, "room", "p3dx", seed=0, odometry_error=False, pose=pose)
        self.lines: list[str] = []
        self.ev = Evaluator(self.robot, output=self.lines.append, read_init=False)

    def compile(self, text: str, filename: str = "test.beh") -> dict[str, BehaviorDef[Any, Any]]:
        return {d.name: d for d in compile_behavior_text(text, filename, self.ev)}

    def start(self, defn: BehaviorDef[Any, Any], *args: object, **kw: Any) -> BehaviorTask[Any, Any]:
        return self.robot.start_behavior(defn, *args, **kw)

    def run_once(self) -> ExecutiveRecord:
        return self.robot.executive.run_once()

    def do(self, text: str) -> None:
        assert self.ev.eval_text(text, "test.act", interactive=False), self.lines


def record_key(record: ExecutiveRecord | None) -> tuple[Any, ...]:
    """Everything in an executive record, numpy sets as lists, so that two records compare with ==."""
    assert record is not None
    r = record.result
    blend = (r.turn, r.speed, r.method, r.behaviors, r.levels, r.turn_set.tolist(), r.speed_set.tolist())
    return (record.cycle, record.ran, blend, record.turn_written, record.speed_written, record.succeeded, record.failed)


def drive(session: Session, cycles: int, until: Callable[[], bool] | None = None) -> tuple[list[Any], list[Any]]:
    """Step the robot; the true pose and the executive's record after every cycle."""
    assert session.sim is not None
    poses: list[tuple[float, float, float]] = []
    records: list[tuple[Any, ...]] = []
    for _ in range(cycles):
        session.robot.step()
        pose = session.sim.true_pose
        poses.append((pose.x, pose.y, pose.th))
        records.append(record_key(session.robot.executive.last_record))
        if until is not None and until():
            break
    return poses, records


# ------------------------------------------------------------------------------------------ identical driving
def test_the_beh_constant_velocity_and_stop_drive_exactly_like_the_python_ones() -> None:
    """Same world, seed, pose and obstacle behaviors; only sfConstantVelocity and sfStop change source."""

    def scenario(from_beh: bool) -> tuple[list[Any], list[Any], Session]:
        s = Session(simulated=True, pose=(2000.0, 2000.0, 30.0))
        if from_beh:
            assert s.ev.load(BEHAVIORS / "basic.beh"), s.lines
        cv = s.ev.value("sfConstantVelocity")
        stop = s.ev.value("sfStop")
        assert isinstance(cv.make_vars(), BehaviorFrame) is from_beh
        s.start(find_behavior("avoid_collision"), name="avoid", priority=0)
        s.start(find_behavior("keep_off"), name="keep off", priority=1)
        s.start(cv, 300.0, name="cruise", priority=2)
        s.start(stop, name="stop", priority=3)
        poses, records = drive(s, 300)
        return poses, records, s

    python_poses, python_records, _ = scenario(False)
    beh_poses, beh_records, s = scenario(True)
    assert beh_poses == python_poses
    assert beh_records == python_records
    # The run is not trivial: the robot cruised, met walls, turned away and never touched one.
    xs, _, ths = zip(*python_poses, strict=True)
    assert max(xs) - min(xs) > 2500
    assert max(ths) - min(ths) > 90
    assert any(record[2][1] is not None and record[2][1] < 250 for record in python_records)  # slowed down
    assert s.sim is not None and s.sim.wall_contacts == 0


def test_starting_them_from_colbert_gives_the_same_run() -> None:
    def scenario(from_beh: bool) -> tuple[list[Any], list[Any]]:
        s = Session(simulated=True, pose=(1500.0, 1500.0, 45.0))
        if from_beh:
            s.do(f"load {BEHAVIORS / 'basic.beh'}")
        s.do(
            "sfPreferredTurnDir = sfLEFTTURN;\n"
            "start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) iname avoid priority 0;\n"
            "start sfConstantVelocity(250) iname cruise priority 2;\n"
            "start sfStop iname idle priority 3;\n"
        )
        result = drive(s, 200)
        assert s.lines == []
        return result

    assert scenario(True) == scenario(False)


GO_TO_PYTHON_RADIUS = 150.0


@dataclass(kw_only=True)
class GoToParams:
    goal_pt: Point
    radius: float


@dataclass
class GoToVars(FuzzyVars[GoToParams]):
    too_left: float = 0.0
    too_right: float = 0.0
    near_goal: float = 0.0


def update_go_to(ctx: BehaviorContext[GoToParams, GoToVars]) -> None:
    """Listing 5.2's Update, in Python."""
    p, v = ctx.p, ctx.v
    phi = point_phi(p.goal_pt)
    dist = point_dist(p.goal_pt)
    v.too_right = straight_up(phi, 10.0, 30.0)
    v.too_left = down_straight(phi, -30.0, -10.0)
    v.near_goal = down_straight(dist, p.radius, 2.0 * p.radius)


def blocked(v: GoToVars) -> float:
    return f_or(f_or(v.near_goal, v.too_left), v.too_right)


PYTHON_GO_TO = behavior(
    "myGoto",
    params=GoToParams,
    vars=GoToVars,
    update=update_go_to,
    rules=[
        Rule("Goal right", when=lambda v: v.too_left, then=turn_right()),
        Rule("Goal left", when=lambda v: v.too_right, then=turn_left()),
        Rule("Go", when=lambda v: f_not(blocked(v)), then=speed(200.0)),
        Rule("Wait", when=blocked, then=speed(0.0)),
    ],
    activity=Activity(
        turn=lambda v: f_not(v.near_goal), speed=lambda v: f_not(v.near_goal), goal=lambda v: v.near_goal
    ),
)


def test_listing_5_2_in_the_grammar_drives_exactly_like_its_python_twin_to_success() -> None:
    def scenario(from_beh: bool) -> tuple[list[Any], list[Any], BehaviorTask[Any, Any]]:
        s = Session(simulated=True, pose=(1500.0, 1500.0, 0.0))
        if from_beh:
            assert s.ev.load(BEHAVIORS / "go_to.beh"), s.lines
        defn = s.ev.value("myGoto") if from_beh else PYTHON_GO_TO
        goal = create_local_point(s.robot.state.global_pose, 2500.0, 2000.0, 0.0)  # 2.5 m ahead, 2 m left
        s.robot.reflector.pointlist.add(goal)
        task = s.start(defn, goal, GO_TO_PYTHON_RADIUS, name="go", priority=1)
        s.start(find_behavior("stop"), name="stop", priority=3)
        result = drive(s, 400, until=lambda: task.finished)
        assert point_dist(goal) < 1.2 * GO_TO_PYTHON_RADIUS
        return *result, task

    python_poses, python_records, python_task = scenario(False)
    beh_poses, beh_records, beh_task = scenario(True)
    assert python_task.state == beh_task.state == TaskState.SUCCESS
    assert beh_poses == python_poses
    assert beh_records == python_records
    assert beh_records[-1][5] == ("go",)  # succeeded on the same, last cycle
    assert 30 < len(beh_poses) < 400
    assert beh_poses[-1][2] > 25.0  # it turned left towards the goal on the way


def test_a_blocking_start_of_a_beh_behavior_waits_for_its_goal() -> None:
    s = Session(simulated=True, pose=(1500.0, 1500.0, 0.0))
    s.do(
        f"load {BEHAVIORS / 'go_to.beh'}\n"
        "int done;\npoint *goal;\n"
        "act go { start myGoto(goal, 120) priority 1 iname going; done = 1; }\n"
        "goal = sfCreateLocalPoint(1500.0, -500.0, 0.0);\nsfAddPoint(goal);\n"
        "start sfStop priority 3;\nstart go;\n"
    )
    goal = s.ev.value("goal")
    distances = []
    for _ in range(300):
        s.robot.step()
        distances.append(point_dist(goal))
        if s.ev.value("done"):
            break
    assert s.ev.value("done") == 1
    # The act went on once the behavior had reached its goal (seen one cycle late, as every sensor reading is).
    assert distances[-1] < 1.2 * 120
    assert sum(d < 1.2 * 120 for d in distances) <= 2
    assert s.lines == []


# ------------------------------------------------------------------------------------------ the compiler
def test_turn_rules_with_every_modifier() -> None:
    s = Session()
    defs = s.compile(
        """BeginBehavior turns
Params
  sfFLOAT gain
Rules
  "vs" If 1.0 Then Turn Left Very Slowly
  "s"  If 1.0 Then Turn Right slowly
  "m"  If 1.0 Then Turn Left Moderately
  "sh" If 1.0 Then Turn Right Sharply
  "vh" If 1.0 Then Turn Left Very Sharply
  "d"  If 1.0 Then Turn Right
  "g"  If 1.0 Then Turn Left gain
  "p"  If 1.0 Then Turn sfPreferredTurnDir Sharply
  "v"  If 1.0 Then Turn way amount
Init
  way = -1; amount = 2.5;
Update
Activity
  Turn 1.0
EndBehavior
"""
    )
    task = s.start(defs["turns"], 7.0)
    s.robot.executive.preferred_turn_dir = TurnDir.RIGHT
    s.run_once()
    recommended = [rule.consequent(task.vars, 0.0).value for rule in defs["turns"].compiled_rules]
    assert recommended == [3.0, -4.0, 6.0, -8.0, 10.0, -6.0, 7.0, -8.0, -2.5]
    assert all(rule.kind is ActionKind.TURN for rule in defs["turns"].compiled_rules)
    assert defs["turns"].rule_names == ("vs", "s", "m", "sh", "vh", "d", "g", "p", "v")
    s.robot.executive.preferred_turn_dir = TurnDir.LEFT
    assert defs["turns"].compiled_rules[7].consequent(task.vars, 0.0).value == 8.0
    # Constant actions are fixed once, as for the Python API; variable ones are evaluated per cycle.
    assert [rule.fixed is not None for rule in defs["turns"].compiled_rules] == [True] * 6 + [False] * 3


def test_fuzzy_connectives_and_constant_folding() -> None:
    s = Session()
    defs = s.compile(
        """BeginBehavior logic
Params
  sfFLOAT a
  sfFLOAT b
Rules
  If a And b Then Speed 1
  If a Or b Then Speed 2
  If Not a Then Speed 3
  If Not (a Or b) And 0.5 Then Speed 4
  If a Or b And Not b Then Speed 5
  If ((a)) Then Speed -6.5
  If Not 0.25 Then Speed c
  If 0.2 Or 0.7 And 0.4 Then Speed 8
Init
Update
  c = a * 100.0;
Activity
  Speed 1
EndBehavior
"""
    )
    defn = defs["logic"]
    a, b = 0.3, 0.8
    task = s.start(defn, a, b)
    s.run_once()
    expected = [min(a, b), max(a, b), 1 - a, min(1 - max(a, b), 0.5), max(a, min(b, 1 - b)), a, 0.75, 0.4]
    assert task.rule_truths == pytest.approx(expected, abs=0, rel=0)
    assert [rule.when for rule in defn.rules][6:] == [0.75, 0.4]  # folded at compile time
    speeds = [rule.consequent(task.vars, 0.0).value for rule in defn.compiled_rules]
    assert speeds == [1.0, 2.0, 3.0, 4.0, 5.0, -6.5, a * 100.0, 8.0]


COUNTER = """BeginBehavior counter
Params
  sfFLOAT step
  sfPTR   where
Rules
  "Hot" If hot Then Speed step
Init
  int count;
  point *p;
  count = 10;
  p = where;
  calls = calls + 1;
Update
  float speed_now;
  count = count + 1;
  speed_now = sfRobot.vel;
  if (count > 11) { hot = f_greater(count, 11, 2); } else hot = 0.0;
  step = step * 2;
  xsum = xsum + p->x;
  total = total + count;
Activity
  Speed hot
  Progress Not hot
EndBehavior
"""


def test_init_and_update_are_colbert_code_with_instance_variables() -> None:
    s = Session()
    s.do("int calls; int total; float xsum;")
    defn = s.compile(COUNTER)["counter"]
    first = s.start(defn, 100, Point(x=5.0), name="first")
    second = s.start(defn, 1.5, Point(x=-1.0), name="second")
    assert s.ev.value("calls") == 2  # Init ran once per instance, at start
    for _ in range(3):
        s.run_once()
    v = first.vars
    assert isinstance(v, BehaviorFrame) and isinstance(first.params, BehaviorArguments)
    assert v.count == 13 and second.vars.count == 13
    assert v.hot == 1.0 and v.speed_now == 0.0
    assert v.step == 800.0 and second.vars.step == 12.0  # each instance changes its own copy
    assert first.params.step == 100.0 and first.params["where"].x == 5.0
    assert s.ev.value("xsum") == 3 * 5.0 + 3 * -1.0
    assert s.ev.value("total") == 2 * (11 + 12 + 13)
    assert first.progress == 0.0 and first.activity_speed == 1.0
    assert set(v.variables()) == {"step", "where", "hot", "count", "p", "speed_now"}


def test_activity_settings_and_goal_success() -> None:
    s = Session()
    defn = s.compile(
        """BeginBehavior settle
Params
  sfFLOAT rate
Rules
Init
Update
  level = level + rate;
Activity
  Turn 0.25
  Speed Not level
  Goal level
  Progress level And 0.5
EndBehavior

BeginBehavior idle
Params
Rules
Init
Update
Activity
EndBehavior
"""
    )
    task = s.start(defn["settle"], 0.3)
    idle = s.start(defn["idle"])
    outcomes = [s.run_once() for _ in range(3)]
    assert (task.activity_turn, task.activity_speed, task.goal, task.progress) == pytest.approx((0.25, 0.1, 0.9, 0.5))
    assert [o.succeeded for o in outcomes] == [(), (), ("settle",)]
    assert task.state == TaskState.SUCCESS
    assert (idle.activity_turn, idle.activity_speed, idle.goal, idle.progress) == (0.0, 0.0, 0.0, 0.0)
    assert idle.active


def test_parameters_are_given_by_position_and_checked() -> None:
    s = Session()
    s.do("int calls; int total; float xsum;")
    defn = s.compile(COUNTER)["counter"]
    assert [(p.name, p.kind.value) for p in defn.params] == [("step", "sfFLOAT"), ("where", "sfPTR")]
    assert defn.signature() == "counter(step, where)"
    task = s.start(defn, 3, Point(x=1.0))
    assert task.params.step == 3.0 and isinstance(task.params.step, float)
    with pytest.raises(BehaviorError, match=r"counter takes 2 parameters \(step, where\), got 3"):
        s.start(defn, 1.0, Point(), 2.0)
    with pytest.raises(BehaviorError, match=r"parameter 2 \(where\) is required"):
        s.start(defn, 1.0)
    with pytest.raises(BehaviorError, match=r"parameter 1 \(step\) must be a number"):
        s.start(defn, "fast", Point())
    with pytest.raises(BehaviorError, match=r"parameter 2 \(where\) must be given \(sfPTR\)"):
        s.start(defn, 1.0, None)
    assert s.start(defn, where=Point(), step=2.0, name="by name").params.step == 2.0


def test_loaded_behaviors_are_started_from_colbert_with_arguments_and_priority() -> None:
    s = Session()
    path = BEHAVIORS / "go_to.beh"
    s.do(f"load {path}\npoint *g;\ng = sfCreateLocalPoint(1000.0, 0.0, 0.0);\nstart myGoto(g, 100) priority 4;")
    task = s.robot.scheduler.get("myGoto")
    assert isinstance(task, BehaviorTask) and task.priority == 4
    assert task.params.radius == 100.0 and task.params.goal_pt is s.ev.value("g")
    s.run_once()
    assert task.vars.near_goal == 0.0 and task.vars.dist == pytest.approx(1000.0)
    s.ev.eval_text("help myGoto")
    assert any("myGoto(sfPTR goal_pt, sfFLOAT radius)" in line and "go_to.beh:7" in line for line in s.lines)


# ------------------------------------------------------------------------------------------ errors
def where(text: str, needle: str) -> tuple[int, int]:
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


SKELETON = """BeginBehavior b
Params
  sfFLOAT gain
  sfPTR goal
Rules
  {rules}
Init
  {init}
Update
  {update}
Activity
  {activity}
EndBehavior
"""


@pytest.mark.parametrize(
    ("parts", "needle", "message"),
    [
        ({"rules": "If too_near Then Speed 0"}, "too_near", "unknown fuzzy variable 'too_near'"),
        ({"activity": "Goal Not arrived"}, "arrived", "unknown fuzzy variable 'arrived'"),
        ({"rules": "If 1.0 Then Speed velocty"}, "velocty", "unknown fuzzy variable 'velocty'"),
        ({"rules": "If 1.0 Then Turn Left amount"}, "amount", "unknown fuzzy variable 'amount'"),
        ({"rules": "If goal Then Speed 0"}, "goal Then", "'goal' is a pointer (sfPTR), but a fuzzy truth must be"),
        ({"rules": "If 1.0 Then Speed sfLoadDirectory"}, "sfLoadDirectory", "of type string, but a speed (Speed)"),
        ({"rules": "If 1 Then Turn sfRobot"}, "sfRobot", "'sfRobot' is of type robot, but a turn direction"),
        ({"update": 'near = "close";'}, '"close"', "cannot convert string to float (assignment to 'near')"),
        ({"update": "near = 0.5; phi = sfPointPhi(goal);"}, "phi", "unknown name 'phi'"),
        ({"init": "sfNoSuchThing(1);"}, "sfNoSuchThing", "unknown function 'sfNoSuchThing'"),
        ({"update": "near = straight_up(gain, 1);"}, "straight_up", "'straight_up' takes 3 arguments, 2 given"),
        ({"update": "int gain;"}, "gain;", "'gain' is declared twice in behavior 'b' (first at line 3)"),
        ({"update": "float x; near = goal->x;"}, "goal->x", "cannot use '->x' on a generic ptr"),
    ],
)
def test_compile_errors_name_the_place(parts: dict[str, str], needle: str, message: str) -> None:
    fields = {"rules": "If near Then Speed gain", "init": "", "update": "near = 0.5;", "activity": "Speed near"}
    text = SKELETON.format(**(fields | parts))
    s = Session()
    with pytest.raises(ColbertCompileError) as info:
        s.compile(text, "errors.beh")
    line, column = where(text, needle)
    assert (info.value.file, info.value.line, info.value.column) == ("errors.beh", line, column)
    assert message in info.value.message
    assert str(info.value).startswith(f"errors.beh:{line}:{column}: ")


def test_a_parameter_name_the_executive_reserves_is_reported_at_the_parameter() -> None:
    text = "BeginBehavior b\nParams\n  sfFLOAT name\nRules\nInit\nUpdate\nActivity\nEndBehavior\n"
    with pytest.raises(ColbertCompileError) as info:
        Session().compile(text)
    assert (info.value.line, info.value.column) == (3, 11)
    assert "clash with start_behavior options" in info.value.message


def test_check_reports_every_error_of_a_file(tmp_path: Path) -> None:
    text = (
        SKELETON.format(rules="If nearr Then Speed gain", init="", update="", activity="Turn gone")
        + SKELETON.format(rules="", init="x = 1;", update="", activity="")
        + "BeginBehavior ok\nParams\nRules\nInit\nUpdate\nActivity\nEndBehavior\n"
    )
    path = tmp_path / "many.beh"
    path.write_text(text)
    s = Session()
    errors = check_file(path, s.ev)
    second = text.count("\n", 0, text.index("BeginBehavior b", 10)) + 1
    assert [(e.line, e.column) for e in errors] == [
        where(text, "nearr"),
        where(text, "gone"),
        (second, 1),
        where(text, "x = 1"),
    ]
    assert "behavior 'b' is defined twice in this file (first at line 1)" in errors[2].message
    assert "unknown name 'x'" in errors[3].message
    out: list[str] = []
    assert check_files([path, BEHAVIORS / "basic.beh", BEHAVIORS / "go_to.beh"], out.append) == 1
    assert out[-1] == "4 errors in 1 of 3 files"
    assert f"{path}:6:6: unknown fuzzy variable 'nearr'" in out[0]
    assert check_behavior_text("BeginBehavior\n", "bad.beh", s.ev)[0].line == 1  # syntax errors come first


def test_a_failed_load_reports_file_line_column_and_keeps_what_came_before(tmp_path: Path) -> None:
    path = tmp_path / "two.beh"
    good = "BeginBehavior first\nParams\nRules\nInit\nUpdate\nActivity\n  Speed 1\nEndBehavior\n"
    path.write_text(good + SKELETON.format(rules="If what Then Speed 1", init="", update="", activity=""))
    s = Session()
    assert not s.ev.load(path)
    assert s.lines[0] == f"{path}:14:6: unknown fuzzy variable 'what': it is not a parameter of 'b', not declared " + (
        "in Init or Update, not a global, and neither Init nor Update assigns it"
    )
    assert s.lines[1:] == ["      If what Then Speed 1", "         ^"]
    assert isinstance(s.ev.value("first"), BehaviorDef)
    with pytest.raises(KeyError):
        s.ev.value("b")


def test_a_behavior_may_not_take_the_name_of_a_function_but_may_replace_a_behavior(tmp_path: Path) -> None:
    path = tmp_path / "clash.beh"
    path.write_text("BeginBehavior sfSetVelocity\nParams\nRules\nInit\nUpdate\nActivity\nEndBehavior\n")
    s = Session()
    assert not s.ev.load(path)
    assert s.lines[0].startswith(f"{path}:1:1: cannot define behavior 'sfSetVelocity': the name is already a function")
    python_stop = s.ev.value("sfStop")
    assert s.ev.load(BEHAVIORS / "basic.beh")
    assert s.ev.value("sfStop") is not python_stop and s.ev.value("sfStop").rule_names == python_stop.rule_names


def test_a_runtime_error_in_update_fails_only_that_behavior_with_its_line() -> None:
    s = Session()
    defs = s.compile(
        "BeginBehavior divide\nParams\n  sfFLOAT d\nRules\nInit\nUpdate\n  int n;\n\n  n = 10 / d;\n"
        "Activity\n  Speed 1\nEndBehavior\n",
        "divide.beh",
    )
    cruise = s.start(find_behavior("constant_velocity"), 200.0, priority=2)
    good = s.start(defs["divide"], 5.0, name="good")
    bad = s.start(defs["divide"], 0.0, name="bad")
    record = s.run_once()
    assert record.failed == ("bad",)
    assert bad.state == TaskState.FAILURE and good.active and cruise.active
    assert bad.error_message is not None
    assert "behavior 'bad' failed in update: BehaviorCodeError: divide.beh:9: division by zero" in bad.error_message
    assert good.vars.n == 2
    assert math.isclose(s.run_once().result.speed or 0.0, 200.0)
