"""Waiting on real time in tests: one generous deadline, with a fast path.

A test that waits for a server, a socket or a thread waits for *what* it needs, polling often, and
gives up only after :data:`WAIT` seconds: long enough that a loaded 2-core machine (the suite on
three workers beside other jobs, load 5-25) never reaches it, yet a test that waits for something that
never comes still fails instead of hanging. A fixed short timeout ("5 s should do") is what failed
under load (issue 32 §4); every real-time wait in the tests and their helpers uses this one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["WAIT", "wait_until"]

WAIT = 180.0
"""Seconds a test waits on real time before it calls the thing it waits for missing. Measured: at load 18-23
on this 2-core machine (three workers, two CPU hogs, other jobs) ``saphira sim --gamebots`` took 15 s to
say where it listens, and more than 60 s in a loaded suite run (2.5 s of CPU)."""

T = TypeVar("T")


def wait_until(found: Callable[[], T | None], what: str, timeout: float = WAIT, poll: float = 0.005) -> T:
    """``found()``'s first truthy value, polled every ``poll`` s; AssertionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = found()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        time.sleep(poll)
