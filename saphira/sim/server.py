"""The simulator's Pioneer protocol server: one robot's session over any transport (docs/protocol.md §3–§11).

:class:`PioneerServer` turns a client's byte stream into :class:`~saphira.sim.simulation.SimRobot`
commands and the robot's state into packets, through the same codec the client uses. What it sends
unasked (SIP, CONFIG, SIMSTAT) is built by :mod:`saphira.sim.outgoing`; its states, options and
counters are in :mod:`saphira.sim.session`; the robot's devices (laser, accessories, gyro...) are
simulated devices (:mod:`saphira.sim.devices`) that add their commands and send their packets after
each SIP. It never raises
on client input: bad frames are dropped and counted by its receiver, commands it does not handle are
ignored and counted, and a handler that fails is counted in ``stats.handler_errors`` (tests keep it 0).
:class:`ServedSimulation` (:mod:`saphira.sim.served`) runs one cycle for a simulation and all its servers.

A cycle (``ServedSimulation.cycle``): every server reads and handles what its client sent
(:meth:`PioneerServer.receive`: handshake replies and the CONFIG packet go out at once), the world
advances one period, and every open session gets its SIP (:meth:`PioneerServer.send`). In lock-step a
command sent in cycle *k* therefore shows in the SIP the client reads in cycle *k + 1*.

Session rules (ARIA's ArRobot and Saphira's client both connect, §3):

* Handshake: a bare SYNC0/1/2 (no argument) is echoed with the number the client sent, so a restart
  from SYNC0 works at any time; other packets are ignored and nothing is sent spontaneously. The
  SYNC2 echo carries name, class and subclass (:func:`identity_for`). Before OPEN a bare 0 is SYNC0
  again (the client lost the SYNC2 echo); after OPEN 0 is PULSE, 1 OPEN and 2 CLOSE.
* The SYNC2 reply starts the session: odometry 0, 0, 0, sonar on with the default polling order.
  OPEN enables the motors (PSOS 4.x: OPEN starts the motor controllers; ARIA sends ENABLE 1 anyway)
  and starts a SIP every cycle, in the ARCOS layout, or PSOS 4.x for a Pioneer 1 subclass.
* A line whose client has not completed the handshake within ``handshake_timeout`` is hung up, so a
  silent client cannot hold the robot; ``idle_timeout`` counts from the last valid packet (stray bytes
  do not keep a line).
* CLOSE, a closed transport, or an ``idle_timeout`` of silence ends the session: the robot stops at
  once, motors disabled, sonar off, odometry 0, 0, 0 (AMRISim ``endSession``). With ``hangup_on_close``
  (TCP, in-process) CLOSE also closes the transport; without it (a serial line) the server waits on
  the same line for the next SYNC0.
* Input budget: a cycle reads at most ``read_budget`` bytes (4096) of a client's line and handles at
  most ``packet_budget`` packets (64); the rest waits, in the kernel's socket buffer or as decoded
  packets, for the next cycle, so one line's flood costs no other robot its cycle and at most a few KiB.
  A client still over its budget after ``flood_limit`` seconds (5) is hung up and logged.
* Watchdog (PSOS): ``watchdog`` seconds of clock time without a packet stop the robot at once. The
  next packet revives it: it accelerates back to its last translational setpoint (and a running MOVE
  or heading turn resumes); a rotation that was a velocity holds the current heading instead.
* Single-step mode (SRISim's STEP, 64): ``STEP 1`` enters it, ``STEP 0`` leaves it, and ``STEP``
  without an argument requests one step (entering the mode if needed). While any session is in it,
  the world advances only when every such session has a step pending, one period per step. SIPs
  keep flowing every cycle (an unchanged world), so the client's loss detection stays quiet.

SIPs (§5): ID 0x33 while the wheels turn, else 0x32 (PSOS; ARIA accepts both, AMRISim always sends
0x32); x/y are the odometry over DistConvFactor as wrapping 16-bit counters (15 bits in PSOS, whose
heading also runs 0..2π as in the manual); wheel speeds over VelConvFactor; both stall bits while a
wall holds the body; the sonar readings fired since the last SIP (at most ``max_sonar_per_sip``);
compass / 2; flags (motors enabled, sonar on); and AMRISim's tail, with rot vel × 10.

Commands follow AMRISim's decoding (§2, §4): ENABLE, SONAR, SETV, SETRV, BATTEST and SIM_STAT use the
magnitude; DHEAD turns from the current heading and DCHEAD from the heading setpoint (ArCommands), or
for a PSOS robot the other way round (the manual's Table 7.8).
POLLING takes one byte per sonar, sonar number + 1, as a PSOS NUL-terminated string, or for an ARCOS
robot as ARIA's length-prefixed ``comStr``/``comStrN`` when its length byte matches the data. DIGOUT
is the output byte for a PSOS robot ("bits 0-7") and AMRISim's mask/state byte pair for ARCOS.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from saphira.client.transport import Transport, TransportClosed
from saphira.core.plugins import registered_instance
from saphira.protocol.command_packet import CommandPacket, decode_command
from saphira.protocol.commands import ArgType, Command, command_name
from saphira.protocol.config import encode_config
from saphira.protocol.framing import MAX_COUNT_SERVER
from saphira.protocol.receiver import PacketReceiver
from saphira.protocol.simstat import encode_simstat
from saphira.protocol.sip import SipLayout, layout_for
from saphira.protocol.sync import encode_sync, encode_sync2_reply
from saphira.sim.accessories import Accessories
from saphira.sim.devices import SIM_DEVICE_GROUP, SimDevice, sim_device_types
from saphira.sim.outgoing import PacketWriter
from saphira.sim.robot_model import RotMode, TransMode
from saphira.sim.served import ServedSimulation as ServedSimulation  # importers of the host use this module
from saphira.sim.session import MAX_STEPS_PER_CYCLE, ServerOptions, ServerStats, SessionState, identity_for
from saphira.sim.simulation import SimRobot, Simulation
from saphira.sim.world_requests import WorldLoad, WorldRefused
from saphira.world.world import World

log = logging.getLogger("saphira.sim.server")

D = TypeVar("D", bound=SimDevice)

_SYNC_ECHOES: Final = (encode_sync(0), encode_sync(1))


@dataclass
class _Revival:
    """The drive setpoints the watchdog stopped, restored by the next packet."""

    trans_mode: TransMode
    vel_target: float
    move_remaining: float
    rot_mode: RotMode
    heading_target: float


class PioneerServer:
    """One robot's Pioneer protocol session over a :class:`~saphira.client.transport.Transport`.

    ``transport`` may be given later with :meth:`attach` (each attach is a new client line). The
    host calls :meth:`receive`, steps the world (calling :meth:`after_world_step` after each step),
    then :meth:`send`; ``now`` is the host clock's time in seconds.
    """

    def __init__(
        self,
        simulation: Simulation,
        robot: SimRobot,
        transport: Transport | None = None,
        options: ServerOptions | None = None,
        *,
        period: float = 0.1,
        label: str | None = None,
    ) -> None:
        self.simulation = simulation
        self.robot = robot
        self.options = options or ServerOptions()
        self.period = period
        """Seconds per world step: the SIP cycle reported in CONFIG and SIMSTAT."""
        self.last_interval = period
        """Seconds the host's last cycle really took (SIMSTAT); the host updates it."""
        self.label = label or robot.name
        self.receiver = PacketReceiver(MAX_COUNT_SERVER)
        self.stats = ServerStats()
        self.messages: deque[str] = deque(maxlen=100)
        """The latest SIM_MESSAGE texts."""
        self.exit_code: int | None = None
        """Set by an allowed SIM_EXIT: the host should stop with this status."""
        self.transport: Transport | None = None
        self.state = SessionState.WAITING
        self.battery = self.options.battery
        self.digout = 0xFF
        self.single_step = False
        self.pending_steps = 0
        self._simstat = 0
        self._last_packet = 0.0
        self._last_data = 0.0
        self._syncing_since = 0.0
        self._world_load: WorldLoad | None = None
        self._partial_since: float | None = None
        self._revival: _Revival | None = None
        self._was_stalled = False
        self._queued: deque[bytes] = deque()
        """Packets decoded beyond this cycle's packet budget, handled first next cycle."""
        self._bytes_left = self.options.read_budget
        self._packets_left = self.options.packet_budget
        self._over_budget_since: float | None = None
        self._configure(robot)
        if transport is not None:
            self.attach(transport, 0.0)

    def _configure(self, robot: SimRobot) -> None:
        """Serve ``robot``: its identity (SYNC2, CONFIG), SIP layout, conversion factors and accessories."""
        self.robot = robot
        self.identity = self.options.identity or identity_for(robot.model.params, robot.name)
        self.layout = self.options.layout or layout_for(self.identity)
        self.writer = PacketWriter(self)
        """The SIP, CONFIG and SIMSTAT this robot sends (:mod:`saphira.sim.outgoing`)."""
        self._handlers = self._handler_table()
        self.devices: dict[str, SimDevice] = {kind.name: kind(self) for kind in sim_device_types()}
        """The robot's simulated devices by name, in their order (:mod:`saphira.sim.devices`)."""
        for device in reversed(self.devices.values()):
            self._handlers.update(device.handlers(self._handlers))
        self.accessories = self.device("accessories", Accessories)
        robot.cmd_sonar(False)  # no session: nothing to fire for

    def device(self, name: str, kind: type[D]) -> D:
        """The simulated device registered as ``name``, which must be a ``kind`` (a TypeError says what it is)."""
        return registered_instance(self.devices, name, kind, SIM_DEVICE_GROUP)

    def replace_robot(self, robot: SimRobot) -> None:
        """Serve ``robot`` (one of other parameters: the simulator window's Files→Load Params) from now
        on; a client is hung up first, since what it was told at its handshake no longer holds."""
        if self.transport is not None:
            self.hang_up("the simulated robot took other parameters")
        self._configure(robot)

    # -- the line -----------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """A client line is attached (it may still be in the handshake)."""
        return self.transport is not None

    @property
    def is_open(self) -> bool:
        return self.state is SessionState.OPEN

    def attach(self, transport: Transport, now: float) -> None:
        """Take a new client line; any previous one is closed and its session ended."""
        if self.transport is not None:
            self.hang_up("replaced by a new client")
        self.transport = transport
        self.receiver.reset()
        self._queued.clear()
        self._over_budget_since = None
        self.state = SessionState.SYNCING
        self._last_data = self._syncing_since = now
        self._partial_since = None
        self.stats.clients += 1
        log.info("%s: client attached on %s", self.label, transport.url)

    def hang_up(self, reason: str) -> None:
        """End the session and close the client's line."""
        transport, self.transport = self.transport, None
        self._end_session(reason)
        self.state = SessionState.WAITING
        if transport is not None:
            transport.close()

    # -- one cycle ----------------------------------------------------------------------------------

    @property
    def input_spent(self) -> bool:
        """This cycle's input budget is spent: the line need not be read (or waited on) until the next."""
        return self._bytes_left <= 0 or (self._packets_left <= 0 and bool(self._queued))

    def start_cycle(self, now: float) -> None:
        """A new cycle: a fresh input budget; a client over its budget for ``flood_limit`` s is hung up."""
        options = self.options
        if self.input_spent and self.transport is not None:
            self.stats.throttled_cycles += 1
            if self._over_budget_since is None:
                self._over_budget_since = now
                log.warning(
                    "%s: client on %s sends more than %d bytes or %d packets a cycle; the rest waits",
                    self.label,
                    self.transport.url,
                    options.read_budget,
                    options.packet_budget,
                )
            elif options.flood_limit is not None and now - self._over_budget_since >= options.flood_limit:
                self.stats.floods += 1
                why = f"over its input budget for {now - self._over_budget_since:.1f} s (a flood)"
                log.warning("%s: hung up the client on %s: %s", self.label, self.transport.url, why)
                self.hang_up(why)
        else:
            self._over_budget_since = None
        self._bytes_left = options.read_budget
        self._packets_left = options.packet_budget

    def receive(self, now: float) -> None:
        """Read the client's bytes and handle its packets, within this cycle's budget (the module
        docstring); then run the watchdog and line timers."""
        transport = self.transport
        if transport is None:
            return
        data = b""
        reading = self._bytes_left > 0 and not self._queued
        if reading:
            try:
                data = transport.read(self._bytes_left)
            except TransportClosed as exc:
                self.hang_up(f"client gone ({exc})")
                return
            self._bytes_left -= len(data)
        self._finish_world_load()
        receiver = self.receiver
        if data:
            payloads = receiver.feed(data)
        elif reading and self._partial_since is not None and now - self._partial_since >= self.options.partial_timeout:
            payloads = receiver.expire_partial()
        else:
            payloads = []
        if receiver.has_partial:
            if self._partial_since is None or data:
                self._partial_since = now
        else:
            self._partial_since = None
        if payloads:
            self._last_data = now  # only valid packets keep a line: stray bytes do not
        queued = self._queued
        queued.extend(payloads)
        while queued and self._packets_left > 0:
            self._packets_left -= 1
            self._handle(queued.popleft(), now)
            if self.transport is None:
                return
        self._check_timers(now)

    def after_world_step(self) -> None:
        """Bookkeeping after each world step: contact and stall counters."""
        stalled = self.robot.stalled_left or self.robot.stalled_right
        if stalled:
            self.stats.stalled_steps += 1
            if not self._was_stalled:
                self.stats.wall_contacts += 1
        self._was_stalled = stalled

    def send(self, now: float) -> None:
        """After the world step: the SIMSTAT (if requested) and the SIP of an open session."""
        if self.state is not SessionState.OPEN:
            return
        packets = self.writer.sip()
        if self._simstat:
            packets = encode_simstat(self.writer.simstat()) + packets
            self.stats.simstats += 1
            if self._simstat == 1:
                self._simstat = 0
        self.stats.sips += 1
        for device in self.devices.values():
            packets += device.packets()
        self._write(packets)

    # -- packets ------------------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        transport = self.transport
        if transport is None:
            return
        try:
            transport.write(data)
        except TransportClosed as exc:
            self.hang_up(f"client gone ({exc})")

    def _handle(self, payload: bytes, now: float) -> None:
        self.stats.packets += 1
        number = payload[0]
        if self.state is SessionState.SYNCING:
            self._handshake(payload, number, now)
            return
        self._last_packet = now
        if self._revival is not None:
            self._revive()
        if self.state is SessionState.SYNCED and number == 0 and len(payload) == 1:
            self._handshake(payload, number, now)  # the SYNC2 echo was lost: the client starts over
            return
        self.stats.commands += 1
        handler = self._handlers.get(number)
        if handler is None:
            self.stats.ignored[number] += 1
            return
        try:
            handler(decode_command(payload))
        except Exception:
            # A bug must not let one client's packet take the simulator down; the tests keep this at 0.
            self.stats.handler_errors += 1
            log.exception("%s: handling %s failed", self.label, command_name(number))

    def _handshake(self, payload: bytes, number: int, now: float) -> None:
        if len(payload) != 1 or number > 2:
            self.stats.handshake_ignored += 1
            return
        if self.state is not SessionState.SYNCING:
            self._syncing_since = now
        self.state = SessionState.SYNCING
        if number < 2:
            self._write(_SYNC_ECHOES[number])
            return
        self._write(encode_sync2_reply(self.identity))
        self._start_session(now)

    def _start_session(self, now: float) -> None:
        robot = self.robot
        robot.cmd_seto()
        robot.cmd_polling(range(robot.model.sonar_count))
        robot.cmd_sonar(True)
        robot.take_new_readings()
        for device in self.devices.values():
            device.start_session()
        self.writer.backlog.clear()
        self.state = SessionState.SYNCED
        self._last_packet = now
        self.stats.sessions += 1
        log.info("%s: session started (%s)", self.label, self.identity.subclass)

    def _end_session(self, reason: str) -> None:
        robot = self.robot
        robot.cmd_enable(False)
        robot.cmd_sonar(False)
        robot.cmd_seto()
        robot.take_new_readings()
        for device in self.devices.values():
            device.end_session()
        self.writer.backlog.clear()
        self._world_load = None  # a world still being read was for this session's client
        if self.state in (SessionState.SYNCED, SessionState.OPEN):
            self.stats.sessions_ended += 1
            log.info("%s: session ended: %s", self.label, reason)
        if self.state is not SessionState.SYNCING:
            self._syncing_since = self._last_packet  # a serial line waits for the next SYNC0 from here
        self.state = SessionState.SYNCING if self.transport is not None else SessionState.WAITING
        self.single_step = False
        self.pending_steps = 0
        self._simstat = 0
        self._revival = None

    def _check_timers(self, now: float) -> None:
        options = self.options
        if options.idle_timeout is not None and now - self._last_data >= options.idle_timeout:
            self.hang_up(f"no valid packet for {now - self._last_data:.1f} s")
            return
        deadline = options.handshake_timeout
        if deadline is not None and self.state is SessionState.SYNCING and now - self._syncing_since >= deadline:
            self.stats.handshake_timeouts += 1
            self.hang_up(f"no handshake within {deadline:g} s")
            return
        watchdog = options.watchdog
        if (
            watchdog is not None
            and self._revival is None
            and self.state is not SessionState.SYNCING
            and now - self._last_packet >= watchdog
        ):
            drive = self.robot.drive
            self._revival = _Revival(
                drive.trans_mode, drive.vel_target, drive.move_remaining, drive.rot_mode, drive.heading_target
            )
            self.robot.cmd_estop()
            self.stats.watchdog_stops += 1
            log.info("%s: watchdog: no packet for %.1f s, motors stopped", self.label, now - self._last_packet)

    def _revive(self) -> None:
        saved, self._revival = self._revival, None
        if saved is None:
            return
        robot = self.robot
        if saved.trans_mode is TransMode.POSITION:
            robot.cmd_move(saved.move_remaining)
        else:
            robot.cmd_vel(saved.vel_target)
        robot.cmd_head(saved.heading_target if saved.rot_mode is RotMode.HEADING else robot.odometry.th)
        self.stats.revivals += 1

    # -- outgoing packets ---------------------------------------------------------------------------

    # -- commands -----------------------------------------------------------------------------------

    def _handler_table(self) -> dict[int, Callable[[CommandPacket], None]]:
        robot = self.robot
        # Relative turns per generation: the manual (PSOS) turns DHEAD from the setpoint and DCHEAD
        # from the current heading; ArCommands (ARCOS, AMRISim) the other way round.
        psos = self.layout is SipLayout.PSOS
        from_heading, from_setpoint = robot.cmd_dhead, robot.cmd_dchead
        return {
            Command.PULSE: _nothing,
            Command.OPEN: self._open,
            Command.CLOSE: self._close,
            Command.POLLING: self._polling,
            Command.ENABLE: lambda c: robot.cmd_enable(c.magnitude != 0),
            Command.SETA: lambda c: robot.cmd_seta(c.int_value),
            Command.SETV: lambda c: robot.cmd_setv(c.magnitude),
            Command.SETO: self._seto,
            Command.MOVE: lambda c: robot.cmd_move(c.int_value),
            Command.ROTATE: lambda c: robot.cmd_rotate(c.int_value),
            Command.SETRV: lambda c: robot.cmd_setrv(c.magnitude),
            Command.VEL: lambda c: robot.cmd_vel(c.int_value),
            Command.HEAD: lambda c: robot.cmd_head(c.int_value),
            Command.DHEAD: lambda c: (from_setpoint if psos else from_heading)(c.int_value),
            Command.CONFIG: self._config,
            Command.RVEL: lambda c: robot.cmd_rvel(c.int_value),
            Command.DCHEAD: lambda c: (from_heading if psos else from_setpoint)(c.int_value),
            Command.SETRA: lambda c: robot.cmd_setra(c.int_value),
            Command.SONAR: lambda c: robot.cmd_sonar(c.magnitude != 0),
            Command.STOP: lambda c: robot.cmd_stop(),
            Command.DIGOUT: self._digout,
            Command.VEL2: self._vel2,
            Command.ESTOP: lambda c: robot.cmd_estop(),
            Command.QSTOP: lambda c: robot.cmd_estop(),
            Command.STEP: self._step,
            Command.LOADWORLD: self._load_world,
            Command.SIM_SET_POSE: self._set_pose,
            Command.SIM_RESET: lambda c: self.simulation.reset_robot(robot),
            Command.SIM_STAT: self._sim_stat,
            Command.SIM_MESSAGE: self._message,
            Command.SIM_EXIT: self._exit,
            Command.BATTEST: self._battest,
        }

    def _open(self, command: CommandPacket) -> None:
        if self.state is not SessionState.OPEN:
            self.state = SessionState.OPEN
            self.robot.cmd_enable(True)
            self.robot.take_new_readings()

    def _close(self, command: CommandPacket) -> None:
        if self.options.hangup_on_close:
            self.hang_up("CLOSE")
        else:
            self._end_session("CLOSE")

    def _config(self, command: CommandPacket) -> None:
        self.stats.configs += 1
        self._write(encode_config(self.writer.config()))

    def _polling(self, command: CommandPacket) -> None:
        self.robot.cmd_polling(b - 1 for b in self.string_arg(command))

    def _load_world(self, command: CommandPacket) -> None:
        """SRISim's LOADWORLD (``sfLoadWorldFile``): a world the options' :class:`WorldAccess` grants.
        The robot goes to the new world's start pose when it has one (its odometry runs on). The
        protocol has no reply: a refusal is logged and counted (``stats.worlds_refused``)."""
        name = self.string_arg(command).decode("latin-1")
        if self._world_load is not None:
            self._refuse_world(name, "another world is still being loaded")
            return
        if self.options.load_in_background:
            self._world_load = WorldLoad(self.options.worlds, name)
            return
        try:
            world = self.options.worlds.load(name)
        except WorldRefused as exc:
            self._refuse_world(name, str(exc))
            return
        self._use_world(world)

    def _finish_world_load(self) -> None:
        """Apply a world read in the background once it is there (each cycle, before the client's packets)."""
        load = self._world_load
        if load is None or not load.done:
            return
        self._world_load = None
        try:
            world = load.result()
        except WorldRefused as exc:
            self._refuse_world(load.name, str(exc))
            return
        self._use_world(world)

    def _refuse_world(self, name: str, why: str) -> None:
        self.stats.ignored[Command.LOADWORLD] += 1
        self.stats.worlds_refused += 1
        log.warning("%s: LOADWORLD %r refused: %s", self.label, name, why)

    def _use_world(self, world: World) -> None:
        self.simulation.set_world(world)
        if world.start_pose is not None:
            start = world.start_pose
            self.simulation.set_pose(self.robot, start.x, start.y, start.th)
        log.info("%s: world %s loaded for the client", self.label, world.name)

    def string_arg(self, command: CommandPacket) -> bytes:
        data = command.data
        if self.layout is SipLayout.ARCOS and len(data) >= 2 and data[0] == ArgType.STRING:
            length = data[1]
            if (length == len(data) - 3 and data[-1] == 0) or length == len(data) - 2:
                return data[2 : 2 + length]
        return command.nul_string()

    def _seto(self, command: CommandPacket) -> None:
        if command.has_arg:
            r = command.reader()
            self.robot.cmd_seto(r.s16(), r.s16(), r.s16())
        else:
            self.robot.cmd_seto()

    def _digout(self, command: CommandPacket) -> None:
        if self.layout is SipLayout.PSOS:  # PSOS: the argument is the output byte itself
            self.digout = command.int_value & 0xFF
            return
        mask, states = command.byte_pair()  # ARCOS (AMRISim): high byte = bits to change, low = states
        mask &= 0xFF
        self.digout = (self.digout & ~mask | states & mask) & 0xFF

    def _vel2(self, command: CommandPacket) -> None:
        left, right = command.byte_pair()
        divisor = self.robot.model.vel2_divisor
        self.robot.cmd_vel2(left * divisor, right * divisor)

    def _step(self, command: CommandPacket) -> None:
        if command.int_arg is None:
            self.single_step = True
            self.pending_steps = min(self.pending_steps + 1, MAX_STEPS_PER_CYCLE)
        elif command.magnitude == 0:
            self.single_step = False
            self.pending_steps = 0
        else:
            self.single_step = True

    def _set_pose(self, command: CommandPacket) -> None:
        self.simulation.set_pose(self.robot, *command.pose())

    def _sim_stat(self, command: CommandPacket) -> None:
        mode = command.magnitude
        if mode in (0, 1, 2):
            self._simstat = mode
        else:
            self.stats.ignored[command.command] += 1

    def _message(self, command: CommandPacket) -> None:
        text = command.string().decode("latin-1")
        self.messages.append(text)
        log.info("%s: message from the client: %s", self.label, text)

    def _exit(self, command: CommandPacket) -> None:
        if self.options.allow_exit:
            self.exit_code = command.int_value
            log.info("%s: SIM_EXIT %d from the client", self.label, command.int_value)
        else:
            self.stats.ignored[command.command] += 1

    def _battest(self, command: CommandPacket) -> None:
        self.battery = command.magnitude or self.options.battery


def _nothing(command: CommandPacket) -> None:
    """PULSE: its arrival is what counts (it feeds the watchdog)."""
