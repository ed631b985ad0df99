"""Compiling Colbert: types, the symbol table, and the translation of acts into flat FSM programs.

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
parameters and locals. Globals live in :attr:`SymbolTable.values`. Expressions are compiled into
Python expressions with the manual's implicit casts resolved statically (§7.4): any ``float``
operand makes arithmetic ``float``; ``int / int`` truncates toward zero as in C; assignments and call
arguments convert to the declared type; comparisons and logical operators give ``int`` 0 or 1.

Type errors are reported at definition time and always name both types involved.

Decisions the manual leaves open, documented here:

* ``int`` is a Python integer (no 32-bit wrap-around) and ``float`` a Python float (double, not
  single precision); ``/`` and ``%`` by zero are runtime errors for floats as well as ints.
* Strings compare by value with ``==``/``!=``; a string is true when it is not empty. A ``string``
  variable starts as ``""``, a pointer as ``NULL`` (Python ``None``).
* Pointers: a pointer to a struct is the object itself; a pointer to anything else (``&x``) is a
  :class:`Ref`. Only ``0``/``NULL`` converts to a pointer; ``ptr`` converts to and from any pointer.
  Struct values cannot be assigned (use pointers).
* A ``waitfor`` whose condition already holds does not break: it is a waiting break only while the
  condition is false. A ``while`` loop at top level (file or prompt) runs to completion at once and
  stops with an error after :data:`TOP_LEVEL_LOOP_LIMIT` iterations; ``waitfor`` and ``goto`` exist
  only inside acts; ``update`` may not contain ``waitfor`` or ``start``.
* Trace and error line numbers are offsets from the ``act`` line: the line after ``act`` is line 1.
"""

from __future__ import annotations

import itertools
import keyword
import math
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from saphira.colbert import ast
from saphira.errors import SaphiraError, SourceError, SourcePosition

__all__ = [
    "ACTIVITY",
    "BEHAVIOR",
    "FLOAT",
    "INT",
    "PTR",
    "STRING",
    "TOP_LEVEL_LOOP_LIMIT",
    "VOID",
    "ActProgram",
    "ActSchema",
    "CType",
    "ColbertCompileError",
    "ColbertRuntimeError",
    "Compiler",
    "Constant",
    "Function",
    "GlobalVariable",
    "LinkedVariable",
    "Ref",
    "RuntimeHooks",
    "Slot",
    "StartSpec",
    "StructType",
    "SymbolTable",
    "convert_value",
    "format_value",
    "parse_type",
    "runtime_message",
]

TOP_LEVEL_LOOP_LIMIT = 1_000_000
"""Iterations after which a ``while`` loop run directly at top level is stopped with an error."""


# ==== errors ============================================================================================


class ColbertCompileError(SourceError):
    """An act or statement that parses but cannot be compiled: unknown name, type error, misuse."""


class ColbertRuntimeError(SaphiraError):
    """An error while a statement runs (null pointer, unknown activity, no robot...)."""


def runtime_message(exc: BaseException) -> str:
    """A short message for a runtime error, as printed after ``act name, line N:``."""
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, AttributeError) and "'NoneType'" in str(exc):
        return "null pointer dereference"
    if isinstance(exc, SaphiraError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "recursion too deep"
    return f"{type(exc).__name__}: {exc}"


# ==== types =============================================================================================

_BASIC = frozenset({"int", "float", "string", "ptr", "void", "behavior", "activity"})


@dataclass(frozen=True, slots=True)
class CType:
    """A Colbert type: a basic type or a struct name, plus pointer levels (``point *`` is depth 1).

    ``ptr`` is the generic pointer: it converts to and from every pointer type.
    """

    name: str
    depth: int = 0

    def __str__(self) -> str:
        return self.name + (" " + "*" * self.depth if self.depth else "")

    @property
    def is_numeric(self) -> bool:
        return self.depth == 0 and self.name in ("int", "float")

    @property
    def is_pointer(self) -> bool:
        return self.depth > 0 or self.name == "ptr"

    @property
    def is_struct(self) -> bool:
        return self.depth == 0 and self.name not in _BASIC

    @property
    def is_scalar(self) -> bool:
        """Storable in a variable: everything except ``void`` and struct values."""
        return not self.is_struct and self != VOID

    def pointer(self) -> CType:
        return CType(self.name, self.depth + 1)

    def pointee(self) -> CType:
        return CType(self.name, self.depth - 1)


INT = CType("int")
FLOAT = CType("float")
STRING = CType("string")
PTR = CType("ptr")
VOID = CType("void")
BEHAVIOR = CType("behavior")
ACTIVITY = CType("activity")

_TYPE_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\**)\s*$")


def parse_type(spec: str | CType) -> CType:
    """``"int"``, ``"point *"``, ``"robot"``... as a :class:`CType` (a CType is returned as is)."""
    if isinstance(spec, CType):
        return spec
    match = _TYPE_RE.match(spec.replace(" ", "") if "*" in spec else spec)
    if match is None:
        raise ValueError(f"bad Colbert type {spec!r}: expected a type name followed by '*'s, e.g. 'point *'")
    return CType(match.group(1), len(match.group(2)))


def zero_value(ctype: CType) -> Any:
    """The value every Colbert variable starts with (§7.5)."""
    if ctype == INT:
        return 0
    if ctype == FLOAT:
        return 0.0
    if ctype == STRING:
        return ""
    return None


class Ref:
    """A pointer to a variable or slot that is not a struct (what ``&x`` makes)."""

    __slots__ = ("_get", "_set", "key")

    def __init__(self, get: Callable[[], Any], set: Callable[[Any], None], key: tuple[Any, ...]) -> None:
        self._get = get
        self._set = set
        self.key = key

    def get(self) -> Any:
        return self._get()

    def set(self, value: Any) -> None:
        self._set(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<pointer to {self.key[-1]}>"


def convert_value(value: Any, source: CType, target: CType, context: str) -> Any:
    """Convert a runtime value between types (used where types are only known at run time)."""
    if source == target or (target.is_pointer and source.is_pointer and (target == PTR or source == PTR)):
        return value
    if target == INT and source.is_numeric:
        return int(value)
    if target == FLOAT and source.is_numeric:
        return float(value)
    if target.is_pointer and source == INT and value == 0:
        return None
    raise ColbertRuntimeError(f"cannot convert {source} to {target} {context}")


def _as_c_float(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def c_float_text(value: float) -> str:
    """How the prompt writes a Colbert float: the shortest decimal that reads back as the same C float.

    Colbert floats are C ``float`` s (single precision, see docs/colbert.md) while arithmetic here runs in
    doubles, so ``297.79`` may arrive as ``297.78999999999996``. Rounded to the 32-bit float it stands
    for, it prints as ``297.79``: the fewest significant digits (at most 9) whose value rounds to the
    same 32-bit float, written as Python writes floats (``2.0``, ``1e+20``). Beyond a float's range
    (about 3.4e38) it prints ``inf`` as C would.
    """
    x = float(value)
    if not math.isfinite(x):
        return repr(x)
    try:
        single = _as_c_float(x)
    except OverflowError:
        return "inf" if x > 0 else "-inf"
    if not math.isfinite(single):
        return repr(single)
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if _as_c_float(float(text)) == single:
            return repr(float(text))
    return repr(single)  # pragma: no cover - 9 significant digits always identify a 32-bit float


def format_value(value: Any, ctype: CType) -> str:
    """How the prompt shows a value: ``7 (int)``, ``2.5 (float)``, ``"hi" (string)``."""
    if ctype == STRING:
        text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    elif ctype == FLOAT:
        text = c_float_text(value)
    elif ctype.is_pointer or ctype == BEHAVIOR:
        text = "NULL" if value is None else f"0x{id(value):x}"
        if value is not None and getattr(value, "name", None):
            text += f" <{value.name}>"
    else:
        text = str(value)
    return f"{text} ({ctype})"


# ==== structs and symbols ===============================================================================


@dataclass(frozen=True, slots=True)
class Slot:
    """A struct member. ``attr`` is read with ``getattr``; or ``getter``/``setter`` adapt the object."""

    name: str
    type: CType
    attr: str | None = None
    getter: Callable[[Any], Any] | None = None
    setter: Callable[[Any, Any], None] | None = None

    @property
    def writable(self) -> bool:
        return self.attr is not None or self.setter is not None


@dataclass
class StructType:
    """A struct type imported from Python (``sfAddEvalStruct``): named slots over Python objects."""

    name: str
    slots: dict[str, Slot]
    size: int
    factory: Callable[[], Any] | None = None
    """Makes a zeroed instance for a Colbert variable of this struct type (None: only pointers)."""
    help: str = ""


@dataclass
class GlobalVariable:
    """A Colbert global: its value lives in ``SymbolTable.values[index]``."""

    type: CType
    index: int
    help: str = ""


@dataclass
class LinkedVariable:
    """A name linked to Python state (``sfAddEvalVar``): reads and writes go through the functions."""

    type: CType
    getter: Callable[[], Any]
    setter: Callable[[Any], None] | None
    help: str = ""


@dataclass
class Constant:
    """A named constant (``sfAddEvalConst``); behaviors are constants of type ``behavior``."""

    type: CType
    value: Any
    help: str = ""


@dataclass
class Function:
    """A Python function callable from Colbert (``sfAddEvalFn``)."""

    name: str
    fn: Callable[..., Any]
    return_type: CType
    arg_types: tuple[CType, ...]
    varargs: bool = False
    help: str = ""

    def signature(self) -> str:
        args = [str(t) for t in self.arg_types] + (["..."] if self.varargs else [])
        return f"{self.return_type} {self.name}({', '.join(args)})"


@dataclass
class ActSchema:
    """An activity schema: the latest compiled definition of an ``act``."""

    program: ActProgram
    help: str = ""

    @property
    def type(self) -> CType:
        return ACTIVITY


Symbol = GlobalVariable | LinkedVariable | Constant | Function | ActSchema


class SymbolTable:
    """One environment of typed names: globals, linked variables, constants, functions, acts, structs."""

    def __init__(self) -> None:
        self.symbols: dict[str, Symbol] = {}
        self.structs: dict[str, StructType] = {}
        self.values: list[Any] = []
        self.help: dict[str, str] = {}

    def lookup(self, name: str) -> Symbol | None:
        return self.symbols.get(name)

    def describe(self, name: str) -> str:
        """``variable int``, ``function void sfFoo(int)``, ``act patrol``: for messages."""
        sym = self.symbols.get(name)
        if isinstance(sym, GlobalVariable | LinkedVariable):
            return f"a variable of type {sym.type}"
        if isinstance(sym, Constant):
            return f"a constant of type {sym.type}"
        if isinstance(sym, Function):
            return f"a function ({sym.signature()})"
        if isinstance(sym, ActSchema):
            return "an act"
        return "not declared"

    def declare_global(self, name: str, ctype: CType) -> GlobalVariable | LinkedVariable:
        """Declare a global (or accept a redeclaration with the same type, which keeps the value)."""
        existing = self.symbols.get(name)
        if isinstance(existing, GlobalVariable | LinkedVariable):
            if existing.type == ctype:
                return existing
            raise ValueError(f"'{name}' is already declared as {existing.type}; it cannot become {ctype}")
        if existing is not None:
            raise ValueError(f"'{name}' is already {self.describe(name)}")
        if ctype.is_struct:
            struct = self.structs.get(ctype.name)
            if struct is None or struct.factory is None:
                raise ValueError(f"cannot declare a variable of struct type {ctype}; declare a pointer ({ctype} *)")
            value = struct.factory()
        else:
            value = zero_value(ctype)
        var = GlobalVariable(ctype, len(self.values))
        self.values.append(value)
        self.symbols[name] = var
        return var

    def read(self, name: str) -> Any:
        """The current value of a global, linked variable or constant."""
        sym = self.symbols.get(name)
        if isinstance(sym, GlobalVariable):
            return self.values[sym.index]
        if isinstance(sym, LinkedVariable):
            return sym.getter()
        if isinstance(sym, Constant):
            return sym.value
        raise KeyError(name)

    def struct_names(self) -> frozenset[str]:
        return frozenset(self.structs)


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
    node_lines: list[int]
    """Absolute source line of each node (subtract :attr:`line` for act-relative lines)."""
    node_texts: list[str]
    node_traced: list[bool]
    node_values: list[Callable[[list[Any]], Any] | None]
    """For assignments to a variable: reads the assigned value back (trace output)."""
    update: Callable[[list[Any]], None] | None
    update_line: int
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

    def relative_line(self, line: int) -> int:
        return line - self.line


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


_HELPERS: dict[str, Any] = {
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

# ==== code generation ===================================================================================


@dataclass(slots=True)
class _Ex:
    """A compiled expression: Python code, its Colbert type, and (for literals) the constant value."""

    code: str
    type: CType
    const: Any = None
    is_const: bool = False
    cond: str | None = None
    """Python code giving a bool, for comparisons and logical operators used as conditions."""


@dataclass(slots=True)
class _Lvalue:
    type: CType
    read: str
    store: Callable[[str], str]
    name: str | None
    """The variable's name when the target is a plain variable (for trace output)."""


class _Label:
    __slots__ = ("ident", "index")

    _ids = itertools.count()

    def __init__(self) -> None:
        self.index = -1
        self.ident = next(self._ids)


@dataclass
class _Node:
    """A node before rendering: body lines with ``@J<id>@`` (continue) / ``@B<id>@`` (break) targets."""

    line: int
    body: list[str]
    text: str = ""
    traced: bool = True
    value: str | None = None
    """Code reading back an assigned variable (trace)."""
    jump: _Label | None = None
    """For pure jumps (threaded away) and back-edges (threaded as a break)."""
    backedge: bool = False


_TARGET_RE = re.compile(r"@([JB])(\d+)@")

_COMPARE = {"<", ">", "<=", ">=", "==", "!="}
_ARITH = {"+", "-", "*", "/", "%"}
_BITWISE = {"&", "|", "^"}


class _Scope:
    def __init__(self, act: str | None, locals_: dict[str, tuple[int, CType]]) -> None:
        self.act = act
        self.locals = locals_


class _Unit:
    """One generated Python module: its namespace, its source lines and their Colbert line map."""

    _serial = itertools.count(1)

    def __init__(self, symbols: SymbolTable, hooks: RuntimeHooks, label: str) -> None:
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.ns["G"] = symbols.values
        self.ns["rt"] = hooks
        self.source: list[str] = []
        self.lines: list[int] = [0]
        self.filename = f"<colbert {label} #{next(self._serial)}>"
        self._names = itertools.count()

    def bind(self, value: Any, prefix: str = "_k") -> str:
        name = f"{prefix}{next(self._names)}"
        self.ns[name] = value
        return name

    def emit(self, text: str, line: int) -> None:
        self.source.append(text)
        self.lines.append(line)

    def build(self) -> dict[str, Any]:
        self.ns["__colbert_lines__"] = self.lines
        code = compile("\n".join(self.source) + "\n", self.filename, "exec")
        exec(code, self.ns)  # generated from the typed AST; every name in it is bound by us
        return self.ns


def generated_line(exc: BaseException) -> int | None:
    """The Colbert source line where ``exc`` was raised in generated code (innermost such frame)."""
    tb = exc.__traceback__
    found: int | None = None
    while tb is not None:
        lines = tb.tb_frame.f_globals.get("__colbert_lines__")
        if lines is not None and tb.tb_frame.f_code.co_filename.startswith("<colbert "):
            lineno = tb.tb_lineno
            if 0 < lineno < len(lines):
                found = lines[lineno]
        tb = tb.tb_next
    return found


class Compiler:
    """Compiles acts, top-level statements and prompt expressions against one :class:`SymbolTable`."""

    def __init__(self, symbols: SymbolTable, hooks: RuntimeHooks) -> None:
        self.symbols = symbols
        self.hooks = hooks
        self._filename = "<input>"
        self._lines: Sequence[str] = ()
        self._unit: _Unit | None = None
        self._scope = _Scope(None, {})
        self._nodes: list[_Node] = []
        self._labels: dict[str, _Label] = {}
        self._placed: dict[int, _Label] = {}
        self._mode = "top"  # "top", "update" or "act"

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
        unit = self._unit = _Unit(self.symbols, self.hooks, act.name)
        self._scope = _Scope(act.name, locals_)
        self._nodes = []
        self._labels = {}
        self._placed = {}

        update_fn_name: str | None = None
        if act.update is not None:
            self._mode = "update"
            body = self._direct(act.update, 1)
            unit.emit("def _update(f):", act.update.pos.line)
            for text, line in body:
                unit.emit(text, line)
            update_fn_name = "_update"

        self._mode = "act"
        for item in act.body:
            if isinstance(item, ast.Label):
                self._labels[item.name] = _Label()
        interrupt = resume = None
        for item in act.body:
            if isinstance(item, ast.Label):
                self._place(self._labels[item.name])
            elif isinstance(item, ast.HandlerLabel):
                handler = _Label()
                self._place(handler)
                if item.event == "interrupt":
                    interrupt = handler
                else:
                    resume = handler
            else:
                succ = _Label()
                self._stmt(item, succ)
                self._place(succ)
        self._nodes.append(_Node(act.end_line, ["f[0].end()", "return @B{end}@"], traced=False))
        self._render(unit)
        ns = unit.build()
        count = len(self._nodes)
        return ActProgram(
            name=act.name,
            params=tuple(params),
            frame_template=tuple(template),
            nodes=[ns[f"_n{i}"] for i in range(count)],
            node_lines=[n.line for n in self._nodes],
            node_texts=[n.text for n in self._nodes],
            node_traced=[n.traced for n in self._nodes],
            node_values=[ns.get(f"_v{i}") for i in range(count)],
            update=ns[update_fn_name] if update_fn_name else None,
            update_line=act.update.pos.line if act.update is not None else act.pos.line,
            interrupt_index=interrupt.index if interrupt is not None else None,
            resume_index=resume.index if resume is not None else None,
            filename=act.filename,
            line=act.pos.line,
            end_line=act.end_line,
            local_types={name: t for name, (_, t) in locals_.items()},
            local_slots={name: i for name, (i, _) in locals_.items()},
            struct_locals=tuple(struct_slots),
        )

    def compile_statement(
        self, stmt: ast.Statement, filename: str, lines: Sequence[str]
    ) -> Callable[[list[Any]], None]:
        """Compile a top-level statement into a function run once with the frame ``[None]``."""
        self._begin(filename, lines)
        self._mode = "top"
        self._scope = _Scope(None, {})
        unit = self._unit = _Unit(self.symbols, self.hooks, "top level")
        body = self._direct(stmt, 1)
        unit.emit("def _top(f):", stmt.pos.line)
        for text, line in body:
            unit.emit(text, line)
        fn: Callable[[list[Any]], None] = unit.build()["_top"]
        return fn

    def compile_expression(
        self, expr: ast.Expr, filename: str, lines: Sequence[str]
    ) -> tuple[Callable[[list[Any]], Any], CType]:
        """Compile a prompt expression into a function returning its value, and its type."""
        self._begin(filename, lines)
        self._mode = "top"
        self._scope = _Scope(None, {})
        unit = self._unit = _Unit(self.symbols, self.hooks, "expression")
        ex = self._expr(expr, allow_void=True)
        unit.emit("def _expr(f):", expr.pos.line)
        unit.emit(f"    return {ex.code}", expr.pos.line)
        fn: Callable[[list[Any]], Any] = unit.build()["_expr"]
        return fn, ex.type

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
            if not _convertible(src, ptype, literal_zero=False):
                message = f"cannot convert {src} to {ptype} (argument {i}, '{pname}', of act '{spec.schema}')"
                if pos is None:
                    raise ColbertRuntimeError(message)
                raise self._error(message, pos)

    # ------------------------------------------------------------------ infrastructure
    def _begin(self, filename: str, lines: Sequence[str]) -> None:
        self._filename = filename
        self._lines = lines

    def _source_line(self, line: int) -> str | None:
        return self._lines[line - 1].rstrip("\r") if 0 < line <= len(self._lines) else None

    def _error(self, message: str, pos: ast.Pos) -> ColbertCompileError:
        return ColbertCompileError(
            message, SourcePosition(self._filename, pos.line, pos.column), self._source_line(pos.line)
        )

    def _ctype(self, ref: ast.TypeRef) -> CType:
        if ref.name not in _BASIC and ref.name not in self.symbols.structs:
            raise self._error(f"unknown type '{ref.name}'", ref.pos)
        return CType(ref.name, ref.pointer_depth)

    @property
    def unit(self) -> _Unit:
        assert self._unit is not None
        return self._unit

    @staticmethod
    def _text(s: ast.Statement) -> str:
        return describe_statement(s)

    # ------------------------------------------------------------------ FSM statements (act bodies)
    def _place(self, label: _Label) -> None:
        label.index = len(self._nodes)
        self._placed[label.ident] = label

    def _add(self, node: _Node) -> int:
        self._nodes.append(node)
        return len(self._nodes) - 1

    def _jump(self, target: _Label, line: int) -> None:
        self._add(_Node(line, [f"return @J{target.ident}@"], traced=False, jump=target))

    def _stmt(self, s: ast.Statement, succ: _Label) -> None:
        J = f"@J{succ.ident}@"
        B = f"@B{succ.ident}@"
        line = s.pos.line
        text = self._text(s)
        if isinstance(s, ast.Block):
            if not s.body:
                self._jump(succ, line)
            for i, inner in enumerate(s.body):
                nxt = succ if i == len(s.body) - 1 else _Label()
                self._stmt(inner, nxt)
                if nxt is not succ:
                    self._place(nxt)
        elif isinstance(s, ast.EmptyStatement):
            self._jump(succ, line)
        elif isinstance(s, _SIMPLE_TYPES):
            body, value = self._simple(s)
            node = _Node(line, [*body, f"return {J}"], text=text)
            if value is not None:
                node.value = value
            self._add(node)
        elif isinstance(s, ast.If):
            then_l = _Label()
            else_l = _Label() if s.otherwise is not None else succ
            cond = self._cond(s.condition)
            self._add(_Node(line, [f"return @J{then_l.ident}@ if {cond} else @J{else_l.ident}@"], text=text))
            self._place(then_l)
            self._stmt(s.then, succ)
            if s.otherwise is not None:
                self._place(else_l)
                self._stmt(s.otherwise, succ)
        elif isinstance(s, ast.While):
            head = _Label()
            body_l = _Label()
            back = _Label()
            self._place(head)
            cond = self._cond(s.condition)
            self._add(_Node(line, [f"return @J{body_l.ident}@ if {cond} else {B}"], text=text))
            self._place(body_l)
            self._stmt(s.body, back)
            self._place(back)
            self._add(_Node(line, [f"return @B{head.ident}@"], traced=False, jump=head, backedge=True))
        elif isinstance(s, ast.Goto):
            target = self._labels.get(s.label)
            if target is None:  # pragma: no cover - the parser checks labels
                raise self._error(f"no label '{s.label}' in act '{self._scope.act}'", s.pos)
            self._add(_Node(line, [f"return @B{target.ident}@"], text=text))
        elif isinstance(s, ast.WaitFor):
            self._waitfor(s, succ, text)
        elif isinstance(s, ast.Start):
            spec, args, timeout, priority = self._start_parts(s)
            k = self.unit.bind(spec, "_spec")
            idx = len(self._nodes)
            self._add(
                _Node(
                    line,
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
            self._add(_Node(line, [f"rt.signal(f[0], {s.signal!r}, {s.target!r})", f"return {B}"], text=text))
        elif isinstance(s, ast.Motion):
            value = self._convert(self._expr(s.argument), INT, f"(argument of {s.command})", s.argument.pos)
            timeout = self._timeout(s.timeout)
            idx = len(self._nodes)
            self._add(
                _Node(
                    line,
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

    def _waitfor(self, s: ast.WaitFor, succ: _Label, text: str) -> None:
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
        self._add(_Node(s.pos.line, body, text=text))

    def _render(self, unit: _Unit) -> None:
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
            unit.emit(f"def _n{i}(f):", node.line)
            for text in node.body:
                text = text.replace("@B{end}@", str(~i))
                rendered = _TARGET_RE.sub(lambda m: resolve(by_ident[int(m.group(2))], m.group(1) == "B"), text)
                unit.emit("    " + rendered, node.line)
            if node.value is not None:
                unit.emit(f"def _v{i}(f):", node.line)
                unit.emit(f"    return {node.value}", node.line)

    # ------------------------------------------------------------------ direct statements (update, top level)
    def _direct(self, s: ast.Statement, depth: int) -> list[tuple[str, int]]:
        pad = "    " * depth
        line = s.pos.line
        out: list[tuple[str, int]] = []
        if isinstance(s, ast.Block):
            for inner in s.body:
                out.extend(self._direct(inner, depth))
            if not out:
                out.append((pad + "pass", line))
        elif isinstance(s, ast.EmptyStatement):
            out.append((pad + "pass", line))
        elif isinstance(s, _SIMPLE_TYPES):
            body, _ = self._simple(s)
            out.extend((pad + b, line) for b in body)
        elif isinstance(s, ast.If):
            out.append((f"{pad}if {self._cond(s.condition)}:", line))
            out.extend(self._direct(s.then, depth + 1))
            if s.otherwise is not None:
                out.append((pad + "else:", s.otherwise.pos.line))
                out.extend(self._direct(s.otherwise, depth + 1))
        elif isinstance(s, ast.While):
            if self._mode == "update":
                raise self._error("'while' is not allowed in update (update runs once per cycle)", s.pos)
            counter = f"_c{depth}"
            out.append((f"{pad}{counter} = 0", line))
            out.append((f"{pad}while {self._cond(s.condition)}:", line))
            out.append((f"{pad}    {counter} += 1", line))
            out.append((f"{pad}    if {counter} > {TOP_LEVEL_LOOP_LIMIT}:", line))
            out.append((f"{pad}        _loop_limit()", line))
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
            out.append((f"{pad}rt.start_now(f[0], {k}, {args}, {timeout}, {priority})", line))
        elif isinstance(s, ast.Signal):
            self._check_signal(s)
            out.append((f"{pad}rt.signal(f[0], {s.signal!r}, {s.target!r})", line))
        elif isinstance(s, ast.Motion):
            value = self._convert(self._expr(s.argument), INT, f"(argument of {s.command})", s.argument.pos)
            if s.timeout is not None:
                self._timeout(s.timeout)
            out.append((f"{pad}rt.motion_now(f[0], {s.command!r}, {value})", line))
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

    # ------------------------------------------------------------------ expressions
    def _cond(self, e: ast.Expr) -> str:
        ex = self._expr(e)
        return self._truth(ex, e.pos)

    def _truth(self, ex: _Ex, pos: ast.Pos) -> str:
        if ex.cond is not None:
            return ex.cond
        if ex.type.is_numeric or ex.type == STRING:
            return ex.code
        if ex.type.is_pointer or ex.type == BEHAVIOR:
            return f"({ex.code} is not None)"
        raise self._error(f"a value of type {ex.type} cannot be used as a condition", pos)

    def _convert(self, ex: _Ex, target: CType, context: str, pos: ast.Pos) -> str:
        src = ex.type
        if src == target:
            return ex.code
        if target == FLOAT and src == INT:
            if ex.is_const and abs(ex.const) < 2**53:
                return repr(float(ex.const))
            return f"float({ex.code})"
        if target == INT and src == FLOAT:
            return repr(int(ex.const)) if ex.is_const else f"int({ex.code})"
        if (target.is_pointer or target == BEHAVIOR) and src == INT and ex.is_const and ex.const == 0:
            return "None"
        if target.is_pointer and src.is_pointer and (target == PTR or src == PTR):
            return ex.code
        raise self._error(f"type error: cannot convert {src} to {target} {context}", pos)

    def _expr(self, e: ast.Expr, *, allow_void: bool = False) -> _Ex:
        ex = self._expr_inner(e)
        if ex.type == VOID and not allow_void:
            raise self._error("a void function returns no value to use here", e.pos)
        return ex

    def _literal(self, value: Any) -> str:
        """Python source for a constant: its repr when that reads back, else a bound name (inf, nan)."""
        if isinstance(value, float) and not math.isfinite(value):
            return self.unit.bind(value)
        return repr(value)

    def _expr_inner(self, e: ast.Expr) -> _Ex:
        if isinstance(e, ast.IntLiteral):
            return _Ex(repr(e.value), INT, e.value, True)
        if isinstance(e, ast.FloatLiteral):
            return _Ex(self._literal(float(e.value)), FLOAT, float(e.value), True)
        if isinstance(e, ast.StringLiteral):
            return _Ex(repr(e.value), STRING, e.value, True)
        if isinstance(e, ast.Name):
            return self._name(e)
        if isinstance(e, ast.Unary):
            return self._unary(e)
        if isinstance(e, ast.Binary):
            return self._binary(e)
        if isinstance(e, ast.Call):
            return self._call(e)
        if isinstance(e, ast.FieldAccess):
            target, slot = self._field(e)
            return _Ex(self._slot_read(target.code, slot), slot.type)
        if isinstance(e, ast.SizeOf):
            ctype = self._ctype(e.type)
            size = self.symbols.structs[ctype.name].size if ctype.is_struct else 4
            return _Ex(repr(size), INT, size, True)
        raise self._error(f"unsupported expression {type(e).__name__}", e.pos)  # pragma: no cover

    def _name(self, e: ast.Name) -> _Ex:
        local = self._scope.locals.get(e.name)
        if local is not None:
            return _Ex(f"f[{local[0]}]", local[1])
        sym = self.symbols.lookup(e.name)
        if isinstance(sym, GlobalVariable):
            return _Ex(f"G[{sym.index}]", sym.type)
        if isinstance(sym, LinkedVariable):
            return _Ex(f"{self.unit.bind(sym.getter, '_get')}()", sym.type)
        if isinstance(sym, Constant):
            value = sym.value
            if isinstance(value, bool):
                value = int(value)
            if type(value) in (int, float, str):
                return _Ex(self._literal(value), sym.type, value, True)
            if value is None:
                return _Ex("None", sym.type, 0 if sym.type == INT else None, sym.type == INT)
            return _Ex(self.unit.bind(value), sym.type)
        if isinstance(sym, Function):
            raise self._error(f"'{e.name}' is a function; call it with ({', '.join(map(str, sym.arg_types))})", e.pos)
        if isinstance(sym, ActSchema):
            raise self._error(f"'{e.name}' is an act; run it with 'start {e.name}'", e.pos)
        raise self._error(f"unknown name '{e.name}'", e.pos)

    def _lvalue(self, e: ast.Expr) -> _Lvalue:
        if isinstance(e, ast.Name):
            local = self._scope.locals.get(e.name)
            if local is not None:
                idx, ctype = local
                self._assignable(ctype, e)
                return _Lvalue(ctype, f"f[{idx}]", lambda v: f"f[{idx}] = {v}", e.name)
            sym = self.symbols.lookup(e.name)
            if isinstance(sym, GlobalVariable):
                gidx = sym.index
                self._assignable(sym.type, e)
                return _Lvalue(sym.type, f"G[{gidx}]", lambda v: f"G[{gidx}] = {v}", e.name)
            if isinstance(sym, LinkedVariable):
                if sym.setter is None:
                    raise self._error(f"'{e.name}' is read-only", e.pos)
                self._assignable(sym.type, e)
                setter = self.unit.bind(sym.setter, "_set")
                getter = self.unit.bind(sym.getter, "_get")
                return _Lvalue(sym.type, f"{getter}()", lambda v: f"{setter}({v})", e.name)
            if sym is None:
                raise self._error(f"unknown name '{e.name}'", e.pos)
            raise self._error(f"cannot assign to '{e.name}': it is {self.symbols.describe(e.name)}", e.pos)
        if isinstance(e, ast.FieldAccess):
            target, slot = self._field(e)
            if not slot.writable:
                raise self._error(f"slot '{slot.name}' of {self._struct_of(target.type)} is read-only", e.pos)
            self._assignable(slot.type, e)
            code = target.code
            if slot.attr is not None:
                attr = slot.attr
                return _Lvalue(slot.type, f"{code}.{attr}", lambda v: f"{code}.{attr} = {v}", None)
            setter = self.unit.bind(slot.setter, "_sset")
            return _Lvalue(slot.type, self._slot_read(code, slot), lambda v: f"{setter}({code}, {v})", None)
        if isinstance(e, ast.Unary) and e.op == "*":
            ptr = self._expr(e.operand)
            pointee = self._deref_type(ptr.type, e)
            self._assignable(pointee, e)
            return _Lvalue(pointee, f"_deref({ptr.code})", lambda v: f"_store({ptr.code}, {v})", None)
        raise self._error("this expression cannot be assigned to", e.pos)

    def _assignable(self, ctype: CType, e: ast.Expr) -> None:
        if ctype.is_struct:
            raise self._error(f"cannot assign a whole struct ({ctype}); assign its slots or use pointers", e.pos)

    def _struct_of(self, ctype: CType) -> str:
        return f"struct {ctype.name}"

    def _field(self, e: ast.FieldAccess) -> tuple[_Ex, Slot]:
        target = self._expr(e.target)
        t = target.type
        if e.arrow:
            if t.depth == 1 and t.name not in _BASIC:
                struct_type = t.pointee()
            elif t == PTR:
                raise self._error(
                    f"cannot use '->{e.field}' on a generic ptr; assign it to a typed pointer first", e.pos
                )
            elif t.is_struct:
                raise self._error(f"'->' needs a pointer, but this is a {t}; use '.{e.field}'", e.pos)
            else:
                raise self._error(f"'->' needs a pointer to a struct, not {t}", e.pos)
        else:
            if t.is_struct:
                struct_type = t
            elif t.depth == 1 and t.name not in _BASIC:
                raise self._error(f"'.' needs a struct, but this is a pointer ({t}); use '->{e.field}'", e.pos)
            else:
                raise self._error(f"'.' needs a struct, not {t}", e.pos)
        struct = self.symbols.structs[struct_type.name]
        slot = struct.slots.get(e.field)
        if slot is None:
            names = ", ".join(struct.slots)
            raise self._error(f"struct {struct.name} has no slot '{e.field}' (its slots: {names})", e.pos)
        return target, slot

    def _slot_read(self, obj_code: str, slot: Slot) -> str:
        if slot.attr is not None:
            return f"{obj_code}.{slot.attr}"
        return f"{self.unit.bind(slot.getter, '_sget')}({obj_code})"

    def _deref_type(self, t: CType, e: ast.Expr) -> CType:
        if t == STRING:
            raise self._error("a string cannot be dereferenced (strings are atomic in Colbert)", e.pos)
        if t == PTR:
            raise self._error("a generic ptr cannot be dereferenced; assign it to a typed pointer first", e.pos)
        if t.depth == 0:
            raise self._error(f"'*' needs a pointer, not {t}", e.pos)
        return t.pointee()

    def _unary(self, e: ast.Unary) -> _Ex:
        if e.op == "&":
            return self._address(e)
        if e.op == "*":
            ptr = self._expr(e.operand)
            pointee = self._deref_type(ptr.type, e)
            if pointee.is_struct:
                return _Ex(f"_nn({ptr.code})", pointee)
            return _Ex(f"_deref({ptr.code})", pointee)
        ex = self._expr(e.operand)
        if e.op == "!":
            truth = self._truth(ex, e.operand.pos)
            return _Ex(f"(0 if {truth} else 1)", INT, cond=f"(not {truth})")
        if e.op == "~":
            if ex.type != INT:
                raise self._error(f"operator '~' needs an int, not {ex.type}", e.pos)
            return _Ex(f"(~{ex.code})", INT)
        if not ex.type.is_numeric:
            raise self._error(f"operator '{e.op}' needs a number, not {ex.type}", e.pos)
        if ex.is_const:
            value = -ex.const if e.op == "-" else ex.const
            return _Ex(self._literal(value), ex.type, value, True)
        return _Ex(f"({e.op}{ex.code})", ex.type)

    def _address(self, e: ast.Unary) -> _Ex:
        operand = e.operand
        if isinstance(operand, ast.Unary) and operand.op == "*":
            ptr = self._expr(operand.operand)
            self._deref_type(ptr.type, operand)
            return ptr
        if isinstance(operand, ast.Name):
            local = self._scope.locals.get(operand.name)
            if local is not None:
                idx, ctype = local
                if ctype.is_struct:
                    return _Ex(f"f[{idx}]", ctype.pointer())
                return _Ex(f"_local_ref(f, {idx}, {operand.name!r})", ctype.pointer())
            sym = self.symbols.lookup(operand.name)
            if isinstance(sym, GlobalVariable):
                if sym.type.is_struct:
                    return _Ex(f"G[{sym.index}]", sym.type.pointer())
                return _Ex(f"_local_ref(G, {sym.index}, {operand.name!r})", sym.type.pointer())
            if isinstance(sym, LinkedVariable):
                if sym.type.is_struct:
                    return _Ex(f"{self.unit.bind(sym.getter, '_get')}()", sym.type.pointer())
                setter = sym.setter
                name = operand.name

                def set_linked(value: Any) -> None:
                    if setter is None:
                        raise ColbertRuntimeError(f"'{name}' is read-only")
                    setter(value)

                ref = Ref(sym.getter, set_linked, ("linked", operand.name))
                return _Ex(self.unit.bind(ref, "_ref"), sym.type.pointer())
            if sym is None:
                raise self._error(f"unknown name '{operand.name}'", operand.pos)
            raise self._error(
                f"cannot take the address of '{operand.name}': it is {self.symbols.describe(operand.name)}",
                e.pos,
            )
        if isinstance(operand, ast.FieldAccess):
            target, slot = self._field(operand)
            if slot.type.is_struct:
                return _Ex(self._slot_read(target.code, slot), slot.type.pointer())
            if slot.attr is not None:
                return _Ex(f"_attr_ref({target.code}, {slot.attr!r})", slot.type.pointer())
            return _Ex(f"_slot_ref({target.code}, {self.unit.bind(slot, '_slot')})", slot.type.pointer())
        raise self._error("'&' needs a variable, a struct slot or a dereference", e.pos)

    def _binary(self, e: ast.Binary) -> _Ex:
        op = e.op
        left = self._expr(e.left)
        right = self._expr(e.right)
        lt, rt_ = left.type, right.type
        if op in ("&&", "||"):
            a = self._truth(left, e.left.pos)
            b = self._truth(right, e.right.pos)
            word = "and" if op == "&&" else "or"
            cond = f"({a} {word} {b})"
            return _Ex(f"(1 if {cond} else 0)", INT, cond=cond)
        if op in ("==", "!="):
            return self._equality(e, left, right)
        both = f"{lt} and {rt_}"
        if lt.is_pointer or rt_.is_pointer:
            if op in _COMPARE:
                raise self._error(f"operator '{op}' cannot compare pointers ({both}); use == or !=", e.pos)
            raise self._error(f"pointer arithmetic is not supported ({lt} {op} {rt_})", e.pos)
        if not (lt.is_numeric and rt_.is_numeric):
            raise self._error(f"operator '{op}' cannot combine {both}", e.pos)
        is_float = FLOAT in (lt, rt_)
        a, b = left.code, right.code
        if op in _COMPARE:
            cond = f"({a} {op} {b})"
            return _Ex(f"(1 if {cond} else 0)", INT, cond=cond)
        if op in _BITWISE:
            if is_float:
                raise self._error(f"operator '{op}' needs int operands, not {both}", e.pos)
            return _Ex(f"({a} {op} {b})", INT)
        if op == "%":
            if is_float:
                raise self._error(f"operator '%' needs int operands, not {both}", e.pos)
            return _Ex(f"_imod({a}, {b})", INT)
        if op == "/":
            return _Ex(f"({a} / {b})" if is_float else f"_idiv({a}, {b})", FLOAT if is_float else INT)
        return _Ex(f"({a} {op} {b})", FLOAT if is_float else INT)

    def _equality(self, e: ast.Binary, left: _Ex, right: _Ex) -> _Ex:
        lt, rt_ = left.type, right.type
        a, b = left.code, right.code
        negate = e.op == "!="
        if (lt.is_numeric and rt_.is_numeric) or lt == rt_ == STRING:
            cond = f"({a} {e.op} {b})"
            return _Ex(f"(1 if {cond} else 0)", INT, cond=cond)

        def is_ref(t: CType) -> bool:
            return t.is_pointer or t == BEHAVIOR

        def null(x: _Ex) -> bool:
            return x.type == INT and x.is_const and x.const == 0

        if (is_ref(lt) and (is_ref(rt_) or null(right))) or (is_ref(rt_) and null(left)):
            if is_ref(lt) and is_ref(rt_) and lt != rt_ and PTR not in (lt, rt_):
                raise self._error(f"cannot compare {lt} and {rt_}", e.pos)
            if null(right) or null(left) or "None" in (a, b):
                other = a if null(right) or b == "None" else b
                cond = f"({other} is {'not ' if negate else ''}None)"
            else:
                cond = f"({'not ' if negate else ''}_same({a}, {b}))"
            return _Ex(f"(1 if {cond} else 0)", INT, cond=cond)
        if (is_ref(lt) and rt_ == INT) or (is_ref(rt_) and lt == INT):
            pa = f"_ptr_int({a})" if is_ref(lt) else a
            pb = f"_ptr_int({b})" if is_ref(rt_) else b
            cond = f"({pa} {e.op} {pb})"
            return _Ex(f"(1 if {cond} else 0)", INT, cond=cond)
        raise self._error(f"cannot compare {lt} and {rt_}", e.pos)

    def _call(self, e: ast.Call) -> _Ex:
        sym = self.symbols.lookup(e.function) if e.function not in self._scope.locals else None
        if not isinstance(sym, Function):
            if isinstance(sym, ActSchema):
                raise self._error(f"'{e.function}' is an act, not a function; run it with 'start {e.function}'", e.pos)
            if sym is None and e.function not in self._scope.locals:
                raise self._error(
                    f"unknown function '{e.function}' (functions must be exported to Colbert; see 'help')", e.pos
                )
            raise self._error(f"'{e.function}' is not a function", e.pos)
        n_fixed = len(sym.arg_types)
        n = len(e.args)
        if n < n_fixed or (n > n_fixed and not sym.varargs):
            expected = f"at least {n_fixed}" if sym.varargs else str(n_fixed)
            raise self._error(
                f"'{e.function}' takes {expected} argument{'s' if n_fixed != 1 else ''}, {n} given ({sym.signature()})",
                e.pos,
            )
        codes: list[str] = []
        for i, arg in enumerate(e.args):
            ex = self._expr(arg)
            if i < n_fixed:
                codes.append(self._convert(ex, sym.arg_types[i], f"(argument {i + 1} of {e.function})", arg.pos))
            else:
                if ex.type.is_struct:
                    raise self._error(f"cannot pass a struct value ({ex.type}) to '{e.function}'", arg.pos)
                codes.append(ex.code)
        fn = self.unit.bind(sym.fn, "_f")
        call = f"{fn}({', '.join(codes)})"
        if sym.return_type == INT:
            call = f"int({call})"
        elif sym.return_type == FLOAT:
            call = f"float({call})"
        return _Ex(call, sym.return_type)


_SIMPLE_TYPES = (ast.ExprStatement, ast.Assign, ast.Halt, *ast.UTILITY_COMMANDS)


def _convertible(src: CType, target: CType, *, literal_zero: bool) -> bool:
    if src == target:
        return True
    if src.is_numeric and target.is_numeric:
        return True
    if target.is_pointer and src.is_pointer and (target == PTR or src == PTR):
        return True
    return literal_zero and src == INT and (target.is_pointer or target == BEHAVIOR)


def describe_expression(e: ast.Expr) -> str:
    """Colbert source for an expression (binary operands parenthesized), for trace output."""
    if isinstance(e, ast.IntLiteral | ast.FloatLiteral):
        return repr(e.value)
    if isinstance(e, ast.StringLiteral):
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Unary):
        return e.op + _operand(e.operand)
    if isinstance(e, ast.Binary):
        return f"{_operand(e.left)} {e.op} {_operand(e.right)}"
    if isinstance(e, ast.Call):
        return f"{e.function}({', '.join(describe_expression(a) for a in e.args)})"
    if isinstance(e, ast.FieldAccess):
        return f"{_operand(e.target)}{'->' if e.arrow else '.'}{e.field}"
    return f"sizeof({e.type.name}{' ' + '*' * e.type.pointer_depth if e.type.pointer_depth else ''})"


def _operand(e: ast.Expr) -> str:
    text = describe_expression(e)
    return f"({text})" if isinstance(e, ast.Binary) else text


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


def struct_type(
    name: str,
    slots: Mapping[str, str | CType | Slot],
    *,
    size: int | None = None,
    factory: Callable[[], Any] | None = None,
    help: str = "",
) -> StructType:
    """Build a :class:`StructType`; a slot given as a type reads and writes the attribute of that name."""
    built: dict[str, Slot] = {}
    for slot_name, spec in slots.items():
        if isinstance(spec, Slot):
            built[slot_name] = spec
        elif not slot_name.isidentifier():
            raise ValueError(f"bad slot name {slot_name!r}")
        elif keyword.iskeyword(slot_name):
            built[slot_name] = Slot(
                slot_name,
                parse_type(spec),
                getter=lambda obj, n=slot_name: getattr(obj, n),  # type: ignore[misc]
                setter=lambda obj, v, n=slot_name: setattr(obj, n, v),  # type: ignore[misc]
            )
        else:
            built[slot_name] = Slot(slot_name, parse_type(spec), attr=slot_name)
    return StructType(name, built, size if size is not None else 4 * len(built), factory, help)
