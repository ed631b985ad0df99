"""The one real-time serve loop of ``saphira sim``: accept clients, step the world each period, stop on request.

A front end (the Pioneer lines of :mod:`saphira.sim.lines`, the Gamebots server of
:mod:`saphira.gamebots.server.listener`, the Flat server of :mod:`saphira.flat.server.listener`) supplies only its
protocol: what to wait on, how to take a waiting client, one simulation cycle, and whether a client
asked the program to end. :class:`ServeLoop` paces the cycles on a drift-free
:class:`~saphira.core.clock.RealTimeClock` and spends the time between them waiting on the clients'
descriptors (``poll``, which has no 1,024-descriptor ceiling as ``select`` has) with a bounded wait, so
a client's bytes are handled as they arrive and a stop request
(:meth:`ServeLoop.request_stop`, or the first SIGINT/SIGTERM of a deferring
:class:`~saphira.core.interrupts.StopSignals`) ends the loop within one period.

:func:`accept_waiting` is the shared accept step: every client waiting on a non-blocking listener
is offered to the front end, which takes it or refuses it (a full line, the socket cap); a refused
client is closed at once, so the limits of each front end hold before any byte is read.
:func:`serve` runs the loop as every ``saphira sim`` mode does: stop signals handled by
:class:`~saphira.core.interrupts.StopSignals`, the front end closed however the loop ends, and the
exit status (a client's exit code, 0, or 130 / 143 after SIGINT / SIGTERM).

The loop never spins: a descriptor is handled at most :data:`MAX_WAKEUPS` times a cycle (then it waits
for the next cycle), a wait that fails is logged once and the rest of the period is slept, and
repeated failures (an accept refused for want of descriptors) are summarised by
:class:`~saphira.core.logrepeats.RepeatedErrors`.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import signal
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from saphira.core.clock import RealTimeClock
from saphira.core.interrupts import StopSignals, signalled
from saphira.core.logrepeats import RepeatedErrors

log = logging.getLogger("saphira.sim")

Handle = tuple[int, Callable[[float], None]]
"""A file descriptor worth waiting on, with what to do (given the clock time) when it becomes readable."""

MAX_WAKEUPS = 64
"""Times one descriptor is handled in one cycle's wait; a descriptor still readable after that (a listener
whose accept keeps failing, a flood) waits for the next cycle."""

_Selector: type[selectors.BaseSelector] = getattr(selectors, "PollSelector", selectors.SelectSelector)
"""``poll`` where there is one (no ``FD_SETSIZE`` limit). A fresh one for each wait holds no state in the
kernel, so a descriptor closed and its number reused by a new client is never missed."""


_accept_errors = RepeatedErrors(log)


class FrontEnd(Protocol):
    """What a protocol supplies to :class:`ServeLoop`."""

    def wait_handles(self) -> list[Handle]:
        """The descriptors to wait on now (listeners and open sessions)."""

    def poll(self, now: float) -> None:
        """Start of a cycle: take clients waiting to connect."""

    def cycle(self, now: float) -> None:
        """One period: handle what the clients sent, step the world, send every session its state."""

    @property
    def exit_code(self) -> int | None:
        """The status a client's allowed exit request asked for, or None while none did."""

    def close(self) -> None:
        """Hang up every client and stop listening."""


def accept_waiting(listener: socket.socket, admit: Callable[[socket.socket, Any], bool], name: str) -> None:
    """Offer every client waiting on the non-blocking ``listener`` to ``admit(conn, peer)``; close the refused.

    ``admit`` returns False to refuse (the front end counts and logs it); the refused connection is shut
    down and closed before anything is read from it.
    """
    while True:
        try:
            conn, peer = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            _accept_errors.note(f"{name}: accept failed: {exc.strerror or exc}")
            return
        if not admit(conn, peer):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()


class ServeLoop:
    """Serve ``front`` in real time, one cycle each ``period`` seconds, until a stop (see the module docstring)."""

    def __init__(self, front: FrontEnd, period: float, *, signals: StopSignals | None = None) -> None:
        self.front = front
        self.signals = signals
        """Its first signal (deferring) stops the loop as :meth:`request_stop` does."""
        self.clock = RealTimeClock(period, sleep=self._serve_io)
        self.on_cycle: Callable[[float], None] | None = None
        """Called after every cycle with the clock time (``--ui``: the live view's frames)."""
        self._stop_requested = False
        self._wait_errors = RepeatedErrors(log)

    def request_stop(self) -> None:
        """End the loop at the latest after the current wait (one period)."""
        self._stop_requested = True

    @property
    def stopping(self) -> bool:
        """Whether a stop was requested, a stop signal came, or a client ended the program."""
        signalled = self.signals is not None and self.signals.received is not None
        return self._stop_requested or signalled or self.front.exit_code is not None

    def run(self) -> int:
        """Serve until :attr:`stopping`; the status a client's exit request asked for, else 0."""
        clock = self.clock
        while not self.stopping:
            now = clock.now()
            self.front.poll(now)
            self.front.cycle(now)
            if self.on_cycle is not None:
                self.on_cycle(now)
            clock.wait_next()
        code = self.front.exit_code
        return 0 if code is None else code

    def _serve_io(self, seconds: float) -> None:
        """The wait between cycles: handle client bytes and new connections as they arrive, each
        descriptor at most :data:`MAX_WAKEUPS` times; returns at the end of ``seconds`` (or on a stop)."""
        end = time.monotonic() + seconds
        wakeups: Counter[int] = Counter()
        while not self.stopping:
            remaining = end - time.monotonic()
            if remaining <= 0:
                return
            handles = {fd: act for fd, act in self.front.wait_handles() if wakeups[fd] < MAX_WAKEUPS}
            try:
                ready = _readable(list(handles), remaining)
            except (OSError, ValueError) as exc:
                # A descriptor closed under us: the next cycle rebuilds the list. Never spin meanwhile.
                self._wait_errors.note(f"waiting on the clients failed: {exc}")
                time.sleep(max(0.0, end - time.monotonic()))
                return
            now = self.clock.now()
            for fd in ready:
                wakeups[fd] += 1
                handles[fd](now)


def _readable(fds: list[int], timeout: float) -> list[int]:
    """Those of ``fds`` that become readable within ``timeout`` seconds (all that are, once one is)."""
    if not fds:
        time.sleep(timeout)
        return []
    with _Selector() as selector:
        for fd in fds:
            selector.register(fd, selectors.EVENT_READ)
        return [key.fd for key, _ in selector.select(timeout)]


def serve(
    front: FrontEnd,
    period: float,
    *,
    announce: Callable[[], None] = lambda: None,
    on_cycle: Callable[[float], None] | None = None,
    signals: StopSignals | None = None,
) -> int:
    """Serve ``front`` until a client ends the program or a stop signal comes; the exit status.

    ``announce`` runs once the signal handlers are in place (a supervisor may signal as soon as it
    reads the "listening on" lines). The first signal ends the loop within one period; a second one,
    while the front end still hangs up its clients, raises at once. ``signals`` (deferring): the
    caller's, whose :meth:`~saphira.core.interrupts.StopSignals.request` (the sim window's Exit) stops
    the loop as the first signal does.
    """
    with signals or StopSignals(deferring=True) as signals:
        loop = ServeLoop(front, period, signals=signals)
        loop.on_cycle = on_cycle
        try:
            announce()
            status = loop.run()
        except KeyboardInterrupt as exc:
            status = signalled(getattr(exc, "signum", signal.SIGINT))
        finally:
            front.close()
        received = signals.status
    return status if received is None else received
