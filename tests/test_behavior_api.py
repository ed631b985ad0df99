"""The Python behavior definition API (saphira.behavior.behavior) and the behavior library.

Definitions are checked through what the executive does with them (a Robot that is not connected:
its reflector and setpoints are real, nothing is sent), and the library on real files.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pytest

from saphira.behavior.behavior import (
    REQUIRED,
    Action,
    Activity,
    BehaviorContext,
    BehaviorDef,
    BehaviorError,
    FuzzyVars,
    NoParams,
    ParamKind,
    ParamSpec,
    Rule,
    TurnDir,
    TurnModifier,
    accel,
    behavior,
    decel,
    down_straight,
    f_not,
    go_straight,
    param,
    param_specs,
    speed,
    straight_up,
    turn,
    turn_by,
    turn_left,
    turn_right,
)
from saphira.behavior.blend import turn_left as blend_turn_left
from saphira.behavior.library import (
    SAPHIRA_NAMES,
    BehaviorLoadError,
    find_behavior,
    load_behavior_file,
    load_behavior_folder,
    predefined_behaviors,
)
from saphira.client.artifacts import Corridor, Door, Point, create_local_point
from saphira.core.errors import SourceError
from saphira.core.geometry import point_dist, point_phi
from saphira.robot import Robot


# ---------------------------------------------------------------------------- the module docstring's example
@dataclass(kw_only=True)
class GoToParams:
    speed: Annotated[float, "mm/s"] = 200.0
    goal: Annotated[Point, "the goal point artifact"]
    radius: Annotated[float, "success radius, mm"] = 100.0


@dataclass
class GoToVars(FuzzyVars[GoToParams]):
    too_left: float = 0.0
    too_right: float = 0.0
    near_goal: float = 0.0


def update_goto(ctx: BehaviorContext[GoToParams, GoToVars]) -> None:
    """Go to a goal (Listing 5.2)."""
    v, phi = ctx.v, point_phi(ctx.p.goal)
    v.too_right = straight_up(phi, 10.0, 30.0)
    v.too_left = down_straight(phi, -30.0, -10.0)
    v.near_goal = down_straight(point_dist(ctx.p.goal), 0.0, 5.0 * ctx.p.radius)


my_goto = behavior(
    "my_goto",
    params=GoToParams,
    vars=GoToVars,
    update=update_goto,
    rules=[
        Rule("Goal right", when=lambda v: v.too_left, then=turn_right()),
        Rule("Goal left", when=lambda v: v.too_right, then=turn_left()),
        Rule("Go", when=lambda v: f_not(v.near_goal), then=speed(lambda v: v.p.speed)),
        Rule("Arrive", when=lambda v: v.near_goal, then=speed(0.0)),
    ],
    activity=Activity(turn=lambda v: f_not(v.near_goal), speed=1.0, goal=lambda v: v.near_goal),
)


def test_the_docstring_example_defines_what_it_says() -> None:
    assert my_goto.name == "my_goto"
    assert my_goto.rule_names == ("Goal right", "Goal left", "Go", "Arrive")
    assert my_goto.doc == "Go to a goal (Listing 5.2)."
    assert my_goto.signature() == "my_goto(speed=200.0, goal, radius=100.0)"


def test_the_docstring_example_runs_and_turns_towards_a_goal_on_the_left() -> None:
    robot = Robot()
    goal = create_local_point(robot.state.global_pose, 1000.0, 1000.0)  # 45 degrees left
    task = robot.start_behavior(my_goto, 300.0, goal)
    robot.step()
    record = robot.executive.last_record
    assert record is not None and record.ran == (task.name,)
    assert record.result.turn == pytest.approx(float(TurnModifier.MODERATELY))
    assert record.result.speed == pytest.approx(300.0)  # "Go" alone fires: near_goal is 0
    assert task.rule_truths == (0.0, 1.0, 1.0, 0.0)
    assert robot.motion.velocity == pytest.approx(300.0)
    assert robot.motion.heading == pytest.approx(float(TurnModifier.MODERATELY))


# ---------------------------------------------------------------------------- parameters
def test_param_specs_come_from_the_dataclass_in_declaration_order() -> None:
    speed_spec, goal_spec, radius_spec = param_specs(GoToParams)
    assert speed_spec == ParamSpec("speed", ParamKind.FLOAT, 200.0, "mm/s")
    assert goal_spec.kind is ParamKind.POINTER and goal_spec.required and goal_spec.accepts == (Point,)
    assert goal_spec.doc == "the goal point artifact"
    assert radius_spec.default == 100.0 and not radius_spec.required
    assert REQUIRED is goal_spec.default


@dataclass(kw_only=True)
class MixedParams:
    count: int = 3
    place: Corridor | Door
    maybe: Point | None = None
    anything: object = None


def test_pointer_kinds_unions_optional_and_integers() -> None:
    count, place, maybe, anything = param_specs(MixedParams)
    assert (count.kind, count.integer) == (ParamKind.FLOAT, True)
    assert place.accepts == (Corridor, Door) and not place.optional
    assert maybe.accepts == (Point,) and maybe.optional
    assert anything.kind is ParamKind.POINTER and anything.accepts == ()


@dataclass(kw_only=True)
class FieldParams:
    speed: float = param(250.0, "cruising speed, mm/s")
    goal: Point = param(doc="where to")  # noqa: RUF009 - the form a required param() takes


def test_param_fields_carry_defaults_and_meanings() -> None:
    speed_spec, goal_spec = param_specs(FieldParams)
    assert (speed_spec.default, speed_spec.doc) == (250.0, "cruising speed, mm/s")
    assert goal_spec.required and goal_spec.doc == "where to"
    with pytest.raises(TypeError):
        FieldParams()  # type: ignore[call-arg]


def test_param_specs_rejects_a_class_that_is_not_a_dataclass() -> None:
    with pytest.raises(BehaviorError, match="must be a dataclass"):
        param_specs(int)


def _noop(ctx: BehaviorContext[MixedParams, FuzzyVars[MixedParams]]) -> None:
    """Nothing."""


mixed = behavior("mixed", params=MixedParams, vars=FuzzyVars, update=_noop, rules=[])


def test_bind_takes_positional_then_named_arguments_and_fills_defaults() -> None:
    corridor = Corridor(width=2000.0)
    p = mixed.bind((5.0, corridor), {})
    assert (p.count, p.place, p.maybe, p.anything) == (5, corridor, None, None)
    assert isinstance(p.count, int)
    door = Door(width=900.0)
    p = mixed.bind((), {"place": door, "maybe": Point(), "count": 2})
    assert p.place is door and p.count == 2


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((1.0, Corridor(), None, None, 5.0), {}, r"mixed takes 4 parameters \(count, place, maybe, anything\), got 5"),
        ((), {}, r"mixed: parameter 2 \(place\) is required"),
        (("three", Corridor()), {}, r"parameter 1 \(count\) must be a number \(sfFLOAT\), got 'three' \(str\)"),
        ((True, Corridor()), {}, r"parameter 1 \(count\) must be a number"),
        ((2.5, Corridor()), {}, r"parameter 1 \(count\) must be a whole number, got 2.5"),
        ((float("nan"), Corridor()), {}, r"must be a finite number"),
        ((1, Point()), {}, r"parameter 2 \(place\) must be a Corridor or Door, got .*\(Point\)"),
        ((1, None), {}, r"parameter 2 \(place\) must be given \(sfPTR\), got None"),
        ((1, Corridor()), {"count": 2}, r"parameter 'count' given twice"),
        ((1, Corridor()), {"colour": 2}, r"mixed has no parameter colour \(its parameters: count, place"),
    ],
)
def test_bind_names_the_parameter_that_is_wrong(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(BehaviorError, match=message):
        mixed.bind(args, kwargs)


# ---------------------------------------------------------------------------- rules, actions and activities
@dataclass
class KnobVars(FuzzyVars[NoParams]):
    truth: float = 1.0
    amount: float = 0.0
    direction: float = 1.0


def _update_knobs(ctx: BehaviorContext[NoParams, KnobVars]) -> None:
    """The test sets the knobs directly."""


def one_rule(then: object, *, turn_activity: float = 1.0) -> BehaviorDef[NoParams, KnobVars]:
    return behavior(
        "knob",
        params=NoParams,
        vars=KnobVars,
        update=_update_knobs,
        rules=[Rule("Only", when=lambda v: v.truth, then=then)],  # type: ignore[arg-type]
        activity=Activity(turn=turn_activity, speed=1.0),
    )


def blended(defn: BehaviorDef[NoParams, KnobVars], robot: Robot | None = None, **knobs: float) -> Robot:
    robot = robot or Robot()
    task = robot.start_behavior(defn)
    for key, value in knobs.items():
        setattr(task.vars, key, value)
    robot.step()
    return robot


@pytest.mark.parametrize(
    ("action", "value"),
    [
        (turn_left(), 6.0),
        (turn_left(TurnModifier.SHARPLY), 8.0),
        (turn_right(TurnModifier.VERY_SLOWLY), -3.0),
        (turn_right(4.5), -4.5),
        (turn(TurnDir.LEFT, TurnModifier.SLOWLY), 4.0),
        (turn(TurnDir.RIGHT), -6.0),
        (turn_by(-12.5), -12.5),
        (go_straight(), 0.0),
        (blend_turn_left(TurnModifier.VERY_SHARPLY), 10.0),
    ],
)
def test_turn_actions_recommend_signed_heading_changes(action: object, value: float) -> None:
    robot = blended(one_rule(action))
    record = robot.executive.last_record
    assert record is not None
    assert record.result.turn == pytest.approx(value)
    assert record.result.speed is None


def test_action_values_and_directions_may_be_expressions_of_the_variables() -> None:
    rule: Action[KnobVars] = turn(lambda v: v.direction, lambda v: v.amount)
    robot = blended(one_rule(rule), amount=7.0, direction=-1.0)
    assert robot.executive.last_record is not None
    assert robot.executive.last_record.result.turn == pytest.approx(-7.0)
    robot = blended(one_rule(rule), amount=7.0, direction=0.0)
    assert robot.executive.last_record is not None
    assert robot.executive.last_record.result.turn == pytest.approx(0.0)


def test_accel_and_decel_are_relative_to_the_velocity_setpoint() -> None:
    robot = Robot()
    robot.motion.behavior_speed(200.0)
    blended(one_rule(accel(50.0)), robot)
    assert robot.motion.velocity == pytest.approx(250.0)
    robot.step()  # the rule keeps firing: it keeps accelerating
    assert robot.motion.velocity == pytest.approx(300.0)

    other = Robot()
    other.motion.behavior_speed(200.0)
    blended(one_rule(decel(lambda v: v.amount)), other, amount=80.0)
    assert other.motion.velocity == pytest.approx(120.0)


def test_accel_without_a_setpoint_starts_from_the_reported_velocity() -> None:
    robot = Robot()
    robot.state.vel = 120.0
    blended(one_rule(accel(30.0)), robot)
    assert robot.motion.velocity == pytest.approx(150.0)


def test_activities_default_to_zero_so_a_behavior_without_them_does_nothing() -> None:
    silent = behavior(
        "silent", params=NoParams, vars=KnobVars, update=_update_knobs, rules=[Rule("Go", when=1.0, then=speed(300.0))]
    )
    robot = Robot()
    task = robot.start_behavior(silent)
    robot.step()
    assert robot.executive.last_record is not None and robot.executive.last_record.result.speed is None
    assert (task.activity_turn, task.activity_speed, task.goal, task.progress) == (0.0, 0.0, 0.0, 0.0)


def test_a_rule_without_a_name_is_numbered() -> None:
    defn = behavior(
        "n", params=NoParams, vars=KnobVars, update=_update_knobs, rules=[Rule("", when=1.0, then=speed(0.0))]
    )
    assert defn.rule_names == ("rule 1",)


def test_a_rule_whose_then_is_not_an_action_is_refused() -> None:
    with pytest.raises(BehaviorError, match="'then' must be an action"):
        one_rule("turn left")


def test_definitions_refuse_duplicate_and_reserved_parameter_names() -> None:
    with pytest.raises(BehaviorError, match="duplicate parameter names"):
        BehaviorDef[Any, KnobVars]("d", (ParamSpec("a"), ParamSpec("a")), dict, KnobVars, _update_knobs, ())
    with pytest.raises(BehaviorError, match=r"clash with start_behavior options"):
        BehaviorDef[Any, KnobVars]("d", (ParamSpec("priority"),), dict, KnobVars, _update_knobs, ())
    with pytest.raises(BehaviorError, match="needs a name"):
        BehaviorDef[Any, KnobVars]("", (), dict, KnobVars, _update_knobs, ())


def test_a_compiler_can_build_a_definition_directly_from_data() -> None:
    """What a .beh compiler produces: specs, a params builder, a vars factory, callables, named rules."""

    class Namespace(FuzzyVars[dict[str, object]]):
        blocked: float = 0.0

    def update(ctx: BehaviorContext[dict[str, object], Namespace]) -> None:
        ctx.v.blocked = 1.0 if float(ctx.p["limit"]) > 100.0 else 0.0  # type: ignore[arg-type]

    defn: BehaviorDef[dict[str, object], Namespace] = BehaviorDef(
        name="compiled",
        params=(ParamSpec("limit", ParamKind.FLOAT),),
        make_params=dict,
        make_vars=Namespace,
        update=update,
        rules=(Rule("Stop", when=lambda v: v.blocked, then=speed(0.0)), Rule("Go", when=1.0, then=speed(200.0))),
        activity=Activity(speed=1.0),
    )
    robot = Robot()
    task = robot.start_behavior(defn, 150)
    robot.step()
    assert task.params == {"limit": 150.0}
    assert task.vars.p == {"limit": 150.0}
    assert robot.executive.last_record is not None
    assert robot.executive.last_record.result.speed == pytest.approx(100.0)  # two equal triangles at 0 and 200


# ---------------------------------------------------------------------------- the library
def test_every_predefined_behavior_of_the_manual_is_shipped() -> None:
    behaviors = predefined_behaviors()
    assert set(SAPHIRA_NAMES.values()) <= set(behaviors)
    for manual_name, name in SAPHIRA_NAMES.items():
        assert find_behavior(manual_name) is behaviors[name] is find_behavior(name)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("constant_velocity", ["speed"]),
        ("stop", []),
        ("avoid_collision", ["front", "side", "gain", "standoff"]),
        ("stop_collision", ["front", "side", "standoff"]),
        ("keep_off", ["caution_speed", "sensitivity"]),
        ("go_to_pos", ["speed", "goal", "radius"]),
        ("attend_at_pos", ["speed", "goal", "radius"]),
        ("turn_to", ["goal", "success_angle", "turn_speed"]),
        ("follow", ["lane", "goal", "right_edge", "left_edge", "speed_off", "speed_in", "turn_ratio"]),
        ("follow_corridor", ["corridor", "goal"]),
        ("follow_door", ["door", "direction"]),
    ],
)
def test_predefined_behaviors_take_the_manuals_parameters_in_order(name: str, params: list[str]) -> None:
    defn = find_behavior(name)
    assert [spec.name for spec in defn.params] == params
    assert all(spec.doc for spec in defn.params)


def test_find_behavior_lists_the_known_names_when_it_fails() -> None:
    with pytest.raises(BehaviorLoadError, match=r"no predefined behavior 'sfWander' \(known: .*avoid_collision"):
        find_behavior("sfWander")


USER_FILE = '''
from dataclasses import dataclass
from saphira.behavior.behavior import Activity, FuzzyVars, NoParams, Rule, behavior, speed


@dataclass
class Vars(FuzzyVars[NoParams]):
    pass


def update(ctx):
    """Creep forward."""


creep = behavior("creep", params=NoParams, vars=Vars, update=update,
                 rules=[Rule("Creep", when=1.0, then=speed(50.0))], activity=Activity(speed=1.0))
'''


def test_a_user_behavior_file_loads_by_path_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_FILE)
    (creep,) = load_behavior_file(path).values()
    assert creep.name == "creep" and creep.doc == "Creep forward."
    robot = Robot()
    robot.start_behavior(creep)
    robot.step()
    assert robot.motion.velocity == pytest.approx(50.0)
    assert set(load_behavior_folder(tmp_path)) == {"creep"}


def test_a_syntax_error_in_a_behavior_file_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("x = 1\ndef f(:\n    pass\n")
    with pytest.raises(SourceError) as err:
        load_behavior_file(path)
    assert err.value.file == str(path.resolve()) and err.value.line == 2 and err.value.column > 0
    assert str(err.value).startswith(f"{path.resolve()}:2:")
    assert "def f(:" in err.value.pretty()


def test_an_error_while_a_behavior_file_runs_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "raises.py"
    path.write_text(
        textwrap.dedent("""\
        a = 1
        b = undefined_name + a
    """)
    )
    with pytest.raises(SourceError, match=r"raises.py:2: error while loading behaviors: NameError"):
        load_behavior_file(path)


def test_missing_files_and_folders_are_reported(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such behavior file"):
        load_behavior_file(tmp_path / "absent.py")
    with pytest.raises(BehaviorLoadError, match="no behavior folder"):
        load_behavior_folder(tmp_path / "absent")


def test_two_files_defining_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(USER_FILE)
    (tmp_path / "b.py").write_text(USER_FILE)
    with pytest.raises(BehaviorLoadError, match="'creep' is defined in both"):
        load_behavior_folder(tmp_path)
