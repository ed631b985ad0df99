"""The client side of Flat4: a robot link that speaks Flat's controller protocol (``--robot flat://HOST:PORT``).

:class:`FlatLink` is a :class:`~saphira.link.Link` with Flat's wire instead of the Pioneer packets, so the
reflector, Colbert and the behaviors run unchanged. Each step output fills the reflector: the pose Flat
sends is the odometric pose (and, on connection, the global one), its motion since the previous step
moves the global pose and the sonar buffers, the 12 sonar ranges go into the sonar buckets (Flat's
ring: :func:`saphira.flat.simulation.flat_params`), and the laser scans, merged into one scan in the robot
frame (:func:`saphira.flat.laser.robot_frame_scan`), go to the reflector's laser
(:meth:`~saphira.reflector.Reflector.apply_laser_scan`: the latest scan, the LPS ring, the occupancy
queries, the ``sfLaser*`` bindings and the perception tasks, as over the Pioneer protocol).
Each cycle the setpoints go out as one ``c v w 1 message`` line.

Where Flat differs from a Pioneer, the link makes up the difference (docs/flat.md):

* Flat only takes velocities. Position moves already run on the client (:mod:`saphira.motion`); heading
  setpoints are closed here: the angular velocity follows a braking profile for Flat's 50 deg/s² to the
  reported heading.
* Flat reports no velocities and no stall: velocities are the pose's change over the step's time; a
  stall is inferred when a commanded speed of at least :data:`STALL_SPEED` has moved the robot less than
  :data:`STALL_MOTION` mm for :data:`STALL_STEPS` steps.
* Time: Flat paces the run. With a lock-step clock (``saphira run`` picks one for ``flat://``) every cycle
  waits for the server's next step output, so a standard-mode server and the client advance together, as
  fast as both can go; with a real-time clock the link takes whatever has arrived.
* ``sfSMessage`` text goes to Flat's message field too (blanks as ``_``); Pioneer commands sent
  directly (``sfRobotCom``) have no Flat meaning and are dropped with a warning.
* A ``(time :MAP-CHANGED map)`` form fires :attr:`FlatLink.on_map_changed` and counts in
  :attr:`FlatLink.map_changes` (Colbert polls ``sfFlatMap()`` / ``sfFlatMapChanges()``); the next step
  output's pose becomes the global pose (the map's frame) and the sonar buffers are cleared.
"""

from __future__ import annotations

import contextlib
import logging
import math
import select
import socket
import time
from collections import deque
from urllib.parse import urlsplit

from saphira.clock import Clock
from saphira.events import Event
from saphira.flat.codec import (
    CodecError,
    Control,
    MapChanged,
    Query,
    Reply,
    StepOutput,
    format_input,
    parse_reply,
)
from saphira.flat.laser import MAX_RANGE, robot_frame_scan
from saphira.flat.simulation import ROT_ACCEL, flat_params
from saphira.geometry import norm2_angle
from saphira.link import ConnectError, Link, LinkOptions, LinkState
from saphira.motion import BRAKING_MARGIN, REACTION_TIME, RotMode, TransMode
from saphira.protocol.command_packet import CommandArg
from saphira.protocol.sync import RobotIdentity
from saphira.reflector import Reflector, RobotStatus
from saphira.transport import SocketTransport, TransportClosed

log = logging.getLogger("saphira.flat")

SCHEME = "flat"
DEFAULT_PORT = 1095
"""The port of the seed's example (``flat_client -port 1095``)."""
WAIT_LIMIT = 30.0
"""Wall-clock seconds a lock-step cycle waits for the server's step output before the link counts it lost."""
HEADING_GAIN = 3.0
"""1/s: near the target heading the angular velocity is at most this times the error."""
HEADING_DEADBAND = 0.2
"""deg: a heading error below this commands no turn."""
STALL_SPEED = 50.0
STALL_MOTION = 1.0
STALL_STEPS = 3
IDENTITY = RobotIdentity("flat", "Flat", "flat4")


def is_flat_url(url: str) -> bool:
    return urlsplit(url).scheme.lower() == SCHEME


def link_for_url(link: Link, url: str) -> Link:
    """The link a robot URL needs: a :class:`FlatLink` for ``flat://``, the Pioneer link for anything else."""
    if is_flat_url(url):
        return link if isinstance(link, FlatLink) else FlatLink.replacing(link)
    if isinstance(link, FlatLink):
        return link.pioneer if link.pioneer is not None else Link(link.reflector, link.clock, link.options)
    return link


def heading_velocity(error: float, rvel: float, limit: float, decel: float = ROT_ACCEL) -> float:
    """Angular velocity (deg/s) that brings a heading ``error`` (deg) to 0 without overshoot at ``decel``."""
    if abs(error) < HEADING_DEADBAND:
        return 0.0
    braking = max(0.0, abs(error) - abs(rvel) * REACTION_TIME)
    speed = min(limit, math.sqrt(2.0 * BRAKING_MARGIN * decel * braking), HEADING_GAIN * abs(error))
    return math.copysign(speed, error)


class FlatLink(Link):
    """A Flat4 controller connection feeding the reflector (see the module docstring)."""

    def __init__(self, reflector: Reflector, clock: Clock, options: LinkOptions | None = None) -> None:
        super().__init__(reflector, clock, options, params_chooser=lambda identity: flat_params())
        self.pioneer: Link | None = None
        """The Pioneer link this one stands in for (given back for a non-Flat URL)."""
        self.wait_limit = WAIT_LIMIT
        self.on_map_changed: Event[[str]] = Event("map_changed")
        """A map change the server announced (automatic, or answering ``t``/``m``): the new map file."""
        self.map_name: str | None = None
        """The map file the server last announced (None before any change)."""
        self.map_changes = 0
        """Map changes announced since connecting (``sfFlatMapChanges``)."""
        self.last_output: StepOutput | None = None
        self.message = ""
        """Flat's message field: the latest ``sfSMessage`` text, sent with every control line."""
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._outputs: deque[StepOutput] = deque()
        self._replies: deque[Reply] = deque()
        self._owe_input = False
        self._previous: StepOutput | None = None
        self._relocated = False
        self._commanded = 0.0
        self._still_steps = 0

    @classmethod
    def replacing(cls, link: Link) -> FlatLink:
        """A Flat link on ``link``'s reflector and clock, sharing its events (their listeners stay)."""
        flat = cls(link.reflector, link.clock, link.options)
        flat.pioneer = link
        flat.on_connect = link.on_connect
        flat.on_disconnect = link.on_disconnect
        flat.on_packet_in = link.on_packet_in
        flat.on_packet_out = link.on_packet_out
        return flat

    # ------------------------------------------------------------------ connection
    def connect(self, target: object) -> None:
        """Connect to ``flat://host[:port]``; the first step output completes the connection."""
        if not isinstance(target, str) or not is_flat_url(target):
            raise ConnectError(f"{target!r}: a Flat link needs a flat://host:port URL")
        if self.transport is not None:
            self.disconnect()
        parts = urlsplit(target)
        try:
            host, port = parts.hostname, parts.port or DEFAULT_PORT
        except ValueError as exc:
            raise ConnectError(f"{target!r}: bad port number") from exc
        if not host:
            raise ConnectError(f"{target!r}: a flat URL needs a host, e.g. flat://127.0.0.1:{DEFAULT_PORT}")
        self.url = f"flat://{host}:{port}"
        try:
            sock = socket.create_connection((host, port), timeout=5.0)
        except OSError as exc:
            self.state = LinkState.FAILED
            self.error = f"cannot connect to {self.url}: {exc.strerror or exc}"
            raise ConnectError(self.error) from exc
        self._sock = sock
        self.transport = SocketTransport(sock, self.url)
        self.error = None
        self.identity = IDENTITY
        self._buffer = b""
        self._outputs.clear()
        self._replies.clear()
        self._owe_input = False
        self._previous = None
        self.map_name, self.map_changes = None, 0
        self.reflector.configure(flat_params())
        self.reflector.restart()
        self.state = LinkState.CONFIGURING
        self._opened_at = self._last_sip = self.clock.now()

    def disconnect(self, reason: str = "disconnected by the client") -> None:
        """Close the connection (the Flat server stops the robot when its controller leaves)."""
        if self.transport is None and self.state not in (LinkState.CONNECTED, LinkState.CONFIGURING):
            return
        self._drop(reason, LinkState.DISCONNECTED, notify=self.state == LinkState.CONNECTED)
        self._sock = None

    def abort(self, reason: str) -> None:
        if self.state == LinkState.CONNECTED:
            self.disconnect(reason)
        elif self.connecting:
            self._fail(reason)
            self._sock = None

    def send(self, command: int, arg: CommandArg = None) -> bool:
        """Pioneer commands mean nothing to Flat: dropped, with a warning."""
        log.warning("Flat link: Pioneer command %d not sent (Flat takes only velocities)", command)
        return False

    def show_message(self, text: str) -> None:
        """Put ``text`` in Flat's message field (sent with the next control lines)."""
        self.message = text

    # ------------------------------------------------------------------ wire
    def _send_line(self, line: str) -> bool:
        return self.send_raw((line + "\n").encode("latin-1", errors="replace"))

    def _pump(self, wait: float) -> bool:
        """Read what has arrived (waiting up to ``wait`` wall seconds for something); False if the line died."""
        if self.transport is None or self._sock is None:
            return False
        if wait > 0.0:
            with contextlib.suppress(OSError, ValueError):
                select.select([self._sock], [], [], wait)
        try:
            data = self.transport.read()
        except TransportClosed as exc:
            self._lost(f"connection closed ({exc})")
            return False
        self._buffer += data
        while b"\n" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\n", 1)
            text = raw.decode("latin-1").strip()
            if not text:
                continue
            self.on_packet_in.emit(raw)
            try:
                reply = parse_reply(text)
            except CodecError as exc:
                self.counters.undecodable += 1
                log.warning("Flat link: unreadable line from %s: %s", self.url, exc)
                continue
            if isinstance(reply, StepOutput):
                self._outputs.append(reply)
            elif isinstance(reply, MapChanged) and reply.map_file is not None and not self._replies_wanted:
                self._map_changed(reply.map_file)
            else:
                self._replies.append(reply)
        return True

    _replies_wanted = False

    def query(self, query: Query) -> Reply:
        """Ask the server a query (``b d j l m o t s x``) and wait for its answer (wall-clock limited).

        Call it between the cycle's receive and reflect phases (from a task or behavior): Flat answers
        while it waits for the step's input. A map change it answers also fires :attr:`on_map_changed`.
        """
        if not self.connected:
            raise ConnectError(f"not connected to a Flat server ({self.url or 'no URL'})")
        self._replies.clear()
        self._replies_wanted = True
        try:
            self._send_line(format_input(query))
            deadline = time.monotonic() + self.wait_limit
            while not self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or not self._pump(min(left, 0.5)):
                    raise ConnectError(f"no answer from {self.url} to {format_input(query)!r}")
        finally:
            self._replies_wanted = False
        reply = self._replies.popleft()
        if isinstance(reply, MapChanged) and reply.map_file is not None:
            self._map_changed(reply.map_file)
        return reply

    def _map_changed(self, name: str) -> None:
        self.map_name = name
        self.map_changes += 1
        self._relocated = True
        log.info("Flat map changed to %s", name)
        self.on_map_changed.emit(name)

    # ------------------------------------------------------------------ per-cycle work
    def receive(self) -> None:
        """Receive phase: take the next step output (waiting for it on a lock-step clock)."""
        if self.transport is None:
            return
        try:
            self._receive_flat()
        except Exception as exc:
            log.exception("Flat link %s: internal error", self.url)
            self.abort(f"error while reading the Flat server: {exc}")

    def _receive_flat(self) -> None:
        lockstep = self.clock.is_lockstep
        deadline = time.monotonic() + self.wait_limit
        if not self._pump(0.0):
            return
        while lockstep and not self._outputs:
            left = deadline - time.monotonic()
            if left <= 0:
                self._lost(f"no step output from {self.url} for {self.wait_limit:g} s")
                return
            if not self._pump(min(left, 0.5)):
                return
        now = self.clock.now()
        while self._outputs:
            self._apply(self._outputs.popleft(), now)
        if self.state == LinkState.CONNECTED:
            self._update_rates(now)

    def _apply(self, output: StepOutput, now: float) -> None:
        reflector = self.reflector
        state = reflector.state
        x, y, th = output.pose
        previous = self._previous
        if previous is None or self._relocated:
            reflector.set_global_pose(x, y, th)
            reflector.sonar.clear()
            state.vel = state.rvel = 0.0
            self._relocated = False
        else:
            px, py, pth = previous.pose
            rad = math.radians(pth)
            forward = (x - px) * math.cos(rad) + (y - py) * math.sin(rad)
            left = -(x - px) * math.sin(rad) + (y - py) * math.cos(rad)
            dth = norm2_angle(th - pth)
            reflector.move_robot(forward, left, dth)
            reflector.sonar.move(forward, left, dth)
            dt = (output.time - previous.time) / 1000.0
            if dt > 0:
                state.vel = forward / dt
                state.rvel = dth / dt
            self._track_stall(math.hypot(x - px, y - py))
        self._previous = output
        self.last_output = output
        state.odo_x, state.odo_y, state.odo_th = x, y, th
        pose = reflector.motion.pose
        pose.x, pose.y, pose.th, pose.vel, pose.control = x, y, th, state.vel, 0.0
        state.leftv = state.rightv = state.vel
        odo = (x, y, th)
        for number, value in enumerate(output.sonar):
            reflector.sonar.add_reading(number, round(value), odo, state.global_pose)
        state.sonar_enabled = bool(output.sonar)
        if output.lasers:
            ranges, angles = robot_frame_scan(output.lasers)
            reflector.apply_laser_scan(ranges, angles, MAX_RANGE)
        state.motors_enabled = True
        state.sips += 1
        self.counters.sips += 1
        self._last_sip = now
        self._sip_times.append(now)
        self._sonar_times.extend([now] * len(output.sonar))
        if state.stalled:
            state.status = RobotStatus.STALLED
        elif abs(state.vel) > 1.0 or abs(state.rvel) > 0.5:
            state.status = RobotStatus.MOVING
        else:
            state.status = RobotStatus.STOPPED
        self._owe_input = True
        if self.state == LinkState.CONFIGURING:
            log.info("connected to the Flat server at %s", self.url)
            self._connected()

    def _track_stall(self, moved: float) -> None:
        """Flat has no stall flag: a commanded speed that does not move the robot for a few steps is one."""
        if abs(self._commanded) >= STALL_SPEED and moved < STALL_MOTION:
            self._still_steps += 1
        else:
            self._still_steps = 0
        stalled = self._still_steps >= STALL_STEPS
        state = self.reflector.state
        state.stall_left = state.stall_right = stalled
        state.stall_word = 0x0101 if stalled else 0

    def reflect(self) -> None:
        """Reflect phase: one control line for the step output taken in this cycle."""
        if self.state != LinkState.CONNECTED or not self._owe_input:
            return
        linear, angular = self.setpoints()
        self._commanded = linear
        self._owe_input = False
        self._send_line(format_input(Control("c", linear, angular, 1.0, self.message)))

    def setpoints(self) -> tuple[float, float]:
        """The (mm/s, deg/s) the setpoints ask for now (heading setpoints closed here)."""
        motion = self.reflector.motion
        linear = motion.target_vel() if motion.trans_mode is not TransMode.NONE else 0.0
        if motion.rot_mode is RotMode.VELOCITY:
            angular = motion.rvelocity
        elif motion.rot_mode is RotMode.HEADING:
            angular = heading_velocity(motion.heading_error(), self.reflector.state.rvel, motion.limit_rvelocity)
        else:
            angular = 0.0
        return linear, angular
