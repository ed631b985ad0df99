"""The robot link's interface, neutral of any protocol: what the registry, the robot session and Colbert use.

A link is driven once per cycle: :meth:`Link.receive` in the *receive* phase reads what the peer sent into
the reflector, :meth:`Link.reflect` in the *reflect* phase writes the setpoints out. Nothing blocks, and every
time limit is the scheduler's clock's. The Pioneer link (:mod:`saphira.client.link.pioneer`) and the links
to velocity-only simulators (:mod:`saphira.client.link.velocity`) are siblings under :class:`Link`, as
pyserial's port classes are under ``SerialBase``: a new protocol subclasses this class and depends on no
other protocol's code.

What the base does once for every protocol:

* the life cycle (:class:`LinkState`), its events (:class:`LinkEvents`, shared by the links a robot swaps
  between, so their listeners stay) and counters;
* the loss: a closed line or silence for the link timeout (:meth:`Link._check_silence`) drops the link
  through :meth:`Link._lost`, which stops the robot if the line still takes it and fires the disconnect
  event with the reason;
* the stop: :meth:`Link.stop_robot` is the one way each protocol says "stand still", used by
  :meth:`Link.disconnect` (the client leaves) and on a loss (``quietly``);
* the state-report bookkeeping the loss and rate checks read: :meth:`Link._report_state_arrived`,
  :meth:`Link._update_rates`.

Optional capabilities are declared here with what a protocol without them does, so no caller has to ask
a link what it is: Pioneer command packets (:meth:`Link.send_command`, :meth:`Link.string_arg`), a map the
peer announces (:attr:`Link.map_name`, :attr:`Link.map_changes`) and a text field the peer shows
(:meth:`Link.show_message`).
"""

from __future__ import annotations

import abc
import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

from saphira.client.reflector import Reflector
from saphira.client.transport import Transport, TransportClosed, TransportError
from saphira.core.clock import Clock
from saphira.core.errors import SaphiraError
from saphira.core.events import Event
from saphira.core.rates import PerSecond
from saphira.protocol.args import str_arg, strn_arg
from saphira.protocol.command_packet import CommandArg
from saphira.protocol.sync import RobotIdentity

log = logging.getLogger("saphira.client.link")

CLIENT_CLOSED = "disconnected by the client"
"""The disconnect event's reason when the client closed the link; any other reason is a lost link."""

DEFAULT_LINK_TIMEOUT = 8.0
"""Seconds without a state report before the robot counts as lost: ARIA's default (``ArRobot``'s connection
timeout of 8000 ms). A robot behind a wireless bridge, or a loaded MobileSim, may pause for seconds and still
be there; the robot itself stops its drives after 2 s without a command (the PSOS/ARCOS watchdog), so a
client that is really gone leaves no robot driving. ``--link-timeout`` sets it per run."""


class ConnectError(SaphiraError):
    """The robot could not be connected: nothing answered, or the handshake kept failing."""


class LinkState(Enum):
    DISCONNECTED = "disconnected"
    SYNCING = "syncing"
    CONFIGURING = "configuring"
    CONNECTED = "connected"
    FAILED = "failed"


@dataclass
class LinkOptions:
    """Time limits (seconds of clock time) and retry counts for the link."""

    sync_timeout: float = 1.0
    max_sync_timeouts: int = 5
    max_attempts: int = 50
    config_timeout: float = 1.0
    config_retry: float = 0.2
    pulse_period: float = 1.0
    loss_timeout: float = DEFAULT_LINK_TIMEOUT
    """No SIP (or step output, or STA) for this long: the robot is lost."""
    request_config: bool = True


@dataclass
class LinkCounters:
    """What every link counts; a protocol with a handshake of its own adds its counts (a subclass)."""

    packets_sent: int = 0
    sips: int = 0
    """State reports taken (SIPs, Flat step outputs, STA messages: :attr:`Link.STATE_REPORTS`)."""
    undecodable: int = 0
    other_packets: int = 0


@dataclass
class LinkEvents:
    """A link's events. The robot gives each link it builds the same ones, so a listener connected once
    (a recording, the loss watch, Colbert's packet queue) hears whichever link is in use."""

    on_connect: Event[[]] = field(default_factory=lambda: Event("connect"))
    on_disconnect: Event[[str]] = field(default_factory=lambda: Event("disconnect"))
    on_connect_failed: Event[[str]] = field(default_factory=lambda: Event("connect_failed"))
    on_packet_in: Event[[bytes]] = field(default_factory=lambda: Event("packet_in"))
    on_packet_out: Event[[bytes]] = field(default_factory=lambda: Event("packet_out"))


class Link(abc.ABC):
    """One robot connection: its life cycle, events, counters, loss detection and stop (see the module docstring).

    A subclass gives :meth:`connect`, :meth:`_receive` (this cycle's reading, faults caught by
    :meth:`receive`), :meth:`reflect` and :meth:`_stop_packets`; it calls :meth:`_report_state_arrived` for
    each state report and :meth:`_connected` when the handshake is done.
    """

    NAME: ClassVar[str] = "robot"
    """The protocol's name in messages (``robot link …: internal error``)."""
    PEER: ClassVar[str] = "the robot"
    """What is at the other end, in messages (``error while reading the robot``)."""
    STATE_REPORT: ClassVar[str] = "state report"
    """One of the robot's state reports, in the loss message (``no SIP for 8.0 s``)."""
    STATE_REPORTS: ClassVar[str] = "state reports"
    """What the robot's state reports (counted in :attr:`LinkCounters.sips`) are called in the run's summary."""
    LOG: ClassVar[logging.Logger] = log
    paces_clock: ClassVar[bool] = False
    """The peer paces the run (each cycle waits for its step, as Flat's server does), so a session runs it
    lock-step as fast as both go; a robot or a real-time server (False) needs a real-time clock."""

    def __init__(
        self,
        reflector: Reflector,
        clock: Clock,
        options: LinkOptions | None = None,
        *,
        events: LinkEvents | None = None,
    ) -> None:
        self.reflector = reflector
        self.clock = clock
        self.options = options or LinkOptions()
        self.state = LinkState.DISCONNECTED
        self.transport: Transport | None = None
        self.url = ""
        self.identity: RobotIdentity | None = None
        self.error: str | None = None
        self.awaited = False
        """True while a caller waits for the handshake (:meth:`saphira.robot.Robot.wait_connected`): it
        raises the failure itself, so the link does not log it too (a user would read it twice)."""
        self.counters = LinkCounters()
        self.events = events or LinkEvents()
        self.on_connect = self.events.on_connect
        self.on_disconnect = self.events.on_disconnect
        self.on_connect_failed = self.events.on_connect_failed
        """A connection attempt failed (the port did not open, nothing answered, the handshake gave up): why."""
        self.on_packet_in = self.events.on_packet_in
        """Every checked payload (or line) received (for recording and custom packet handlers)."""
        self.on_packet_out = self.events.on_packet_out
        """Every framed packet (or line) sent."""
        self.user_params: str | None = None
        """A parameter file (path or bundled name) laid over the reported model's own parameters."""
        self.map_name: str | None = None
        """Optional capability: the map file the peer last announced (Flat's ``:MAP-CHANGED``); None when it
        announces none."""
        self.map_changes = 0
        """Optional capability: map changes the peer announced since connecting (Colbert's ``sfFlatMapChanges``)."""
        self._opened_at = 0.0
        self._last_sent = 0.0
        self._last_report = 0.0
        self._report_times = PerSecond()
        self._sonar_times = PerSecond()

    # ------------------------------------------------------------------ state
    @property
    def connected(self) -> bool:
        return self.state == LinkState.CONNECTED

    @property
    def connecting(self) -> bool:
        return self.state in (LinkState.SYNCING, LinkState.CONFIGURING)

    @property
    def dropped(self) -> int:
        """Packets the framing dropped (bad checksums, garbage); a line protocol counts unreadable lines in
        :attr:`LinkCounters.undecodable` instead."""
        return 0

    def handshake_progress(self) -> str:
        """How far a handshake that ran out of time got, for the robot's error message."""
        return self.state.value

    # ------------------------------------------------------------------ life cycle
    @abc.abstractmethod
    def connect(self, target: str | Transport) -> None:
        """Open the line and start the handshake; progress is made by :meth:`receive`.

        Raises :class:`ConnectError` at once when the target cannot be opened.
        """

    def disconnect(self, reason: str = CLIENT_CLOSED) -> None:
        """Stop the robot (:meth:`stop_robot`), say goodbye, close the line and fire the disconnect event."""
        was_up = self.state == LinkState.CONNECTED
        if self.transport is not None and not self.transport.closed:
            if was_up or self.state == LinkState.CONFIGURING:
                self.stop_robot()
            self._put(self._goodbye_packets(), quietly=False)
        if was_up and self.state != LinkState.CONNECTED:
            return  # a failed write already dropped the link and reported it
        self._drop(reason, LinkState.DISCONNECTED, notify=was_up)

    def abort(self, reason: str) -> None:
        """End the connection after a fault: a live link disconnects (event fired), a handshake fails."""
        if self.state == LinkState.CONNECTED:
            self.disconnect(reason)
        elif self.connecting:
            if self.transport is not None and not self.transport.closed:
                self._put(self._goodbye_packets(), quietly=False)
            self._fail(reason)

    def stop_robot(self, *, quietly: bool = False) -> None:
        """Tell the robot to stand still, in its protocol's words (:meth:`_stop_packets`).

        ``quietly`` is for a robot being lost: the packets go straight to the line and a write that fails
        is ignored (nothing counted, no event, no second loss report), since the link is already being
        dropped; if the line is gone, the robot's own watchdog stops it. Otherwise they are sent as any
        packet is, and a failed write drops the link.
        """
        self._put(self._stop_packets(quietly=quietly), quietly=quietly)

    @abc.abstractmethod
    def _stop_packets(self, *, quietly: bool) -> list[bytes]:
        """The framed packets (or lines) that stop the robot; ``quietly`` as in :meth:`stop_robot`."""

    def _goodbye_packets(self) -> list[bytes]:
        """What tells the peer the session ends, before the line closes (Pioneer's CLOSE); none here."""
        return []

    def _put(self, packets: Iterable[bytes], *, quietly: bool) -> None:
        for packet in packets:
            if not quietly:
                self.send_raw(packet)
            elif self.transport is not None and not self.transport.closed:
                with contextlib.suppress(TransportError):
                    self.transport.write(packet)

    # ------------------------------------------------------------------ per-cycle work
    def receive(self) -> None:
        """Receive phase: read what arrived into the reflector (:meth:`_receive`).

        A fault while doing so (a parameter file that does not load, a bug) ends the connection with the
        reason, rather than leaving a link that drives the robot without reading it.
        """
        if self.transport is None:
            return
        try:
            self._receive()
        except Exception as exc:
            self.LOG.exception("%s link %s: internal error", self.NAME, self.url)
            self.abort(f"error while reading {self.PEER}: {exc}")

    @abc.abstractmethod
    def _receive(self) -> None:
        """This cycle's receive work on the protocol's wire (called by :meth:`receive`, which catches faults)."""

    @abc.abstractmethod
    def reflect(self) -> None:
        """Reflect phase: write the setpoints out as the protocol takes them."""

    def send_raw(self, packet: bytes) -> bool:
        """Write one framed packet (or line); False (and the link dropped as lost) if the line is gone."""
        if self.transport is None:
            return False
        try:
            self.transport.write(packet)
        except TransportClosed as exc:
            self._lost(f"write failed: {self._without_url(exc)}")
            return False
        self.counters.packets_sent += 1
        self._last_sent = self.clock.now()
        self.on_packet_out.emit(packet)
        return True

    # ------------------------------------------------------------------ optional capabilities
    def send_command(self, command: int, arg: CommandArg = None) -> bool:
        """Send one Pioneer command packet (``sfRobotCom``); False if it was not sent.

        A protocol without Pioneer commands drops it with a warning (here); the Pioneer link sends it.
        """
        self.LOG.warning("%s link: Pioneer command %d not sent (%s takes only velocities)", self.NAME, command,
                         self.PEER)  # fmt: skip
        return False

    def string_arg(self, text: str | bytes, *, counted: bool = False) -> bytes:
        """A string argument of :meth:`send_command` as the robot reads it: ARIA's ``comStr`` (count byte,
        characters and a NUL) or, ``counted``, ``comStrN`` (count byte and exactly those bytes)."""
        if counted:
            return strn_arg(text.encode("latin-1") if isinstance(text, str) else text)
        return str_arg(text)

    def show_message(self, text: str) -> bool:
        """Show ``text`` where the peer displays messages (Flat's message field); False: the peer shows none."""
        return False

    # ------------------------------------------------------------------ bookkeeping for subclasses
    def _report_state_arrived(self, now: float) -> None:
        """One state report (a SIP, a step output, a STA) was taken into the reflector at ``now``."""
        self.counters.sips += 1
        self._last_report = now
        self._report_times.add(now)

    def _check_silence(self, now: float) -> None:
        """No state report for the link timeout while connected: the robot is lost."""
        silent = now - self._last_report
        if self.state == LinkState.CONNECTED and silent >= self.options.loss_timeout:
            self._lost(f"no {self.STATE_REPORT} for {silent:.1f} s")

    def _update_rates(self, now: float) -> None:
        """The reflector's report and sonar rates (per second, over the last second)."""
        self.reflector.set_rates(self._report_times.count(now), self._sonar_times.count(now), now)

    def _connected(self) -> None:
        """The handshake is done: the link is up, every setpoint goes out afresh, the connect event fires."""
        self.state = LinkState.CONNECTED
        self.reflector.motion.forget_sent()
        self._put(self._greeting_packets(), quietly=False)
        self.on_connect.emit()

    def _greeting_packets(self) -> list[bytes]:
        """What the protocol asks of the robot once it is up, before the connect event; nothing here."""
        return []

    def _drop(self, reason: str, state: LinkState, *, notify: bool) -> None:
        if self.transport is not None:
            self.transport.close()
        self.transport = None
        self.state = state
        self.reflector.disconnected()
        if state == LinkState.FAILED:
            self.error = reason
            self.on_connect_failed.emit(reason)
        if notify:
            level = logging.INFO if state == LinkState.DISCONNECTED and reason == CLIENT_CLOSED else logging.WARNING
            self.LOG.log(level, "%s link %s: %s", self.NAME, self.url, reason)
            self.on_disconnect.emit(reason)

    def _fail(self, reason: str) -> None:
        self.LOG.log(logging.DEBUG if self.awaited else logging.ERROR, "%s", reason)
        self._drop(reason, LinkState.FAILED, notify=False)

    def _lost(self, reason: str) -> None:
        """The line closed, fell silent or the robot reset: stop the robot if it still hears, drop the link."""
        if self.state == LinkState.CONNECTED:
            self.stop_robot(quietly=True)
            self._put(self._goodbye_packets(), quietly=True)
        if self.connecting:
            self._drop(reason, LinkState.FAILED, notify=False)
        else:
            self._drop(reason, LinkState.DISCONNECTED, notify=self.state == LinkState.CONNECTED)

    def _without_url(self, exc: Exception) -> str:
        """A transport's message without its leading ``URL:`` (the loss message names the URL once)."""
        return str(exc).removeprefix(f"{self.url}: ")
