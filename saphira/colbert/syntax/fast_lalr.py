"""Lark's LALR(1) tables run by a lean loop: the fast path for text that parses.

Lark's own loop pays for generality on every reduction (rule objects as dictionary keys, token-typed
rule names). Here the tables are flattened once into plain dictionaries: ``terminal -> next state``
for a shift, ``terminal -> (size, callback, rule name)`` for a reduction, the callbacks being Lark's own
(so the same inline transformer), or None where Lark's would only hand a single child up. On any syntax
error this loop gives up and the caller runs Lark's ``parse``, which produces Lark's exception with
everything needed for a good message: errors are rare, parses are not.
"""

from __future__ import annotations

from typing import Any

from lark import Lark
from lark.exceptions import UnexpectedInput
from lark.parsers.lalr_analysis import Shift

from saphira.colbert.syntax.lexer import ColbertLexer

_Action = int | tuple[int, Any, str]


def _passes_child_through(rule: Any) -> bool:
    """Whether reducing ``rule`` just hands its one child up (a ``?rule`` with one kept symbol).

    Lark would call ExpandSingleChild, which returns that child; skipping the call is the same.
    """
    options = rule.options
    if not options.expand1 or rule.alias or len(rule.expansion) != 1:
        return False
    if options.empty_indices and any(options.empty_indices):
        return False
    symbol = rule.expansion[0]
    if symbol.is_term:
        return bool(options.keep_all_tokens or not symbol.filter_out)
    return not symbol.name.startswith("_")


class FastPathFailed(Exception):
    """The text does not parse; run Lark's parser for the detailed error."""


class FastLalr:
    """Parses with a Lark LALR parser's tables, lexer and callbacks, without Lark's loop."""

    def __init__(self, lark: Lark, start: str) -> None:
        frontend: Any = lark.parser
        lexer = frontend.lexer
        if not isinstance(lexer, ColbertLexer):
            raise TypeError("FastLalr needs a Lark parser built with lexer=ColbertLexer")
        self._lexer = lexer
        parser: Any = frontend.parser.parser
        table = parser.parse_table
        callbacks: dict[Any, Any] = parser.callbacks
        if any(isinstance(key, str) for key in callbacks):
            raise TypeError("FastLalr does not support transformer callbacks on terminals")
        self._start_state: int = table.start_states[start]
        self._end_state: int = table.end_states[start]
        self._rows: dict[int, dict[str, _Action]] = {}
        for state, actions in table.states.items():
            row: dict[str, _Action] = {}
            for symbol, (action, argument) in actions.items():
                if action is Shift:
                    row[str(symbol)] = argument
                else:
                    callback = None if _passes_child_through(argument) else callbacks[argument]
                    row[str(symbol)] = (len(argument.expansion), callback, str(argument.origin.name))
            self._rows[state] = row

    def parse(self, text: str) -> Any:
        """The transformer's result for ``text``; :class:`FastPathFailed` if it does not parse."""
        rows = self._rows
        state = self._start_state
        state_stack = [state]
        value_stack: list[Any] = []

        def accepts(terminal: str) -> bool:
            return terminal in rows[state_stack[-1]]

        try:
            for token in self._lexer.tokens(text, accepts):
                kind = token.type
                action = rows[state].get(kind)
                while type(action) is not int:
                    if action is None:
                        raise FastPathFailed
                    size, callback, rule_name = action  # type: ignore[misc]
                    if callback is None:
                        state = rows[state_stack[-2]][rule_name]  # type: ignore[assignment]
                        state_stack[-1] = state
                    else:
                        if size:
                            children = value_stack[-size:]
                            del value_stack[-size:]
                            del state_stack[-size:]
                        else:
                            children = []
                        value_stack.append(callback(children))
                        state = rows[state_stack[-1]][rule_name]  # type: ignore[assignment]
                        state_stack.append(state)
                    action = rows[state].get(kind)
                state = action
                state_stack.append(state)
                value_stack.append(token)
        except UnexpectedInput as exc:
            raise FastPathFailed from exc
        while True:
            action = rows[state_stack[-1]].get("$END")
            if action is None or isinstance(action, int):
                raise FastPathFailed
            size, callback, rule_name = action
            if callback is None:
                state_stack[-1] = rows[state_stack[-2]][rule_name]  # type: ignore[assignment]
            else:
                children = value_stack[-size:] if size else []
                if size:
                    del value_stack[-size:]
                    del state_stack[-size:]
                value_stack.append(callback(children))
                state_stack.append(rows[state_stack[-1]][rule_name])  # type: ignore[arg-type]
            if state_stack[-1] == self._end_state:
                return value_stack[-1]
