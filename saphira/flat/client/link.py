"""The client side of Flat4: a robot link that speaks Flat's controller protocol (``--robot flat://HOST:PORT``).

:class:`FlatLink` is a :class:`~saphira.client.link.base.Link` with Flat's wire instead of the Pioneer packets,
so the reflector, Colbert and the behaviors run unchanged. Each step output fills the reflector: the pose Flat
sends is the odometric pose (and, on connection, the global one), its motion since the previous step
moves the global pose and the sonar buffers, the 12 sonar ranges go into the sonar buckets (Flat's
ring: :func:`saphira.flat.robot.flat_params`), and the laser scans, merged into one scan in the robot
frame (:func:`saphira.flat.robot.robot_frame_scan`), a :class:`~saphira.client.sensors.laser.LaserScan`, go to
the reflector's laser (:meth:`~saphira.client.reflector.Reflector.apply_laser_scan`: the latest scan, the LPS
ring, the occupancy queries, the ``sfLaser*`` bindings and the perception tasks, as over the Pioneer protocol).
Each cycle the setpoints go out as one ``c v w 1 message`` line.

Where Flat differs from a Pioneer, the link makes up the difference (docs/flat.md):

* Flat only takes velocities. Position moves already run on the client (:mod:`saphira.client.motion`); heading
  setpoints are closed here: the angular velocity follows a braking profile for Flat's 50 deg/s² to the
  reported heading.
* Flat reports no velocities and no stall: velocities are the pose's change over the step's time; a
  stall is inferred when a commanded speed does not move the robot for a few steps
  (:meth:`~saphira.client.link.velocity.VelocityLink._track_stall`).
* Time: Flat paces the run (:attr:`FlatLink.paces_clock`). With a lock-step clock (``saphira run`` picks one) each cycle
  waits for the server's next step output, so a standard-mode server and the client advance together, as
  fast as both can go; with a real-time clock the link takes whatever has arrived.
* ``sfSMessage`` text goes to Flat's message field too (blanks as ``_``: the link's ``show_message``);
  Pioneer commands sent directly (``sfRobotCom``) have no Flat meaning and are dropped with a warning.
* Stopping: a disconnect, or a loss while the line still takes it, sends a control line of zero velocities
  (:meth:`~saphira.client.link.base.Link.stop_robot`), so a server that goes on stepping with the last
  command it had does not drive on.
* A ``(time :MAP-CHANGED map)`` form fires :attr:`FlatLink.on_map_changed` and counts in
  :attr:`FlatLink.map_changes` (Colbert polls ``sfFlatMap()`` / ``sfFlatMapChanges()``); the next step
  output's pose becomes the global pose (the map's frame) and the sonar buffers are cleared.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import replace
from urllib.parse import urlsplit

from saphira.client.link.base import ConnectError, LinkEvents, LinkOptions, LinkState
from saphira.client.link.registry import register_link
from saphira.client.link.velocity import VelocityLink
from saphira.client.link.velocity import heading_velocity as _heading_velocity
from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import LaserScan
from saphira.core.clock import Clock
from saphira.core.events import Event
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
from saphira.flat.robot import MAX_RANGE, ROT_ACCEL, flat_params, robot_frame_scan
from saphira.protocol.sync import RobotIdentity

log = logging.getLogger("saphira.flat")

SCHEME = "flat"
DEFAULT_PORT = 1095
"""The port of the seed's example (``flat_client -port 1095``)."""
HEADING_DEADBAND = 0.2
"""deg: a heading error below this commands no turn."""
IDENTITY = RobotIdentity("flat", "Flat", "flat4")


def _encode(line: str) -> bytes:
    return (line + "\n").encode("latin-1", errors="replace")


def is_flat_url(url: str) -> bool:
    return FlatLink.handles(url)


def heading_velocity(error: float, rvel: float, limit: float, decel: float = ROT_ACCEL) -> float:
    """Angular velocity (deg/s) that brings a heading ``error`` (deg) to 0 without overshoot at Flat's ``decel``."""
    return _heading_velocity(error, rvel, limit, decel, HEADING_DEADBAND)


class FlatLink(VelocityLink):
    """A Flat4 controller connection feeding the reflector (see the module docstring)."""

    SCHEME = SCHEME
    STATE_REPORT = "step output"
    STATE_REPORTS = "Flat step outputs"
    NAME = "Flat"
    PEER = "the Flat server"
    LOG = log
    HEADING_DEADBAND = HEADING_DEADBAND
    paces_clock = True

    def __init__(
        self,
        reflector: Reflector,
        clock: Clock,
        options: LinkOptions | None = None,
        *,
        events: LinkEvents | None = None,
    ) -> None:
        super().__init__(reflector, clock, options, events=events)
        self.on_map_changed: Event[[str]] = Event("map_changed")
        """A map change the server announced (automatic, or answering ``t``/``m``): the new map file, also in
        :attr:`map_name` (None before any change) and counted in :attr:`map_changes`."""
        self.last_output: StepOutput | None = None
        self.message = ""
        """Flat's message field: the latest ``sfSMessage`` text, sent with every control line."""
        self._buffer = b""
        self._outputs: deque[StepOutput] = deque()
        self._replies: deque[Reply] = deque()
        self._owe_input = False
        self._previous: StepOutput | None = None
        self._relocated = False

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
        self._open_socket(host, port, timeout=5.0)
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
        self._opened_at = self._last_report = self.clock.now()

    def show_message(self, text: str) -> bool:
        """Put ``text`` in Flat's message field (sent with the next control lines)."""
        self.message = text
        return True

    # ------------------------------------------------------------------ wire
    def _send_line(self, line: str) -> bool:
        return self.send_raw(_encode(line))

    def _pump(self, wait: float) -> bool:
        """Read what has arrived (waiting up to ``wait`` wall seconds for something); False if the line died."""
        data = self._read_wire(wait) if self._sock is not None else None
        if data is None:
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
    def _receive(self) -> None:
        """Take the next step output (waiting for it on a lock-step clock)."""
        deadline = time.monotonic() + self.wait_limit
        if not self._pump(0.0):
            return
        if self.clock.is_lockstep and not self._await(self._outputs, deadline):
            return
        now = self.clock.now()
        while self._outputs:
            self._apply(self._outputs.popleft(), now)
        if self.state == LinkState.CONNECTED:
            self._update_rates(now)
        self._check_silence(now)

    def _apply(self, output: StepOutput, now: float) -> None:
        reflector = self.reflector
        previous = None if self._relocated or self._previous is None else self._previous
        dt = 0.0 if previous is None else (output.time - previous.time) / 1000.0
        report = self._pose_report(output.pose, previous.pose if previous is not None else None, dt)
        reflector.apply_report(replace(report, sonar_enabled=bool(output.sonar)))
        self._relocated = False
        self._previous = output
        self.last_output = output
        if output.sonar:
            reflector.apply_sonar_ranges((number, round(value)) for number, value in enumerate(output.sonar))
        if output.lasers:
            reflector.apply_laser_scan(self._scan(output))
        self._sonar_times.add(now, len(output.sonar))
        self._owe_input = True
        self._step_taken(now, "the Flat server")

    def _scan(self, output: StepOutput) -> LaserScan:
        """The step's lasers as one scan in the robot frame, taken where the reflector has the robot now."""
        ranges, angles = robot_frame_scan(output.lasers)
        state = self.reflector.state
        return LaserScan(ranges, angles, state.odo_pose, state.global_pose, MAX_RANGE)

    def reflect(self) -> None:
        """Reflect phase: one control line for the step output taken in this cycle."""
        if self.state != LinkState.CONNECTED or not self._owe_input:
            return
        linear, angular = self.setpoints()
        self._commanded = linear
        self._owe_input = False
        self._send_line(format_input(Control("c", linear, angular, 1.0, self.message)))

    def _stop_packets(self, *, quietly: bool) -> list[bytes]:
        """A control line of zero velocities (a real-time Flat server goes on stepping with the last command
        it had)."""
        return [_encode(format_input(Control("c", 0.0, 0.0, 1.0, self.message)))]

    def rot_decel(self) -> float:
        """Flat's fixed rotational acceleration (:data:`saphira.flat.robot.ROT_ACCEL`)."""
        return ROT_ACCEL


register_link(SCHEME, FlatLink)
