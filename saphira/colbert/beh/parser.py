"""Parsing ``.beh`` behavior files (docs/colbert.md §10) into :class:`saphira.colbert.syntax.ast.BehaviorFile`.

A file holds one or more ``BeginBehavior name ... EndBehavior`` definitions with the sections Params,
Rules, Init, Update and Activity, in that order (each may be empty; Init and Update may be left out,
as the manual's Listing 5.2 leaves out Init). Init and Update are Colbert code, parsed by the Colbert
grammar itself (behavior_grammar.lark is appended to grammar.lark): local declarations first, then
straight-line statements (assignments, calls, if/else, blocks). Unlike Colbert, and as in the C that
``bgram`` copied them into, declarations here may have initializers (``float phi =
sfPointPhi(goal_pt);``): each is an assignment run where the declaration stands, every time the
section runs, before the section's statements. A fuzzy variable used in Rules or Activity is simply a
name; declaring and typing it is the compiler's job.

Example::

    BeginBehavior sfConstantVelocity
    Params
      sfFLOAT velocity
    Rules
      "Speed up"  If too_slow Then Speed velocity
      "Slow down" If too_fast Then Speed velocity
    Init
    Update
      too_slow = f_smaller(sfRobot.leftv, velocity, 50.0);
      too_fast = f_greater(sfRobot.leftv, velocity, 50.0);
    Activity
      Speed 1.0
    EndBehavior
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from lark import Token

from saphira.colbert.syntax import ast
from saphira.colbert.syntax.ast_builder import (
    CURRENT_SESSION,
    ColbertAstBuilder,
    _Declarator,
    decode_string,
    int_value,
    nested_statements,
    number_error,
    token_pos,
)
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.parser import (
    DEFAULT_STRUCT_TYPES,
    GRAMMAR_FILE,
    CompiledGrammar,
    collect_all_errors,
    run_parser,
)

BEHAVIOR_GRAMMAR_FILE = Path(__file__).with_name("behavior_grammar.lark")

# Statements that make sense in code run once per cycle from start to end.
_STRAIGHT_LINE = (ast.Block, ast.EmptyStatement, ast.ExprStatement, ast.Assign, ast.If)
# For error recovery: a new unit of a .beh file begins after a section keyword or at a rule.
_SECTIONS = frozenset({"BeginBehavior", "Params", "Rules", "Init", "Update", "Activity", "EndBehavior"})
_STARTERS = frozenset({"If", "Goal", "Progress"})
_MODIFIERS: dict[str, ast.TurnModifier] = {
    "very slowly": "very_slowly",
    "slowly": "slowly",
    "moderately": "moderately",
    "sharply": "sharply",
    "very sharply": "very_sharply",
}


@dataclass(frozen=True, slots=True)
class _Initialized(_Declarator):
    """A declarator with an initializer (``phi = sfPointPhi(goal_pt)`` in ``float phi = ...;``)."""

    value: ast.Expr


class BehaviorAstBuilder(ColbertAstBuilder):
    """The Colbert AST builder plus the callbacks of behavior_grammar.lark."""

    def behavior_file(self, children: list[ast.BehaviorDef]) -> ast.BehaviorFile:
        return ast.BehaviorFile(CURRENT_SESSION.get().filename, tuple(children))

    def behavior(self, children: list[Any]) -> ast.BehaviorDef:
        keyword, name, params, rules, init, update, activity, _end = children
        if init is None or update is None:
            # A section left out is an empty one, placed where it would have started.
            activity_pos = activity[0].pos if activity else token_pos(_end)
            following = update.pos if update is not None else activity_pos
            init = init or ast.BehaviorCode((), (), following)
            update = update or ast.BehaviorCode((), (), following)
        return ast.BehaviorDef(
            name=name.value,
            params=params,
            rules=rules,
            init=init,
            update=update,
            activity=activity,
            filename=CURRENT_SESSION.get().filename,
            pos=token_pos(keyword),
        )

    def params_section(self, children: list[Any]) -> tuple[ast.BehaviorParam, ...]:
        params: list[ast.BehaviorParam] = children[1:]
        seen: set[str] = set()
        for param in params:
            if param.name in seen:
                self._report(f"parameter '{param.name}' is declared twice", param.pos)
            seen.add(param.name)
        return tuple(params)

    def behavior_param(self, children: list[Token]) -> ast.BehaviorParam:
        kind, name = children
        return ast.BehaviorParam(name.value, "float" if kind.type == "B_SFFLOAT" else "ptr", token_pos(name))

    def rules_section(self, children: list[Any]) -> tuple[ast.Rule, ...]:
        return tuple(children[1:])

    def rule(self, children: list[Any]) -> ast.Rule:
        name, keyword, condition, _then, action = children
        label = None if name is None else decode_string(name.value)
        return ast.Rule(label, condition, action, token_pos(name if name is not None else keyword))

    def turn_action(self, children: list[Any]) -> ast.TurnAction:
        keyword, direction, modifier = children
        if direction.type == "NAME":
            where: ast.TurnDirection | ast.FuzzyVar = ast.FuzzyVar(direction.value, token_pos(direction))
        else:
            where = "left" if direction.type == "B_LEFT" else "right"
        return ast.TurnAction(where, modifier, token_pos(keyword))

    def turn_modifier(self, children: list[Token]) -> ast.TurnModifier | ast.FuzzyVar:
        if children[0].type == "NAME":
            return ast.FuzzyVar(children[0].value, token_pos(children[0]))
        return _MODIFIERS[" ".join(str(word).lower() for word in children)]

    def speed_action(self, children: list[Any]) -> ast.SpeedAction:
        keyword, value = children
        if isinstance(value, Token):
            return ast.SpeedAction(ast.FuzzyVar(value.value, token_pos(value)), token_pos(keyword))
        return ast.SpeedAction(cast(float, value[0]), token_pos(keyword))

    def number(self, children: list[Any]) -> tuple[float, ast.Pos]:
        sign, digits = children
        problem = number_error(digits.value, float(digits.value.rstrip("fF")) if digits.type == "FLOAT_LIT" else None)
        if problem is not None:
            self._report(problem, token_pos(digits))
            value = 0.0
        elif digits.type == "FLOAT_LIT":
            value = float(digits.value.rstrip("fF"))
        else:
            integer = int_value(digits.value)
            if integer is None:
                self._report(f"invalid octal number {digits} (a leading 0 means octal, as in C)", token_pos(digits))
            value = float(integer or 0)
        first = sign if sign is not None else digits
        return (-value if sign is not None else value), token_pos(first)

    def fuzzy_or(self, children: list[Any]) -> ast.FuzzyOr:
        left, _keyword, right = children
        return ast.FuzzyOr(left, right, left.pos)

    def fuzzy_and(self, children: list[Any]) -> ast.FuzzyAnd:
        left, _keyword, right = children
        return ast.FuzzyAnd(left, right, left.pos)

    def fuzzy_not(self, children: list[Any]) -> ast.FuzzyNot:
        keyword, operand = children
        return ast.FuzzyNot(operand, token_pos(keyword))

    def fuzzy_var(self, children: list[Token]) -> ast.FuzzyVar:
        return ast.FuzzyVar(children[0].value, token_pos(children[0]))

    def fuzzy_constant(self, children: list[tuple[float, ast.Pos]]) -> ast.FuzzyConstant:
        value, pos = children[0]
        return ast.FuzzyConstant(value, pos)

    def initializer_error(self, children: list[Any]) -> _Initialized:
        """``float phi = sfPointPhi(goal_pt);``: C declarations in Init/Update may have initializers."""
        assign_index = next(i for i, c in enumerate(children) if isinstance(c, Token) and c.type == "ASSIGN")
        d = self.declarator(children[:assign_index])
        return _Initialized(d.name, d.pointer_depth, d.pos, self._expr(children[assign_index + 1]))

    def declaration(self, children: list[Any]) -> list[Any]:
        """The declared variables, then an assignment for each initializer (run where the declaration is)."""
        initialized = [c for c in children[1:] if isinstance(c, _Initialized)]
        assignments = [ast.Assign(ast.Name(c.name, c.pos), c.value, c.pos) for c in initialized]
        return [*super().declaration(children), *assignments]

    def init_section(self, children: list[Any]) -> ast.BehaviorCode:
        return self._behavior_code(children, "Init")

    def update_section(self, children: list[Any]) -> ast.BehaviorCode:
        return self._behavior_code(children, "Update")

    def _behavior_code(self, children: list[Any], section: str) -> ast.BehaviorCode:
        keyword: Token = children[0]
        declarations: list[ast.VarDecl] = []
        initializers: list[ast.Statement] = []
        code: list[Any] = []
        for item in children[1] if len(children) == 2 else []:
            if isinstance(item, list) and not code:
                declarations.extend(d for d in item if isinstance(d, ast.VarDecl))
                initializers.extend(d for d in item if not isinstance(d, ast.VarDecl))
            elif isinstance(item, list):
                if item:
                    self._report(f"variables must be declared at the start of the {section} section", item[0].pos)
            else:
                code.append(item)
        statements = [*initializers, *self._statements(code, f"in a behavior's {section} section")]
        for statement in statements:
            for inner in nested_statements(statement):
                if not isinstance(inner, _STRAIGHT_LINE):
                    self._report(
                        f"'{_statement_word(inner)}' is not allowed in a behavior's {section} section, "
                        "which runs to its end on every cycle (use assignments, calls and if/else)",
                        inner.pos,
                    )
        return ast.BehaviorCode(tuple(declarations), tuple(statements), token_pos(keyword))

    def activity_section(self, children: list[Any]) -> tuple[ast.ActivitySetting, ...]:
        settings: list[ast.ActivitySetting] = children[1:]
        seen: set[str] = set()
        for setting in settings:
            if setting.channel in seen:
                self._report(f"'{setting.channel}' is set twice in the Activity section", setting.pos)
            seen.add(setting.channel)
        return tuple(settings)

    def activity_setting(self, children: list[Any]) -> ast.ActivitySetting:
        keyword, value = children
        channel = cast(ast.ActivityChannel, keyword.value.lower())
        return ast.ActivitySetting(channel, value, token_pos(keyword))


def _statement_word(statement: ast.Statement) -> str:
    """The keyword that starts ``statement``, for messages."""
    if isinstance(statement, ast.Signal):
        return statement.signal
    if isinstance(statement, ast.Motion):
        return statement.command
    words = {ast.While: "while", ast.Goto: "goto", ast.WaitFor: "waitfor", ast.Start: "start", ast.Halt: "halt"}
    return words.get(type(statement), type(statement).__name__.lower())


@functools.cache
def behavior_grammar() -> CompiledGrammar:
    """The .beh parser: grammar.lark + behavior_grammar.lark, compiled once per process."""
    text = GRAMMAR_FILE.read_text(encoding="utf-8") + "\n" + BEHAVIOR_GRAMMAR_FILE.read_text(encoding="utf-8")
    return CompiledGrammar(text, "behavior_file", BehaviorAstBuilder(), cache_name="behavior")


def parse_behaviors(
    text: str, filename: str = "<input>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES
) -> ast.BehaviorFile:
    """Parse a ``.beh`` file; raise :class:`ColbertSyntaxError` for the first error in it."""
    result, errors, _ = run_parser(behavior_grammar(), text, filename, struct_types)
    if errors:
        raise errors[0]
    assert isinstance(result, ast.BehaviorFile)
    return result


def parse_all_behavior_errors(
    text: str, filename: str = "<input>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES
) -> list[ColbertSyntaxError]:
    """Every syntax error of a ``.beh`` file, as :func:`saphira.colbert.syntax.parser.parse_all_errors` does."""
    return collect_all_errors(behavior_grammar(), text, filename, struct_types, _SECTIONS, _STARTERS)
