"""Builds the typed AST from grammar.lark while the LALR parser reduces (Lark's inline transformer).

Besides shaping nodes it enforces what the grammar deliberately lets through so that it can explain
it: the error productions for C constructs Colbert lacks, where declarations, labels and ``update``
may appear, lvalues, ``goto`` targets and utility-command arguments. Such problems are recorded in the
current :class:`ParseSession` and building carries on, so one pass reports all of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

from lark import Token, Transformer

from saphira.colbert.syntax import ast
from saphira.colbert.syntax.ast import Pos
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.limits import MAX_INT_DIGITS


@dataclass
class ParseSession:
    """State of one parse: what the lexer and the AST builder need, and the errors found so far."""

    filename: str
    lines: Sequence[str]
    struct_types: frozenset[str]
    errors: list[ColbertSyntaxError] = field(default_factory=list)

    def report(self, message: str, line: int, column: int) -> None:
        """Record an error at ``line``:``column`` (1-based) of the text being parsed."""
        source_line = self.lines[line - 1].rstrip("\r") if 0 < line <= len(self.lines) else None
        self.errors.append(ColbertSyntaxError(message, ast.Pos(line, column).at(self.filename), source_line))


CURRENT_SESSION: ContextVar[ParseSession] = ContextVar("colbert_parse_session")


_new_pos = tuple.__new__


def token_pos(token: Token) -> Pos:
    """Where ``token`` starts (built without NamedTuple's slower constructor: this runs per node)."""
    return _new_pos(Pos, (token.line, token.column))


# ---- intermediate values that never leave this module ----------------------------------------------


@dataclass(frozen=True, slots=True)
class _AssignExpr:
    """``target = value`` met inside an expression; legal only as a whole expression statement."""

    target: ast.Expr
    value: ast.Expr
    pos: Pos
    op_pos: Pos


@dataclass(frozen=True, slots=True)
class _Declarator:
    name: str
    pointer_depth: int
    pos: Pos


@dataclass(frozen=True, slots=True)
class _UpdateClause:
    statement: ast.Statement
    pos: Pos


@dataclass(frozen=True, slots=True)
class _ActBody:
    items: list[Any]
    end_line: int


@dataclass(frozen=True, slots=True)
class _Option:
    kind: str
    value: Any
    token: Token


_Item: TypeAlias = "ast.TopLevel | _UpdateClause | ast.Label | ast.HandlerLabel | list[ast.VarDecl] | None"

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_ESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "x":
        return chr(int(code[1:], 16) & 0xFF)
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    return _ESCAPES.get(code, code)


def number_error(text: str, value: float | None = None) -> str | None:
    """What is wrong with the number literal ``text`` of ``value`` (a float's), or None: an integer of more
    than :data:`MAX_INT_DIGITS` digits, a float that is not finite (``1e309``)."""
    if value is not None:
        return None if math.isfinite(value) else f"{text} is too large for a float (at most about 1.8e308)"
    body = text[2:] if text[:2] in ("0x", "0X") else text
    if len(body.lstrip("0")) > MAX_INT_DIGITS:
        return f"integer {text[:12]}... has more than {MAX_INT_DIGITS} digits"
    return None


def int_value(text: str) -> int | None:
    """The value of a C integer literal: ``0x`` hex, ``0`` octal, else decimal; None for a bad octal."""
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    if len(text) > 1 and text[0] == "0":
        return int(text, 8) if all(c in "01234567" for c in text) else None
    return int(text)


def decode_string(literal: str) -> str:
    """The value of a C string literal (quotes included in ``literal``)."""
    body = literal[1:-1]
    return _ESCAPE_RE.sub(_unescape, body) if "\\" in body else body


_LVALUE_TYPES = (ast.Name, ast.FieldAccess)
_UTILITY_ARITY: dict[str, tuple[int, int]] = {
    "load": (0, 1),
    "unload": (0, 1),
    "cd": (1, 1),
    "pwd": (0, 0),
    "help": (0, 1),
    "connect": (1, 2),
    "disconnect": (0, 0),
    "exit": (0, 0),
    "set": (1, 2),
}
_CONNECT_KINDS = ("serial", "local", "server")
# C precedence of the binary operators Colbert has (higher binds tighter); all are left-associative.
_PRECEDENCE: dict[str, int] = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
_SET_NAMES = ("serial", "baud", "local", "server")


def nested_statements(statement: ast.Statement) -> Iterator[ast.Statement]:
    """``statement`` and every statement inside it (bodies of blocks, ifs and whiles), in source order.

    Iterative, so that no nesting depth can exhaust Python's stack.
    """
    pending = [statement]
    while pending:
        current = pending.pop()
        yield current
        if isinstance(current, ast.Block):
            pending.extend(reversed(current.body))
        elif isinstance(current, ast.If):
            if current.otherwise is not None:
                pending.append(current.otherwise)
            pending.append(current.then)
        elif isinstance(current, ast.While):
            pending.append(current.body)


class ColbertAstBuilder(Transformer[Token, Any]):
    """Callbacks named after grammar.lark rules (and aliases); each receives the rule's children."""

    # ---- helpers ------------------------------------------------------------------------------------

    @staticmethod
    def _report(message: str, pos: Pos) -> None:
        CURRENT_SESSION.get().report(message, pos.line, pos.column)

    def _expr(self, value: Any) -> ast.Expr:
        """An expression used as a value: an assignment here is an embedded one, which Colbert lacks."""
        if type(value) is _AssignExpr:
            self._report(
                "Colbert has no embedded assignments: an assignment must be a statement of its own "
                "(to compare, use '==')",
                value.op_pos,
            )
            return value.value
        return cast(ast.Expr, value)

    def _statements(self, items: Sequence[_Item], where: str) -> list[ast.Statement]:
        """Statements of a block or an Init/Update section, reporting items that do not belong there."""
        result: list[ast.Statement] = []
        for item in items:
            if item is None:
                continue
            if isinstance(item, list):
                if item:
                    self._report(
                        f"variables can be declared only at the top level or at the start of an act, not {where}",
                        item[0].pos,
                    )
            elif isinstance(item, ast.Label | ast.HandlerLabel):
                self._report(f"labels are allowed only at the top level of an act body, not {where}", item.pos)
            elif isinstance(item, _UpdateClause):
                self._report("'update' is allowed only in an act, right after its local declarations", item.pos)
            elif isinstance(item, ast.ActDef):
                self._report("act definitions are allowed only at the top level of a file", item.pos)
            else:
                result.append(cast(ast.Statement, item))
        return result

    # ---- program and acts ---------------------------------------------------------------------------

    def program(self, children: list[list[_Item]]) -> ast.Program:
        session = CURRENT_SESSION.get()
        items: list[ast.TopLevel] = []
        for item in children[0] if children else []:
            if item is None:
                continue
            if isinstance(item, list):
                items.extend(item)
            elif isinstance(item, ast.Label | ast.HandlerLabel):
                self._report("labels are allowed only at the top level of an act body", item.pos)
            elif isinstance(item, _UpdateClause):
                self._report("'update' is allowed only in an act, right after its local declarations", item.pos)
            else:
                if not isinstance(item, ast.VarDecl | ast.ActDef):
                    for inner in nested_statements(item):
                        if isinstance(inner, ast.Goto):
                            self._report("'goto' is allowed only inside an act", inner.pos)
                items.append(item)
        return ast.Program(session.filename, tuple(items))

    def item_list(self, children: list[Any]) -> list[Any]:
        if len(children) == 1:
            return [children[0]]
        children[0].append(children[1])
        return children[0]  # type: ignore[no-any-return]

    def act_body(self, children: list[Any]) -> _ActBody:
        return _ActBody(children[1] if len(children) == 3 else [], cast(int, children[-1].line))

    def act_def(self, children: list[Any]) -> ast.ActDef:
        keyword, name = children[0], children[1]
        params: tuple[ast.Param, ...] = tuple(children[2]) if len(children) == 4 else ()
        body: _ActBody = children[-1]
        locals_: list[ast.VarDecl] = []
        update: ast.Statement | None = None
        statements: list[ast.BodyItem] = []
        for item in body.items:
            if item is None:
                continue
            if isinstance(item, list):
                if update is not None or statements:
                    if item:
                        self._report(
                            "local variables must be declared at the start of the act, "
                            "before 'update' and any statement",
                            item[0].pos,
                        )
                else:
                    locals_.extend(item)
            elif isinstance(item, _UpdateClause):
                if update is not None:
                    self._report("an act has at most one 'update' statement", item.pos)
                elif statements:
                    self._report(
                        "'update' must come right after the act's local declarations, before any statement", item.pos
                    )
                else:
                    update = item.statement
                    self._check_update(item.statement)
            elif isinstance(item, ast.ActDef):
                self._report("act definitions are allowed only at the top level of a file", item.pos)
            else:
                statements.append(item)
        self._check_labels(statements)
        return ast.ActDef(
            name=name.value,
            params=params,
            locals=tuple(locals_),
            update=update,
            body=tuple(statements),
            filename=CURRENT_SESSION.get().filename,
            pos=token_pos(keyword),
            end_line=body.end_line,
        )

    def _check_update(self, statement: ast.Statement) -> None:
        for inner in nested_statements(statement):
            if isinstance(inner, ast.While):
                self._report("iteration ('while') is not allowed in an update statement", inner.pos)
            elif isinstance(inner, ast.Goto):
                self._report("'goto' is not allowed in an update statement", inner.pos)

    def _check_labels(self, body: list[ast.BodyItem]) -> None:
        seen: set[str] = set()
        for item in body:
            if isinstance(item, ast.Label | ast.HandlerLabel):
                key = item.name if isinstance(item, ast.Label) else f"on{item.event}"
                if key in seen:
                    self._report(f"label '{key}' is defined twice in this act", item.pos)
                seen.add(key)
        for item in body:
            if isinstance(item, ast.Label | ast.HandlerLabel):
                continue
            for inner in nested_statements(item):
                if isinstance(inner, ast.Goto) and inner.label not in seen:
                    self._report(
                        f"'goto {inner.label}': no label '{inner.label}' at the top level of this act", inner.pos
                    )

    def param_list(self, children: list[ast.Param]) -> list[ast.Param]:
        return children

    def param(self, children: list[Any]) -> ast.Param:
        type_token: Token = children[0]
        declarator: _Declarator = children[1]
        type_ref = ast.TypeRef(type_token.value, declarator.pointer_depth, token_pos(type_token))
        return ast.Param(declarator.name, type_ref, declarator.pos)

    def update_clause(self, children: list[Any]) -> _UpdateClause:
        return _UpdateClause(children[1], token_pos(children[0]))

    def label(self, children: list[Token]) -> ast.Label:
        return ast.Label(children[0].value, token_pos(children[0]))

    def handler_label(self, children: list[Token]) -> ast.HandlerLabel:
        token = children[0]
        return ast.HandlerLabel("interrupt" if token.type == "ONINTERRUPT" else "resume", token_pos(token))

    # ---- declarations -------------------------------------------------------------------------------

    def declaration(self, children: list[Any]) -> list[ast.VarDecl]:
        type_token: Token = children[0]
        declarations = []
        for declarator in children[1:]:
            if type_token == "void" and declarator.pointer_depth == 0:
                self._report(
                    f"variable '{declarator.name}' cannot have type 'void' (use 'ptr' or 'void *')", declarator.pos
                )
            type_ref = ast.TypeRef(type_token.value, declarator.pointer_depth, token_pos(type_token))
            declarations.append(ast.VarDecl(declarator.name, type_ref, declarator.pos))
        return declarations

    def declarator(self, children: list[Token]) -> _Declarator:
        name = children[-1]
        return _Declarator(name.value, len(children) - 1, token_pos(name))

    def initializer_error(self, children: list[Any]) -> _Declarator:
        assign_index = next(i for i, c in enumerate(children) if isinstance(c, Token) and c.type == "ASSIGN")
        self._report(
            "Colbert has no initializers in declarations: variables start at 0; "
            "assign the value in a separate statement",
            token_pos(children[assign_index]),
        )
        return self.declarator(children[:assign_index])

    def array_declarator_error(self, children: list[Any]) -> _Declarator:
        bracket_index = next(i for i, c in enumerate(children) if isinstance(c, Token) and c.type == "LSQB")
        self._report("Colbert has no arrays", token_pos(children[bracket_index]))
        return self.declarator(children[:bracket_index])

    # ---- statements ---------------------------------------------------------------------------------

    def block(self, children: list[Any]) -> ast.Block:
        items = children[1] if len(children) == 3 else []
        return ast.Block(tuple(self._statements(items, "inside a block")), token_pos(children[0]))

    def empty_statement(self, children: list[Token]) -> ast.EmptyStatement:
        return ast.EmptyStatement(token_pos(children[0]))

    def expr_statement(self, children: list[Any]) -> ast.Assign | ast.ExprStatement:
        expr = children[0]
        if type(expr) is _AssignExpr:
            target = expr.target
            if not (isinstance(target, _LVALUE_TYPES) or (isinstance(target, ast.Unary) and target.op == "*")):
                self._report(
                    "cannot assign to this expression: the left side of '=' must be a variable, "
                    "a struct field or '*pointer'",
                    target.pos,
                )
            return ast.Assign(target, expr.value, expr.pos)
        return ast.ExprStatement(expr, expr.pos)

    def if_statement(self, children: list[Any]) -> ast.If:
        keyword, condition, then, _else, otherwise = children
        return ast.If(self._expr(condition), then, otherwise, token_pos(keyword))

    def while_statement(self, children: list[Any]) -> ast.While:
        keyword, condition, body = children
        return ast.While(self._expr(condition), body, token_pos(keyword))

    def goto_statement(self, children: list[Token]) -> ast.Goto:
        return ast.Goto(children[1].value, token_pos(children[0]))

    def waitfor_statement(self, children: list[Any]) -> ast.WaitFor:
        keyword, condition, _timeout, timeout = children
        return ast.WaitFor(self._expr(condition), None if timeout is None else self._expr(timeout), token_pos(keyword))

    def start_statement(self, children: list[Any]) -> ast.Start:
        keyword, schema, args = children[0], children[1], children[2]
        values: dict[str, Any] = {}
        for option in children[3:]:
            if option.kind in values:
                self._report(f"'{option.kind}' is given twice in this start statement", token_pos(option.token))
            values[option.kind] = option.value
        return ast.Start(
            schema=str(schema),
            args=() if args is None else args,
            iname=values.get("iname"),
            timeout=values.get("timeout"),
            priority=values.get("priority"),
            noblock="noblock" in values,
            suspend="suspend" in values,
            pos=token_pos(keyword),
        )

    def arg_list(self, children: list[Any]) -> tuple[ast.Expr, ...]:
        return () if children[0] is None else tuple(children[0])

    def start_option(self, children: list[Any]) -> _Option:
        keyword: Token = children[0]
        kind = keyword.value
        if kind == "iname":
            return _Option(kind, children[1].value, keyword)
        if kind in ("timeout", "priority"):
            return _Option(kind, self._expr(children[1]), keyword)
        return _Option(kind, True, keyword)

    def signal_statement(self, children: list[Token]) -> ast.Signal:
        keyword = children[0]
        target = children[1].value if len(children) > 1 else None
        return ast.Signal(cast(ast.SignalKind, keyword.value), target, token_pos(keyword))

    def motion_statement(self, children: list[Any]) -> ast.Motion:
        keyword: Token = children[0]
        timeout: ast.Expr | None = None
        noblock = False
        for option in children[2:]:
            if option.kind == "timeout":
                if timeout is not None:
                    self._report("'timeout' is given twice in this motion statement", token_pos(option.token))
                timeout = option.value
            else:
                noblock = True
        return ast.Motion(
            cast(ast.MotionCommand, keyword.value), self._expr(children[1]), timeout, noblock, token_pos(keyword)
        )

    def motion_option(self, children: list[Any]) -> _Option:
        keyword: Token = children[0]
        if keyword.type == "TIMEOUT":
            return _Option("timeout", self._expr(children[1]), keyword)
        return _Option("noblock", True, keyword)

    def halt_statement(self, children: list[Token]) -> ast.Halt:
        return ast.Halt(token_pos(children[0]))

    def utility_command(self, children: list[Token]) -> ast.UtilityCommand | None:
        keyword = children[0]
        command = keyword.value
        pos = token_pos(keyword)
        args = [str(a).lstrip() for a in children[1:]]
        arg_pos = [Pos(cast(int, a.line), cast(int, a.column) + len(a) - len(a.lstrip())) for a in children[1:]]
        low, high = _UTILITY_ARITY[command]
        if len(args) < low:
            needs = {"cd": "a directory", "connect": "serial, local or server", "set": "serial, baud, local or server"}
            self._report(f"'{command}' needs {needs[command]}", pos)
            return None
        if len(args) > high:
            extra = "no arguments" if high == 0 else f"at most {high} argument{'s' if high > 1 else ''}"
            self._report(f"'{command}' takes {extra} (arguments are separated by blanks)", arg_pos[high])
            return None
        if command in ("load", "unload", "cd") and args:
            # The manual writes file names bare; C habits quote them. Accept both: load "x.py" == load x.py.
            quoted = args[0][:1] in ("'", '"')
            if quoted and (len(args[0]) < 2 or args[0][-1] != args[0][0]):
                self._report(f"'{command}': the file name {args[0]} has no closing quote", arg_pos[0])
                return None
            if quoted:
                args[0] = args[0][1:-1]
        first = args[0] if args else None
        second = args[1] if len(args) > 1 else None
        if command == "connect" and first not in _CONNECT_KINDS:
            self._report(f"'connect' expects serial, local or server, not '{first}'", arg_pos[0])
            return None
        if command == "set" and first not in _SET_NAMES:
            self._report(f"'set' expects serial, baud, local or server, not '{first}'", arg_pos[0])
            return None
        if command == "load":
            return ast.Load(first, pos)
        if command == "unload":
            return ast.Unload(first, pos)
        if command == "cd":
            return ast.ChangeDirectory(cast(str, first), pos)
        if command == "pwd":
            return ast.PrintDirectory(pos)
        if command == "help":
            return ast.Help(first, pos)
        if command == "connect":
            return ast.Connect(cast(ast.ConnectKind, first), second, pos)
        if command == "disconnect":
            return ast.Disconnect(pos)
        if command == "exit":
            return ast.Exit(pos)
        return ast.SetOption(cast(ast.SetOptionName, first), second, pos)

    # ---- expressions --------------------------------------------------------------------------------

    def comma_error(self, children: list[Any]) -> ast.Expr | _AssignExpr:
        self._report(
            "Colbert has no comma operator: write each expression as a statement of its own", token_pos(children[1])
        )
        return children[0]  # type: ignore[no-any-return]

    def assignment(self, children: list[Any]) -> _AssignExpr:
        target, operator, value = children
        return _AssignExpr(self._expr(target), self._expr(value), target.pos, token_pos(operator))

    def compound_assignment_error(self, children: list[Any]) -> _AssignExpr:
        target, operator, value = children
        op = operator.value
        self._report(f"Colbert has no compound assignment '{op}': write 'x = x {op[:-1]} y'", token_pos(operator))
        return _AssignExpr(self._expr(target), self._expr(value), target.pos, token_pos(operator))

    def conditional_error(self, children: list[Any]) -> ast.Expr:
        self._report("Colbert has no conditional operator '?:'; use if/else", token_pos(children[1]))
        return self._expr(children[2])

    def operands(self, children: list[Any]) -> list[Any]:
        """``a op b op c ...`` as a flat list of operands and operator tokens."""
        if type(children[0]) is list:
            children[0].append(children[1])
            children[0].append(children[2])
            return children[0]
        return children

    def binary_chain(self, children: list[list[Any]]) -> ast.Expr:
        """Group an operand/operator list by C precedence."""
        chain = children[0]
        if len(chain) == 3 and chain[1].type != "SHIFT":
            left, operator, right = chain
            return ast.Binary(operator.value, left, right, left.pos)
        operands: list[ast.Expr] = [chain[0]]
        operators: list[Token] = []
        for index in range(1, len(chain), 2):
            operator = chain[index]
            precedence = _PRECEDENCE[operator.value]
            while operators and _PRECEDENCE[operators[-1].value] >= precedence:
                self._combine(operands, operators.pop())
            operators.append(operator)
            operands.append(chain[index + 1])
        while operators:
            self._combine(operands, operators.pop())
        return operands[0]

    def _combine(self, operands: list[ast.Expr], operator: Token) -> None:
        right = operands.pop()
        left = operands.pop()
        if operator.type == "SHIFT":
            self._report(f"Colbert has no shift operators ('{operator}')", token_pos(operator))
            operands.append(left)
        else:
            operands.append(ast.Binary(cast(ast.BinaryOperator, operator.value), left, right, left.pos))

    def unary_op(self, children: list[Any]) -> ast.Unary:
        operator, operand = children
        if operator == "*" and isinstance(operand, ast.Binary) and operand.op in ("+", "-"):
            self._report(
                "Colbert has no pointer arithmetic: '*' applies to a pointer, not to a sum", token_pos(operator)
            )
        return ast.Unary(cast(ast.UnaryOperator, operator.value), operand, token_pos(operator))

    def sizeof(self, children: list[Token]) -> ast.SizeOf:
        keyword, type_token = children[0], children[1]
        return ast.SizeOf(ast.TypeRef(type_token.value, len(children) - 2, token_pos(type_token)), token_pos(keyword))

    def increment_error(self, children: list[Any]) -> ast.Expr:
        operator = next(c for c in children if isinstance(c, Token) and c.type == "INCDEC")
        operand = children[1] if children[0] is operator else children[0]
        sign = operator.value[0]
        self._report(f"Colbert has no '{operator}' operator: write 'x = x {sign} 1;'", token_pos(operator))
        return cast(ast.Expr, operand)

    def cast_error(self, children: list[Any]) -> ast.Expr:
        self._report(
            "Colbert has no explicit casts: conversions are implicit (assignment converts to the variable's type)",
            token_pos(children[0]),
        )
        return cast(ast.Expr, children[-1])

    def field(self, children: list[Any]) -> ast.FieldAccess:
        target, operator, name = children
        return ast.FieldAccess(target, name.value, operator == "->", target.pos)

    def subscript_error(self, children: list[Any]) -> ast.Expr:
        self._report("Colbert has no arrays (no '[]' indexing)", token_pos(children[1]))
        return cast(ast.Expr, children[0])

    def name(self, children: list[Token]) -> ast.Name:
        token = children[0]
        return ast.Name(token.value, token_pos(token))

    def int_literal(self, children: list[Token]) -> ast.IntLiteral:
        token = children[0]
        problem = number_error(token.value)
        if problem is not None:
            self._report(problem, token_pos(token))
            return ast.IntLiteral(0, token_pos(token))
        value = int_value(token.value)
        if value is None:
            self._report(f"invalid octal number {token} (a leading 0 means octal, as in C)", token_pos(token))
            value = 0
        return ast.IntLiteral(value, token_pos(token))

    def float_literal(self, children: list[Token]) -> ast.FloatLiteral:
        token = children[0]
        value = float(token.value.rstrip("fF"))
        problem = number_error(token.value, value)
        if problem is not None:
            self._report(problem, token_pos(token))
            value = 0.0
        return ast.FloatLiteral(value, token_pos(token))

    def string_literal(self, children: list[Token]) -> ast.StringLiteral:
        token = children[0]
        return ast.StringLiteral(decode_string(token.value), token_pos(token))

    def char_error(self, children: list[Token]) -> ast.Expr:
        self._report(
            "Colbert has no character literals (and no 'char' type); use a string \"...\"", token_pos(children[0])
        )
        return ast.IntLiteral(0, token_pos(children[0]))

    def call(self, children: list[Any]) -> ast.Call:
        name, args = children
        return ast.Call(name.value, () if args is None else tuple(args), token_pos(name))

    def paren(self, children: list[Any]) -> ast.Expr:
        return self._expr(children[1])

    def args(self, children: list[Any]) -> list[ast.Expr]:
        if len(children) == 1:
            return [self._expr(children[0])]
        children[0].append(self._expr(children[1]))
        return children[0]  # type: ignore[no-any-return]
