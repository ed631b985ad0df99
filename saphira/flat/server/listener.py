"""``saphira sim --flat PORT``: our simulator serving a Flat4 controller over TCP.

Each step the server sends the step output (one line) and waits for the controller's input line.
Query lines (``b d j l m o t s x``) are answered at once, each with one line, and the wait goes on;
a ``c`` line sets the velocities and the world advances one step; ``e`` ends the program. An automatic
map transition is announced with a ``(time :MAP-CHANGED map)`` line just before the step output that
follows it (Flat shows it on its display; a controller that ignores it simply reads the next line).

Timing: in standard mode every step is exactly :data:`~saphira.flat.server.simulation.STEP_SECONDS` of
simulated time, however long the controller takes, so identical inputs give identical runs. In real-time
mode a step lasts as long as the wall clock says since the previous step output went out.

The control panel's START / STOP / STEP are :meth:`FlatServer.start`, :meth:`FlatServer.stop` and
:meth:`FlatServer.step`: while stopped, a controller's input is held until START or STEP (one step).
The command line starts the server running, or stopped with ``--flat-stopped``; ``--flat-steps N``
presses STEP N times and then stays stopped; and lines ``START``, ``STOP`` or ``STEP [n]`` on the
standard input, or the live view's buttons (``saphira sim --flat PORT --ui``), press them: both go
through :meth:`FlatServer.press`. A line that cannot be read is logged with its column and ignored.

The server is the Flat front end of the simulators' one serve loop (:mod:`saphira.sim.serve`): it
waits on the listener and the sockets, handles each line as it arrives, and takes the next controller
when one leaves. Up to :data:`MAX_WAITING` connections are accepted and greeted (sent the step output)
at once, each with its own deadline for its first line, and the first of them to answer is served: so
a queue of silent connections costs a controller at most one handshake deadline, not one each in turn.
A connection that answered while another controller is served waits (its line is kept; nothing more is
read from it) until that one leaves; more than :data:`MAX_WAITING` wait in the listen backlog.

One bad controller must not hold the server (docs/servers-security.md): a controller that sends no
line within ``handshake_timeout`` of being accepted, or none for ``idle_timeout`` while the server waits
for it, is dropped; a line longer than :data:`MAX_LINE` bytes is skipped (logged with its byte
offset); a controller that does not read its answers (a write blocked ``write_timeout`` seconds) is
dropped; a query that fails is answered (``:NO-TRANSITION-MATCH`` for ``m``/``t``) or ends that
connection, never the server. ``e`` ends the program only when ``allow_exit``; otherwise it ends
the connection and the next controller is served.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

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
from saphira.flat.server.simulation import STEP_SECONDS, FlatSimulation
from saphira.sim.serve import Handle, ServeLoop

log = logging.getLogger("saphira.flat")

MAX_LINE = 1 << 16
"""Bytes of one controller line at most (Flat's longest line is a control line with a one-word message)."""
HANDSHAKE_TIMEOUT = 5.0
"""Seconds a controller has to send its first line (``saphira sim --handshake-timeout``)."""
IDLE_TIMEOUT = 60.0
"""Seconds the server waits for a controller's next line (``saphira sim --idle-timeout``)."""
WRITE_TIMEOUT = 5.0
"""Seconds an answer may stay blocked by a controller that does not read before it is dropped."""
MAX_WAITING = 16
"""Connections accepted and waiting for their turn at most (each greeted, with its own handshake deadline)."""
POLL_PERIOD = 0.05
"""Seconds between the serve loop's cycles: how late a deadline, a panel button or a close is seen."""


class _Dropped(Exception):
    """The controller is dropped (the message says why); the server goes on with the next one."""


class _LineSplitter:
    """Lines from a byte stream with a length limit (an overlong line is skipped, logged with its byte offset)."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._offset = 0
        """Bytes of the stream before ``_buffer``: the byte offset reported for an overlong line."""
        self._skipping = False

    def feed(self, chunk: bytes) -> list[str]:
        """The lines ``chunk`` completes (without their newlines)."""
        self._buffer += chunk
        lines: list[str] = []
        while (end := self._buffer.find(b"\n")) >= 0:
            raw = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._offset += end + 1
            if not self._skipping:
                lines.append(raw.decode("latin-1"))
            self._skipping = False
        if len(self._buffer) > self._limit:
            if not self._skipping:
                log.error("controller line at byte %d longer than %d bytes: skipped", self._offset, self._limit)
            self._skipping = True
            self._offset += len(self._buffer)
            self._buffer.clear()
        return lines


@dataclass(eq=False)
class _Waiting:
    """An accepted connection not yet served: greeted, then its first lines kept until its turn."""

    conn: socket.socket
    peer: str
    deadline: float | None
    """When it is dropped if it has sent no line (time.monotonic); None once it has, or with no deadline."""
    lines: _LineSplitter = field(default_factory=_LineSplitter)
    received: deque[str] = field(default_factory=deque)


def _close_gently(conn: socket.socket) -> None:
    """Close a connection so that its peer sees the server's end rather than a reset."""
    with contextlib.suppress(OSError):
        # The end of the stream first, then what the controller sent meanwhile is read and dropped:
        # closing with unread bytes would reset the connection.
        conn.shutdown(socket.SHUT_WR)
        conn.setblocking(False)
        for _ in range(16):
            if not conn.recv(65536):
                break
    conn.close()


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
        self.listener.setblocking(False)
        self.ended = False
        """A controller sent ``e``: the program should end."""
        self.steps = 0
        self._running = running
        self._step_credit = 0
        self._panel = threading.Lock()
        self._closed = False
        self.held = threading.Event()
        """Set while a controller's input waits for START or STEP."""
        self.controller: str | None = None
        """``host:port`` of the connected controller, None while none is."""
        self.on_step: Callable[[], None] | None = None
        """Called from the serving thread after every step and when a controller comes or goes (the live view)."""
        self._lock = threading.RLock()
        """Held by the serve loop's calls and by :meth:`close`, which may come from another thread."""
        self._conn: socket.socket | None = None
        self._lobby: list[_Waiting] = []
        """Connections accepted and greeted, waiting to be served, in the order they came."""
        self._lines = _LineSplitter()
        self._waiting: deque[str] = deque()
        """Lines received and not yet handled: a control line held while stopped, and the ones after it."""
        self._deadline: float | None = None
        """When the controller is dropped if no line has come (time.monotonic), None while none is awaited."""
        self._timeout = 0.0
        self._last = 0.0

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.listener.getsockname()[:2]
        return str(host), int(port)

    # ------------------------------------------------------------------ the control panel
    def start(self) -> None:
        """START: run freely."""
        with self._panel:
            self._running = True

    def stop(self) -> None:
        """STOP: hold the next step until START or STEP."""
        with self._panel:
            self._running = False

    def step(self, count: int = 1) -> None:
        """STEP: while stopped, let ``count`` more steps happen."""
        with self._panel:
            self._step_credit += count

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

    def _may_step(self) -> bool:
        """Whether a control line may step now (running, or a STEP credit, which it uses up)."""
        with self._panel:
            if self._running:
                return True
            if self._step_credit > 0:
                self._step_credit -= 1
                return True
            return False

    # ------------------------------------------------------------------ serving (the serve loop's front end)
    def serve(self) -> None:
        """Serve controllers one after the other until one sends ``e`` or :meth:`close` is called.

        The one serve loop of the simulators (:class:`~saphira.sim.serve.ServeLoop`) waits on the
        listener and the controller; its period only bounds how late a deadline, a panel button or
        :meth:`close` is seen, since the controller's lines pace the steps.
        """
        try:
            ServeLoop(self, POLL_PERIOD).run()
        finally:
            with self._lock:
                self._end_connection("server closing")

    def wait_handles(self) -> list[Handle]:
        with self._lock:
            if self._closed:
                return []
            handles: list[Handle] = []
            if len(self._lobby) < MAX_WAITING:  # beyond, connections wait in the listen backlog
                handles.append((self.listener.fileno(), self.poll))
            # One that answered waits for its turn: nothing more is read, so TCP holds it back.
            handles += [
                (w.conn.fileno(), functools.partial(self._lobby_readable, w)) for w in self._lobby if not w.received
            ]
            if self._conn is not None and not self._waiting:  # held for the panel: nothing more is read
                handles.append((self._conn.fileno(), self._readable))
            return handles

    @property
    def exit_code(self) -> int | None:
        """0 once a controller's ``e`` ended the program or the server was closed, else None."""
        return 0 if self.ended or self._closed else None

    def poll(self, now: float) -> None:
        """Accept and greet the connections waiting (up to :data:`MAX_WAITING` not yet served)."""
        with self._lock:
            while not self._closed and len(self._lobby) < MAX_WAITING:
                try:
                    conn, peer = self.listener.accept()
                except (BlockingIOError, InterruptedError):
                    return
                except OSError as exc:
                    log.warning("flat: accept failed: %s", exc)
                    return
                log.info("controller connected from %s:%s", *peer[:2])
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.settimeout(self.write_timeout)  # reads come only when select says readable: writes wait
                timeout = self.handshake_timeout
                waiting = _Waiting(
                    conn, f"{peer[0]}:{peer[1]}", None if timeout is None else time.monotonic() + timeout
                )
                try:
                    self._send(conn, [format_reply(self.flat.output())])
                except (_Dropped, OSError) as exc:
                    self._close_unserved(waiting, f"ended: {exc}")
                    continue
                self._lobby.append(waiting)

    def cycle(self, now: float) -> None:
        """A deadline that passed drops its connection; the next in turn is served when none is; input
        held while stopped goes on once it may."""
        with self._lock:
            late = time.monotonic()
            for waiting in [w for w in self._lobby if w.deadline is not None and late >= w.deadline]:
                self.dropped += 1
                self._lobby.remove(waiting)
                self._close_unserved(waiting, f"dropped: no line for {self.handshake_timeout:g} s", logging.WARNING)
            if self._conn is None:
                self._serve_next()
            if self._conn is None:
                return
            if self._deadline is not None and late >= self._deadline:
                self.dropped += 1
                self._end_connection(f"dropped: no line for {self._timeout:g} s", level=logging.WARNING)
                return
            if self._waiting:
                self._guarded(self._handle_waiting)

    def _lobby_readable(self, waiting: _Waiting, now: float) -> None:
        """A connection not yet served sent something: its first lines are kept until its turn."""
        with self._lock:
            if waiting not in self._lobby:
                return
            try:
                chunk = waiting.conn.recv(65536)
            except (BlockingIOError, InterruptedError, TimeoutError):
                return
            except OSError as exc:
                self._lobby.remove(waiting)
                self._close_unserved(waiting, f"ended: {exc}")
                return
            if not chunk:
                self._lobby.remove(waiting)
                self._close_unserved(waiting, "gone before its turn")
                return
            waiting.received.extend(waiting.lines.feed(chunk))
            if waiting.received:
                waiting.deadline = None  # it answered: it waits for its turn, however long
                if self._conn is None:
                    self._serve_next()

    def _serve_next(self) -> None:
        """Serve the first connection that has answered its greeting, if any."""
        waiting = next((w for w in self._lobby if w.received), None)
        if waiting is None:
            return
        self._lobby.remove(waiting)
        log.info("controller %s served", waiting.peer)
        self.controller = waiting.peer
        self._conn = waiting.conn
        self._lines = waiting.lines
        self._waiting = waiting.received
        self._last = self.monotonic()
        self._stepped()
        self._guarded(self._handle_waiting)

    def _close_unserved(self, waiting: _Waiting, how: str, level: int = logging.INFO) -> None:
        """Close a connection that was not served (see :meth:`_end_connection`)."""
        _close_gently(waiting.conn)
        log.log(level, "controller %s %s", waiting.peer, how)

    def _readable(self, now: float) -> None:
        with self._lock:
            conn = self._conn
            if conn is None:
                return
            try:
                chunk = conn.recv(65536)
            except (BlockingIOError, InterruptedError, TimeoutError):
                return
            except OSError as exc:
                self._end_connection(f"ended: {exc}")
                return
            if not chunk:
                self._end_connection("gone")
                return
            self._waiting.extend(self._lines.feed(chunk))
            if self._waiting:
                self._guarded(self._handle_waiting)

    def _guarded(self, action: Callable[[], None]) -> None:
        """Run one part of the session: a drop or a broken connection ends the connection, never the server."""
        try:
            action()
        except _Dropped as exc:
            self.dropped += 1
            self._end_connection(f"dropped: {exc}", level=logging.WARNING)
        except OSError as exc:
            self._end_connection(f"ended: {exc}")

    def _await_line(self, timeout: float | None) -> None:
        self._timeout = timeout or 0.0
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def _handle_waiting(self) -> None:
        """Handle the received lines in order until one must wait for the panel (see the module docstring)."""
        flat = self.flat
        while self._waiting and self._conn is not None:
            conn = self._conn
            line = self._waiting[0]
            self._await_line(self.idle_timeout)
            if not line.strip():
                self._waiting.popleft()
                continue
            try:
                item = parse_input(line)
            except CodecError as exc:
                self._waiting.popleft()
                log.error("controller line ignored: %s", exc)
                continue
            if not isinstance(item, Control):
                self._waiting.popleft()
                self._send(conn, [format_reply(self._answer(item))])
                continue
            if item.command == "e":
                if self.allow_exit:
                    self.ended = True
                else:
                    log.warning("controller sent 'e': connection ended (the program goes on: no --allow-exit)")
                self._end_connection("sent 'e'")
                return
            held = self.held.is_set() or not self._running
            if not self._may_step():
                self._deadline = None  # the server, not the controller, is waiting now
                if not self.held.is_set():
                    self.held.set()
                    self._stepped()  # a live view shows the step being held
                return
            self.held.clear()
            self._waiting.popleft()
            now = self.monotonic()
            # Real time: the wall-clock time since the previous step (a STEP while stopped is one step).
            dt = max(0.0, now - self._last) if self.realtime and not held else STEP_SECONDS
            self._last = now
            changes = flat.control(item, dt)
            self.steps += 1
            self._stepped()
            self._send(conn, [*(format_reply(c) for c in changes), format_reply(flat.output())])
            self._await_line(self.idle_timeout)

    def _end_connection(self, how: str, level: int = logging.INFO) -> None:
        """Close the controller's connection (if one is open) and stop the robot; the next one may come."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        _close_gently(conn)
        self._waiting = deque()
        self._deadline = None
        self.held.clear()
        self.flat.robot.cmd_stop()
        log.log(level, "controller %s %s", self.controller, how)
        self.controller = None
        self._stepped()

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
        """Stop serving (from any thread): the listener and the controller's connection close."""
        with self._lock:
            self._closed = True
            self._end_connection("server closing")
            lobby, self._lobby = self._lobby, []
            for waiting in lobby:
                self._close_unserved(waiting, "not served: server closing")
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()

    def serve_in_thread(self) -> threading.Thread:
        """Serve from a daemon thread (tests, or an embedding program); returns the thread."""
        thread = threading.Thread(target=self.serve, name="flat-server", daemon=True)
        thread.start()
        return thread
