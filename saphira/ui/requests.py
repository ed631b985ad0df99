"""The fields of a page's request, checked where the request arrives.

A page's message is JSON from a browser (or from anyone holding the token): each field is checked for
its type, finiteness and range before anything acts on it, so a bad request is answered to the page
(:class:`RequestError`, a ValueError the server sends back) and never reaches the loop that owns the
world or the robot.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from saphira.display.state import MAX_PERIOD, DisplayMenu

__all__ = ["PageExit", "RequestError", "display_setting", "integer", "number", "text"]

COORDINATE_MM = 1e9
"""The largest world coordinate a page may name (the readers' bound on a world file's numbers)."""


class RequestError(ValueError):
    """A page's request that cannot be done: the message names the request and the field."""


def _field(message: dict[str, Any], key: str) -> Any:
    if key not in message:
        raise RequestError(f"{message.get('type')}: {key} is missing")
    return message[key]


def _describe(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def number(message: dict[str, Any], key: str, low: float, high: float) -> float:
    """``message[key]`` as a finite number in ``[low, high]``."""
    value = _field(message, key)
    kind = message.get("type")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RequestError(f"{kind}: {key} must be a number, not {_describe(value)}")
    try:
        result = float(value)
    except OverflowError:  # an integer beyond a float's range
        raise RequestError(f"{kind}: {key} {_describe(value)} is out of range ({low:g} to {high:g})") from None
    if not math.isfinite(result):
        raise RequestError(f"{kind}: {key} must be a finite number, not {result}")
    if not low <= result <= high:
        raise RequestError(f"{kind}: {key} {result:g} is out of range ({low:g} to {high:g})")
    return result


def integer(message: dict[str, Any], key: str, low: int, high: int) -> int:
    """``message[key]`` as an integer in ``[low, high]``."""
    value = _field(message, key)
    kind = message.get("type")
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{kind}: {key} must be an integer, not {_describe(value)}")
    if not low <= value <= high:
        raise RequestError(f"{kind}: {key} {_describe(value)} is out of range ({low} to {high})")
    return value


def text(message: dict[str, Any], key: str, longest: int) -> str:
    """``message[key]`` as a string of at most ``longest`` characters."""
    value = _field(message, key)
    kind = message.get("type")
    if not isinstance(value, str):
        raise RequestError(f"{kind}: {key} must be a string, not {_describe(value)}")
    if len(value) > longest:
        raise RequestError(f"{kind}: {key} is {len(value)} characters long (at most {longest})")
    return value


def display_setting(message: dict[str, Any]) -> tuple[int, int]:
    """A ``display`` request's ``(menu, state)``: integers within what ``sfSetDisplayState`` takes
    (:meth:`saphira.display.state.Display.set` then refuses what a menu does not allow)."""
    return integer(message, "menu", 0, max(DisplayMenu)), integer(message, "state", 0, MAX_PERIOD)


@dataclass
class PageExit:
    """A page's Exit (the manual's Connect→Exit): ends the program as Ctrl-C does, where exits are allowed.

    ``stop`` is the command's :meth:`~saphira.core.interrupts.StopSignals.request` (None: this program is
    not ended from its page); ``allowed`` follows the servers' exit rules (:func:`saphira.app.exposure.
    exit_allowed` for the page's address: loopback, or the operator's ``--allow-exit``).
    """

    stop: Callable[[str], None] | None = None
    allowed: bool = False

    def __call__(self, message: dict[str, Any]) -> None:
        if len(message) > 1:
            raise RequestError(f"exit: takes no fields, got {_describe(sorted(set(message) - {'type'}))}")
        if self.stop is None:
            raise RequestError("exit: this program is not ended from its page (Ctrl-C where it runs)")
        if not self.allowed:
            raise RequestError(
                "exit: refused: the page is served beyond loopback (the operator allows it with --allow-exit)"
            )
        self.stop("Exit in the live view")
