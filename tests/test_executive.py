"""The behavior executive's wiring: tasks, priorities, activity, goals, failures, control and the record.

The blend arithmetic itself is pinned in test_blend.py; here a real (unconnected) Robot runs its real
scheduler, reflector and setpoints, with small behaviors whose outputs the test sets directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    BehaviorDef,
    BehaviorError,
    FuzzyVars,
    NoParams,
    Rule,
    TurnDir,
    behavior,
    speed,
    turn_by,
)
from saphira.behavior.executive import GOAL_THRESHOLD, BehaviorExecutive, BehaviorTask
from saphira.client.motion import RotMode, TransMode
from saphira.core.tasks import Task, TaskError, TaskState
from saphira.robot import Robot


@dataclass(kw_only=True)
class KnobParams:
    turn: float = 0.0
    speed: float = 0.0


@dataclass
class Knobs(FuzzyVars[KnobParams]):
    """Everything a test may want a behavior to output, settable from outside."""

    a_turn: float = 1.0
    a_speed: float = 1.0
    goal: float = 0.0
    truth: float = 1.0
    fail: str = ""
    updates: int = 0
    inits: int = 0
    cycles_seen: list[int] | None = None


def update_knobs(ctx: BehaviorContext[KnobParams, Knobs]) -> None:
    """Count, and raise when told to."""
    ctx.v.updates += 1
    if ctx.v.fail:
        raise RuntimeError(ctx.v.fail)


def init_knobs(ctx: BehaviorContext[KnobParams, Knobs]) -> None:
    ctx.v.inits += 1


def knob_behavior(name: str = "knob") -> BehaviorDef[KnobParams, Knobs]:
    return behavior(
        name,
        params=KnobParams,
        vars=Knobs,
        init=init_knobs,
        update=update_knobs,
        rules=[
            Rule("Turn", when=lambda v: v.truth, then=turn_by(lambda v: v.p.turn)),
            Rule("Speed", when=lambda v: v.truth, then=speed(lambda v: v.p.speed)),
        ],
        activity=Activity(turn=lambda v: v.a_turn, speed=lambda v: v.a_speed, goal=lambda v: v.goal),
    )


KNOB = knob_behavior()


@pytest.fixture
def robot() -> Robot:
    return Robot()


def start(robot: Robot, turn: float = 0.0, spd: float = 0.0, **options: object) -> BehaviorTask[KnobParams, Knobs]:
    return robot.start_behavior(KNOB, turn, spd, **options)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- tasks
def test_a_behavior_is_a_task_in_the_behave_phase_of_the_process_list(robot: Robot) -> None:
    task = start(robot, 5.0, 200.0)
    assert isinstance(task, Task) and task.name == "knob" and task.priority == 0
    assert robot.scheduler.find("knob") is task
    assert ("behaviors", "behave") in [(n, ph) for n, ph, _, _ in robot.scheduler.process_list()]
    robot.step()
    assert ("knob", "behave", "RESUME") in [(n, ph, st) for n, ph, st, _ in robot.scheduler.process_list()]
    assert task.calls == 1 and task.cpu_ns > 0


def test_init_runs_once_at_start_and_update_every_cycle(robot: Robot) -> None:
    task = start(robot, suspended=True)
    assert (task.vars.inits, task.vars.updates) == (1, 0)
    robot.scheduler.resume(task)
    robot.run(cycles=3)
    assert (task.vars.inits, task.vars.updates) == (1, 3)


def test_instance_names_are_unique_and_an_explicit_duplicate_is_refused(robot: Robot) -> None:
    first, second = start(robot), start(robot)
    assert (first.name, second.name) == ("knob", "knob<2>")
    with pytest.raises(TaskError, match="already exists"):
        start(robot, name="knob")


def test_bad_start_options_are_refused(robot: Robot) -> None:
    with pytest.raises(BehaviorError, match="priority must be an integer >= 0"):
        start(robot, priority=-1)
    with pytest.raises(BehaviorError, match="timeout must be a number of cycles"):
        start(robot, timeout=1.5)
    with pytest.raises(BehaviorError, match="needs a behavior"):
        robot.start_behavior("knob")  # type: ignore[arg-type]
    assert robot.executive.behaviors == []


def test_the_behavior_starts_acting_in_the_cycle_it_was_started(robot: Robot) -> None:
    start(robot, 0.0, 250.0)
    robot.step()
    assert robot.motion.trans_mode is TransMode.VELOCITY and robot.motion.velocity == pytest.approx(250.0)


# ---------------------------------------------------------------------------- priorities and activity
def test_a_full_strength_higher_priority_masks_a_lower_one(robot: Robot) -> None:
    start(robot, 8.0, 100.0, priority=0)
    start(robot, -8.0, 400.0, priority=2)
    robot.step()
    assert robot.motion.velocity == pytest.approx(100.0)
    assert robot.motion.heading == pytest.approx(8.0)


def test_priority_is_read_every_cycle(robot: Robot) -> None:
    a = start(robot, 0.0, 100.0, priority=0)
    b = start(robot, 0.0, 400.0, priority=1)
    robot.step()
    assert robot.motion.velocity == pytest.approx(100.0)
    a.priority, b.priority = 3, 0
    robot.step()
    assert robot.motion.velocity == pytest.approx(400.0)


def test_a_behavior_with_zero_activity_does_not_mask_the_ones_below(robot: Robot) -> None:
    high = start(robot, 0.0, 100.0, priority=0)
    high.vars.a_speed = 0.0
    start(robot, 0.0, 400.0, priority=1)
    robot.step()
    assert robot.motion.velocity == pytest.approx(400.0)
    rec = robot.executive.last_record
    assert rec is not None and rec.result.levels[1].weight_speed == 1.0


def test_equal_priorities_share_by_activity(robot: Robot) -> None:
    start(robot, 0.0, 100.0, priority=1)
    start(robot, 0.0, 500.0, priority=1)
    robot.step()
    assert robot.motion.velocity == pytest.approx(300.0)  # two equal, separated triangles


# ---------------------------------------------------------------------------- goals, suspension, signals
def test_goal_above_point_eight_ends_the_behavior_in_success(robot: Robot) -> None:
    task = start(robot, 0.0, 100.0)
    task.vars.goal = GOAL_THRESHOLD
    robot.step()
    assert task.state == TaskState.RESUME  # 0.8 is not more than 0.8
    task.vars.goal = 0.81
    robot.step()
    assert task.state == TaskState.SUCCESS
    rec = robot.executive.last_record
    assert rec is not None and rec.succeeded == ("knob",) and rec.ran == ("knob",)
    robot.run(cycles=2)
    assert robot.scheduler.outcomes["knob"] == TaskState.SUCCESS
    assert robot.executive.behaviors == []
    assert task.vars.updates == 2  # it no longer runs


def test_suspended_behaviors_are_left_out_until_resumed(robot: Robot) -> None:
    start(robot, 0.0, 100.0, priority=2, name="slow")
    fast = start(robot, 0.0, 400.0, priority=0, name="fast", suspended=True)
    robot.step()
    rec = robot.executive.last_record
    assert rec is not None and rec.ran == ("slow",)
    assert robot.motion.velocity == pytest.approx(100.0) and fast.vars.updates == 0
    robot.scheduler.resume(fast)
    robot.step()
    assert robot.motion.velocity == pytest.approx(400.0)
    robot.scheduler.suspend(fast, 2)  # suspended for two cycles
    robot.run(cycles=2)
    assert robot.motion.velocity == pytest.approx(100.0)
    robot.step()
    assert robot.motion.velocity == pytest.approx(400.0)


def test_an_interrupted_behavior_suspends_itself(robot: Robot) -> None:
    task = start(robot, 0.0, 400.0)
    robot.step()
    robot.scheduler.interrupt(task)
    robot.step()
    assert task.state == TaskState.SUSPEND
    rec = robot.executive.last_record
    assert rec is not None and rec.ran == ()


def test_signals_to_a_parent_reach_its_behaviors_and_its_end_removes_them(robot: Robot) -> None:
    parent = robot.scheduler.add(lambda state: state if state != TaskState.INIT else 20, "activity")
    child = start(robot, 0.0, 300.0, parent=parent)
    robot.step()
    robot.scheduler.interrupt(parent)
    robot.step()
    assert child.suspended
    robot.scheduler.resume(parent)
    robot.step()
    assert child.active
    robot.scheduler.succeed(parent)
    robot.step()
    assert child.state == TaskState.REMOVE
    robot.step()
    assert robot.executive.behaviors == []


def test_a_timeout_ends_the_behavior(robot: Robot) -> None:
    task = start(robot, timeout=3)
    robot.run(cycles=3)
    assert task.state == TaskState.TIMEOUT and task.vars.updates == 3


# ---------------------------------------------------------------------------- failures
def test_a_failing_update_fails_only_that_behavior(robot: Robot) -> None:
    failed: list[Task] = []
    robot.scheduler.on_task_failed.connect(failed.append)
    bad = start(robot, 0.0, 100.0, priority=0, name="bad")
    start(robot, 0.0, 300.0, priority=1, name="good")
    bad.vars.fail = "sonar on fire"
    robot.step()
    assert bad.state == TaskState.FAILURE and failed == [bad]
    assert isinstance(bad.error, RuntimeError)
    assert bad.error_message is not None
    assert "behavior 'bad' failed in update: RuntimeError: sonar on fire" in bad.error_message
    assert "test_executive.py" in bad.error_message
    rec = robot.executive.last_record
    assert rec is not None and rec.failed == ("bad",) and rec.ran == ("good",)
    assert robot.motion.velocity == pytest.approx(300.0)
    robot.step()
    assert robot.scheduler.find("good") is not None


def test_a_non_finite_truth_fails_the_behavior_not_the_blend(robot: Robot) -> None:
    bad = start(robot, 0.0, 100.0, name="bad")
    bad.vars.truth = math.nan
    start(robot, 0.0, 300.0, priority=1, name="good")
    robot.step()
    assert bad.state == TaskState.FAILURE
    assert bad.error_message is not None and "rule 'Turn' has truth nan" in bad.error_message
    assert robot.motion.velocity == pytest.approx(300.0)


def test_a_failing_init_ends_the_new_instance_in_failure() -> None:
    def init(ctx: BehaviorContext[NoParams, FuzzyVars[NoParams]]) -> None:
        raise ValueError("no goal")

    broken = behavior("broken", params=NoParams, vars=FuzzyVars, init=init, update=lambda ctx: None, rules=[], doc="")
    robot = Robot()
    task = robot.start_behavior(broken)
    assert task.state == TaskState.FAILURE
    assert task.error_message is not None and "failed in init: ValueError: no goal" in task.error_message
    robot.step()
    assert robot.executive.last_record is not None and robot.executive.last_record.ran == ()


# ---------------------------------------------------------------------------- control of the setpoints
def test_with_behavior_control_off_behaviors_run_but_do_not_drive(robot: Robot) -> None:
    task = start(robot, 5.0, 300.0)
    robot.motion.behavior_control = False
    robot.step()
    rec = robot.executive.last_record
    assert rec is not None and rec.ran == ("knob",) and task.vars.updates == 1
    assert rec.result.speed == pytest.approx(300.0)
    assert not rec.turn_written and not rec.speed_written
    assert robot.motion.trans_mode is TransMode.NONE and robot.motion.rot_mode is RotMode.NONE
    robot.motion.behavior_control = True
    robot.step()
    assert robot.motion.velocity == pytest.approx(300.0)


def test_direct_motion_takes_its_channel_from_the_behaviors(robot: Robot) -> None:
    start(robot, 5.0, 300.0)
    robot.motion.set_velocity(50.0)
    robot.step()
    rec = robot.executive.last_record
    assert rec is not None and not rec.speed_written and rec.turn_written
    assert robot.motion.velocity == pytest.approx(50.0)
    assert robot.motion.heading == pytest.approx(5.0)
    robot.motion.release()
    robot.step()
    assert robot.motion.velocity == pytest.approx(300.0)


def test_a_channel_without_a_preference_leaves_its_setpoint_alone(robot: Robot) -> None:
    robot.motion.set_heading(40.0)
    robot.motion.release()
    task = start(robot, 0.0, 200.0)
    task.vars.a_turn = 0.0  # speaks on the speed channel only
    robot.step()
    rec = robot.executive.last_record
    assert rec is not None and rec.result.turn is None and not rec.turn_written
    assert robot.motion.rot_mode is RotMode.HEADING and robot.motion.heading == pytest.approx(40.0)
    assert robot.motion.velocity == pytest.approx(200.0)


def test_no_behaviors_no_setpoints(robot: Robot) -> None:
    robot.run(cycles=2)
    rec = robot.executive.last_record
    assert rec is not None and rec.ran == () and rec.result.turn is None and rec.result.speed is None
    assert robot.motion.trans_mode is TransMode.NONE and robot.motion.rot_mode is RotMode.NONE


# ---------------------------------------------------------------------------- the record
def test_the_record_says_why_the_robot_turned(robot: Robot) -> None:
    a = start(robot, 8.0, 0.0, priority=0, name="avoid")
    a.vars.truth = 0.6
    start(robot, -4.0, 300.0, priority=1, name="goto")
    robot.step()
    rec = robot.executive.last_record
    assert rec is not None and rec.cycle == 0 and rec.ran == ("avoid", "goto")
    avoid, goto = rec.result.behaviors
    assert (avoid.name, avoid.priority, avoid.rule_names, avoid.rule_truths) == (
        "avoid",
        0,
        ("Turn", "Speed"),
        (0.6, 0.6),
    )
    assert (avoid.preferred_turn, avoid.preferred_speed) == pytest.approx((8.0, 0.0), abs=1e-9)
    assert (goto.preferred_turn, goto.preferred_speed) == pytest.approx((-4.0, 300.0), abs=1e-9)
    assert rec.result.levels[1].weight_turn == pytest.approx(0.4)
    assert rec.result.turn is not None and -4.0 < rec.result.turn < 8.0
    assert rec.turn_written and rec.speed_written
    text = rec.explain()
    assert "p0 avoid" in text and "Turn 0.60" in text and "p1 goto" in text and "[centroid]" in text
    assert a.rule_truths == (0.6, 0.6) and a.activity_turn == 1.0


def test_the_defuzzification_method_is_selectable() -> None:
    robot = Robot()
    executive: BehaviorExecutive = robot.executive
    assert executive.method == "centroid"
    executive.method = "mom"
    start(robot, 3.0, 200.0)
    robot.step()
    rec = executive.last_record
    assert rec is not None and rec.result.method == "mom" and rec.result.turn == pytest.approx(3.0)
    with pytest.raises(ValueError, match="unknown defuzzification method 'median'"):
        executive.method = "median"


def test_behaviors_share_the_preferred_turn_direction(robot: Robot) -> None:
    def update(ctx: BehaviorContext[NoParams, FuzzyVars[NoParams]]) -> None:
        ctx.preferred_turn_dir = TurnDir.RIGHT

    setter = behavior("setter", params=NoParams, vars=FuzzyVars, update=update, rules=[])
    assert robot.executive.preferred_turn_dir is TurnDir.LEFT
    robot.start_behavior(setter)
    robot.step()
    after: TurnDir = robot.executive.preferred_turn_dir
    assert after is TurnDir.RIGHT


def test_the_context_shows_the_robot_and_the_instance(robot: Robot) -> None:
    seen: list[tuple[object, ...]] = []

    def update(ctx: BehaviorContext[KnobParams, Knobs]) -> None:
        seen.append((ctx.name, ctx.p.speed, ctx.robot is robot.state, ctx.sonar is robot.sonar, ctx.cycle))
        assert ctx.pointlist is robot.reflector.pointlist and ctx.motion is robot.motion
        assert ctx.robot_radius == robot.params.robot_radius and ctx.robot_params is robot.params

    looker = behavior("looker", params=KnobParams, vars=Knobs, update=update, rules=[])
    robot.start_behavior(looker, speed=120.0, name="eyes")
    robot.run(cycles=2)
    assert seen == [("eyes", 120.0, True, True, 0), ("eyes", 120.0, True, True, 1)]


def test_the_robot_stops_when_its_last_behavior_ends() -> None:
    from saphira.behavior.library import find_behavior
    from saphira.robot import Robot

    robot = Robot()
    robot.start_behavior(find_behavior("sfConstantVelocity"), 300.0, timeout=5)
    robot.run(cycles=3)
    assert robot.motion.velocity == 300.0
    robot.run(cycles=5)  # timed out: nothing runs any more
    assert robot.motion.velocity == 0.0
    assert robot.motion.heading == pytest.approx(robot.motion.pose.th)
