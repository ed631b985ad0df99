"""A minimal observer: named hooks that user code attaches callbacks to.

Used for the manual's startup / connect / disconnect callbacks and for reports (a task failed, a
message from an activity). A callback that raises is logged and never stops the emitter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")

log = logging.getLogger("saphira.core.events")


class Event(Generic[P]):
    """A hook: ``connect(fn)`` registers a callback, ``emit(...)`` calls every callback in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._callbacks: list[Callable[P, object]] = []

    def connect(self, callback: Callable[P, object]) -> Callable[P, object]:
        """Register ``callback``; returns it so this can be used as a decorator."""
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[P, object]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for callback in tuple(self._callbacks):
            try:
                callback(*args, **kwargs)
            except Exception:
                log.exception("callback %r for event %r raised", callback, self.name)

    def __len__(self) -> int:
        return len(self._callbacks)
