"""The Colbert lexer: one regular expression built from the grammar's own terminal definitions.

It replaces Lark's lexers for speed (one match per token, blanks and comments skipped inside it) and
does the context-dependent work in one place:

* words spelled like a Colbert keyword always become that keyword (keywords are reserved), C words
  Colbert lacks (``for``, ``double``, ...) become ``C_KEYWORD`` so the parser stops right there;
* words naming an imported struct type become ``TYPE_NAME`` (C's "lexer hack", from the session);
* keywords of ``.beh`` files (terminals named ``B_*``) are keywords only where the parser accepts them,
  so Colbert code in their Init/Update sections keeps its own words;
* after a utility command (``load``, ``cd``, ``connect``, ...) the blank-separated words that follow on
  the same line are ``UTIL_ARG`` tokens: file names and addresses are not C syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedCharacters
from lark.lexer import Lexer, LexerState, PatternStr, TerminalDef

from saphira.colbert.syntax.ast_builder import CURRENT_SESSION
from saphira.colbert.syntax.errors import C_ONLY_KEYWORDS

UTILITY_WORDS = frozenset({"LOAD", "UNLOAD", "CD", "PWD", "HELP", "CONNECT", "DISCONNECT", "EXIT", "SET"})
# Terminals the lexer produces by context rather than by pattern.
_SPECIAL = frozenset({"NAME", "TYPE_NAME", "UTIL_ARG"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Acceptor = Callable[[str], bool]


class ColbertLexer(Lexer):
    """A Lark lexer (custom-lexer interface 2) for grammar.lark and the grammars that extend it."""

    __future_interface__ = 2

    def __init__(self, lexer_conf: Any) -> None:
        terminals: list[TerminalDef] = list(lexer_conf.terminals)
        ignored = [t for t in terminals if t.name in lexer_conf.ignore]
        self.reserved: dict[str, str] = {word: "C_KEYWORD" for word in C_ONLY_KEYWORDS}
        self.contextual: dict[str, str] = {}
        self.contextual_folded: dict[str, str] = {}
        self.punctuation: dict[str, str] = {}
        patterns: list[TerminalDef] = []
        for terminal in terminals:
            pattern = terminal.pattern
            if terminal in ignored or terminal.name in _SPECIAL:
                continue
            if isinstance(pattern, PatternStr) and _WORD.fullmatch(pattern.value):
                if not terminal.name.startswith("B_"):
                    self.reserved[pattern.value] = terminal.name
                elif "i" in pattern.flags:
                    self.contextual_folded[pattern.value.lower()] = terminal.name
                else:
                    self.contextual[pattern.value] = terminal.name
            elif isinstance(pattern, PatternStr):
                self.punctuation[pattern.value] = terminal.name
            else:
                patterns.append(terminal)
        # Longest alternatives first, as Lark orders them: operators like "+=" before "+".
        patterns.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
        punctuation = "|".join(re.escape(p) for p in sorted(self.punctuation, key=len, reverse=True))
        skip = "|".join(t.pattern.to_regexp() for t in ignored)
        alternatives = [f"(?P<NAME>{_WORD.pattern})", "(?P<OPEN_COMMENT>/\\*)"]
        alternatives += [f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in patterns]
        alternatives.append(f"(?P<PUNCT>{punctuation})")
        # Possessive: blanks and comments are never given back, so a failed match cannot backtrack
        # exponentially through runs of blanks.
        self._skip = re.compile(f"(?:{skip})*+")
        util_arg = next(t for t in terminals if t.name == "UTIL_ARG")
        self._util_arg = re.compile(util_arg.pattern.to_regexp())
        self._token = re.compile(f"(?:{skip})*+(?:{'|'.join(alternatives)})")

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        """Lark's entry point: tokens of the whole text, using the parser state for contextual keywords."""
        table = parser_state.parse_conf.parse_table.states

        def accepts(terminal: str) -> bool:
            return terminal in table[parser_state.position]

        try:
            yield from self.tokens(lexer_state.text.text, accepts)
        except UnexpectedCharacters as exc:
            exc.allowed = {name for name in table[parser_state.position] if name.isupper()}
            raise

    def tokens(self, text: str, accepts: Acceptor) -> Iterator[Token]:
        """The tokens of ``text``; ``accepts(terminal)`` tells whether the parser would take it now."""
        struct_types = CURRENT_SESSION.get().struct_types
        reserved = self.reserved
        contextual = self.contextual
        folded = self.contextual_folded
        punctuation = self.punctuation
        contextual_words = bool(contextual or folded)
        match = self._token.match
        util_arg = self._util_arg.match
        new_str = str.__new__
        position = 0
        line = 1
        line_start = 0
        while True:
            found = match(text, position)
            if found is None:
                position = self._skip.match(text, position).end()  # type: ignore[union-attr]
                if position >= len(text):
                    return
                line, line_start = _line_of(text, position)
                raise UnexpectedCharacters(text, position, line, position - line_start + 1)  # type: ignore[no-untyped-call]
            kind = found.lastgroup
            assert kind is not None
            start = found.start(kind)
            newlines = text.count("\n", position, start)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", position, start) + 1
            end = found.end()
            value = found.group(kind)
            if kind == "NAME":
                kind = reserved.get(value) or ("TYPE_NAME" if value in struct_types else "NAME")
                if contextual_words:
                    special = contextual.get(value) or folded.get(value.lower())
                    if special is not None and accepts(special):
                        kind = special
            elif kind == "PUNCT":
                kind = punctuation[value]
            elif kind == "OPEN_COMMENT":
                raise UnexpectedCharacters(text, start, line, start - line_start + 1)  # type: ignore[no-untyped-call]
            # Token(kind, value, start, line, column, line, end column, end), without Token.__new__'s
            # two Python-level calls: this is the hottest line of the parser.
            token = new_str(Token, value)
            token.type = kind
            token.value = value
            token.start_pos = start
            token.line = token.end_line = line
            token.column = start - line_start + 1
            token.end_column = end - line_start + 1
            token.end_pos = end
            yield token
            position = end
            if kind in UTILITY_WORDS:
                argument = util_arg(text, position)
                while argument is not None:
                    end = argument.end()
                    column = position - line_start + 1
                    yield Token("UTIL_ARG", argument.group(), position, line, column, line, end - line_start + 1, end)
                    position = end
                    argument = util_arg(text, position)


def _line_of(text: str, offset: int) -> tuple[int, int]:
    """1-based line of ``offset`` and the offset where that line starts."""
    return text.count("\n", 0, offset) + 1, text.rfind("\n", 0, offset) + 1
