"""Errors that repeat, logged once and then counted: a persistent condition must not flood the log.

A server out of descriptors fails every accept it tries, a flooded line is refused every cycle: the
first occurrence says what happened, the rest become one line every :data:`SUMMARY_EVERY` seconds.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

SUMMARY_EVERY = 60.0
"""Seconds between the summary lines of an error that repeats."""


class RepeatedErrors:
    """Log an error the first time it happens, then only a count every :data:`SUMMARY_EVERY` seconds.

    A condition that persists (no free descriptor, so every accept fails) must not write a line per
    attempt: the first occurrence of each message is logged in full, repeats are counted, and one line
    says how many there were since.
    """

    def __init__(self, logger: logging.Logger, clock: Callable[[], float] = time.monotonic) -> None:
        self._log = logger
        self._clock = clock
        self._counts: Counter[str] = Counter()
        self._last: dict[str, float] = {}

    def note(self, message: str) -> None:
        """One occurrence of ``message`` (logged as a warning, or counted into the next summary)."""
        now = self._clock()
        last = self._last.get(message)
        if last is None:
            self._last[message] = now
            self._log.warning("%s", message)
            return
        self._counts[message] += 1
        if now - last >= SUMMARY_EVERY:
            self._log.warning("%s (%d more times in %.0f s)", message, self._counts.pop(message), now - last)
            self._last[message] = now
