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
def _stop_signals(handler: SignalHandler) -> Iterator[None]:
    """Inside the block SIGINT and SIGTERM call ``handler``; the previous handlers after it.

    Only the main thread can install handlers: elsewhere this does nothing, and Ctrl-C still raises
    ``KeyboardInterrupt``. :class:`StopSignals` is built on it; commands use that class.
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

    The one way every command stops on a signal (``run``, ``shell``, every ``saphira sim`` mode,
    ``batch``, ``replay --ui``). Until :attr:`deferring` is set they raise :class:`Interrupted`; after
    it, the first one is only kept in :attr:`received` for the loop to see (a run's cycle, the
    simulator's serve loop), and the next one raises. Every signal that raises is kept in
    :attr:`received` too (the first one), so a caller whose exception was swallowed (a finaliser, a
    callback) still sees it. ``line_interrupts``: SIGINT raises a plain ``KeyboardInterrupt`` (it ends
    the line being typed at an interactive shell, not the shell). :attr:`status` is the exit status.
    """

    def __init__(self, *, deferring: bool = False, line_interrupts: bool = False) -> None:
        self.received: int | None = None
        self.reason = ""
        """What asked for the stop when it was no signal (:meth:`request`: "Exit in the live view")."""
        self.deferring = deferring
        self.line_interrupts = line_interrupts
        self._installed = contextlib.ExitStack()

    @property
    def name(self) -> str:
        """The received signal's name ("SIGTERM"), what :meth:`request` was given, or "" when none came."""
        if self.received is None:
            return ""
        return self.reason or signal.Signals(self.received).name

    def request(self, reason: str, signum: int = signal.SIGINT) -> None:
        """Stop as the first ``signum`` would (from any thread): the live view's Exit is a Ctrl-C, so the
        robot is stopped at the end of the cycle, the summary says ``reason`` and the status is 130."""
        if self.received is None:
            self.reason = reason
            self.received = signum

    @property
    def status(self) -> int | None:
        """The exit status the received signal asks for (:func:`signalled`: 130, 143), None when none came."""
        return signalled(self.received) if self.received is not None else None

    def raise_received(self) -> None:
        """Raise :class:`Interrupted` for the received signal, if one came (its exception may have been lost)."""
        if self.received is not None:
            raise Interrupted(self.received)

    def __enter__(self) -> StopSignals:
        self._installed.enter_context(_stop_signals(self._handle))
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._installed.close()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.line_interrupts and signum == signal.SIGINT:
            raise KeyboardInterrupt
        first = self.received is None
        if first:
            self.received = signum
        if self.deferring and first:
            return
        raise Interrupted(signum)
