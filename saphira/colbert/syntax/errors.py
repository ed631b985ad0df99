"""Colbert syntax errors, and the words used to describe tokens to people.

The manual's parser only said ``*** Parsing error at token <tok>``. Ours names the file, line and
column, shows the line with a caret, says what was expected in plain terms ("';'", "an expression"),
and explains the C constructs Colbert does not have.
"""

from __future__ import annotations

from collections.abc import Iterable

from saphira.core.errors import SourceError, SourcePosition


class ColbertSyntaxError(SourceError):
    """A Colbert (or ``.beh``) source text that does not parse.

    ``str(err)`` is ``file:line:col: message``; :meth:`pretty` adds the source line and a caret.
    ``expected`` lists, in words, what would have been accepted at that point (may be empty).
    """

    def __init__(
        self,
        message: str,
        position: SourcePosition,
        source_line: str | None = None,
        expected: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, position, source_line)
        self.expected = expected


# What Colbert says about C words it does not have (docs/colbert.md §1–§3).
C_ONLY_KEYWORDS: dict[str, str] = {
    "for": "Colbert has no 'for' loop; 'while' is its only loop",
    "do": "Colbert has no 'do' loop; 'while' is its only loop",
    "switch": "Colbert has no 'switch'; use if/else",
    "case": "Colbert has no 'switch'/'case'; use if/else",
    "default": "Colbert has no 'switch'/'default'; use if/else",
    "break": "Colbert has no 'break'; use 'goto' to a label at the top level of the act",
    "continue": "Colbert has no 'continue'; use 'goto' to a label at the top level of the act",
    "return": "Colbert has no 'return'; an act ends with 'succeed' or 'fail', or by falling off its end",
    "typedef": "Colbert has no 'typedef'",
    "struct": "Colbert cannot define structs; struct types are imported from native code (sfAddEvalStruct)",
    "union": "Colbert has no unions",
    "enum": "Colbert has no enums",
    "char": "Colbert has no 'char' type; use 'string'",
    "double": "Colbert has no 'double'; all floats are single precision, use 'float'",
    "long": "Colbert has no 'long'; use 'int'",
    "short": "Colbert has no 'short'; use 'int'",
    "unsigned": "Colbert has no 'unsigned'; use 'int'",
    "signed": "Colbert has no 'signed'; use 'int'",
    "const": "Colbert has no type modifiers such as 'const'",
    "volatile": "Colbert has no type modifiers such as 'volatile'",
    "extern": "Colbert has no storage classes such as 'extern'",
    "static": "Colbert has no storage classes such as 'static'; act locals are already static per activity",
    "register": "Colbert has no storage classes such as 'register'",
    "auto": "Colbert has no storage classes such as 'auto'",
}

# Terminals described by a phrase rather than by their spelling.
_PHRASES: dict[str, str] = {
    "NAME": "a name",
    "TYPE_NAME": "a struct type name",
    "INT_LIT": "an integer",
    "FLOAT_LIT": "a number",
    "STRING_LIT": "a string",
    "CHAR_LIT": "a character literal",
    "UTIL_ARG": "an argument",
    "$END": "end of input",
    "C_KEYWORD": "a C keyword",
    "B_NUMBER": "a number",
}

_EXPRESSION = "an expression"
_STATEMENT = "a statement"
_DECLARATION = "a declaration"
_OPERATOR = "an operator"
_TYPE = "a type"

_EXPRESSION_STARTS = frozenset(
    {"NAME", "INT_LIT", "FLOAT_LIT", "STRING_LIT", "CHAR_LIT", "LPAR", "MINUS", "PLUS", "BANG", "TILDE"}
    | {"STAR", "AMP", "SIZEOF", "INCDEC"}
)
_STATEMENT_STARTS = frozenset(
    {"IF", "WHILE", "GOTO", "WAITFOR", "START", "STOP", "SUSPEND", "SUCCEED", "FAIL", "INTERRUPT"}
    | {"RESUME", "REMOVE", "TRACE", "UNTRACE", "MOVE", "TURN", "TURNTO", "SPEED", "ROTATE", "HALT"}
    | {"LOAD", "UNLOAD", "CD", "PWD", "HELP", "CONNECT", "DISCONNECT", "EXIT", "SET", "LBRACE", "SEMICOLON"}
)
# Items that may also start here but are only right in some places (the statement says enough).
_STATEMENT_LIKE = frozenset({"ACT", "UPDATE", "ONINTERRUPT", "ONRESUME"})
_DECLARATION_STARTS = frozenset({"INT_T", "FLOAT_T", "STRING_T", "PTR_T", "VOID_T", "BEHAVIOR_T", "TYPE_NAME"})
_OPERATORS = frozenset(
    {"OROR", "ANDAND", "VBAR", "CARET", "AMP", "EQ", "NE", "LT", "GT", "LE", "GE", "PLUS", "MINUS", "STAR"}
    | {"SLASH", "PERCENT", "SHIFT", "DOT", "ARROW", "LSQB", "INCDEC", "ASSIGN", "COMPOUND_ASSIGN"}
    | {"QMARK", "COMMA"}
)
_BINARY_CORE = frozenset({"PLUS", "MINUS", "SLASH", "EQ", "LT", "ANDAND", "OROR"})


def describe_terminal(name: str, spellings: dict[str, str]) -> str:
    """Words for a terminal in an "expected ..." list: ``';'``, ``'while'``, ``a name``."""
    if name in _PHRASES:
        return _PHRASES[name]
    if name in spellings:
        return f"'{spellings[name]}'"
    return name.lower()


def describe_token(kind: str, text: str, spellings: dict[str, str]) -> str:
    """Words for the token actually found: ``name 'foo'``, ``number 42``, ``';'``, ``end of input``."""
    if kind == "$END":
        return "end of input"
    if kind in ("NAME", "C_KEYWORD"):
        return f"'{text}'"
    if kind == "TYPE_NAME":
        return f"type name '{text}'"
    if kind in ("INT_LIT", "FLOAT_LIT", "B_NUMBER"):
        return f"number {text}"
    if kind == "STRING_LIT":
        return f"string {text}"
    if kind == "UTIL_ARG":
        return f"'{text.strip()}'"
    if text.isidentifier():
        return f"keyword '{text}'"
    return f"'{text}'"


def describe_expected(names: Iterable[str], spellings: dict[str, str]) -> tuple[str, ...]:
    """The expected terminals in words, grouping "an expression", "a statement" and "an operator"."""
    remaining = set(names)
    groups: list[str] = []
    if remaining | {"SEMICOLON"} >= _STATEMENT_STARTS and "IF" in remaining:
        remaining -= _STATEMENT_STARTS | _EXPRESSION_STARTS | _STATEMENT_LIKE
        groups.append(_STATEMENT)
        if remaining & _DECLARATION_STARTS:
            remaining -= _DECLARATION_STARTS
            groups.append(_DECLARATION)
    if remaining >= {"INT_T", "FLOAT_T", "STRING_T", "PTR_T"}:
        remaining -= _DECLARATION_STARTS | {"NAME"}  # a NAME here would be a struct type not yet known
        groups.append(_TYPE)
    if {"NAME", "INT_LIT", "STRING_LIT", "LPAR"} <= remaining:
        remaining -= _EXPRESSION_STARTS
        groups.append(_EXPRESSION)
    if remaining >= _BINARY_CORE:
        remaining -= _OPERATORS
        groups.append(_OPERATOR)
    words = sorted(describe_terminal(n, spellings) for n in remaining)
    return tuple(words + groups)


def join_alternatives(words: tuple[str, ...], limit: int = 8) -> str:
    """``a``, ``a or b``, ``a, b or c``; long lists are cut after ``limit`` entries."""
    if len(words) > limit:
        words = (*words[:limit], "...")
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]
