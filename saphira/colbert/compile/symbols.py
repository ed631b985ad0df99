"""Colbert's types and symbols: errors, C types and their conversions, structs, and the symbol table.

Everything here is data that the compiler (:mod:`saphira.colbert.compile.compiler`), the runtime and the
bindings share: what a name means (:class:`SymbolTable`), what a type is (:class:`CType`), and how
runtime values convert and print. See :mod:`saphira.colbert.compile.compiler` for the decisions on types.
"""

from __future__ import annotations

import keyword
import math
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saphira.core.errors import SaphiraError, SourceError

if TYPE_CHECKING:
    from saphira.colbert.compile.codegen import ActProgram

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

BASIC_TYPES = frozenset({"int", "float", "string", "ptr", "void", "behavior", "activity"})


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
        return self.depth == 0 and self.name not in BASIC_TYPES

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
