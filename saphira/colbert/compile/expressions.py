"""Compiling Colbert expressions to Python expressions, with the manual's implicit casts resolved statically.

:class:`ExpressionCompiler` holds what every part of the compiler needs (the symbol table, the code
unit being generated, the scope of locals, error positions) and compiles names, operators, calls,
struct slots and pointers. Type errors always name both types involved (§7.4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from saphira.colbert.compile.codegen import CodeUnit
from saphira.colbert.compile.manual_names import not_in_colbert
from saphira.colbert.compile.symbols import (
    BASIC_TYPES,
    BEHAVIOR,
    FLOAT,
    INT,
    PTR,
    STRING,
    VOID,
    ActSchema,
    ColbertCompileError,
    ColbertRuntimeError,
    Constant,
    CType,
    Function,
    GlobalVariable,
    LinkedVariable,
    Ref,
    Slot,
    SymbolTable,
)
from saphira.colbert.syntax import ast
from saphira.core.errors import SourcePosition
from saphira.core.suggest import did_you_mean


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


_COMPARE = {"<", ">", "<=", ">=", "==", "!="}
_ARITH = {"+", "-", "*", "/", "%"}
_BITWISE = {"&", "|", "^"}


class Scope:
    def __init__(self, act: str | None, locals_: dict[str, tuple[int, CType]]) -> None:
        self.act = act
        self.locals = locals_


class ExpressionCompiler:
    """Expressions, conditions, conversions and assignment targets against one :class:`SymbolTable`."""

    def __init__(self, symbols: SymbolTable) -> None:
        self.symbols = symbols
        self._filename = "<input>"
        self._lines: Sequence[str] = ()
        self._unit: CodeUnit | None = None
        self._scope = Scope(None, {})

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

    def _unknown_name(self, name: str, pos: ast.Pos) -> ColbertCompileError:
        """``unknown name 'x'``, with the closest variables and constants in scope as suggestions."""
        values = (n for n, s in self.symbols.symbols.items() if not isinstance(s, Function | ActSchema))
        known = [*self._scope.locals, *values]
        return self._error(f"unknown name '{name}'{did_you_mean(name, known)}", pos)

    def _ctype(self, ref: ast.TypeRef) -> CType:
        if ref.name not in BASIC_TYPES and ref.name not in self.symbols.structs:
            raise self._error(f"unknown type '{ref.name}'", ref.pos)
        return CType(ref.name, ref.pointer_depth)

    @property
    def unit(self) -> CodeUnit:
        assert self._unit is not None
        return self._unit

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
        absent = not_in_colbert(e.name)
        raise self._error(absent, e.pos) if absent else self._unknown_name(e.name, e.pos)

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
                raise self._unknown_name(e.name, e.pos)
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
            if t.depth == 1 and t.name not in BASIC_TYPES:
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
            elif t.depth == 1 and t.name not in BASIC_TYPES:
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
                raise self._unknown_name(operand.name, operand.pos)
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
                functions = [n for n, s in self.symbols.symbols.items() if isinstance(s, Function)]
                hint = did_you_mean(e.function, functions) or " (functions must be exported to Colbert; see 'help')"
                raise self._error(not_in_colbert(e.function) or f"unknown function '{e.function}'{hint}", e.pos)
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


def convertible(src: CType, target: CType, *, literal_zero: bool) -> bool:
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
