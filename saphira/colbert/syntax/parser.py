"""Parsing Colbert text into the typed AST of :mod:`saphira.colbert.syntax.ast`.

``parse`` reads a file, ``parse_interactive`` one prompt input (the final ``;`` is optional there, as in
the manual), ``parse_statement`` exactly one statement, and ``parse_all_errors`` reports every
independent error of a file for ``saphira check``.

How: grammar.lark is compiled once per process into a Lark LALR(1) parser whose inline transformer
(:class:`~saphira.colbert.syntax.ast_builder.ColbertAstBuilder`) builds the AST while parsing, with the Colbert
lexer (:mod:`~saphira.colbert.syntax.lexer`). Text that parses goes through :class:`FastLalr` (the same tables
and callbacks in a lean loop); text that does not is parsed again by Lark itself for its detailed
exception, which :mod:`~saphira.colbert.syntax.diagnose` turns into a message.

Struct type names are needed to tell ``robot *r;`` (a declaration) from a multiplication, exactly as in
C: pass the struct types known at that point (``robot`` and ``point`` are predefined).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, UnexpectedToken

from saphira.colbert.syntax import ast
from saphira.colbert.syntax.ast_builder import CURRENT_SESSION, ColbertAstBuilder, ParseSession
from saphira.colbert.syntax.diagnose import blank_statement_at, convert_exception
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.fast_lalr import FastLalr, FastPathFailed
from saphira.colbert.syntax.lexer import ColbertLexer
from saphira.colbert.syntax.limits import MAX_NESTING, too_deep

GRAMMAR_FILE = Path(__file__).with_name("grammar.lark")
DEFAULT_STRUCT_TYPES: frozenset[str] = frozenset({"robot", "point"})
MAX_REPORTED_ERRORS = 50
RECOVERY_BUDGET = 2_000_000
"""Characters the error recovery may parse again in all: a big file with many errors reports fewer."""


class CompiledGrammar:
    """A Lark LALR parser for one start rule, plus its fast path.

    Compiling the tables takes about 0.14 s; Lark's cache (a pickle of the tables, checked against the
    grammar's hash and Lark's version when read) brings that to about 0.015 s. It lives in the user's
    cache directory (``$XDG_CACHE_HOME/saphira`` or ``~/.cache/saphira``), never in a shared temporary
    directory; when that is not writable the tables are simply compiled each time.
    """

    def __init__(
        self, grammar: str, start: str, transformer: Transformer[Token, Any], cache_name: str | None = None
    ) -> None:
        self.lark = Lark(
            grammar,
            start=start,
            parser="lalr",
            lexer=ColbertLexer,
            maybe_placeholders=True,
            transformer=transformer,
            cache=_cache_file(cache_name, grammar) if cache_name else False,
        )
        self.fast = FastLalr(self.lark, start)


def _cache_file(name: str, grammar: str) -> str | bool:
    """Where Lark may keep compiled tables for ``grammar``, or False if there is no usable place."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    directory = Path(base) / "saphira"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    if not os.access(directory, os.W_OK):
        return False
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    path = directory / f"colbert-{name}-lark{lark.__version__}-{digest}.cache"
    for stale in directory.glob(f"colbert-{name}-*.cache"):
        if stale != path:
            stale.unlink(missing_ok=True)  # tables of an older grammar or Lark
    return str(path)


@functools.cache
def colbert_grammar() -> CompiledGrammar:
    """The Colbert parser, compiled (or read from the cache) on first use and shared afterwards."""
    return CompiledGrammar(GRAMMAR_FILE.read_text(encoding="utf-8"), "program", ColbertAstBuilder(), "program")


# ---- public API -----------------------------------------------------------------------------------


def parse(text: str, filename: str = "<input>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES) -> ast.Program:
    """Parse a Colbert file; raise :class:`ColbertSyntaxError` for the first error in it."""
    result, errors, _ = run_parser(colbert_grammar(), text, filename, struct_types)
    if errors:
        raise errors[0]
    assert isinstance(result, ast.Program)
    return result


def parse_interactive(
    text: str, filename: str = "<prompt>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES
) -> ast.Program:
    """Parse what was typed at the prompt: the final ``;`` is optional and ``\\``-newline continues a line.

    An expression typed alone becomes an :class:`ast.ExprStatement` (the evaluator prints its value).
    """
    text = text.replace("\\\n", " \n")
    grammar = colbert_grammar()
    result, errors, at_end = run_parser(grammar, text, filename, struct_types)
    if errors and at_end and not text.rstrip().endswith(";"):
        retry, retry_errors, _ = run_parser(grammar, text + ";", filename, struct_types)
        if not retry_errors:
            result, errors = retry, retry_errors
    if errors:
        raise errors[0]
    assert isinstance(result, ast.Program)
    return result


def parse_statement(
    text: str, filename: str = "<input>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES
) -> ast.Statement:
    """Parse exactly one statement (the final ``;`` optional); declarations and acts are refused."""
    program = parse_interactive(text, filename, struct_types)
    items = program.items
    if len(items) == 1 and not isinstance(items[0], ast.VarDecl | ast.ActDef):
        return items[0]
    if len(items) > 1:
        pos, message = items[1].pos, "expected a single statement, found more than one"
    else:
        pos, message = (items[0].pos if items else ast.Pos(1, 1)), "expected a statement"
    lines = text.split("\n")
    raise ColbertSyntaxError(message, pos.at(filename), lines[pos.line - 1] if pos.line <= len(lines) else None)


def parse_all_errors(
    text: str, filename: str = "<input>", struct_types: Iterable[str] = DEFAULT_STRUCT_TYPES
) -> list[ColbertSyntaxError]:
    """Every syntax error of a file, in order, as independent of each other as possible.

    Errors the AST builder reports (constructs Colbert lacks, misplaced declarations, ...) do not stop
    parsing. After an error that does, the statement around it is blanked out (newlines kept, so
    positions stay right) and the file is parsed again, up to :data:`MAX_REPORTED_ERRORS` errors.
    """
    return collect_all_errors(colbert_grammar(), text, filename, struct_types)


# ---- machinery shared with the behavior parser ----------------------------------------------------


def run_parser(
    grammar: CompiledGrammar, text: str, filename: str, struct_types: Iterable[str]
) -> tuple[Any, list[ColbertSyntaxError], bool]:
    """Parse once: (result or None, errors sorted by position, whether the parser stopped at the end)."""
    session = ParseSession(filename, text.split("\n"), frozenset(struct_types))
    result, stop = _parse_in_session(grammar, text, session)
    errors = sorted(session.errors, key=lambda e: (e.line, e.column))
    at_end = isinstance(stop, UnexpectedToken) and stop.token.type == "$END"
    return (None if errors else result), errors, at_end


def collect_all_errors(
    grammar: CompiledGrammar,
    text: str,
    filename: str,
    struct_types: Iterable[str],
    sections: frozenset[str] = frozenset(),
    starters: frozenset[str] = frozenset(),
) -> list[ColbertSyntaxError]:
    """The recovery loop behind :func:`parse_all_errors` (``sections``/``starters``: see
    :func:`~saphira.colbert.syntax.diagnose.blank_statement_at`)."""
    lines = text.split("\n")
    found: dict[tuple[int, int], ColbertSyntaxError] = {}
    current = text
    floor = (0, 0)  # where the last blanked statement ended
    for attempt in range(max(1, min(MAX_REPORTED_ERRORS, RECOVERY_BUDGET // max(1, len(text))))):
        session = ParseSession(filename, lines, frozenset(struct_types))
        # After a first failure the text still has errors more often than not: go straight to Lark.
        _, stop = _parse_in_session(grammar, current, session, fast=attempt == 0)
        artifact = False
        for error in session.errors:
            if (error.line, error.column) < floor and (error.line, error.column) not in found:
                # The text before the blanks did not change and blanks cannot be wrong, so a new error placed
                # there comes from the blanking itself (a label or a closing brace it removed, an error
                # reported at the end of the previous word): not the user's, and anything after is suspect.
                artifact = True
                break
            found.setdefault((error.line, error.column), error)
        if artifact or stop is None or len(found) >= MAX_REPORTED_ERRORS:
            break
        blanked = blank_statement_at(current, stop, sections, starters)
        if blanked is None:
            break
        current, end = blanked
        floor = (current.count("\n", 0, end) + 1, end - (current.rfind("\n", 0, end) + 1) + 1)
    return sorted(found.values(), key=lambda e: (e.line, e.column))[:MAX_REPORTED_ERRORS]


def _parse_in_session(
    grammar: CompiledGrammar, text: str, session: ParseSession, fast: bool = True
) -> tuple[Any, UnexpectedInput | None]:
    """(result, None) or (None, the Lark exception that stopped parsing, already recorded in ``session``)."""
    if text.startswith("\ufeff"):
        text = " " + text[1:]  # a byte-order mark, as some editors write; a blank keeps every position
    reset = CURRENT_SESSION.set(session)
    try:
        result = None
        if fast:
            try:
                result = grammar.fast.parse(text)
            except FastPathFailed:
                session.errors.clear()
        try:
            if result is None:
                result = grammar.lark.parse(text)
        except UnexpectedInput as exc:
            session.errors.append(convert_exception(exc, grammar.lark, text, session))
            return None, exc
        deep = too_deep(result)
        if deep is not None:
            session.report(f"nested more than {MAX_NESTING} levels deep (blocks, statements and operators)", *deep.pos)
        return result, None
    finally:
        CURRENT_SESSION.reset(reset)
