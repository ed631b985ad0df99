"""``saphira sim --gamebots PORT``: the simulator as a USARSim/Gamebots server, one TCP socket per robot.

Every client that connects to the port gets a :class:`~saphira.gamebots.server.session.GamebotsSession`; its
``INIT`` spawns a robot in the one shared :class:`~saphira.sim.simulation.Simulation`, so the robots
of all sockets move in the same world and physically block each other. At most ``max_robots`` robots
are spawned (``--max-robots``; an INIT beyond is answered with an error) and at most twice as many
sockets are kept open (one more is closed at once); one host (an IP address) spawns at most
``max_per_host`` robots (``--max-robots-per-host``, by default half of ``max_robots``) and keeps at
most twice as many sockets; and a socket that has not sent INIT within ``init_timeout`` seconds is
closed: so one host can neither slow every robot down nor hold every place.

:meth:`GamebotsServer.cycle` is one step: accept new clients, handle what every client sent, advance
the world one ``period``, send every robot its STA and SEN. ``saphira sim --gamebots``
(:mod:`saphira.app.sim_gamebots`) runs it in the one real-time serve loop (:mod:`saphira.sim.serve`),
handling commands as they arrive between steps; a test
or an in-process client runs it in lock-step from a :class:`~saphira.core.clock.LockStepClock` listener,
as the embedded Pioneer simulator runs (:mod:`saphira.sim.embedded`): loopback TCP delivers a write
before the write returns (with ``TCP_NODELAY``, which both ends set), so each cycle sees exactly what
the client sent in the cycle before.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from saphira.client.transport import SocketTransport
from saphira.gamebots.codec import GamebotsError
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.session import MAX_ROBOTS, GamebotsSession
from saphira.sim.serve import Handle, accept_waiting
from saphira.sim.simulation import Simulation

log = logging.getLogger("saphira.gamebots")

DEFAULT_PORT = 3000
"""USARSim's Gamebots port (the tutorial's world file: ``Port=3000``)."""


def default_per_host(max_robots: int) -> int:
    """Robots one host may spawn unless told: half the server's (at least one), so another host has room."""
    return max(1, max_robots // 2)


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
        laser: RangeScanner | None = None,
        max_robots: int = MAX_ROBOTS,
        max_per_host: int | None = None,
        init_timeout: float | None = INIT_TIMEOUT,
    ) -> None:
        self.simulation = simulation
        self.max_robots = max_robots
        """Robots spawned at most; connections beyond twice as many are closed at once."""
        self.max_per_host = default_per_host(max_robots) if max_per_host is None else max_per_host
        """Robots one host (IP address) spawns at most; its connections beyond twice as many are closed."""
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
        self._hosts: dict[GamebotsSession, str] = {}
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
        accept_waiting(self._listener, self._admit, f"gamebots {self.address}")

    def _admit(self, sock: socket.socket, peer: Any) -> bool:
        url = f"tcp://{peer[0]}:{peer[1]}"
        if len(self.sessions) >= 2 * self.max_robots:
            self.refused += 1
            log.warning("gamebots: refused %s: %d sockets open already", url, len(self.sessions))
            return False
        host = str(peer[0])
        if len(self._of_host(host)) >= 2 * self.max_per_host:
            self.refused += 1
            log.warning("gamebots: refused %s: %d sockets of %s open already (--max-robots-per-host %d)", url,
                        2 * self.max_per_host, host, self.max_per_host)  # fmt: skip
            return False
        session = GamebotsSession(SocketTransport(sock, url), self.simulation, self.laser, max_robots=self.max_robots,
                                  may_spawn=partial(self._host_room, host))  # fmt: skip
        self.sessions.append(session)
        self._sockets[session] = sock
        self._hosts[session] = host
        log.info("gamebots: client %s connected", url)
        session.greet()
        return True

    def _of_host(self, host: str) -> list[GamebotsSession]:
        return [s for s in self.sessions if self._hosts.get(s) == host and not s.closed]

    def _host_room(self, host: str) -> str | None:
        """Why a client of ``host`` may not spawn another robot, or None."""
        if sum(s.robot is not None for s in self._of_host(host)) < self.max_per_host:
            return None
        return f"{host} has its {self.max_per_host} robots already (--max-robots-per-host)"

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
        now = time.monotonic()
        for session in self.sessions:
            self._guarded(session, partial(self._send_step, session))
            session.log_refused(now)
        for session in [s for s in self.sessions if s.closed]:
            self._past_contacts += session.contacts
            self.sessions.remove(session)
            self._sockets.pop(session, None)
            self._hosts.pop(session, None)

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

    # ------------------------------------------------------------------ the serve loop's front end
    def wait_handles(self) -> list[Handle]:
        """The listener and every open session's socket: any of them readable means :meth:`receive`."""
        socks = [self._listener, *(sock for session, sock in self._sockets.items() if not session.closed)]
        return [(sock.fileno(), self._receive_at) for sock in socks]

    def _receive_at(self, now: float) -> None:
        self.receive()

    def poll(self, now: float) -> None:
        """Nothing: :meth:`cycle` accepts the waiting clients itself (a lock-step caller has only that)."""

    @property
    def exit_code(self) -> int | None:
        """None: no Gamebots message ends the program (only a stop signal does)."""
        return None

    def close(self) -> None:
        for session in self.sessions:
            session.close("server exiting")
        with contextlib.suppress(OSError):
            self._listener.close()
