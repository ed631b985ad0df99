"""The robot link: the connection state machine over a transport (docs/protocol.md §3).

The link is driven once per cycle: :meth:`Link.receive` in the *receive* phase reads bytes, runs the
handshake or feeds SIPs to the reflector; :meth:`Link.reflect` in the *reflect* phase sends the
setpoint commands and the PULSE keep-alive. Nothing blocks, so the same code runs in real time and
in lock-step with the embedded simulator, and every time limit is measured on the scheduler's clock.

Connection sequence: SYNC0, SYNC1, SYNC2 (each echoed; up to ``sync_timeout`` per reply), the SYNC2
echo's name/class/subclass choose the parameter file, then OPEN, ENABLE 1 and a CONFIG request
(re-sent every 200 ms; the link carries on without it after ``config_timeout``). A SIP during the
handshake means a stale session: the link sends CLOSE and starts over. Too many unanswered SYNCs
(``max_sync_timeouts``) or too many attempts fail the connection with a clear error.

Connected: a PULSE goes out whenever nothing else was sent for ``pulse_period``; no SIP for
``loss_timeout`` (the link timeout, :data:`DEFAULT_LINK_TIMEOUT`) means the robot is lost, as a closed
connection or a serial port that went away does at once: a stop and CLOSE go out if the line still takes
them, the setpoints are dropped and the disconnect event fires with the reason. What the session does
then (end the run, or wait and reconnect) is :mod:`saphira.client.link.watch`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from saphira.client.link.devices import DeviceDecoder
from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import laser_request
from saphira.client.transport import Transport, TransportClosed, TransportError, open_transport
from saphira.core.clock import Clock
from saphira.core.errors import SaphiraError
from saphira.core.events import Event
from saphira.core.rates import PerSecond
from saphira.params.robot_params import RobotParams, params_for_robot
from saphira.protocol.args import psos_str_arg, str_arg, strn_arg
from saphira.protocol.command_packet import CommandArg, encode_command
from saphira.protocol.commands import Command
from saphira.protocol.config import ConfigPacket, decode_config
from saphira.protocol.errors import PacketError
from saphira.protocol.framing import MAX_COUNT_CLIENT
from saphira.protocol.packet_ids import PacketId, is_sip_id
from saphira.protocol.receiver import PacketReceiver
from saphira.protocol.sip import SipLayout, decode_sip, layout_for
from saphira.protocol.sync import RobotIdentity, decode_sync2_reply, encode_sync

log = logging.getLogger("saphira.client.link.pioneer")

CLIENT_CLOSED = "disconnected by the client"
"""The disconnect event's reason when the client closed the link; any other reason is a lost link."""

_SYNC_IDS = frozenset((PacketId.SYNC0, PacketId.SYNC1, PacketId.SYNC2))

DEFAULT_LINK_TIMEOUT = 8.0
"""Seconds without a SIP before the robot counts as lost: ARIA's default (``ArRobot``'s connection timeout
of 8000 ms). A robot behind a wireless bridge, or a loaded MobileSim, may pause for seconds and still be
there; the robot itself stops its drives after 2 s without a command (the PSOS/ARCOS watchdog), so a
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
    sync_attempts: int = 0
    sync_timeouts: int = 0
    stale_closes: int = 0
    packets_sent: int = 0
    sips: int = 0
    undecodable: int = 0
    other_packets: int = 0


class Link:
    """One robot connection: handshake, SIP intake, command output, keep-alive and loss detection."""

    STATE_REPORTS: ClassVar[str] = "SIPs"
    """What the robot's state reports (counted in :attr:`LinkCounters.sips`) are called in the run's summary."""
    paces_clock: ClassVar[bool] = False
    """The peer paces the run (each cycle waits for its step, as Flat's server does), so a session runs it
    lock-step as fast as both go; a robot or a real-time server (False) needs a real-time clock."""
    map_name: str | None = None
    """The map file the peer last announced (Flat's ``:MAP-CHANGED``); None when it announces none."""
    map_changes: int = 0
    """Map changes the peer announced since connecting (Colbert's ``sfFlatMapChanges``)."""
    stands_in_for: Link | None = None
    """The link this one replaced on the robot (:meth:`replacing`), given back for a URL of its kind."""

    @classmethod
    def replacing(cls, link: Link) -> Link:
        """A link of this kind on ``link``'s reflector, clock and options, sharing its events (their listeners stay)."""
        new = cls(link.reflector, link.clock, link.options)
        new.stands_in_for = link
        new.on_connect = link.on_connect
        new.on_disconnect = link.on_disconnect
        new.on_connect_failed = link.on_connect_failed
        new.on_packet_in = link.on_packet_in
        new.on_packet_out = link.on_packet_out
        new.user_params = link.user_params
        return new

    def __init__(
        self,
        reflector: Reflector,
        clock: Clock,
        options: LinkOptions | None = None,
        *,
        params_chooser: Callable[[RobotIdentity], RobotParams] | None = None,
    ) -> None:
        self.reflector = reflector
        self.clock = clock
        self.options = options or LinkOptions()
        self.state = LinkState.DISCONNECTED
        self.transport: Transport | None = None
        self.url = ""
        self.identity: RobotIdentity | None = None
        self.config: ConfigPacket | None = None
        self.layout = SipLayout.ARCOS
        self.error: str | None = None
        self.awaited = False
        """True while a caller waits for the handshake (:meth:`saphira.robot.Robot.wait_connected`): it
        raises the failure itself, so the link does not log it too (a user would read it twice)."""
        self.counters = LinkCounters()
        self.receiver = PacketReceiver(MAX_COUNT_CLIENT)
        self.devices = DeviceDecoder(reflector)
        """Decodes the laser, gripper and vision packets (and the PTUPOS sent) into the reflector."""
        self.on_connect: Event[[]] = Event("connect")
        self.on_disconnect: Event[[str]] = Event("disconnect")
        self.on_connect_failed: Event[[str]] = Event("connect_failed")
        """A connection attempt failed (the port did not open, nothing answered, the handshake gave up): why."""
        self.on_packet_in: Event[[bytes]] = Event("packet_in")
        """Every checked payload received (for recording and custom packet handlers)."""
        self.on_packet_out: Event[[bytes]] = Event("packet_out")
        """Every framed packet sent."""
        self.on_packet_out.connect(self.devices.note_sent)
        self.user_params: str | None = None
        """A parameter file (path or bundled name) laid over the reported model's own parameters."""
        self._choose_params = params_chooser or self._params_for_identity
        self._sync_seq = 0
        self._waiting_since = 0.0
        self._config_sent_at = 0.0
        self._opened_at = 0.0
        self._last_sent = 0.0
        self._last_sip = 0.0
        self._sip_times = PerSecond()
        self._sonar_times = PerSecond()

    def _params_for_identity(self, identity: RobotIdentity) -> RobotParams:
        """ARIA's choice: the reported subclass's built-in parameters, its file, then :attr:`user_params`."""
        return params_for_robot(identity.name, identity.robot_class, identity.subclass, user_file=self.user_params)

    # ------------------------------------------------------------------ control
    @property
    def connected(self) -> bool:
        return self.state == LinkState.CONNECTED

    @property
    def connecting(self) -> bool:
        return self.state in (LinkState.SYNCING, LinkState.CONFIGURING)

    def connect(self, target: str | Transport) -> None:
        """Open the transport and start the handshake; progress is made by :meth:`receive`.

        Raises :class:`ConnectError` at once when the port or host cannot be opened; a connection
        to another robot that is up stays up then. The current connection is closed before the new
        one starts, and before opening at all when it is to the same URL (a robot server takes one
        client at a time).
        """
        if target == self.url and self.transport is not None:
            self.disconnect()
        if isinstance(target, Transport):
            transport = target
        else:
            try:
                transport = open_transport(target)
            except TransportError as exc:
                if self.state in (LinkState.DISCONNECTED, LinkState.FAILED):
                    self.state = LinkState.FAILED
                    self.error = str(exc)
                self.on_connect_failed.emit(str(exc))
                raise ConnectError(str(exc)) from exc
        if self.state != LinkState.DISCONNECTED and self.state != LinkState.FAILED:
            self.disconnect()
        self.transport = transport
        self.url = self.transport.url
        self.receiver = PacketReceiver(MAX_COUNT_CLIENT)
        self.counters = LinkCounters()
        self.error = None
        self.identity = None
        self.config = None
        self.state = LinkState.SYNCING
        self._start_sync()

    def disconnect(self, reason: str = CLIENT_CLOSED) -> None:
        """Stop the robot, send CLOSE, close the transport and fire the disconnect event."""
        was_up = self.state == LinkState.CONNECTED
        if self.transport is not None and not self.transport.closed:
            if was_up or self.state == LinkState.CONFIGURING:
                self.send(Command.VEL, 0)
                self.send(Command.RVEL, 0)
                self.send(Command.ENABLE, 0)
            self.send(Command.CLOSE, 1)
        if was_up and self.state != LinkState.CONNECTED:
            return  # a failed write already dropped the link and reported it
        self._drop(reason, LinkState.DISCONNECTED, notify=was_up)

    def abort(self, reason: str) -> None:
        """End the connection after a fault: a live link disconnects (event fired), a handshake fails."""
        if self.state == LinkState.CONNECTED:
            self.disconnect(reason)
        elif self.connecting:
            if self.transport is not None and not self.transport.closed:
                self.send(Command.CLOSE, 1)
            self._fail(reason)

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
            log.log(logging.INFO if state == LinkState.DISCONNECTED and reason == CLIENT_CLOSED else logging.WARNING,
                    "robot link %s: %s", self.url, reason)  # fmt: skip
            self.on_disconnect.emit(reason)

    def send(self, command: int, arg: CommandArg = None) -> bool:
        """Send one command packet; False (and the link dropped) if the transport is gone."""
        return self.send_raw(encode_command(command, arg))

    def string_arg(self, text: str | bytes, *, counted: bool = False) -> bytes:
        """A string argument as this robot's generation reads it (docs/protocol.md §2, §11).

        PSOS: ``sfRobotComStr`` is NUL-terminated, ``sfRobotComStrn`` (``counted``) Pascal-style with
        a count byte. ARCOS: ARIA's ``comStr`` (count byte, characters and a NUL) and ``comStrN``
        (count byte, exactly those bytes). A PSOS server that got a count byte where it expects the
        characters would take it for one (for POLLING, one more sonar to fire).
        """
        if counted:
            return strn_arg(text.encode("latin-1") if isinstance(text, str) else text)
        return psos_str_arg(text) if self.layout is SipLayout.PSOS else str_arg(text)

    def send_raw(self, packet: bytes) -> bool:
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

    # ------------------------------------------------------------------ per-cycle work
    def receive(self) -> None:
        """Receive phase: read what arrived and advance the handshake or the reflector.

        A fault while doing so (a parameter file that does not load, a bug) ends the connection
        with the reason, rather than leaving a link that drives the robot without reading it.
        """
        try:
            self._receive()
        except Exception as exc:
            log.exception("robot link %s: internal error", self.url)
            self.abort(f"error while reading the robot: {exc}")

    def _receive(self) -> None:
        if self.transport is None:
            return
        try:
            data = self.transport.read()
        except TransportClosed as exc:
            self._lost(self._without_url(exc))
            return
        payloads = self.receiver.feed(data) if data else []
        now = self.clock.now()
        for payload in payloads:
            self.on_packet_in.emit(payload)
            if self.state == LinkState.SYNCING:
                self._handshake(payload, now)
            elif self.state in (LinkState.CONFIGURING, LinkState.CONNECTED):
                self._process(payload, now)
            if self.state in (LinkState.DISCONNECTED, LinkState.FAILED):
                return
        self._check_timers(now)

    def reflect(self) -> None:
        """Reflect phase: send changed or due setpoints, and a PULSE when the line has been quiet."""
        if self.state != LinkState.CONNECTED:
            return
        now = self.clock.now()
        for command, value in self.reflector.motion.commands(now):
            self.send(command, value)
        if self.transport is not None and now - self._last_sent >= self.options.pulse_period:
            self.send(Command.PULSE)

    # ------------------------------------------------------------------ handshake
    def _start_sync(self) -> None:
        self._sync_seq = 0
        self._send_sync()

    def _send_sync(self) -> None:
        self.counters.sync_attempts += 1
        self._waiting_since = self.clock.now()
        self.send_raw(encode_sync(self._sync_seq))

    def _handshake(self, payload: bytes, now: float) -> None:
        packet_id = payload[0]
        if packet_id == self._sync_seq:
            if packet_id == PacketId.SYNC2:
                self._synced(decode_sync2_reply(payload), now)
                return
            self._sync_seq += 1
            self._send_sync()
        elif is_sip_id(packet_id):
            # The robot is still open from an earlier session: close it and start over. Each stale
            # SIP counts as an attempt, so a server that ignores CLOSE cannot hold the link forever.
            self.counters.stale_closes += 1
            self.counters.sync_attempts += 1
            self.send(Command.CLOSE, 1)
            self._sync_seq = 0
            self._waiting_since = now  # let the stale SIPs drain before the next SYNC0
        elif packet_id in _SYNC_IDS:
            # An echo of an earlier attempt (SYNC0 resent after a stall, both answers arriving): stale.
            # Restarting on it would keep two handshakes in flight, each echo restarting the other.
            return
        else:
            self._start_sync()

    def _synced(self, identity: RobotIdentity, now: float) -> None:
        self.identity = identity
        self.layout = layout_for(identity)
        # DCHEAD counts from the current heading on PSOS (the manual), DHEAD does on ARCOS (ArCommands).
        psos = self.layout is SipLayout.PSOS
        self.reflector.motion.turn_from_current = Command.DCHEAD if psos else Command.DHEAD
        params = self._choose_params(identity)
        self.reflector.configure(params)
        self.reflector.restart()
        log.info(
            "connected to %s (%s %s), parameters from %s",
            identity.name,
            identity.robot_class,
            identity.subclass,
            params.source,
        )
        self.send(Command.OPEN, 1)
        self.send(Command.ENABLE, 1)
        self._opened_at = now
        self._last_sip = now
        self.state = LinkState.CONFIGURING
        if self.options.request_config:
            self._config_sent_at = now
            self.send(Command.CONFIG, 1)
        else:
            self._connected()

    def _connected(self) -> None:
        self.state = LinkState.CONNECTED
        self.reflector.motion.forget_sent()
        for command, value in laser_request(self.reflector.params, self.identity, self.config):
            self.send(command, value)  # the parameter file says the robot has a laser: ask the simulator
        self.on_connect.emit()

    # ------------------------------------------------------------------ connected
    def _process(self, payload: bytes, now: float) -> None:
        packet_id = payload[0]
        if is_sip_id(packet_id) or (self.layout is SipLayout.PSOS and packet_id & 0xF0 == 0x30):
            try:
                sip = decode_sip(payload, self.layout)
            except PacketError as exc:
                self.counters.undecodable += 1
                log.debug("undecodable SIP dropped: %s", exc)
                return
            self.counters.sips += 1
            self._last_sip = now
            self._sip_times.add(now)
            self._sonar_times.add(now, len(sip.sonar))
            self.reflector.apply_sip(sip)
        elif packet_id == PacketId.CONFIG and self.state == LinkState.CONFIGURING:
            try:
                self.config = decode_config(payload)
            except PacketError as exc:
                log.warning("CONFIG packet could not be decoded (%s); using parameter-file limits", exc)
            self._connected()
        elif packet_id in (PacketId.RESET, PacketId.RESET_WITH_DATA):
            self._lost("the robot's controller reset")
        else:
            try:
                if not self.devices.apply(payload, now):
                    self.counters.other_packets += 1
            except PacketError as exc:
                self.counters.undecodable += 1
                log.debug("undecodable device packet 0x%02X dropped: %s", packet_id, exc)

    def _check_timers(self, now: float) -> None:
        opts = self.options
        if self.state == LinkState.SYNCING and now - self._waiting_since >= opts.sync_timeout:
            self.counters.sync_timeouts += 1
            if self.counters.sync_timeouts >= opts.max_sync_timeouts:
                self._fail(
                    f"no answer from the robot at {self.url} after {self.counters.sync_timeouts} tries "
                    f"of {opts.sync_timeout:g} s (is it switched on, and is this the right port?)"
                )
                return
            self._start_sync()
        if self.state == LinkState.SYNCING and self.counters.sync_attempts > opts.max_attempts:
            self._fail(
                f"{self.url}: the handshake did not finish in {opts.max_attempts} attempts "
                f"({self.counters.sync_timeouts} SYNCs unanswered within {opts.sync_timeout:g} s, "
                f"{self.counters.stale_closes} stale sessions closed)"
            )
            return
        if self.state == LinkState.CONFIGURING:
            if now - self._opened_at >= opts.config_timeout:
                log.info("no CONFIG packet from %s; using the parameter file's limits", self.url)
                self._connected()
            elif now - self._config_sent_at >= opts.config_retry:
                self._config_sent_at = now
                self.send(Command.CONFIG, 1)
        if self.state == LinkState.CONNECTED:
            if now - self._last_sip >= opts.loss_timeout:
                self._lost(f"no SIP for {now - self._last_sip:.1f} s")
                return
            self._update_rates(now)

    def _update_rates(self, now: float) -> None:
        self.reflector.set_rates(self._sip_times.count(now), self._sonar_times.count(now), now)

    def _stop_quietly(self) -> None:
        """A lost robot that may still hear us (it fell silent, or reset): stop and CLOSE, if the line takes them."""
        transport = self.transport
        if transport is None or transport.closed:
            return
        try:
            for command, arg in ((Command.VEL, 0), (Command.RVEL, 0), (Command.CLOSE, 1)):
                transport.write(encode_command(command, arg))
        except TransportError:
            pass  # the line is gone: nothing can reach the robot, its own watchdog stops it

    def _fail(self, reason: str) -> None:
        log.log(logging.DEBUG if self.awaited else logging.ERROR, "%s", reason)
        self._drop(reason, LinkState.FAILED, notify=False)

    def _without_url(self, exc: Exception) -> str:
        """A transport's message without its leading ``URL:`` (the loss message names the URL once)."""
        return str(exc).removeprefix(f"{self.url}: ")

    def _lost(self, reason: str) -> None:
        if self.state == LinkState.CONNECTED:
            self._stop_quietly()
        if self.connecting:
            self._drop(reason, LinkState.FAILED, notify=False)
        else:
            self._drop(reason, LinkState.DISCONNECTED, notify=self.state == LinkState.CONNECTED)
