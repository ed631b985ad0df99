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
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable

from saphira.flat.codec import CodecError, Control, format_reply, parse_input
from saphira.flat.simulation import STEP_SECONDS, FlatSimulation

log = logging.getLogger("saphira.flat")


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
    ) -> None:
        self.flat = flat
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
        """The step loop for one connected controller."""
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = conn.makefile("r", encoding="latin-1", newline="\n")
        flat = self.flat
        try:
            self._send(conn, [format_reply(flat.output())])
            self._stepped()
            last = self.monotonic()
            for line in reader:
                if not line.strip():
                    continue
                try:
                    item = parse_input(line)
                except CodecError as exc:
                    log.error("controller line ignored: %s", exc)
                    continue
                if not isinstance(item, Control):
                    self._send(conn, [format_reply(flat.query(item))])
                    continue
                if item.command == "e":
                    self.ended = True
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
        except OSError as exc:
            log.info("controller connection ended: %s", exc)
        finally:
            reader.close()
            flat.robot.cmd_stop()

    @staticmethod
    def _send(conn: socket.socket, lines: list[str]) -> None:
        conn.sendall("".join(line + "\n" for line in lines).encode("latin-1"))

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
