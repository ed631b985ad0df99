"""Compiling Colbert: the translation of acts, top-level statements and prompt expressions into Python.

The compiler is split by concept: :mod:`~saphira.colbert.compile.symbols` (types, symbols, errors),
:mod:`~saphira.colbert.compile.codegen` (compiled programs, generated code and its helpers),
:mod:`~saphira.colbert.compile.expressions` and :mod:`~saphira.colbert.compile.statements`; this module assembles
them into :class:`Compiler`. Each name is imported from the module that defines it.

Each ``act`` becomes an :class:`ActProgram`: a flat list of *nodes*, one per statement that does
something (docs/architecture.md §6). A node is a Python function ``node(frame) -> int`` generated once,
at definition time, from the typed AST, so that running a statement costs one call and no tree
walking. The activity's state is the index of its next node. A node returns where to go next:

* ``n >= 0``: continue at node ``n`` in this same cycle (ordinary statements, ``if``, a true
  ``while`` test);
* ``~n`` (negative): return to the scheduler and continue at node ``n`` next cycle. A node that
  returns ``~own index`` is *waiting* (motion, blocking ``start``, ``waitfor``); any other negative
  value is a *single break* (``goto``, the end of a ``while`` body, a false ``while`` test,
  ``start``, signals) — docs/colbert.md §4.

The frame is a list: slot 0 holds the running activity (``None`` at top level), then the act's
parameters and locals. Globals live in :attr:`~saphira.colbert.compile.symbols.SymbolTable.values`.
Expressions are compiled into Python expressions with the manual's implicit casts resolved statically
(§7.4): any ``float`` operand makes arithmetic ``float``; ``int / int`` truncates toward zero as in C;
assignments and call arguments convert to the declared type; comparisons and logical operators give
``int`` 0 or 1.

Type errors are reported at definition time and always name both types involved.

Decisions the manual leaves open, documented here:

* ``int`` is a Python integer (no 32-bit wrap-around) and ``float`` a Python float (double, not
  single precision); ``/`` and ``%`` by zero are runtime errors for floats as well as ints.
* Strings compare by value with ``==``/``!=``; a string is true when it is not empty. A ``string``
  variable starts as ``""``, a pointer as ``NULL`` (Python ``None``).
* Pointers: a pointer to a struct is the object itself; a pointer to anything else (``&x``) is a
  :class:`~saphira.colbert.compile.symbols.Ref`. Only ``0``/``NULL`` converts to a pointer; ``ptr``
  converts to and from any pointer. Struct values cannot be assigned (use pointers).
* A ``waitfor`` whose condition already holds does not break: it is a waiting break only while the
  condition is false. A ``while`` loop at top level (file or prompt) runs to completion at once and
  stops with an error after :data:`~saphira.colbert.compile.codegen.TOP_LEVEL_LOOP_LIMIT` iterations;
  ``waitfor`` and ``goto`` exist only inside acts; ``update`` may not contain ``waitfor`` or ``start``.
* Trace line numbers are offsets from the ``act`` line: the line after ``act`` is line 1. Runtime
  errors give the file position (``file:line:col``) instead (:mod:`saphira.colbert.runtime`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from saphira.colbert.compile.codegen import ActProgram, CodeUnit
from saphira.colbert.compile.expressions import Scope
from saphira.colbert.compile.statements import Label, Node, StatementCompiler
from saphira.colbert.compile.symbols import VOID, ActSchema, CType, zero_value
from saphira.colbert.syntax import ast

__all__ = ["Compiler"]

if not TYPE_CHECKING:  # type checkers see only the module's own names
    from saphira._moved import moved_name

    def __getattr__(name: str) -> object:
        """The names this module re-exported before 0.2 (types, symbols, codegen helpers), with a
        DeprecationWarning naming the module that defines each (CHANGELOG.md)."""
        return moved_name(__name__, name)


class Compiler(StatementCompiler):
    """Compiles acts, top-level statements and prompt expressions against one
    :class:`~saphira.colbert.compile.symbols.SymbolTable`."""

    # ------------------------------------------------------------------ public API
    def declare(self, decl: ast.VarDecl, filename: str, lines: Sequence[str]) -> None:
        """Declare a global variable (top-level ``int a;``)."""
        self._begin(filename, lines)
        ctype = self._ctype(decl.type)
        try:
            self.symbols.declare_global(decl.name, ctype)
        except ValueError as exc:
            raise self._error(str(exc), decl.pos) from None

    def compile_act(self, act: ast.ActDef, lines: Sequence[str]) -> ActProgram:
        """Compile an ``act`` into a flat FSM program (does not register it)."""
        self._begin(act.filename, lines)
        existing = self.symbols.lookup(act.name)
        if existing is not None and not isinstance(existing, ActSchema):
            raise self._error(
                f"cannot define act '{act.name}': the name is already {self.symbols.describe(act.name)}", act.pos
            )
        locals_: dict[str, tuple[int, CType]] = {}
        params: list[tuple[str, CType]] = []
        template: list[Any] = [None]
        struct_slots: list[tuple[int, str]] = []
        declared: list[ast.Param | ast.VarDecl] = [*act.params, *act.locals]
        for decl in declared:
            ctype = self._ctype(decl.type)
            if decl.name in locals_:
                raise self._error(f"'{decl.name}' is declared twice in act '{act.name}'", decl.pos)
            if ctype == VOID:
                raise self._error(f"'{decl.name}' cannot have type void", decl.pos)
            if ctype.is_struct:
                struct = self.symbols.structs[ctype.name]
                if isinstance(decl, ast.Param) or struct.factory is None:
                    raise self._error(
                        f"'{decl.name}' cannot be a struct value ({ctype}); use a pointer ({ctype} *)", decl.pos
                    )
                struct_slots.append((len(template), ctype.name))
            locals_[decl.name] = (len(template), ctype)
            template.append(zero_value(ctype))
            if isinstance(decl, ast.Param):
                params.append((decl.name, ctype))
        unit = self._unit = CodeUnit(self.symbols, self.hooks, act.name)
        self._scope = Scope(act.name, locals_)
        self._nodes = []
        self._labels = {}
        self._placed = {}

        update_fn_name: str | None = None
        if act.update is not None:
            self._mode = "update"
            body = self._direct(act.update, 1)
            unit.emit("def _update(f):", act.update.pos)
            for text, pos in body:
                unit.emit(text, pos)
            update_fn_name = "_update"

        self._mode = "act"
        for item in act.body:
            if isinstance(item, ast.Label):
                self._labels[item.name] = Label()
        interrupt = resume = None
        for item in act.body:
            if isinstance(item, ast.Label):
                self._place(self._labels[item.name])
            elif isinstance(item, ast.HandlerLabel):
                handler = Label()
                self._place(handler)
                if item.event == "interrupt":
                    interrupt = handler
                else:
                    resume = handler
            else:
                succ = Label()
                self._stmt(item, succ)
                self._place(succ)
        if self.collected:
            raise self.collected[0]
        self._nodes.append(Node(ast.Pos(act.end_line, 1), ["f[0].end()", "return @B{end}@"], traced=False))
        self._render(unit)
        ns = unit.build()
        count = len(self._nodes)
        return ActProgram(
            name=act.name,
            params=tuple(params),
            frame_template=tuple(template),
            nodes=[ns[f"_n{i}"] for i in range(count)],
            node_positions=[n.pos for n in self._nodes],
            node_texts=[n.text for n in self._nodes],
            node_traced=[n.traced for n in self._nodes],
            node_values=[ns.get(f"_v{i}") for i in range(count)],
            update=ns[update_fn_name] if update_fn_name else None,
            update_pos=act.update.pos if act.update is not None else act.pos,
            interrupt_index=interrupt.index if interrupt is not None else None,
            resume_index=resume.index if resume is not None else None,
            filename=act.filename,
            line=act.pos.line,
            end_line=act.end_line,
            local_types={name: t for name, (_, t) in locals_.items()},
            local_slots={name: i for name, (i, _) in locals_.items()},
            struct_locals=tuple(struct_slots),
            source=lines,
        )

    def compile_statement(
        self, stmt: ast.Statement, filename: str, lines: Sequence[str]
    ) -> Callable[[list[Any]], None]:
        """Compile a top-level statement into a function run once with the frame ``[None]``."""
        self._begin(filename, lines)
        self._mode = "top"
        self._scope = Scope(None, {})
        unit = self._unit = CodeUnit(self.symbols, self.hooks, "top level")
        body = self._direct(stmt, 1)
        unit.emit("def _top(f):", stmt.pos)
        for text, pos in body:
            unit.emit(text, pos)
        fn: Callable[[list[Any]], None] = unit.build()["_top"]
        return fn

    def compile_expression(
        self, expr: ast.Expr, filename: str, lines: Sequence[str]
    ) -> tuple[Callable[[list[Any]], Any], CType]:
        """Compile a prompt expression into a function returning its value, and its type."""
        self._begin(filename, lines)
        self._mode = "top"
        self._scope = Scope(None, {})
        unit = self._unit = CodeUnit(self.symbols, self.hooks, "expression")
        ex = self._expr(expr, allow_void=True)
        unit.emit("def _expr(f):", expr.pos)
        unit.emit(f"    return {ex.code}", expr.pos)
        fn: Callable[[list[Any]], Any] = unit.build()["_expr"]
        return fn, ex.type
