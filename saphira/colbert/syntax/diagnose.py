"""Explaining syntax errors, and skipping past them.

:func:`convert_exception` turns the exception Lark raises into a :class:`ColbertSyntaxError` that a
person can act on: the place (the end of the previous line when a ';' is missing), what was found, and
what would have been accepted, in words; C constructs Colbert lacks get their own explanation.
:func:`blank_statement_at` supports recovery: it blanks out the statement around an error (keeping
newlines, so positions stay right) so the rest of the file can be parsed again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from saphira.colbert.syntax.ast_builder import ParseSession
from saphira.colbert.syntax.errors import (
    C_ONLY_KEYWORDS,
    ColbertSyntaxError,
    describe_expected,
    describe_token,
    join_alternatives,
)
from saphira.core.errors import SourcePosition


@functools.cache
def _spellings(lark: Lark) -> dict[str, str]:
    """Terminal name -> its literal spelling, for the terminals that are fixed strings."""
    spellings = {t.name: t.pattern.value for t in lark.terminals if isinstance(t.pattern, PatternStr)}
    spellings.update({"COMPOUND_ASSIGN": "+=", "SHIFT": "<<", "INCDEC": "++"})
    return spellings


def _reserved(lark: Lark) -> dict[str, str]:
    """Reserved word -> terminal name, as the parser's lexer classifies words."""
    lexer: Any = lark.parser.lexer
    return cast(dict[str, str], lexer.reserved)


@dataclass(frozen=True, slots=True)
class _Piece:
    kind: str  # "comment", "string", "word", "punct"
    start: int
    end: int
    text: str


_PIECE_RE = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<comment>/\*(?:[^*]|\*(?!/))*(?:\*/)?|//[^\n]*)"
    r"|(?P<string>\"(?:[^\"\\\n]|\\.)*\"?|'(?:[^'\\\n]|\\.)*'?)"
    r"|(?P<word>[A-Za-z0-9_.]+)"
    r"|(?P<punct>.)",
    re.DOTALL,
)


_WINDOW = 4096
"""How far past an error the error path tokenizes: a statement longer than that is cut there."""


def _pieces(text: str, offset: int | None = None) -> list[_Piece]:
    """A rough tokenization (comments and strings respected), used only on the error path; with
    ``offset``, of the text up to :data:`_WINDOW` characters after it (an error near the start of a big
    file costs no more than in a small one)."""
    end = len(text) if offset is None else min(len(text), offset + _WINDOW)
    return [
        _Piece(m.lastgroup or "punct", m.start(), m.end(), m.group())
        for m in _PIECE_RE.finditer(text, 0, end)
        if m.lastgroup != "space"
    ]


def _acceptable(exc: UnexpectedInput) -> set[str]:
    """The terminals the parser could really shift at the error (Lark replays its parser to find them;
    the raw LALR lookahead set also lists tokens that would only lead to a later error)."""
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is None:
        return set()
    try:
        return set(interactive.accepts())
    except Exception:  # a replay that fails leaves us with the raw set
        return set()


def _offset(exc: UnexpectedInput) -> int | None:
    """Where in the text the error is (Lark declares this attribute loosely)."""
    offset: Any = getattr(exc, "pos_in_stream", None)
    return offset if isinstance(offset, int) else None


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def convert_exception(exc: UnexpectedInput, lark: Lark, text: str, session: ParseSession) -> ColbertSyntaxError:
    """A :class:`ColbertSyntaxError` that says what is wrong, where, and what was expected."""
    offset = _offset(exc)
    if offset is None:
        offset = len(text)
    pieces = _pieces(text, offset)
    for piece in pieces:
        if piece.start > offset:
            break
        if piece.kind == "comment" and _unterminated(piece):
            return _error(
                session, "unterminated comment: this '/*' has no matching '*/'", *_line_column(text, piece.start)
            )
    spellings = _spellings(lark)
    reserved = _reserved(lark)
    if isinstance(exc, UnexpectedCharacters):
        return _unexpected_character(exc, text, session, spellings)
    assert isinstance(exc, UnexpectedToken)
    token: Token = exc.token
    accepted = _acceptable(exc) or exc.expected
    expected = describe_expected(accepted, spellings)
    start = token.start_pos if token.type != "$END" and token.start_pos is not None else len(text)
    previous = _previous_piece(pieces, start)
    if token.type == "C_KEYWORD":
        return _error(session, C_ONLY_KEYWORDS[str(token)], token.line, token.column, expected)
    if token.type == "$END":
        line, column = _after(text, previous) if previous else (1, 1)
        return _error(
            session, f"unexpected end of input; expected {join_alternatives(expected)}", line, column, expected
        )
    if token.value in reserved and "NAME" in accepted and _looks_like_a_name(pieces, token, accepted):
        return _error(
            session, f"'{token}' is a Colbert keyword and cannot be used as a name", token.line, token.column, expected
        )
    if token.type == "ASSIGN" and previous is not None and previous.text in reserved:
        return _error(
            session,
            f"'{previous.text}' is a Colbert keyword and cannot be used as a variable name",
            *_line_column(text, previous.start),
            expected,
        )
    found = describe_token(token.type, str(token), spellings)
    if "SEMICOLON" in accepted and previous is not None:
        prev_line, prev_column = _after(text, previous)
        if prev_line < (token.line or 0):
            return _error(
                session,
                f"missing ';' after '{previous.text}' (found {found} on line {token.line})",
                prev_line,
                prev_column,
                expected,
            )
        if token.type == "RBRACE":
            return _error(session, f"missing ';' after '{previous.text}'", prev_line, prev_column, expected)
    message = f"unexpected {found}"
    if expected:
        message += f"; expected {join_alternatives(expected)}"
    if (
        token.type == "NAME"
        and previous is not None
        and previous.text.isidentifier()
        and previous.text not in reserved
        and _starts_statement(pieces, previous)
    ):
        message += f" (if '{previous.text}' is a struct type, it must be imported before it is used)"
    elif token.type == "ELSE":
        message += " ('else' must directly follow the statement of an 'if'; check for a stray ';')"
    elif token.type == "COLON" and previous is not None and previous.text == "update":
        message += " ('update' takes a statement, not a colon: 'update x = f();')"
    return _error(session, message, token.line, token.column, expected)


def _starts_statement(pieces: list[_Piece], piece: _Piece) -> bool:
    """Whether ``piece`` is the first of a statement (nothing or ``;``, a brace or a label before it)."""
    code = [p for p in pieces if p.kind != "comment"]
    index = code.index(piece)
    return index == 0 or code[index - 1].text in (";", "{", "}", ":")


def _looks_like_a_name(pieces: list[_Piece], token: Token, accepted: Iterable[str]) -> bool:
    """Whether a misplaced keyword was meant as a name: only a name fits here, or it is used like one."""
    if "IF" not in accepted:
        return True
    following = next((p for p in pieces if p.start >= (token.end_pos or 0)), None)
    return following is not None and following.text in ("=", ":", ".", "[")


def _unexpected_character(
    exc: UnexpectedCharacters, text: str, session: ParseSession, spellings: dict[str, str]
) -> ColbertSyntaxError:
    offset = _offset(exc) or 0
    char = text[offset] if offset < len(text) else ""
    if char == '"':
        message = "unterminated string: a string must end with '\"' on the line where it starts"
    elif char == "'":
        message = "Colbert has no character literals (and no 'char' type); use a string \"...\""
    elif char == "#":
        message = "Colbert has no preprocessor: '#' directives are not supported (use 'load' for other files)"
    else:
        expected = describe_expected(_acceptable(exc) or exc.allowed or (), spellings)
        message = f"unexpected character {char!r}"
        if expected:
            message += f"; expected {join_alternatives(expected)}"
        return _error(session, message, exc.line, exc.column, expected)
    return _error(session, message, exc.line, exc.column)


def _error(
    session: ParseSession, message: str, line: int | None, column: int | None, expected: tuple[str, ...] = ()
) -> ColbertSyntaxError:
    line = line or 1
    column = column or 1
    source = session.lines[line - 1].rstrip("\r") if 0 < line <= len(session.lines) else None
    return ColbertSyntaxError(message, SourcePosition(session.filename, line, column), source, expected)


def _previous_piece(pieces: list[_Piece], offset: int) -> _Piece | None:
    previous = None
    for piece in pieces:
        if piece.end > offset:
            break
        if piece.kind != "comment":
            previous = piece
    return previous


def _after(text: str, piece: _Piece) -> tuple[int, int]:
    """Line and column just after ``piece``."""
    return _line_column(text, piece.end)


# ---- recovery ---------------------------------------------------------------------------------------


def blank_statement_at(
    text: str,
    exc: UnexpectedInput,
    sections: frozenset[str] = frozenset(),
    starters: frozenset[str] = frozenset(),
) -> tuple[str, int] | None:
    """``text`` with the statement around the error replaced by blanks, and the offset where the blanks
    end; None if nothing can be skipped.

    The statement runs back to the previous ``;``, brace or label and on to the next ``;`` (or to the end
    of a ``{...}`` it opens). For other languages built on Colbert's, ``sections`` are words after which a
    new unit begins and ``starters`` words that begin one (the .beh section and rule keywords).
    """
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        return None
    offset = _offset(exc)
    if offset is None or offset >= len(text):
        return None
    pieces = _pieces(text, offset)
    if any(p.kind == "comment" and p.start <= offset and _unterminated(p) for p in pieces):
        return None  # an unterminated comment swallows the rest of the file
    pieces = [p for p in pieces if p.kind != "comment"]
    index = next((i for i, p in enumerate(pieces) if p.end > offset), None)
    if index is None:
        return None
    start_index = index
    while start_index > 0:
        before = pieces[start_index - 1].text
        if before in (";", "{", "}") or before in sections:
            break
        if (
            before == ":"
            and start_index >= 2
            and pieces[start_index - 2].text.isidentifier()
            and (start_index == 2 or pieces[start_index - 3].text in (";", "{", "}"))
        ):
            break
        start_index -= 1
        if before in starters:
            break
    end = len(text)
    depth = 0
    for number, piece in enumerate(pieces[index:]):
        if number and depth == 0 and (piece.text in sections or piece.text in starters):
            end = piece.start
            break
        if piece.text == "{":
            depth += 1
        elif piece.text == "}":
            if depth == 0:
                end = piece.start
                break
            depth -= 1
            if depth == 0:
                end = piece.end
                break
        elif piece.text == ";" and depth == 0:
            end = piece.end
            break
    start = min(pieces[start_index].start, offset)
    if end <= start:
        start, end = pieces[index].start, pieces[index].end
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:], end


def _unterminated(comment: _Piece) -> bool:
    return comment.text.startswith("/*") and (len(comment.text) < 4 or not comment.text.endswith("*/"))
