"""The .beh behavior-file grammar (docs/colbert.md §10): sections, typed parameters, fuzzy rules, Colbert code in
Init/Update, activity settings, and errors that name the place and the reason."""

from __future__ import annotations

import pytest

from saphira.colbert.beh.parser import parse_all_behavior_errors, parse_behaviors
from saphira.colbert.syntax import ast
from saphira.colbert.syntax.errors import ColbertSyntaxError

# Versions of two predefined behaviors (docs/colbert.md §9) and of Listing 5.2, written in our .beh format.
CONSTANT_VELOCITY = """\
BeginBehavior sfConstantVelocity   /* drive the speed setpoint towards a target */
Params
  sfFLOAT velocity                 /* mm/s */
Rules
  "Speed up"  If too_slow Then Speed velocity
  "Slow down" If too_fast Then Speed velocity
Init
Update
  float current;
  current = (sfRobot.leftv + sfRobot.rightv) / 2.0;
  too_slow = f_smaller(current, velocity, 50.0);
  too_fast = f_greater(current, velocity, 50.0);
Activity
  Speed 1.0
EndBehavior

BeginBehavior sfStop               /* run it at low priority */
Params
Rules
  "Stop" If 1.0 Then Speed 0.0
Init
Update
Activity
  Speed 1.0
  Turn 0
EndBehavior
"""

GO_TO = """\
BeginBehavior myGoto                 /* behavior name */
Params
  sfPTR   goal_pt                    /* pointer to goal point */
  sfFLOAT radius                     /* how close we come, mm */
Rules
  If too_left  Then Turn Right
  If too_right Then Turn Left
  If Not (near_goal Or too_left Or too_right) Then Speed 200.0
  If near_goal Or too_left Or too_right       Then Speed 0.0
Init
  sfSMessage("going");
Update
  float phi; float dist;
  phi  = sfPointPhi(goal_pt);      /* +phi = goal to the robot's left */
  dist = sfPointDist(goal_pt);
  too_right = straight_up(phi, 10, 30);
  too_left  = down_straight(phi, -30, -10);
  near_goal = down_straight(dist, radius, 2*radius);
  if (dist < radius) { too_left = 0.0; too_right = 0.0; }
Activity
  Turn  Not near_goal
  Speed Not near_goal
  Goal  near_goal
EndBehavior
"""


def where(text: str, needle: str, occurrence: int = 1) -> ast.Pos:
    offset = -1
    for _ in range(occurrence):
        offset = text.index(needle, offset + 1)
    return ast.Pos(text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def test_predefined_behaviors_parse_into_typed_definitions() -> None:
    result = parse_behaviors(CONSTANT_VELOCITY, "behavior.beh")
    assert result.filename == "behavior.beh"
    velocity, stop = result.behaviors
    assert (velocity.name, velocity.filename, velocity.pos) == ("sfConstantVelocity", "behavior.beh", ast.Pos(1, 1))
    assert velocity.params == (ast.BehaviorParam("velocity", "float", where(CONSTANT_VELOCITY, "velocity")),)
    assert velocity.rules == (
        ast.Rule(
            "Speed up",
            ast.FuzzyVar("too_slow", where(CONSTANT_VELOCITY, "too_slow")),
            ast.SpeedAction(
                ast.FuzzyVar("velocity", where(CONSTANT_VELOCITY, "velocity", 2)),
                where(CONSTANT_VELOCITY, "Speed velocity"),
            ),
            where(CONSTANT_VELOCITY, '"Speed up"'),
        ),
        ast.Rule(
            "Slow down",
            ast.FuzzyVar("too_fast", where(CONSTANT_VELOCITY, "too_fast")),
            ast.SpeedAction(
                ast.FuzzyVar("velocity", where(CONSTANT_VELOCITY, "velocity", 3)),
                where(CONSTANT_VELOCITY, "Speed velocity", 2),
            ),
            where(CONSTANT_VELOCITY, '"Slow down"'),
        ),
    )
    assert velocity.init == ast.BehaviorCode((), (), where(CONSTANT_VELOCITY, "Init"))
    update = velocity.update
    assert [d.name for d in update.locals] == ["current"] and update.locals[0].type.name == "float"
    assert [type(s).__name__ for s in update.statements] == ["Assign"] * 3
    first = update.statements[0]
    assert isinstance(first, ast.Assign) and isinstance(first.value, ast.Binary) and first.value.op == "/"
    assert velocity.activity == (
        ast.ActivitySetting(
            "speed", ast.FuzzyConstant(1.0, where(CONSTANT_VELOCITY, "1.0")), where(CONSTANT_VELOCITY, "Speed 1.0")
        ),
    )

    assert (stop.name, stop.params) == ("sfStop", ())
    (rule,) = stop.rules
    assert rule.name == "Stop" and rule.condition == ast.FuzzyConstant(1.0, where(CONSTANT_VELOCITY, "1.0 Then"))
    assert rule.action == ast.SpeedAction(0.0, where(CONSTANT_VELOCITY, "Speed 0.0"))
    assert [(a.channel, a.value) for a in stop.activity] == [
        ("speed", ast.FuzzyConstant(1.0, where(CONSTANT_VELOCITY, "1.0", 3))),
        ("turn", ast.FuzzyConstant(0.0, where(CONSTANT_VELOCITY, "0\nEnd", 2))),
    ]


def test_listing_5_2_go_to_a_goal() -> None:
    (goto,) = parse_behaviors(GO_TO, "goto.beh").behaviors
    assert [(p.name, p.type) for p in goto.params] == [("goal_pt", "ptr"), ("radius", "float")]
    right, left, advance, halt = goto.rules
    assert (right.name, right.action) == (None, ast.TurnAction("right", None, where(GO_TO, "Turn Right")))
    assert left.action == ast.TurnAction("left", None, where(GO_TO, "Turn Left"))
    assert advance.condition == ast.FuzzyNot(
        ast.FuzzyOr(
            ast.FuzzyOr(
                ast.FuzzyVar("near_goal", where(GO_TO, "near_goal")),
                ast.FuzzyVar("too_left", where(GO_TO, "too_left", 2)),
                where(GO_TO, "near_goal"),
            ),
            ast.FuzzyVar("too_right", where(GO_TO, "too_right", 2)),
            where(GO_TO, "near_goal"),
        ),
        where(GO_TO, "Not"),
    )
    assert advance.action == ast.SpeedAction(200.0, where(GO_TO, "Speed 200.0"))
    assert isinstance(halt.condition, ast.FuzzyOr) and halt.action == ast.SpeedAction(0.0, where(GO_TO, "Speed 0.0"))
    (message,) = goto.init.statements
    assert isinstance(message, ast.ExprStatement) and isinstance(message.expr, ast.Call)
    assert [d.name for d in goto.update.locals] == ["phi", "dist"]
    assert isinstance(goto.update.statements[-1], ast.If)
    assert [(a.channel, type(a.value).__name__) for a in goto.activity] == [
        ("turn", "FuzzyNot"),
        ("speed", "FuzzyNot"),
        ("goal", "FuzzyVar"),
    ]


def test_fuzzy_connectives_bind_not_then_and_then_or() -> None:
    text = RULE_TEMPLATE.format(rule="If a Or b And Not c Then Speed 1")
    condition = parse_behaviors(text).behaviors[0].rules[0].condition

    def shape(node: ast.FuzzyExpr) -> object:
        if isinstance(node, ast.FuzzyOr):
            return (shape(node.left), "or", shape(node.right))
        if isinstance(node, ast.FuzzyAnd):
            return (shape(node.left), "and", shape(node.right))
        if isinstance(node, ast.FuzzyNot):
            return ("not", shape(node.operand))
        return node.name if isinstance(node, ast.FuzzyVar) else node.value

    assert shape(condition) == ("a", "or", ("b", "and", ("not", "c")))


RULE_TEMPLATE = """\
BeginBehavior test
Params
  sfFLOAT gain
Rules
  {rule}
Init
Update
Activity
  Turn 1.0
EndBehavior
"""


@pytest.mark.parametrize(
    ("rule", "direction", "modifier"),
    [
        ("If x Then Turn Left", "left", None),
        ("If x Then Turn Right Very Slowly", "right", "very_slowly"),
        ("If x Then Turn Left Slowly", "left", "slowly"),
        ("If x Then Turn Right Moderately", "right", "moderately"),
        ("If x Then Turn Left Sharply", "left", "sharply"),
        ("If x Then Turn Right Very Sharply", "right", "very_sharply"),
        ("if x then turn left very sharply", "left", "very_sharply"),
        ("IF x THEN TURN RIGHT SLOWLY", "right", "slowly"),
    ],
)
def test_turn_rules_with_every_modifier_in_any_case(rule: str, direction: str, modifier: str | None) -> None:
    (parsed,) = parse_behaviors(RULE_TEMPLATE.format(rule=rule)).behaviors[0].rules
    assert isinstance(parsed.action, ast.TurnAction)
    assert (parsed.action.direction, parsed.action.modifier) == (direction, modifier)


def test_turn_and_speed_may_take_variables() -> None:
    text = RULE_TEMPLATE.format(rule="If x Then Turn dir gain\n  If y Then Speed -100\n  If z Then Speed gain")
    turn, reverse, speed = parse_behaviors(text).behaviors[0].rules
    assert turn.action == ast.TurnAction(
        ast.FuzzyVar("dir", where(text, "dir")), ast.FuzzyVar("gain", where(text, "gain", 2)), where(text, "Turn dir")
    )
    assert reverse.action == ast.SpeedAction(-100.0, where(text, "Speed -100"))
    assert speed.action == ast.SpeedAction(ast.FuzzyVar("gain", where(text, "gain", 3)), where(text, "Speed gain"))


def test_colbert_code_in_update_keeps_its_own_words() -> None:
    text = """\
BeginBehavior words
Params
Rules
  If Left Then Turn Left
Init
  int Left;
Update
  Left = sfRobot.leftv > 0;
  Goal = Left;
Activity
  Goal Goal
  Progress Left
EndBehavior
"""
    (behavior,) = parse_behaviors(text).behaviors
    assert behavior.rules[0].condition == ast.FuzzyVar("Left", where(text, "Left"))
    assert [d.name for d in behavior.init.locals] == ["Left"]
    assert [s.target for s in behavior.update.statements if isinstance(s, ast.Assign)] == [
        ast.Name("Left", where(text, "Left =")),
        ast.Name("Goal", where(text, "Goal =")),
    ]
    assert [(a.channel, a.value) for a in behavior.activity] == [
        ("goal", ast.FuzzyVar("Goal", where(text, "Goal", 3))),
        ("progress", ast.FuzzyVar("Left", where(text, "Left", 6))),
    ]


REJECTED = [
    # (change to GO_TO, message fragment, where the error is)
    (("  sfFLOAT radius ", "  sfINT radius "), "unexpected 'sfINT'; expected 'Rules', 'sfFLOAT' or 'sfPTR'", "sfINT"),
    (("Then Turn Right", "Then Turn Right Quickly Now"), "unexpected 'Now'", "Now"),
    (("If too_right Then", "If too_right Than"), "unexpected 'Than'; expected 'And', 'Or' or 'Then'", "Than"),
    (
        ("  dist = sfPointDist", "  move(100);\n  dist = sfPointDist"),
        "'move' is not allowed in a behavior's Update section",
        "move(100)",
    ),
    (
        ("  dist = sfPointDist", "  while (1) ;\n  dist = sfPointDist"),
        "'while' is not allowed in a behavior's Update section",
        "while",
    ),
    (
        ("  dist = sfPointDist", "  waitfor dist;\n  dist = sfPointDist"),
        "'waitfor' is not allowed in a behavior's Update section",
        "waitfor",
    ),
    (('  sfSMessage("going");', "  start other;"), "'start' is not allowed in a behavior's Init section", "start"),
    (("float phi; float dist;", "float phi[2]; float dist;"), "Colbert has no arrays", "[2]"),
    (
        ("  too_right = straight_up", "  float late;\n  too_right = straight_up"),
        "variables must be declared at the start of the Update section",
        "late",
    ),
    (
        ("  Goal  near_goal", "  Goal  near_goal\n  Turn  near_goal"),
        "'turn' is set twice in the Activity section",
        "Turn  near_goal\nEnd",
    ),
    (("  sfFLOAT radius ", "  sfFLOAT goal_pt "), "parameter 'goal_pt' is declared twice", "goal_pt@2"),
    (("Rules\n", "Init\nRules\n"), "unexpected 'Init'; expected 'Rules', 'sfFLOAT' or 'sfPTR'", "Init"),
]


@pytest.mark.parametrize(("change", "fragment", "needle"), REJECTED)  # needle: "text" or "text@occurrence"
def test_errors_in_behavior_files_are_precise(change: tuple[str, str], fragment: str, needle: str) -> None:
    old, new = change
    assert old in GO_TO
    text = GO_TO.replace(old, new, 1)
    with pytest.raises(ColbertSyntaxError) as caught:
        parse_behaviors(text, "bad.beh")
    error = caught.value
    assert fragment in error.message
    needle, _, occurrence = needle.partition("@")
    assert (error.file, error.line, error.column) == ("bad.beh", *where(text, needle, int(occurrence or 1)))


def test_several_behavior_errors_in_one_file() -> None:
    text = GO_TO.replace("float phi; float dist;", "float phi[2]; float dist;").replace(
        "Then Turn Left", "Then Turn Left Fast Now"
    )
    text = text.replace("  Goal  near_goal", "  move(3);\n  Goal  near_goal")
    errors = parse_all_behavior_errors(text, "bad.beh")
    assert [(e.line, e.column) for e in errors] == [where(text, "Now"), where(text, "[2]"), where(text, "move(3)")]
    assert parse_all_behavior_errors(GO_TO + CONSTANT_VELOCITY, "good.beh") == []
