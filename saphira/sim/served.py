"""The lock-step host: a simulation and the protocol servers of its robots, run one cycle at a time.

A cycle (:meth:`ServedSimulation.cycle`): every server reads and handles what its client sent, the
world advances one period (or as single-step mode allows), and every open session gets its SIP
(:mod:`saphira.sim.server` describes the sessions). A fault in one server's part ends that session
only, never the simulator.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from saphira.sim.simulation import Simulation

if TYPE_CHECKING:
    from saphira.sim.server import PioneerServer

log = logging.getLogger("saphira.sim.server")


class ServedSimulation:
    """A simulation and the servers of its robots, run one cycle at a time.

    :meth:`cycle` = :meth:`receive` (every server reads its client) + :meth:`advance` (the world steps
    ``period`` seconds, or as single-step mode allows, then every open session gets its SIP).
    """

    def __init__(self, simulation: Simulation, servers: Iterable[PioneerServer] = (), period: float = 0.1) -> None:
        self.simulation = simulation
        self.servers: list[PioneerServer] = list(servers)
        self.period = period
        self.world_steps = 0

    def add(self, server: PioneerServer) -> PioneerServer:
        self.servers.append(server)
        return server

    def remove(self, server: PioneerServer) -> None:
        self.servers.remove(server)

    @property
    def exit_code(self) -> int | None:
        """The status of the first allowed SIM_EXIT received, or ``None``."""
        return next((s.exit_code for s in self.servers if s.exit_code is not None), None)

    def cycle(self, now: float) -> None:
        for server in self.servers:  # each client's input budget is per cycle
            self._guarded(server, server.start_cycle, now)
        self.receive(now)
        self.advance(now)

    def receive(self, now: float) -> None:
        for server in self.servers:
            self._guarded(server, server.receive, now)

    @staticmethod
    def _guarded(server: PioneerServer, action: Callable[[float], None], now: float) -> None:
        """Run one server's part of the cycle; a fault ends that session only, never the simulator."""
        try:
            action(now)
        except Exception:
            log.exception("%s: internal error; ending this session", server.label)
            server.stats.handler_errors += 1
            server.hang_up("internal error")

    def advance(self, now: float) -> None:
        """Step the world (unless single-step mode holds it) and send every open session its SIP."""
        servers = self.servers
        steps = 1
        stepping: Sequence[PioneerServer] = [s for s in servers if s.single_step]
        if stepping:
            steps = min(s.pending_steps for s in stepping)
            for s in stepping:
                s.pending_steps -= steps
        simulation = self.simulation
        for _ in range(steps):
            simulation.step(self.period)
            self.world_steps += 1
            for server in servers:
                server.after_world_step()
        for server in servers:
            self._guarded(server, server.send, now)
