"""Compiling ``.beh`` behavior files (docs/colbert.md §10) into :class:`~saphira.behavior.behavior.BehaviorDef` objects.

A compiled behavior is the same kind of object the Python API builds: the executive runs it, blends
it and ends it exactly as it does a Python one. The pieces map one to one:

* **Params** become :class:`ParamSpec` s (``sfFLOAT``: a number, ``sfPTR``: any object), given by
  position when the behavior is started; the instance's arguments are a :class:`BehaviorArguments`.
* **Init** and **Update** are Colbert code compiled by the Colbert compiler itself
  (:meth:`Compiler.compile_act` on a synthetic act whose ``update`` is the section), with the
  parameters, the fuzzy variables and the sections' declarations as the act's locals. One frame per
  running instance (:class:`BehaviorFrame`) holds them all. The fuzzy functions of §6.2
  (``straight_up``, ``down_straight``, ``f_greater``, ``f_smaller``, ``f_eq``, ``f_and``, ``f_or``,
  ``f_not``) are visible to behavior code unless the environment defines those names itself.
* **Rules** become :class:`Rule` s: ``Not`` is ``1 - x``, ``And`` the minimum, ``Or`` the maximum
  (:mod:`saphira.behavior.fuzzy`), constant antecedents are folded; ``Turn Left|Right [modifier]`` is
  :func:`turn_left`/:func:`turn_right` (no modifier: Moderately), ``Turn <var> [modifier]`` is
  :func:`turn` (left when the variable is positive, e.g. ``sfPreferredTurnDir``), ``Speed v`` is
  :func:`speed`. A modifier or speed may be a variable. An unnamed rule is called ``rule N``.
* **Activity** settings become the :class:`Activity` outputs; a channel not listed is 0 (Table 5.1).

Decisions the manual leaves open, made here:

* A name in Rules or Activity is, in this order: a parameter, a variable declared in Init or Update,
  a Colbert global (variable or constant, e.g. ``sfPreferredTurnDir``), or else an implicit *fuzzy
  variable*: a per-instance ``float`` that Init or Update must assign (otherwise it is an unknown
  fuzzy variable, reported at its use). Declare it in Update to shadow a global of the same name.
* Variables declared in Init or Update belong to the instance: zero when it starts, kept between
  cycles; a variable declared in Init is visible in Update (where state such as a start time lives).
  Parameters are copied into the frame when the instance starts, so Update may change its copy.
* Colbert globals and bindings are those of the environment the file is compiled in (``sfRobot`` is
  that environment's robot), as C behaviors saw the client's globals.
* A runtime error in Init or Update (division by zero, a null pointer) ends that behavior instance in
  ``FAILURE`` as for any behavior, with the message ``file:line: message``; the others carry on.
* There is no limit on the number of rules (the C structure had 10).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

from saphira.behavior import fuzzy
from saphira.behavior.behavior import (
    REQUIRED,
    Action,
    Activity,
    BehaviorContext,
    BehaviorDef,
    BehaviorError,
    FuzzyVars,
    ParamKind,
    ParamSpec,
    Rule,
    TurnModifier,
    speed,
    turn,
    turn_left,
    turn_right,
)
from saphira.colbert.beh.parser import parse_all_behavior_errors, parse_behaviors
from saphira.colbert.compile.codegen import ActProgram, RuntimeHooks, generated_line
from saphira.colbert.compile.compiler import Compiler
from saphira.colbert.compile.symbols import (
    BEHAVIOR,
    FLOAT,
    PTR,
    ColbertCompileError,
    ColbertRuntimeError,
    Constant,
    CType,
    Function,
    GlobalVariable,
    LinkedVariable,
    SymbolTable,
    runtime_message,
)
from saphira.colbert.syntax import ast
from saphira.colbert.syntax.ast_builder import nested_statements
from saphira.colbert.syntax.limits import read_source
from saphira.core.errors import SourceError, SourcePosition

if TYPE_CHECKING:
    from saphira.colbert.environment import Environment

__all__ = [
    "FUZZY_FUNCTIONS",
    "BehaviorArguments",
    "BehaviorCodeError",
    "BehaviorFrame",
    "CompiledBehavior",
    "check_behavior_text",
    "check_behaviors",
    "compile_behavior_text",
    "compile_behaviors",
    "define_behaviors",
]

FUZZY_FUNCTIONS: tuple[tuple[str, Callable[..., float], int, str], ...] = (
    ("straight_up", fuzzy.straight_up, 3, "0 below min, 1 above max, linear in between"),
    ("down_straight", fuzzy.down_straight, 3, "1 below min, 0 above max, linear in between"),
    ("f_greater", fuzzy.f_greater, 3, "fuzzy x > c over a band of width delta"),
    ("f_smaller", fuzzy.f_smaller, 3, "fuzzy x < c over a band of width delta"),
    ("f_eq", fuzzy.f_eq, 3, "fuzzy x == c, falling off over delta"),
    ("f_and", fuzzy.f_and, 2, "fuzzy and: the minimum"),
    ("f_or", fuzzy.f_or, 2, "fuzzy or: the maximum"),
    ("f_not", fuzzy.f_not, 1, "fuzzy not: 1 - x"),
)
"""The fuzzy functions (docs/architecture.md §5) as seen by Init and Update code: (name, function, arity, help)."""

_MODIFIERS: Mapping[ast.TurnModifier, TurnModifier] = {
    "very_slowly": TurnModifier.VERY_SLOWLY,
    "slowly": TurnModifier.SLOWLY,
    "moderately": TurnModifier.MODERATELY,
    "sharply": TurnModifier.SHARPLY,
    "very_sharply": TurnModifier.VERY_SHARPLY,
}


class BehaviorCodeError(ColbertRuntimeError):
    """A runtime error in a behavior's Init or Update code; the message starts with ``file:line:``."""


class BehaviorArguments(Mapping[str, Any]):
    """A compiled behavior instance's parameters (``ctx.p``): by name, as a mapping or as attributes."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"BehaviorArguments({self._values!r})"


class BehaviorFrame(FuzzyVars[BehaviorArguments]):
    """A compiled behavior instance's variables (``ctx.v``): parameters, fuzzy variables and the
    variables of Init and Update, in one Colbert frame. Read them by name: ``v.near_goal``."""

    def __init__(self, frame: list[Any], slots: Mapping[str, int]) -> None:
        self.frame = frame
        self.slots = slots

    def __getattr__(self, name: str) -> Any:
        slots = self.__dict__.get("slots")
        if slots is not None and name in slots:
            return self.frame[slots[name]]
        raise AttributeError(name)

    def variables(self) -> dict[str, Any]:
        """Every variable of the instance by name (parameters included)."""
        return {name: self.frame[index] for name, index in self.slots.items()}

    def __repr__(self) -> str:
        return f"BehaviorFrame({self.variables()!r})"


CompiledBehavior = BehaviorDef[BehaviorArguments, BehaviorFrame]
"""What :func:`compile_behaviors` returns: a behavior definition of a ``.beh`` file."""


class _NoHooks:
    """Runtime hooks for code that can never reach them: Init and Update allow no start, motion or signal."""

    def __getattr__(self, name: str) -> NoReturn:
        raise ColbertRuntimeError(f"'{name}' is not available in behavior code")


# ------------------------------------------------------------------------------------------------ public API
def compile_behaviors(
    tree: ast.BehaviorFile, symbols: SymbolTable, hooks: RuntimeHooks | None = None, source: str = ""
) -> list[CompiledBehavior]:
    """The behaviors of a parsed ``.beh`` file, compiled against ``symbols`` (a Colbert environment's).

    ``source`` is the file's text (for the offending line in messages). Raises
    :class:`ColbertCompileError` (``file:line:col: message``) for the first error.
    """
    built, errors = _compile_all(tree, symbols, hooks, source)
    if errors:
        raise errors[0]
    return built


def check_behaviors(tree: ast.BehaviorFile, symbols: SymbolTable, source: str = "") -> list[SourceError]:
    """Every compile error of a parsed ``.beh`` file (unknown names, type errors), without running anything."""
    _, errors = _compile_all(tree, symbols, None, source)
    return list(errors)


def compile_behavior_text(text: str, filename: str, env: Environment) -> list[CompiledBehavior]:
    """Parse and compile ``.beh`` text in a Colbert environment; raises the first :class:`SourceError`."""
    tree = parse_behaviors(text, filename, env.symbols.struct_names())
    return compile_behaviors(tree, env.symbols, env.runtime, text)


def check_behavior_text(
    text: str, filename: str, env: Environment, *, symbols: SymbolTable | None = None, define: bool = False
) -> list[SourceError]:
    """Every syntax error of ``.beh`` text or, when it parses, every compile error (``saphira check``).

    ``symbols``: the table to compile against (default: the environment's). ``define``: the behaviors
    that compile become startable names of that table, as loading the file makes them, so the files
    checked after this one may start them.
    """
    table = symbols if symbols is not None else env.symbols
    syntax: list[SourceError] = list(parse_all_behavior_errors(text, filename, table.struct_names()))
    if syntax:
        return syntax
    tree = parse_behaviors(text, filename, table.struct_names())
    if not define:
        return check_behaviors(tree, table, text)
    built, errors = _compile_all(tree, table, None, text)
    found: list[SourceError] = list(errors)
    lines = text.split("\n")
    for node, defn in zip(tree.behaviors, built, strict=False):
        conflict = _name_conflict(table, defn.name, node, tree, lines)
        if conflict is not None:
            found.append(conflict)
        else:
            table.symbols[defn.name] = Constant(BEHAVIOR, defn, defn.doc)
    return sorted(found, key=lambda e: (e.line, e.column))


def define_behaviors(env: Environment, path: str | Path) -> list[CompiledBehavior]:
    """Load a ``.beh`` file into a Colbert environment: each behavior becomes startable under its name.

    Behaviors before the first error stay defined; the error is raised as a :class:`SourceError`.
    Redefining a behavior replaces it (running instances keep the old definition); a name that is
    already something else (a function, a variable, an act) is an error.
    """
    file = Path(path)
    text = read_source(file, what="behavior file")
    tree = parse_behaviors(text, str(file), env.symbols.struct_names())
    built, errors = _compile_all(tree, env.symbols, env.runtime, text)
    lines = text.split("\n")
    defined: list[CompiledBehavior] = []
    with env.scheduler.lock:
        for node, defn in zip(tree.behaviors, built, strict=False):  # ``built`` stops before the first failure
            conflict = _name_conflict(env.symbols, defn.name, node, tree, lines)
            if conflict is not None:
                raise conflict
            env.add_behavior(defn.name, defn, help=defn.doc)
            defined.append(defn)
    if errors:
        raise errors[0]
    return defined


def _name_conflict(
    symbols: SymbolTable, name: str, node: ast.BehaviorDef, tree: ast.BehaviorFile, lines: Sequence[str]
) -> ColbertCompileError | None:
    """The error of defining behavior ``name`` where the name is already something else (redefining one is fine)."""
    existing = symbols.lookup(name)
    if existing is None or (isinstance(existing, Constant) and existing.type == BEHAVIOR):
        return None
    message = f"cannot define behavior '{name}': the name is already {symbols.describe(name)}"
    return _error(message, node.pos, tree, lines)


# ------------------------------------------------------------------------------------------------ compiling
def _error(message: str, pos: ast.Pos, tree: ast.BehaviorFile, lines: Sequence[str]) -> ColbertCompileError:
    source = lines[pos.line - 1].rstrip("\r") if 0 < pos.line <= len(lines) else None
    return ColbertCompileError(message, SourcePosition(tree.filename, pos.line, pos.column), source)


def _compile_all(
    tree: ast.BehaviorFile, symbols: SymbolTable, hooks: RuntimeHooks | None, source: str
) -> tuple[list[CompiledBehavior], list[ColbertCompileError]]:
    """Compile every behavior of the file; the built ones (in order, up to any that failed) and all errors."""
    scope = _behavior_scope(symbols)
    compiler = Compiler(scope, hooks if hooks is not None else cast(RuntimeHooks, _NoHooks()))
    lines = source.split("\n")
    built: list[CompiledBehavior] = []
    errors: list[ColbertCompileError] = []
    seen: dict[str, ast.BehaviorDef] = {}
    failed = False
    for node in tree.behaviors:
        unit = _BehaviorUnit(node, tree, lines, scope, compiler)
        if node.name in seen:
            unit.error(
                f"behavior '{node.name}' is defined twice in this file (first at line {seen[node.name].pos.line})"
            )
        seen.setdefault(node.name, node)
        defn = unit.build()
        errors.extend(sorted(unit.errors, key=lambda e: (e.line, e.column)))
        failed = failed or defn is None
        if defn is not None and not failed:
            built.append(defn)
    return built, errors


def _behavior_scope(symbols: SymbolTable) -> SymbolTable:
    """The environment behavior code sees: ``symbols`` plus the fuzzy functions, sharing its global values."""
    scope = SymbolTable()
    fuzzy_functions = {
        name: Function(name, fn, FLOAT, (FLOAT,) * arity, help=text) for name, fn, arity, text in FUZZY_FUNCTIONS
    }
    scope.symbols = {**fuzzy_functions, **symbols.symbols}
    scope.structs = symbols.structs
    scope.values = symbols.values  # the same list: compiled code reads and writes the live globals
    scope.help = symbols.help
    return scope


class _BehaviorUnit:
    """Compiles one ``BeginBehavior … EndBehavior`` block, collecting every error it finds."""

    _serial = itertools.count(1)

    def __init__(
        self,
        node: ast.BehaviorDef,
        tree: ast.BehaviorFile,
        lines: Sequence[str],
        scope: SymbolTable,
        compiler: Compiler,
    ) -> None:
        self.node = node
        self.tree = tree
        self.lines = lines
        self.scope = scope
        self.compiler = compiler
        self.errors: list[ColbertCompileError] = []
        self.slots: dict[str, tuple[int, CType]] = {}
        self.ns: dict[str, Any] = {"f_and": fuzzy.f_and, "f_or": fuzzy.f_or, "G": scope.values}
        self._names = itertools.count()

    def error(self, message: str, pos: ast.Pos | None = None) -> None:
        self.errors.append(_error(message, pos or self.node.pos, self.tree, self.lines))

    # ---------------------------------------------------------------- the whole behavior
    def build(self) -> CompiledBehavior | None:
        """The behavior definition, or None when an error was found (see :attr:`errors`)."""
        node = self.node
        declared = self._declarations()
        if declared is None:
            return None
        decls = [*self._fuzzy_variables(declared), *node.init.locals, *node.update.locals]
        # The layout compile_act gives an act: slot 0, then the parameters, then the locals in order.
        for index, param in enumerate(node.params, 1):
            self.slots[param.name] = (index, FLOAT if param.type == "float" else PTR)
        for index, decl in enumerate(decls, len(node.params) + 1):
            self.slots[decl.name] = (index, CType(decl.type.name, decl.type.pointer_depth))
        init = self._section(node.init, "Init", decls)
        update = self._section(node.update, "Update", decls)
        rules = [self._rule(rule) for rule in node.rules]
        activity = self._activity()
        if self.errors or init is None or update is None:
            return None
        return self._definition(rules, activity, init, update)

    def _declarations(self) -> set[str] | None:
        """Names of the parameters and of the sections' declarations; None after a duplicate."""
        node = self.node
        first: dict[str, ast.Pos] = {}
        ok = True
        named = [(p.name, p.pos) for p in node.params]
        named += [(d.name, d.pos) for d in (*node.init.locals, *node.update.locals)]
        for name, pos in named:
            if name in first:
                self.error(
                    f"'{name}' is declared twice in behavior '{node.name}' (first at line {first[name].line}); "
                    "parameters and the variables of Init and Update share one scope",
                    pos,
                )
                ok = False
            else:
                first[name] = pos
        return set(first) if ok else None

    def _fuzzy_variables(self, declared: set[str]) -> list[ast.VarDecl]:
        """The implicit fuzzy variables: names of Rules and Activity that nothing else defines."""
        assigned = _assigned_names(self.node)
        implicit: dict[str, ast.Pos] = {}
        for name, pos in self._names_used():
            if name in declared or name in implicit or self._global(name) is not None:
                continue
            if name not in assigned:
                self.error(
                    f"unknown fuzzy variable '{name}': it is not a parameter of '{self.node.name}', not declared "
                    "in Init or Update, not a global, and neither Init nor Update assigns it",
                    pos,
                )
                continue
            implicit[name] = pos
        return [ast.VarDecl(name, ast.TypeRef("float", 0, pos), pos) for name, pos in implicit.items()]

    def _names_used(self) -> Iterator[tuple[str, ast.Pos]]:
        for rule in self.node.rules:
            yield from _fuzzy_names(rule.condition)
            action = rule.action
            if isinstance(action, ast.TurnAction):
                for part in (action.direction, action.modifier):
                    if isinstance(part, ast.FuzzyVar):
                        yield part.name, part.pos
            elif isinstance(action.value, ast.FuzzyVar):
                yield action.value.name, action.value.pos
        for setting in self.node.activity:
            yield from _fuzzy_names(setting.value)

    def _global(self, name: str) -> GlobalVariable | LinkedVariable | Constant | None:
        sym = self.scope.lookup(name)
        return sym if isinstance(sym, GlobalVariable | LinkedVariable | Constant) else None

    # ---------------------------------------------------------------- Init and Update
    def _section(self, code: ast.BehaviorCode, section: str, decls: Sequence[ast.VarDecl]) -> ActProgram | None:
        """Compile a section as the ``update`` of a synthetic act whose locals are the behavior's variables."""
        node = self.node
        params = tuple(
            ast.Param(p.name, ast.TypeRef("float" if p.type == "float" else "ptr", 0, p.pos), p.pos)
            for p in node.params
        )
        act = ast.ActDef(
            name=f"{node.name} {section} #{next(self._serial)}",  # never a symbol: compile_act looks it up
            params=params,
            locals=tuple(decls),
            update=ast.Block(code.statements, code.pos) if code.statements else None,
            body=(),
            filename=self.tree.filename,
            pos=code.pos,
            end_line=code.pos.line,
        )
        try:
            program = self.compiler.compile_act(act, self.lines)
        except ColbertCompileError as exc:
            self.errors.append(exc)
            return None
        assert program.local_slots == {name: index for name, (index, _) in self.slots.items()}
        return program

    # ---------------------------------------------------------------- Rules and Activity
    def _rule(self, rule: ast.Rule) -> Rule[BehaviorFrame]:
        when = self._fuzzy(rule.condition)
        action = rule.action
        then: Action[BehaviorFrame]
        if isinstance(action, ast.SpeedAction):
            value = action.value
            then = speed(value if isinstance(value, float) else self._value(value, "a speed (Speed)"))
        else:
            modifier: float | Callable[[BehaviorFrame], float] = TurnModifier.MODERATELY
            if isinstance(action.modifier, ast.FuzzyVar):
                modifier = self._value(action.modifier, "a turn in degrees (Turn modifier)")
            elif action.modifier is not None:
                modifier = _MODIFIERS[action.modifier]
            if action.direction == "left":
                then = turn_left(modifier)
            elif action.direction == "right":
                then = turn_right(modifier)
            else:
                then = turn(self._value(action.direction, "a turn direction (Turn)"), modifier)
        return Rule(rule.name or "", when, then)

    def _activity(self) -> Activity[BehaviorFrame]:
        values = {setting.channel: self._fuzzy(setting.value) for setting in self.node.activity}
        return Activity(
            turn=values.get("turn", 0.0),
            speed=values.get("speed", 0.0),
            goal=values.get("goal", 0.0),
            progress=values.get("progress", 0.0),
        )

    def _fuzzy(self, expr: ast.FuzzyExpr) -> float | Callable[[BehaviorFrame], float]:
        """A truth: a constant (folded) or a function of the instance's frame."""
        code, const = self._fuzzy_code(expr)
        return const if const is not None else self._function(code)

    def _value(self, var: ast.FuzzyVar, what: str) -> float | Callable[[BehaviorFrame], float]:
        code, const = self._leaf(var, what)
        return const if const is not None else self._function(code)

    def _fuzzy_code(self, expr: ast.FuzzyExpr) -> tuple[str, float | None]:
        """Python code for a fuzzy expression over ``f`` (the frame), and its value when constant."""
        if isinstance(expr, ast.FuzzyConstant):
            return repr(float(expr.value)), float(expr.value)
        if isinstance(expr, ast.FuzzyVar):
            return self._leaf(expr, "a fuzzy truth")
        if isinstance(expr, ast.FuzzyNot):
            code, const = self._fuzzy_code(expr.operand)
            if const is not None:
                return repr(fuzzy.f_not(const)), fuzzy.f_not(const)
            return f"(1.0 - {code})", None
        left, left_const = self._fuzzy_code(expr.left)
        right, right_const = self._fuzzy_code(expr.right)
        combine = fuzzy.f_and if isinstance(expr, ast.FuzzyAnd) else fuzzy.f_or
        if left_const is not None and right_const is not None:
            value = combine(left_const, right_const)
            return repr(value), value
        return f"{combine.__name__}({left}, {right})", None

    def _leaf(self, var: ast.FuzzyVar, what: str) -> tuple[str, float | None]:
        """Code reading a name used as a number in Rules or Activity (type-checked)."""
        local = self.slots.get(var.name)
        if local is not None:
            index, ctype = local
            self._numeric(var, ctype, what)
            return (f"f[{index}]" if ctype == FLOAT else f"float(f[{index}])"), None
        sym = self._global(var.name)
        if sym is None:  # already reported as an unknown fuzzy variable
            return "0.0", None
        self._numeric(var, sym.type, what)
        if isinstance(sym, Constant):
            number = float(sym.value) if sym.type.is_numeric else 0.0
            return repr(number), number
        if isinstance(sym, GlobalVariable):
            return f"float(G[{sym.index}])", None
        getter = f"_get{next(self._names)}"
        self.ns[getter] = sym.getter
        return f"float({getter}())", None

    def _numeric(self, var: ast.FuzzyVar, ctype: CType, what: str) -> None:
        if ctype.is_numeric:
            return
        kind = "a pointer (sfPTR)" if ctype.is_pointer else f"of type {ctype}"
        self.error(f"type error: '{var.name}' is {kind}, but {what} must be a number (int or float)", var.pos)

    def _function(self, code: str) -> Callable[[BehaviorFrame], float]:
        """``lambda v: <code>`` with ``f`` the instance's frame, compiled once."""
        name = f"_fz{next(self._names)}"
        source = f"def {name}(v):\n    f = v.frame\n    return {code}\n"
        exec(compile(source, f"<behavior {self.node.name}>", "exec"), self.ns)  # code built from the checked AST
        return cast(Callable[[BehaviorFrame], float], self.ns[name])

    # ---------------------------------------------------------------- the definition
    def _definition(
        self,
        rules: list[Rule[BehaviorFrame]],
        activity: Activity[BehaviorFrame],
        init_program: ActProgram,
        update_program: ActProgram,
    ) -> CompiledBehavior | None:
        node = self.node
        specs = tuple(
            ParamSpec(
                p.name, ParamKind.FLOAT if p.type == "float" else ParamKind.POINTER, REQUIRED, f"sf{p.type.upper()}"
            )
            for p in node.params
        )
        param_slots = tuple((self.slots[p.name][0], p.name) for p in node.params)
        names = {name: index for name, (index, _) in self.slots.items()}
        template = update_program.frame_template
        struct_locals = update_program.struct_locals
        structs = self.scope.structs
        filename = self.tree.filename
        init_fn, init_line = init_program.update, node.init.pos.line
        update_fn, update_line = update_program.update, node.update.pos.line

        def make_vars() -> BehaviorFrame:
            frame = list(template)
            for slot, struct_name in struct_locals:
                factory = structs[struct_name].factory
                assert factory is not None
                frame[slot] = factory()
            return BehaviorFrame(frame, names)

        def init(ctx: BehaviorContext[BehaviorArguments, BehaviorFrame]) -> None:
            frame = ctx.v.frame
            for slot, name in param_slots:
                frame[slot] = ctx.p[name]
            if init_fn is not None:
                _run(init_fn, frame, filename, init_line)

        def update(ctx: BehaviorContext[BehaviorArguments, BehaviorFrame]) -> None:
            if update_fn is not None:
                _run(update_fn, ctx.v.frame, filename, update_line)

        signature = ", ".join(f"sf{p.type.upper()} {p.name}" for p in node.params)
        try:
            return BehaviorDef(
                name=node.name,
                params=specs,
                make_params=BehaviorArguments,
                make_vars=make_vars,
                update=update,
                rules=tuple(rules),
                activity=activity,
                init=init,
                doc=f"{node.name}({signature}) from {filename}:{node.pos.line}",
            )
        except BehaviorError as exc:
            pos = next((p.pos for p in node.params if f"'{p.name}'" in str(exc)), node.pos)
            self.error(str(exc), pos)
            return None


def _run(fn: Callable[[list[Any]], None], frame: list[Any], filename: str, section_line: int) -> None:
    """Run compiled Init or Update code; a runtime error names the file and the line."""
    try:
        fn(frame)
    except Exception as exc:
        line = generated_line(exc) or section_line
        raise BehaviorCodeError(f"{filename}:{line}: {runtime_message(exc)}") from exc


def _fuzzy_names(expr: ast.FuzzyExpr) -> Iterator[tuple[str, ast.Pos]]:
    """Every variable of a fuzzy expression, in source order."""
    if isinstance(expr, ast.FuzzyVar):
        yield expr.name, expr.pos
    elif isinstance(expr, ast.FuzzyNot):
        yield from _fuzzy_names(expr.operand)
    elif isinstance(expr, ast.FuzzyAnd | ast.FuzzyOr):
        yield from _fuzzy_names(expr.left)
        yield from _fuzzy_names(expr.right)


def _assigned_names(node: ast.BehaviorDef) -> set[str]:
    """Names assigned (``name = …``) anywhere in Init or Update."""
    names: set[str] = set()
    statements: Iterable[ast.Statement] = (*node.init.statements, *node.update.statements)
    for statement in statements:
        for inner in nested_statements(statement):
            if isinstance(inner, ast.Assign) and isinstance(inner.target, ast.Name):
                names.add(inner.target.name)
    return names
