"""SIGINT and SIGTERM during a run: stop at the end of the cycle, as a robot needs, not in the middle.

Python's default Ctrl-C raises ``KeyboardInterrupt`` wherever the program happens to be, and the
default SIGTERM ends the process on the spot: the robot keeps its last setpoints and a recording
loses what was still buffered. :class:`StopSignals` makes both ask for a stop that the run loop
honours between cycles, so the robot is stopped, files are closed and the summary is printed. A
second signal, or one that arrives while nothing can be stopped cleanly yet (connecting), raises
:class:`Interrupted` at once, as Ctrl-C always did.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A stop signal that could not wait for the end of the cycle; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """While entered (in the main thread), SIGINT and SIGTERM are handled as described above.

    Until :attr:`deferring` is set they raise :class:`Interrupted`; after it, the first one is kept
    in :attr:`received` for the run loop to see, and the next one raises.
    """

    def __init__(self) -> None:
        self.received: int | None = None
        self.deferring = False
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        """The received signal's name ("SIGTERM"), or "" when none came."""
        return signal.Signals(self.received).name if self.received is not None else ""

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in HANDLED:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.deferring and self.received is None:
            self.received = signum
            return
        raise Interrupted(signum)
