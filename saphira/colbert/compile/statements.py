"""Compiling Colbert statements: act bodies into FSM nodes, top-level and ``update`` code into plain Python.

In an act body each statement that does something becomes a :class:`Node` whose code returns where
to go next (see :mod:`saphira.colbert.compile.compiler` for the encoding of continues, breaks and waits);
jumps are threaded away when the nodes are rendered. At top level and in ``update`` statements run
directly, as ordinary Python statements.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from saphira.colbert.compile.codegen import TOP_LEVEL_LOOP_LIMIT, CodeUnit, RuntimeHooks, StartSpec
from saphira.colbert.compile.expressions import ExpressionCompiler, convertible, describe_expression
from saphira.colbert.compile.symbols import (
    BEHAVIOR,
    INT,
    ActSchema,
    ColbertCompileError,
    ColbertRuntimeError,
    CType,
    Function,
    SymbolTable,
)
from saphira.colbert.syntax import ast
from saphira.core.errors import SourcePosition


class Label:
    __slots__ = ("ident", "index")

    _ids = itertools.count()

    def __init__(self) -> None:
        self.index = -1
        self.ident = next(self._ids)


@dataclass
class Node:
    """A node before rendering: body lines with ``@J<id>@`` (continue) / ``@B<id>@`` (break) targets."""

    pos: ast.Pos
    """Where the statement starts in its file (reported with runtime errors)."""
    body: list[str]
    text: str = ""
    traced: bool = True
    value: str | None = None
    """Code reading back an assigned variable (trace)."""
    jump: Label | None = None
    """For pure jumps (threaded away) and back-edges (threaded as a break)."""
    backedge: bool = False


@dataclass(frozen=True)
class PendingStart:
    """A ``start`` of a name nothing defined yet where it was compiled (an act or behavior defined later).

    The runtime looks the name up when the statement runs; a whole-run check (``saphira check``,
    ``saphira run`` before it connects) resolves it once every file is compiled.
    """

    spec: StartSpec
    position: SourcePosition
    source: str | None
    priority: bool
    """Whether the statement gives a priority (only behaviors take one)."""


_TARGET_RE = re.compile(r"@([JB])(\d+)@")

_SIMPLE_TYPES = (ast.ExprStatement, ast.Assign, ast.Halt, *ast.UTILITY_COMMANDS)


class StatementCompiler(ExpressionCompiler):
    """Act-body statements as FSM nodes, and direct statements for top level and ``update``."""

    def __init__(self, symbols: SymbolTable, hooks: RuntimeHooks) -> None:
        super().__init__(symbols)
        self.hooks = hooks
        self._nodes: list[Node] = []
        self._labels: dict[str, Label] = {}
        self._placed: dict[int, Label] = {}
        self._mode = "top"  # "top", "update" or "act"
        self.pending_starts: list[PendingStart] | None = None
        """When a list, ``start`` of a name not yet defined is recorded there (a whole-run check resolves it)."""
        self.collected: list[ColbertCompileError] | None = None
        """When a list, an error in an act-body statement is added to it and compiling goes on with the next
        statement, so a check reports every error of an act; :meth:`compile_act` then raises the first."""

    @staticmethod
    def _text(s: ast.Statement) -> str:
        return describe_statement(s)

    def check_start_args(self, spec: StartSpec, params: Sequence[tuple[str, CType]], pos: ast.Pos | None) -> None:
        """Arity and type check of ``start`` arguments against an act's parameters."""
        if len(spec.arg_types) != len(params):
            message = (
                f"act '{spec.schema}' takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                f"{len(spec.arg_types)} given"
            )
            if pos is None:
                raise ColbertRuntimeError(message)
            raise self._error(message, pos)
        for i, (src, (pname, ptype)) in enumerate(zip(spec.arg_types, params, strict=True), 1):
            if not convertible(src, ptype, literal_zero=False):
                message = f"cannot convert {src} to {ptype} (argument {i}, '{pname}', of act '{spec.schema}')"
                if pos is None:
                    raise ColbertRuntimeError(message)
                raise self._error(message, pos)

    # ------------------------------------------------------------------ FSM statements (act bodies)
    def _place(self, label: Label) -> None:
        label.index = len(self._nodes)
        self._placed[label.ident] = label

    def _add(self, node: Node) -> int:
        self._nodes.append(node)
        return len(self._nodes) - 1

    def _jump(self, target: Label, pos: ast.Pos) -> None:
        self._add(Node(pos, [f"return @J{target.ident}@"], traced=False, jump=target))

    def _stmt(self, s: ast.Statement, succ: Label) -> None:
        if self.collected is None or isinstance(s, ast.Block):
            self._stmt_nodes(s, succ)
            return
        try:
            self._stmt_nodes(s, succ)
        except ColbertCompileError as exc:  # the act is not built: its partial nodes never render
            self.collected.append(exc)

    def _stmt_nodes(self, s: ast.Statement, succ: Label) -> None:
        J = f"@J{succ.ident}@"
        B = f"@B{succ.ident}@"
        pos = s.pos
        text = self._text(s)
        if isinstance(s, ast.Block):
            if not s.body:
                self._jump(succ, pos)
            for i, inner in enumerate(s.body):
                nxt = succ if i == len(s.body) - 1 else Label()
                self._stmt(inner, nxt)
                if nxt is not succ:
                    self._place(nxt)
        elif isinstance(s, ast.EmptyStatement):
            self._jump(succ, pos)
        elif isinstance(s, _SIMPLE_TYPES):
            body, value = self._simple(s)
            node = Node(pos, [*body, f"return {J}"], text=text)
            if value is not None:
                node.value = value
            self._add(node)
        elif isinstance(s, ast.If):
            then_l = Label()
            else_l = Label() if s.otherwise is not None else succ
            cond = self._cond(s.condition)
            self._add(Node(pos, [f"return @J{then_l.ident}@ if {cond} else @J{else_l.ident}@"], text=text))
            self._place(then_l)
            self._stmt(s.then, succ)
            if s.otherwise is not None:
                self._place(else_l)
                self._stmt(s.otherwise, succ)
        elif isinstance(s, ast.While):
            head = Label()
            body_l = Label()
            back = Label()
            self._place(head)
            cond = self._cond(s.condition)
            self._add(Node(pos, [f"return @J{body_l.ident}@ if {cond} else {B}"], text=text))
            self._place(body_l)
            self._stmt(s.body, back)
            self._place(back)
            self._add(Node(pos, [f"return @B{head.ident}@"], traced=False, jump=head, backedge=True))
        elif isinstance(s, ast.Goto):
            target = self._labels.get(s.label)
            if target is None:  # pragma: no cover - the parser checks labels
                raise self._error(f"no label '{s.label}' in act '{self._scope.act}'", s.pos)
            self._add(Node(pos, [f"return @B{target.ident}@"], text=text))
        elif isinstance(s, ast.WaitFor):
            self._waitfor(s, succ, text)
        elif isinstance(s, ast.Start):
            spec, args, timeout, priority = self._start_parts(s)
            k = self.unit.bind(spec, "_spec")
            idx = len(self._nodes)
            self._add(
                Node(
                    pos,
                    [
                        "a = f[0]",
                        f"if a.wait_node == {idx}:",
                        f"    return rt.start_wait(a, {idx}, {J})",
                        f"return rt.start_node(a, {idx}, {J}, {k}, {args}, {timeout}, {priority})",
                    ],
                    text=text,
                )
            )
        elif isinstance(s, ast.Signal):
            self._check_signal(s)
            self._add(Node(pos, [f"rt.signal(f[0], {s.signal!r}, {s.target!r})", f"return {B}"], text=text))
        elif isinstance(s, ast.Motion):
            value = self._convert(self._expr(s.argument), INT, f"(argument of {s.command})", s.argument.pos)
            timeout = self._timeout(s.timeout)
            idx = len(self._nodes)
            self._add(
                Node(
                    pos,
                    [
                        "a = f[0]",
                        f"if a.wait_node == {idx}:",
                        f"    return rt.motion_wait(a, {idx}, {J})",
                        f"return rt.motion_node(a, {idx}, {J}, {s.command!r}, {value}, {timeout}, {s.noblock})",
                    ],
                    text=text,
                )
            )
        else:  # pragma: no cover - every statement kind is handled above
            raise self._error(f"unsupported statement {type(s).__name__}", s.pos)

    def _waitfor(self, s: ast.WaitFor, succ: Label, text: str) -> None:
        J = f"@J{succ.ident}@"
        cond = self._cond(s.condition)
        idx = len(self._nodes)
        if s.timeout is None:
            body = [f"return {J} if {cond} else {~idx}"]
        else:
            timeout = self._timeout(s.timeout)
            body = [
                "a = f[0]",
                f"if {cond}:",
                "    a.wait_node = -1",
                f"    return {J}",
                f"if a.wait_node != {idx}:",
                f"    a.wait_node = {idx}",
                f"    a.wait_deadline = rt.now() + {timeout}",
                "if rt.now() >= a.wait_deadline:",
                "    a.wait_node = -1",
                f"    return {J}",
                f"return {~idx}",
            ]
        self._add(Node(s.pos, body, text=text))

    def _render(self, unit: CodeUnit) -> None:
        nodes = self._nodes

        def resolve(label_index: int, brk: bool) -> str:
            idx = label_index
            seen = set()
            while idx not in seen and idx < len(nodes) and nodes[idx].jump is not None:
                seen.add(idx)
                node = nodes[idx]
                assert node.jump is not None
                if node.backedge:
                    brk = True
                idx = node.jump.index
            return str(~idx if brk else idx)

        by_ident = {ident: label.index for ident, label in self._placed.items()}
        for i, node in enumerate(nodes):
            unit.emit(f"def _n{i}(f):", node.pos)
            for text in node.body:
                text = text.replace("@B{end}@", str(~i))
                rendered = _TARGET_RE.sub(lambda m: resolve(by_ident[int(m.group(2))], m.group(1) == "B"), text)
                unit.emit("    " + rendered, node.pos)
            if node.value is not None:
                unit.emit(f"def _v{i}(f):", node.pos)
                unit.emit(f"    return {node.value}", node.pos)

    # ------------------------------------------------------------------ direct statements (update, top level)
    def _direct(self, s: ast.Statement, depth: int) -> list[tuple[str, ast.Pos]]:
        pad = "    " * depth
        pos = s.pos
        out: list[tuple[str, ast.Pos]] = []
        if isinstance(s, ast.Block):
            for inner in s.body:
                out.extend(self._direct(inner, depth))
            if not out:
                out.append((pad + "pass", pos))
        elif isinstance(s, ast.EmptyStatement):
            out.append((pad + "pass", pos))
        elif isinstance(s, _SIMPLE_TYPES):
            body, _ = self._simple(s)
            out.extend((pad + b, pos) for b in body)
        elif isinstance(s, ast.If):
            out.append((f"{pad}if {self._cond(s.condition)}:", pos))
            out.extend(self._direct(s.then, depth + 1))
            if s.otherwise is not None:
                out.append((pad + "else:", s.otherwise.pos))
                out.extend(self._direct(s.otherwise, depth + 1))
        elif isinstance(s, ast.While):
            if self._mode == "update":
                raise self._error("'while' is not allowed in update (update runs once per cycle)", s.pos)
            counter = f"_c{depth}"
            out.append((f"{pad}{counter} = 0", pos))
            out.append((f"{pad}while {self._cond(s.condition)}:", pos))
            out.append((f"{pad}    {counter} += 1", pos))
            out.append((f"{pad}    if {counter} > {TOP_LEVEL_LOOP_LIMIT}:", pos))
            out.append((f"{pad}        _loop_limit()", pos))
            out.extend(self._direct(s.body, depth + 1))
        elif isinstance(s, ast.WaitFor):
            where = "in update" if self._mode == "update" else "at top level; use it inside an act"
            raise self._error(f"'waitfor' is not allowed {where}", s.pos)
        elif isinstance(s, ast.Goto):
            raise self._error("'goto' is only allowed in the body of an act", s.pos)
        elif isinstance(s, ast.Start):
            if self._mode == "update":
                raise self._error("'start' is not allowed in update; start activities from the act body", s.pos)
            spec, args, timeout, priority = self._start_parts(s)
            k = self.unit.bind(spec, "_spec")
            out.append((f"{pad}rt.start_now(f[0], {k}, {args}, {timeout}, {priority})", pos))
        elif isinstance(s, ast.Signal):
            self._check_signal(s)
            out.append((f"{pad}rt.signal(f[0], {s.signal!r}, {s.target!r})", pos))
        elif isinstance(s, ast.Motion):
            value = self._convert(self._expr(s.argument), INT, f"(argument of {s.command})", s.argument.pos)
            if s.timeout is not None:
                self._timeout(s.timeout)
            out.append((f"{pad}rt.motion_now(f[0], {s.command!r}, {value})", pos))
        else:  # pragma: no cover
            raise self._error(f"unsupported statement {type(s).__name__}", s.pos)
        return out

    def _simple(self, s: ast.Statement) -> tuple[list[str], str | None]:
        """Body lines of an expression statement, assignment, ``halt`` or utility command."""
        if isinstance(s, ast.ExprStatement):
            ex = self._expr(s.expr, allow_void=True)
            return [ex.code], None
        if isinstance(s, ast.Assign):
            target = self._lvalue(s.target)
            what = f"'{target.name}'" if target.name else "this location"
            value = self._convert(self._expr(s.value), target.type, f"(assignment to {what})", s.value.pos)
            return [target.store(value)], (target.read if target.name else None)
        if isinstance(s, ast.Halt):
            return ["rt.halt(f[0])"], None
        k = self.unit.bind(s, "_util")
        return [f"rt.utility({k})"], None

    def _check_signal(self, s: ast.Signal) -> None:
        if s.target is None and self._mode == "top":
            raise self._error(
                f"'{s.signal}' without an activity name only works inside an act; here name the activity: "
                f"{s.signal} <iname>",
                s.pos,
            )
        if s.target is None and s.signal == "resume":
            raise self._error("an activity cannot resume itself (a suspended act does not run)", s.pos)

    def _timeout(self, e: ast.Expr | None) -> str:
        if e is None:
            return "None"
        return self._convert(self._expr(e), INT, "(timeout in cycles)", e.pos)

    def _start_parts(self, s: ast.Start) -> tuple[StartSpec, str, str, str]:
        exs = [self._expr(a) for a in s.args]
        for a, ex in zip(s.args, exs, strict=True):
            if not ex.type.is_scalar:
                raise self._error(f"cannot pass a value of type {ex.type} to '{s.schema}'", a.pos)
        spec = StartSpec(s.schema, tuple(e.type for e in exs), s.iname, s.noblock, s.suspend, s.pos.line)
        sym = self.symbols.lookup(s.schema)
        if sym is None and self.pending_starts is not None:
            where = SourcePosition(self._filename, s.pos.line, s.pos.column)
            self.pending_starts.append(PendingStart(spec, where, self._source_line(s.pos.line), s.priority is not None))
        if isinstance(sym, ActSchema):
            if s.priority is not None:
                raise self._error(f"'priority' applies only to behaviors; '{s.schema}' is an act", s.priority.pos)
            self.check_start_args(spec, sym.program.params, s.pos)
        elif sym is not None and (isinstance(sym, Function) or sym.type != BEHAVIOR):
            raise self._error(
                f"cannot start '{s.schema}': it is {self.symbols.describe(s.schema)}, not an act or a behavior",
                s.pos,
            )
        args = "(" + "".join(f"{e.code}, " for e in exs) + ")"
        priority = (
            "None" if s.priority is None else self._convert(self._expr(s.priority), INT, "(priority)", s.priority.pos)
        )
        return spec, args, self._timeout(s.timeout), priority


def describe_statement(s: ast.Statement) -> str:
    """A one-line rendering of a statement's head, for trace output: ``move(1000)``, ``while (a != 0)``."""
    if isinstance(s, ast.Assign):
        return f"{describe_expression(s.target)} = {describe_expression(s.value)}"
    if isinstance(s, ast.ExprStatement):
        return describe_expression(s.expr)
    if isinstance(s, ast.If):
        return f"if ({describe_expression(s.condition)})"
    if isinstance(s, ast.While):
        return f"while ({describe_expression(s.condition)})"
    if isinstance(s, ast.WaitFor):
        timeout = f" timeout {describe_expression(s.timeout)}" if s.timeout is not None else ""
        return f"waitfor {describe_expression(s.condition)}{timeout}"
    if isinstance(s, ast.Goto):
        return f"goto {s.label}"
    if isinstance(s, ast.Motion):
        return f"{s.command}({describe_expression(s.argument)})" + (" noblock" if s.noblock else "")
    if isinstance(s, ast.Start):
        args = f"({', '.join(describe_expression(a) for a in s.args)})" if s.args else ""
        options = (f" iname {s.iname}" if s.iname else "") + (" noblock" if s.noblock else "")
        return f"start {s.schema}{args}{options}" + (" suspend" if s.suspend else "")
    if isinstance(s, ast.Signal):
        return s.signal + (f" {s.target}" if s.target else "")
    if isinstance(s, ast.Halt):
        return "halt"
    if isinstance(s, ast.Block | ast.EmptyStatement):
        return "{}" if isinstance(s, ast.Block) else ";"
    return type(s).__name__.lower()
