"""Compiled Colbert programs and the Python code they are generated as.

An act compiles to an :class:`ActProgram`, a flat list of node functions (see
:mod:`saphira.colbert.compile.compiler`). The nodes are Python source generated into one :class:`CodeUnit`
per act, statement or expression: its namespace holds the helpers below (C division, pointers, the
top-level loop guard) and the objects the code refers to; its line map turns a Python traceback back
into the Colbert source position (:func:`generated_position`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from saphira.colbert.compile.symbols import ColbertRuntimeError, CType, Ref, Slot, SymbolTable
from saphira.colbert.syntax import ast

TOP_LEVEL_LOOP_LIMIT = 1_000_000
"""Iterations after which a ``while`` loop run directly at top level is stopped with an error."""


# ==== compiled programs =================================================================================


@dataclass(frozen=True, slots=True)
class StartSpec:
    """A compiled ``start`` statement (everything but the argument values, computed when it runs)."""

    schema: str
    arg_types: tuple[CType, ...]
    iname: str | None
    noblock: bool
    suspend: bool
    line: int


@dataclass
class ActProgram:
    """One compiled act: the node list, its line map, and what the runtime needs to start instances."""

    name: str
    params: tuple[tuple[str, CType], ...]
    frame_template: tuple[Any, ...]
    """Slot 0 (the activity) then parameters and locals, zeroed."""
    nodes: list[Callable[[list[Any]], int]]
    node_positions: list[ast.Pos]
    """Where each node's statement starts in :attr:`filename` (subtract :attr:`line` for act-relative lines)."""
    node_texts: list[str]
    node_traced: list[bool]
    node_values: list[Callable[[list[Any]], Any] | None]
    """For assignments to a variable: reads the assigned value back (trace output)."""
    update: Callable[[list[Any]], None] | None
    update_pos: ast.Pos
    interrupt_index: int | None
    resume_index: int | None
    filename: str
    line: int
    end_line: int
    local_types: dict[str, CType] = field(default_factory=dict)
    local_slots: dict[str, int] = field(default_factory=dict)
    """Frame index of each parameter and local."""
    struct_locals: tuple[tuple[int, str], ...] = ()
    """(frame index, struct name) of locals that hold a struct value (made fresh per instance)."""
    source: Sequence[str] = ()
    """The lines of the file the act was read from (shown under runtime errors)."""

    def relative_line(self, line: int) -> int:
        return line - self.line

    def source_line(self, line: int) -> str | None:
        """Line ``line`` (1-based) of the act's file, when known."""
        return self.source[line - 1].rstrip("\r") if 0 < line <= len(self.source) else None


class RuntimeHooks(Protocol):
    """What compiled code calls into: implemented by :class:`saphira.colbert.runtime.ColbertRuntime`."""

    def now(self) -> int: ...

    def start_node(
        self, act: Any, index: int, succ: int, spec: StartSpec, args: tuple[Any, ...], timeout: Any, priority: Any
    ) -> int: ...

    def start_wait(self, act: Any, index: int, succ: int) -> int: ...

    def start_now(self, ctx: Any, spec: StartSpec, args: tuple[Any, ...], timeout: Any, priority: Any) -> None: ...

    def motion_node(
        self, act: Any, index: int, succ: int, command: str, value: Any, timeout: Any, noblock: bool
    ) -> int: ...

    def motion_wait(self, act: Any, index: int, succ: int) -> int: ...

    def motion_now(self, ctx: Any, command: str, value: Any) -> None: ...

    def halt(self, ctx: Any) -> None: ...

    def signal(self, ctx: Any, kind: str, target: str | None) -> None: ...

    def utility(self, command: ast.UtilityCommand) -> None: ...


# ==== helpers available to generated code ===============================================================


def _idiv(a: int, b: int) -> int:
    """C integer division: truncates toward zero."""
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


def _imod(a: int, b: int) -> int:
    """C remainder: has the sign of the dividend."""
    return a - b * _idiv(a, b)


def _deref(p: Any) -> Any:
    if p is None:
        raise ColbertRuntimeError("null pointer dereference")
    return p.get()


def _store(p: Any, value: Any) -> None:
    if p is None:
        raise ColbertRuntimeError("null pointer dereference")
    p.set(value)


def _nn(p: Any) -> Any:
    if p is None:
        raise ColbertRuntimeError("null pointer dereference")
    return p


def _same(a: Any, b: Any) -> bool:
    return a is b or (isinstance(a, Ref) and a == b)


def _ptr_int(p: Any) -> int:
    return 0 if p is None else id(p)


def _local_ref(frame: list[Any], index: int, name: str) -> Ref:
    def get() -> Any:
        return frame[index]

    def set(value: Any) -> None:
        frame[index] = value

    return Ref(get, set, (id(frame), index, name))


def _attr_ref(obj: Any, attr: str) -> Ref:
    if obj is None:
        raise ColbertRuntimeError("null pointer dereference")
    return Ref(lambda: getattr(obj, attr), lambda v: setattr(obj, attr, v), (id(obj), attr))


def _slot_ref(obj: Any, slot: Slot) -> Ref:
    if obj is None:
        raise ColbertRuntimeError("null pointer dereference")
    getter = slot.getter
    setter = slot.setter
    assert getter is not None

    def set(value: Any) -> None:
        if setter is None:
            raise ColbertRuntimeError(f"slot '{slot.name}' is read-only")
        setter(obj, value)

    return Ref(lambda: getter(obj), set, (id(obj), slot.name))


def _loop_limit() -> None:
    raise ColbertRuntimeError(
        f"a while loop at top level ran {TOP_LEVEL_LOOP_LIMIT} times without ending; "
        "loops that wait for the robot belong in an act"
    )


GENERATED_HELPERS: dict[str, Any] = {
    "_idiv": _idiv,
    "_imod": _imod,
    "_deref": _deref,
    "_store": _store,
    "_nn": _nn,
    "_same": _same,
    "_ptr_int": _ptr_int,
    "_local_ref": _local_ref,
    "_attr_ref": _attr_ref,
    "_slot_ref": _slot_ref,
    "_loop_limit": _loop_limit,
    "ColbertRuntimeError": ColbertRuntimeError,
}


class CodeUnit:
    """One generated Python module: its namespace, its source lines and their Colbert line map."""

    _serial = itertools.count(1)

    def __init__(self, symbols: SymbolTable, hooks: RuntimeHooks, label: str) -> None:
        self.ns: dict[str, Any] = dict(GENERATED_HELPERS)
        self.ns["G"] = symbols.values
        self.ns["rt"] = hooks
        self.source: list[str] = []
        self.positions: list[ast.Pos] = [ast.Pos(0, 0)]
        self.filename = f"<colbert {label} #{next(self._serial)}>"
        self._names = itertools.count()

    def bind(self, value: Any, prefix: str = "_k") -> str:
        name = f"{prefix}{next(self._names)}"
        self.ns[name] = value
        return name

    def emit(self, text: str, pos: ast.Pos) -> None:
        """Append one line of Python generated for the Colbert source at ``pos``."""
        self.source.append(text)
        self.positions.append(pos)

    def build(self) -> dict[str, Any]:
        self.ns["__colbert_positions__"] = self.positions
        code = compile("\n".join(self.source) + "\n", self.filename, "exec")
        exec(code, self.ns)  # generated from the typed AST; every name in it is bound by us
        return self.ns


def generated_position(exc: BaseException) -> ast.Pos | None:
    """The Colbert source position of the statement where ``exc`` was raised in generated code."""
    tb = exc.__traceback__
    found: ast.Pos | None = None
    while tb is not None:
        positions = tb.tb_frame.f_globals.get("__colbert_positions__")
        if positions is not None and tb.tb_frame.f_code.co_filename.startswith("<colbert "):
            lineno = tb.tb_lineno
            if 0 < lineno < len(positions):
                found = positions[lineno]
        tb = tb.tb_next
    return found


def generated_line(exc: BaseException) -> int | None:
    """The Colbert source line where ``exc`` was raised in generated code (innermost such frame)."""
    pos = generated_position(exc)
    return None if pos is None else pos.line
