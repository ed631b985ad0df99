"""``saphira sim --flat PORT``: our simulator serving a Flat4 controller over TCP.

Each step the server sends the step output (one line) and waits for the controller's input line.
Query lines (``b d j l m o t s x``) are answered at once, each with one line, and the wait goes on;
a ``c`` line sets the velocities and the world advances one step; ``e`` ends the program. An automatic
map transition is announced with a ``(time :MAP-CHANGED map)`` line just before the step output that
follows it (Flat shows it on its display; a controller that ignores it simply reads the next line).

Timing: in standard mode every step is exactly :data:`~saphira.flat.simulation.STEP_SECONDS` of
simulated time, however long the controller takes, so identical inputs give identical runs. In real-time
mode a step lasts as long as the wall clock says since the previous step output went out.

The control panel's START / STOP / STEP are :meth:`FlatServer.start`, :meth:`FlatServer.stop` and
:meth:`FlatServer.step`: while stopped, a controller's input is held until START or STEP (one step).
The command line starts the server running, or stopped with ``--flat-stopped``; ``--flat-steps N``
presses STEP N times and then stays stopped; and lines ``START``, ``STOP`` or ``STEP [n]`` on the
standard input, or the live view's buttons (``saphira sim --flat PORT --ui``), press them: both go
through :meth:`FlatServer.press`. A line that cannot be read is logged with its column and ignored.

One bad controller must not hold the server (docs/servers-security.md): a controller that sends no
line within ``handshake_timeout`` of connecting, or none for ``idle_timeout`` while the server waits
for it, is dropped; a line longer than :data:`MAX_LINE` bytes is skipped (logged with its byte
offset); a controller that does not read its answers (a write blocked ``write_timeout`` seconds) is
dropped; a query that fails is answered (``:NO-TRANSITION-MATCH`` for ``m``/``t``) or ends that
connection, never the server. ``e`` ends the program only when ``allow_exit``; otherwise it ends
the connection and the next controller is served.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable

from saphira.flat.codec import (
    CodecError,
    Control,
    MapChanged,
    MapQuery,
    Query,
    Reply,
    TransitionQuery,
    format_reply,
    parse_input,
)
from saphira.flat.simulation import STEP_SECONDS, FlatSimulation

log = logging.getLogger("saphira.flat")

MAX_LINE = 1 << 16
"""Bytes of one controller line at most (Flat's longest line is a control line with a one-word message)."""
HANDSHAKE_TIMEOUT = 5.0
"""Seconds a controller has to send its first line (``saphira sim --handshake-timeout``)."""
IDLE_TIMEOUT = 60.0
"""Seconds the server waits for a controller's next line (``saphira sim --idle-timeout``)."""
WRITE_TIMEOUT = 5.0
"""Seconds an answer may stay blocked by a controller that does not read before it is dropped."""


class _Dropped(Exception):
    """The controller is dropped (the message says why); the server goes on with the next one."""


class _LineReader:
    """Lines from a socket with a deadline each and a length limit (an overlong line is skipped)."""

    def __init__(self, conn: socket.socket, limit: int = MAX_LINE) -> None:
        self._conn = conn
        self._limit = limit
        self._buffer = bytearray()
        self._offset = 0
        """Bytes of the stream before ``_buffer``: the byte offset reported for an overlong line."""
        self._skipping = False

    def line(self, timeout: float | None, monotonic: Callable[[], float]) -> str | None:
        """The next line (without its newline), None at the end of the stream; :class:`_Dropped` on timeout."""
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                raw = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._offset += end + 1
                if not self._skipping:
                    return raw.decode("latin-1")
                self._skipping = False
                continue
            if len(self._buffer) > self._limit:
                if not self._skipping:
                    log.error("controller line at byte %d longer than %d bytes: skipped", self._offset, self._limit)
                self._skipping = True
                self._offset += len(self._buffer)
                self._buffer.clear()
            remaining = None if deadline is None else deadline - monotonic()
            if remaining is not None and remaining <= 0:
                raise _Dropped(f"no line for {timeout:g} s")
            self._conn.settimeout(remaining)
            try:
                chunk = self._conn.recv(65536)
            except TimeoutError:
                raise _Dropped(f"no line for {timeout:g} s") from None
            if not chunk:
                return None
            self._buffer += chunk


class FlatServer:
    """A listening socket and the step loop for one controller at a time."""

    def __init__(
        self,
        flat: FlatSimulation,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        realtime: bool = False,
        running: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
        allow_exit: bool = True,
        handshake_timeout: float | None = HANDSHAKE_TIMEOUT,
        idle_timeout: float | None = IDLE_TIMEOUT,
        write_timeout: float = WRITE_TIMEOUT,
    ) -> None:
        self.flat = flat
        self.allow_exit = allow_exit
        """Whether ``e`` ends the program (else it ends only that connection)."""
        self.handshake_timeout = handshake_timeout
        """Seconds a controller has to send its first line (None: no limit)."""
        self.idle_timeout = idle_timeout
        """Seconds the server waits for a controller's next line (None: no limit)."""
        self.write_timeout = write_timeout
        """Seconds an answer may wait for the controller to read before it is dropped."""
        self.dropped = 0
        """Controllers dropped for a timeout, a blocked write or a failed query."""
        self.realtime = realtime
        self.monotonic = monotonic
        self.listener = socket.create_server((host, port))
        self.ended = False
        """A controller sent ``e``: the program should end."""
        self.steps = 0
        self._running = running
        self._step_credit = 0
        self._panel = threading.Condition()
        self._closed = False
        self.held = threading.Event()
        """Set while a controller's input waits for START or STEP."""
        self.controller: str | None = None
        """``host:port`` of the connected controller, None while none is."""
        self.on_step: Callable[[], None] | None = None
        """Called from the serving thread after every step and when a controller comes or goes (the live view)."""

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.listener.getsockname()[:2]
        return str(host), int(port)

    # ------------------------------------------------------------------ the control panel
    def start(self) -> None:
        """START: run freely."""
        with self._panel:
            self._running = True
            self._panel.notify_all()

    def stop(self) -> None:
        """STOP: hold the next step until START or STEP."""
        with self._panel:
            self._running = False

    def step(self, count: int = 1) -> None:
        """STEP: while stopped, let ``count`` more steps happen."""
        with self._panel:
            self._step_credit += count
            self._panel.notify_all()

    def press(self, line: str) -> None:
        """A control-panel line: ``START``, ``STOP`` or ``STEP [n]`` (any case); ValueError otherwise."""
        words = line.upper().split()
        if words == ["START"]:
            self.start()
        elif words == ["STOP"]:
            self.stop()
        elif words and words[0] == "STEP" and (len(words) == 1 or (len(words) == 2 and words[1].isdigit())):
            self.step(int(words[1]) if len(words) > 1 else 1)
        else:
            raise ValueError(f"unknown panel command {line.strip()!r} (START, STOP or STEP [n])")

    def _stepped(self) -> None:
        if self.on_step is not None:
            self.on_step()

    @property
    def running(self) -> bool:
        return self._running

    def _wait_for_panel(self) -> bool:
        """Block while stopped (False if the server closed meanwhile)."""
        with self._panel:
            waiting = not self._running and self._step_credit == 0 and not self._closed
            if waiting:
                self.held.set()
        if waiting:
            self._stepped()  # a live view shows the step being held
        with self._panel:
            while not self._running and self._step_credit == 0 and not self._closed:
                self.held.set()
                self._panel.wait()
            self.held.clear()
            if self._closed:
                return False
            if not self._running:
                self._step_credit -= 1
            return True

    # ------------------------------------------------------------------ serving
    def serve(self) -> None:
        """Serve controllers one after the other until one sends ``e`` or :meth:`close` is called."""
        while not self.ended and not self._closed:
            try:
                conn, peer = self.listener.accept()
            except OSError:
                return
            log.info("controller connected from %s:%s", *peer[:2])
            self.controller = f"{peer[0]}:{peer[1]}"
            with conn:
                self.serve_connection(conn)
            self.controller = None
            self._stepped()
            log.info("controller %s:%s gone", *peer[:2])

    def serve_connection(self, conn: socket.socket) -> None:
        """The step loop for one connected controller (see the module docstring for what ends it)."""
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = _LineReader(conn)
        flat = self.flat
        try:
            self._send(conn, [format_reply(flat.output())])
            self._stepped()
            last = self.monotonic()
            timeout = self.handshake_timeout
            while (line := reader.line(timeout, time.monotonic)) is not None:
                timeout = self.idle_timeout
                if not line.strip():
                    continue
                try:
                    item = parse_input(line)
                except CodecError as exc:
                    log.error("controller line ignored: %s", exc)
                    continue
                if not isinstance(item, Control):
                    self._send(conn, [format_reply(self._answer(item))])
                    continue
                if item.command == "e":
                    if self.allow_exit:
                        self.ended = True
                    else:
                        log.warning("controller sent 'e': connection ended (the program goes on: no --allow-exit)")
                    return
                held = not self._running
                if not self._wait_for_panel():
                    return
                now = self.monotonic()
                # Real time: the wall-clock time since the previous step (a STEP while stopped is one step).
                dt = max(0.0, now - last) if self.realtime and not held else STEP_SECONDS
                last = now
                changes = flat.control(item, dt)
                self.steps += 1
                self._stepped()
                self._send(conn, [*(format_reply(c) for c in changes), format_reply(flat.output())])
        except _Dropped as exc:
            self.dropped += 1
            log.warning("controller dropped: %s", exc)
        except OSError as exc:
            log.info("controller connection ended: %s", exc)
        finally:
            flat.robot.cmd_stop()

    def _answer(self, query: Query) -> Reply:
        """A query's answer; a failure is logged and answered (``m``/``t``) or drops the controller."""
        flat = self.flat
        try:
            return flat.query(query)
        except Exception as exc:
            log.exception("query %s failed", type(query).__name__)
            if isinstance(query, MapQuery | TransitionQuery):
                return MapChanged(flat.time_ms, None)
            raise _Dropped(f"its query failed ({type(exc).__name__}: {exc})") from exc

    def _send(self, conn: socket.socket, lines: list[str]) -> None:
        conn.settimeout(self.write_timeout)
        try:
            conn.sendall("".join(line + "\n" for line in lines).encode("latin-1"))
        except TimeoutError:
            raise _Dropped(f"it has not read its answers for {self.write_timeout:g} s") from None

    def close(self) -> None:
        """Stop serving: the listener closes and a held step gives up."""
        with self._panel:
            self._closed = True
            self._panel.notify_all()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()

    def serve_in_thread(self) -> threading.Thread:
        """Serve from a daemon thread (tests, or an embedding program); returns the thread."""
        thread = threading.Thread(target=self.serve, name="flat-server", daemon=True)
        thread.start()
        return thread
