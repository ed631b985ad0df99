"""SIGINT and SIGTERM during a run: stop at the end of the cycle, as a robot needs, not in the middle.

Python's default Ctrl-C raises ``KeyboardInterrupt`` wherever the program happens to be, and the
default SIGTERM ends the process on the spot: the robot keeps its last setpoints and a recording
loses what was still buffered. :class:`StopSignals` makes both ask for a stop that the run loop
honours between cycles, so the robot is stopped, files are closed and the summary is printed. A
second signal, or one that arrives while nothing can be stopped cleanly yet (connecting), raises
:class:`Interrupted` at once, as Ctrl-C always did.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)


def signalled(signum: int) -> int:
    """The exit status of a program a signal ended, as a shell reports it: 130 for Ctrl-C (SIGINT),
    143 for SIGTERM, 141 for a closed pipe (SIGPIPE). Every saphira command ends with it after a signal,
    so a script can tell an interrupted run from a finished one."""
    return 128 + int(signum)


SignalHandler = Callable[[int, FrameType | None], Any]


@contextlib.contextmanager
def stop_signals(handler: SignalHandler) -> Iterator[None]:
    """Inside the block SIGINT and SIGTERM call ``handler``; the previous handlers after it.

    Only the main thread can install handlers: elsewhere this does nothing, and Ctrl-C still raises
    ``KeyboardInterrupt``. Runs (:class:`StopSignals`) and the simulator servers both stop this way.
    """
    previous: dict[signal.Signals, Any] = {}
    for signum in HANDLED:
        with contextlib.suppress(ValueError):  # not the main thread
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


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
        self._installed = contextlib.ExitStack()

    @property
    def name(self) -> str:
        """The received signal's name ("SIGTERM"), or "" when none came."""
        return signal.Signals(self.received).name if self.received is not None else ""

    def __enter__(self) -> StopSignals:
        self._installed.enter_context(stop_signals(self._handle))
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._installed.close()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.deferring and self.received is None:
            self.received = signum
            return
        raise Interrupted(signum)
