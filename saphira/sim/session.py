"""A simulated Pioneer session's vocabulary: its states, the server's options and counters, the SYNC2 identity.

Shared by the server (:mod:`saphira.sim.server`), what it sends (:mod:`saphira.sim.outgoing`) and the
hosts that build servers (:mod:`saphira.sim.serve`, the app); the session rules themselves are in the
server's docstring.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from saphira.params.robot_params import RobotParams
from saphira.protocol.sip import SipLayout
from saphira.protocol.sync import RobotIdentity
from saphira.sim.world_requests import WorldAccess

__all__ = [
    "ARIA_SUBCLASS_ALIASES",
    "DEFAULT_BATTERY_DV",
    "DEFAULT_NAME",
    "MAX_IDENTITY_TEXT",
    "MAX_STEPS_PER_CYCLE",
    "ServerOptions",
    "ServerStats",
    "SessionState",
    "identity_for",
]

DEFAULT_NAME: Final = "saphira-sim"
"""The SYNC2 name when the parameter file has none."""

ARIA_SUBCLASS_ALIASES: Final = {"": "pion1m", "pion1": "pion1m", "psos41m": "psos1m", "psos41x": "psos1x"}
"""Saphira-era subclasses ARIA does not know, reported as the ARIA subtype with the same factors."""

DEFAULT_BATTERY_DV: Final = 130
"""13.0 V, AMRISim's default battery."""

MAX_STEPS_PER_CYCLE: Final = 10
"""Most STEP requests one session can have pending (each is one world period)."""


class SessionState(Enum):
    """Where the server is with its client."""

    WAITING = "waiting"
    """No client line attached."""
    SYNCING = "syncing"
    """A line is attached; the SYNC0/1/2 handshake is under way."""
    SYNCED = "synced"
    """The SYNC2 echo went out; commands are accepted, no SIPs until OPEN."""
    OPEN = "open"
    """SIPs every cycle."""


@dataclass
class ServerOptions:
    """How one server behaves. ``None`` for ``identity``/``layout`` derives them from the parameters.

    ``watchdog``, ``handshake_timeout``, ``idle_timeout``, ``partial_timeout`` and ``flood_limit`` are
    seconds of clock time (``None`` turns the first three and the last off). ``read_budget`` and
    ``packet_budget`` bound what one cycle takes from the client (the module docstring). ``allow_exit``
    lets SIM_EXIT stop the host (the standalone program); otherwise it is ignored.
    ``max_sonar_per_sip`` caps the entries of one SIP (AMRISim: 32); more wait for the next SIP.
    ``worlds`` says which files LOADWORLD may read (:mod:`saphira.sim.world_requests`); with
    ``load_in_background`` they are read in a worker thread and the world changes in the first cycle
    after the read ends (in lock-step: at once).
    """

    identity: RobotIdentity | None = None
    layout: SipLayout | None = None
    watchdog: float | None = 2.0
    hangup_on_close: bool = True
    handshake_timeout: float | None = None
    idle_timeout: float | None = None
    partial_timeout: float = 0.5
    read_budget: int = 4096
    packet_budget: int = 64
    flood_limit: float | None = 5.0
    allow_exit: bool = False
    max_sonar_per_sip: int = 32
    battery: int = DEFAULT_BATTERY_DV
    worlds: WorldAccess = field(default_factory=WorldAccess)
    load_in_background: bool = False


@dataclass
class ServerStats:
    """Counters since the server was created (framing drops are in ``server.receiver.stats``)."""

    clients: int = 0
    """Lines attached (TCP connections, serial clients, in-process pairs)."""
    sessions: int = 0
    """Completed handshakes."""
    sessions_ended: int = 0
    packets: int = 0
    commands: int = 0
    """Commands handled (after the handshake)."""
    handshake_ignored: int = 0
    """Non-SYNC packets received during the handshake."""
    ignored: Counter[int] = field(default_factory=Counter)
    """Commands received but not acted on (unknown numbers and unsupported ones), by number."""
    handler_errors: int = 0
    """Commands whose handling failed (a bug: always 0 in the tests)."""
    worlds_refused: int = 0
    """LOADWORLD requests refused or failed (also counted in ``ignored``)."""
    handshake_timeouts: int = 0
    """Lines hung up because the client did not complete the handshake in time."""
    throttled_cycles: int = 0
    """Cycles that ended with the client's input budget spent (the rest waited)."""
    floods: int = 0
    """Clients hung up for staying over their input budget for ``flood_limit`` seconds."""
    sips: int = 0
    configs: int = 0
    simstats: int = 0
    watchdog_stops: int = 0
    revivals: int = 0
    wall_contacts: int = 0
    """Times the body came to touch a wall (or another robot): rising edges of the stall flag."""
    stalled_steps: int = 0
    """World steps that ended with the robot stalled."""

    @property
    def ignored_total(self) -> int:
        return sum(self.ignored.values())


def identity_for(params: RobotParams, name: str | None = None) -> RobotIdentity:
    """The SYNC2 name/class/subclass for a robot built from ``params`` (§3).

    The name is ``name`` (the simulated robot's own) or the file's (``saphira-sim`` if neither is
    given); the class is the file's. ARIA also tries ``params/<name>.p``, harmless when there is
    no such file. The subclass is the
    file's, except Saphira-era Pioneer 1 subclasses that ARIA does not know, which are reported as
    the ARIA subtype with the same conversion factors (:data:`ARIA_SUBCLASS_ALIASES`), so ARIA finds
    its parameters and Saphira clients still pick the PSOS layout.
    """
    subclass = _wire_text(params.subclass)
    return RobotIdentity(
        _wire_text(name or params.name) or DEFAULT_NAME,
        _wire_text(params.robot_class) or "Pioneer",
        ARIA_SUBCLASS_ALIASES.get(subclass.lower(), subclass),
    )


MAX_IDENTITY_TEXT = 60
"""Longest name/class/subclass sent in the SYNC2 reply, so the three always fit one packet."""


def _wire_text(text: str) -> str:
    """``text`` as latin-1 without NULs and at most :data:`MAX_IDENTITY_TEXT` long, for the SYNC2 reply."""
    return text.encode("latin-1", "replace").decode("latin-1").replace("\x00", "")[:MAX_IDENTITY_TEXT]
