"""``saphira sim --gamebots PORT``: the simulator as a USARSim/Gamebots server, one TCP socket per robot.

Every client that connects to the port gets a :class:`~saphira.gamebots.session.GamebotsSession`; its
``INIT`` spawns a robot in the one shared :class:`~saphira.sim.simulation.Simulation`, so the robots
of all sockets move in the same world and physically block each other. At most ``max_robots`` robots
are spawned (``--max-robots``; an INIT beyond is answered with an error) and at most twice as many
sockets are kept open (one more is closed at once), and a socket that has not sent INIT within
``init_timeout`` seconds is closed, so one host can neither slow every robot down nor hold every place.

:meth:`GamebotsServer.cycle` is one step: accept new clients, handle what every client sent, advance
the world one ``period``, send every robot its STA and SEN. The standalone server runs it on a
drift-free real-time clock, handling commands as they arrive between steps (:meth:`serve`); a test
or an in-process client runs it in lock-step from a :class:`~saphira.core.clock.LockStepClock` listener,
as the embedded Pioneer simulator runs (:mod:`saphira.sim.embedded`): loopback TCP delivers a write
before the write returns (with ``TCP_NODELAY``, which both ends set), so each cycle sees exactly what
the client sent in the cycle before.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from functools import partial

from saphira.client.transport import SocketTransport
from saphira.core.clock import RealTimeClock
from saphira.gamebots.codec import GamebotsError
from saphira.gamebots.laser import LaserConfig
from saphira.gamebots.models import known_classes
from saphira.gamebots.session import MAX_ROBOTS, GamebotsSession
from saphira.sim.simulation import Simulation

log = logging.getLogger("saphira.gamebots")

DEFAULT_PORT = 3000
"""USARSim's Gamebots port (the tutorial's world file: ``Port=3000``)."""
INIT_TIMEOUT = 5.0
"""Seconds a client has to send INIT after connecting (``saphira sim --handshake-timeout``)."""


class GamebotsServer:
    """A listening socket, its client sessions and the simulation they share (see the module docstring)."""

    def __init__(
        self,
        simulation: Simulation,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        period: float = 0.1,
        laser: LaserConfig | None = None,
        max_robots: int = MAX_ROBOTS,
        init_timeout: float | None = INIT_TIMEOUT,
    ) -> None:
        self.simulation = simulation
        self.max_robots = max_robots
        """Robots spawned at most; connections beyond twice as many are closed at once."""
        self.refused = 0
        """Connections closed at once because the server had its share of sockets."""
        self.init_timeout = init_timeout
        """Seconds (wall clock) a socket may stay open without a robot (None: for ever)."""
        self.dropped = 0
        """Sockets closed because their client sent no INIT in time."""
        self.period = period
        self.laser = laser
        self.sessions: list[GamebotsSession] = []
        self._past_contacts = 0
        self._sockets: dict[GamebotsSession, socket.socket] = {}
        self._listener = socket.create_server((host, port))
        self._listener.setblocking(False)
        self.host, self.port = self._listener.getsockname()[:2]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def contacts(self) -> int:
        """Contacts of every robot so far (a stall that starts is one)."""
        return self._past_contacts + sum(s.contacts for s in self.sessions)

    def accept(self) -> None:
        """Take every client waiting to connect."""
        while True:
            try:
                sock, peer = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            url = f"tcp://{peer[0]}:{peer[1]}"
            if len(self.sessions) >= 2 * self.max_robots:
                self.refused += 1
                log.warning("gamebots: refused %s: %d sockets open already", url, len(self.sessions))
                sock.close()
                continue
            session = GamebotsSession(
                SocketTransport(sock, url), self.simulation, self.laser, max_robots=self.max_robots
            )
            self.sessions.append(session)
            self._sockets[session] = sock
            log.info("gamebots: client %s connected", url)
            session.greet()

    def receive(self) -> None:
        self.accept()
        for session in self.sessions:
            self._guarded(session, session.receive)

    @staticmethod
    def _guarded(session: GamebotsSession, action: Callable[[], None]) -> None:
        """Run one session's part of the step; a fault ends that session only, never the server."""
        try:
            action()
        except Exception:
            log.exception("gamebots %s: internal error; closing this session", session.url)
            session.close("internal error")

    def cycle(self, now: float | None = None) -> None:
        """One step: receive, advance the world one period, send STA and SEN to every robot."""
        self.receive()
        self._drop_late_inits()
        self.simulation.step(self.period)
        for session in self.sessions:
            session.after_world_step()
        for session in self.sessions:
            self._guarded(session, partial(self._send_step, session))
        for session in [s for s in self.sessions if s.closed]:
            self._past_contacts += session.contacts
            self.sessions.remove(session)
            self._sockets.pop(session, None)

    def _drop_late_inits(self) -> None:
        """Close sockets that spawned no robot within ``init_timeout``: silent sockets must not fill the cap."""
        limit = self.init_timeout
        if limit is None:
            return
        now = time.monotonic()
        for session in self.sessions:
            if session.robot is None and not session.closed and now - session.opened_at >= limit:
                self.dropped += 1
                session.refuse(GamebotsError(f"no INIT within {limit:g} s: closing"))
                session.close("no INIT in time")

    def _send_step(self, session: GamebotsSession) -> None:
        session.send(*session.step_messages(self.simulation.time))

    def _wait_handles(self) -> list[socket.socket]:
        return [self._listener, *(sock for session, sock in self._sockets.items() if not session.closed)]

    def _serve_io(self, seconds: float, done: Callable[[], bool]) -> None:
        end = time.monotonic() + seconds
        while not done():
            remaining = end - time.monotonic()
            if remaining <= 0:
                return
            try:
                ready, _, _ = select.select(self._wait_handles(), [], [], remaining)
            except (OSError, ValueError):
                return
            if ready:
                self.receive()

    def serve(self, done: Callable[[], bool]) -> None:
        """Run in real time until ``done()``: commands are handled as they arrive, the world steps each period."""
        clock = RealTimeClock(self.period, sleep=lambda s: self._serve_io(s, done))
        while not done():
            self.cycle(clock.now())
            clock.wait_next()

    def close(self) -> None:
        for session in self.sessions:
            session.close("server exiting")
        with contextlib.suppress(OSError):
            self._listener.close()


def run(args: argparse.Namespace) -> int:
    """``saphira sim --gamebots PORT``: serve the world until Ctrl-C or SIGTERM; the exit status."""
    from saphira.core.errors import SaphiraError
    from saphira.core.interrupts import signalled, stop_signals
    from saphira.world.world import load_world

    try:
        world = load_world(args.world)
    except (SaphiraError, OSError) as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    max_robots = MAX_ROBOTS if getattr(args, "max_robots", None) is None else args.max_robots
    if max_robots < 1:
        print("saphira sim: --max-robots must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.gamebots <= 65535:
        print(f"saphira sim: --gamebots {args.gamebots} is not a port number (0-65535; 0 picks one)", file=sys.stderr)
        return 2
    simulation = Simulation(world, args.seed, odometry_error=not args.no_odometry_error)
    laser = LaserConfig() if getattr(args, "laser", False) else None
    try:
        server = GamebotsServer(
            simulation,
            args.host,
            args.gamebots,
            period=args.period,
            laser=laser,
            max_robots=max_robots,
            init_timeout=getattr(args, "handshake_timeout", INIT_TIMEOUT) or None,
        )
    except OSError as exc:
        print(f"saphira sim: cannot listen on {args.host}:{args.gamebots}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    stop: list[int] = []
    with stop_signals(lambda signum, frame: stop.append(signum)):
        print(f"gamebots listening on {server.address} (world {world.name}; INIT {known_classes()})",
              flush=True)  # fmt: skip
        try:
            server.serve(lambda: bool(stop))
        except KeyboardInterrupt:
            stop.append(signal.SIGINT)
        finally:
            server.close()
    with contextlib.suppress(OSError, ValueError):
        turned = server.refused + server.dropped
        print(
            f"simulator stopped{f' ({turned} socket(s) closed: over the cap or no INIT)' if turned else ''}", flush=True
        )
    return signalled(stop[0]) if stop else 0
