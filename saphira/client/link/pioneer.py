"""The Pioneer link: the connection state machine over a transport (docs/protocol.md §3).

A :class:`~saphira.client.link.base.Link`, sibling of the other protocols' links. Driven once per cycle:
:meth:`~saphira.client.link.base.Link.receive` in the *receive* phase reads bytes, runs the handshake or feeds
SIPs (and, through the device layer, laser, gripper and vision packets) to the reflector;
:meth:`PioneerLink.reflect` in the *reflect* phase sends the setpoint commands and the PULSE keep-alive.
Nothing blocks, so the same code runs in real time and in lock-step with the embedded simulator, and every
time limit is measured on the scheduler's clock.

Connection sequence: SYNC0, SYNC1, SYNC2 (each echoed; up to ``sync_timeout`` per reply), the SYNC2
echo's name/class/subclass choose the parameter file, then OPEN, ENABLE 1 and a CONFIG request
(re-sent every 200 ms; the link carries on without it after ``config_timeout``). A SIP during the
handshake means a stale session: the link sends CLOSE and starts over. Too many unanswered SYNCs
(``max_sync_timeouts``) or too many attempts fail the connection with a clear error.

Connected: a PULSE goes out whenever nothing else was sent for ``pulse_period``; no SIP for ``loss_timeout``
(the link timeout, :data:`~saphira.client.link.base.DEFAULT_LINK_TIMEOUT`) means the robot is lost, as a
closed connection or a serial port that went away does at once: a stop (VEL 0, RVEL 0) and CLOSE go out if
the line still takes them, the setpoints are dropped and the disconnect event fires with the reason. A
disconnect the client asks for sends VEL 0, RVEL 0, ENABLE 0 and CLOSE. What the session does after a loss
(end the run, or wait and reconnect) is :mod:`saphira.client.link.watch`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from saphira.client.link.base import ConnectError, Link, LinkCounters, LinkEvents, LinkOptions, LinkState
from saphira.client.link.devices import DeviceDecoder
from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import laser_request
from saphira.client.transport import Transport, TransportClosed, TransportError, open_transport
from saphira.core.clock import Clock
from saphira.params.robot_params import RobotParams, params_for_robot
from saphira.protocol.args import psos_str_arg
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

_SYNC_IDS = frozenset((PacketId.SYNC0, PacketId.SYNC1, PacketId.SYNC2))


@dataclass
class PioneerCounters(LinkCounters):
    """The link's counts and its handshake's."""

    sync_attempts: int = 0
    sync_timeouts: int = 0
    stale_closes: int = 0


class PioneerLink(Link):
    """A Pioneer connection: SYNC handshake, SIP and device packet intake, command output, PULSE and loss."""

    NAME = "robot"
    STATE_REPORT = "SIP"
    STATE_REPORTS = "SIPs"
    LOG = log

    def __init__(
        self,
        reflector: Reflector,
        clock: Clock,
        options: LinkOptions | None = None,
        *,
        params_chooser: Callable[[RobotIdentity], RobotParams] | None = None,
        events: LinkEvents | None = None,
    ) -> None:
        super().__init__(reflector, clock, options, events=events)
        self.counters: PioneerCounters = PioneerCounters()
        self.config: ConfigPacket | None = None
        self.layout = SipLayout.ARCOS
        self.receiver = PacketReceiver(MAX_COUNT_CLIENT)
        self.devices = DeviceDecoder(reflector)
        """Decodes the laser, gripper and vision packets (and the PTUPOS sent) into the reflector."""
        self._choose_params = params_chooser or self._params_for_identity
        self._sync_seq = 0
        self._waiting_since = 0.0
        self._config_sent_at = 0.0

    def _params_for_identity(self, identity: RobotIdentity) -> RobotParams:
        """ARIA's choice: the reported subclass's built-in parameters, its file, then :attr:`user_params`."""
        return params_for_robot(identity.name, identity.robot_class, identity.subclass, user_file=self.user_params)

    @property
    def dropped(self) -> int:
        return self.receiver.stats.dropped

    def handshake_progress(self) -> str:
        counters, options = self.counters, self.options
        return (
            f"{self.state.value}: {counters.sync_attempts} SYNC attempts, {counters.sync_timeouts} unanswered "
            f"within {options.sync_timeout:g} s, {counters.stale_closes} stale sessions closed"
        )

    # ------------------------------------------------------------------ control
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
        self.counters = PioneerCounters()
        self.error = None
        self.identity = None
        self.config = None
        self.state = LinkState.SYNCING
        self._start_sync()

    def _stop_packets(self, *, quietly: bool) -> list[bytes]:
        """VEL 0 and RVEL 0; a client that leaves on purpose also switches the motors off (ENABLE 0)."""
        commands = [(Command.VEL, 0), (Command.RVEL, 0)] + ([] if quietly else [(Command.ENABLE, 0)])
        return [encode_command(command, arg) for command, arg in commands]

    def _goodbye_packets(self) -> list[bytes]:
        return [encode_command(Command.CLOSE, 1)]

    def send_command(self, command: int, arg: CommandArg = None) -> bool:
        """Send one command packet; False (and the link dropped) if the transport is gone."""
        return self.send_raw(encode_command(command, arg))

    def string_arg(self, text: str | bytes, *, counted: bool = False) -> bytes:
        """A string argument as this robot's generation reads it (docs/protocol.md §2, §11).

        PSOS: ``sfRobotComStr`` is NUL-terminated, ``sfRobotComStrn`` (``counted``) Pascal-style with
        a count byte. ARCOS: ARIA's ``comStr`` (count byte, characters and a NUL) and ``comStrN``
        (count byte, exactly those bytes). A PSOS server that got a count byte where it expects the
        characters would take it for one (for POLLING, one more sonar to fire).
        """
        if self.layout is SipLayout.PSOS and not counted:
            return psos_str_arg(text)
        return super().string_arg(text, counted=counted)

    def send_raw(self, packet: bytes) -> bool:
        sent = super().send_raw(packet)
        if sent:
            self.devices.note_sent(packet)
        return sent

    # ------------------------------------------------------------------ per-cycle work
    def _receive(self) -> None:
        assert self.transport is not None, "receive() reads only an open line"
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
            self.send_command(command, value)
        if self.transport is not None and now - self._last_sent >= self.options.pulse_period:
            self.send_command(Command.PULSE)

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
            self.send_command(Command.CLOSE, 1)
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
        self.send_command(Command.OPEN, 1)
        self.send_command(Command.ENABLE, 1)
        self._opened_at = now
        self._last_report = now
        self.state = LinkState.CONFIGURING
        if self.options.request_config:
            self._config_sent_at = now
            self.send_command(Command.CONFIG, 1)
        else:
            self._connected()

    def _greeting_packets(self) -> list[bytes]:
        """The parameter file says the robot has a laser: ask the simulator for it (a robot ignores it)."""
        return [encode_command(c, v) for c, v in laser_request(self.reflector.params, self.identity, self.config)]

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
            self._report_state_arrived(now)
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
                self.send_command(Command.CONFIG, 1)
        if self.state == LinkState.CONNECTED:
            self._check_silence(now)
            if self.state == LinkState.CONNECTED:
                self._update_rates(now)
