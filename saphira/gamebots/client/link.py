"""The client side of Gamebots: a robot link to a USARSim server (``--robot usarsim://HOST:PORT?…``).

``usarsim://127.0.0.1:3000?class=P2DX&location=1.5,-2.0,0&name=R1`` connects to the Gamebots port,
spawns a ``USARBot.P2DX`` with ``INIT`` at ``location`` (USARSim's own units and frame: metres, y to the
right; docs/gamebots.md) and asks for the robot's and the sonars' geometry (``GETGEO``) and the robot's
configuration (``GETCONF``). :class:`GamebotsLink` is a :class:`~saphira.client.link.base.Link`, so the reflector,
Colbert and the behaviors run on it unchanged:

* ``STA`` gives the pose (Location and the Attitude's yaw): it is the global pose and the odometric
  pose at once (USARSim reports where the robot is), and its change moves the sonar buffers. The
  turn rate is the yaw's change over STA's Time; the stall flag is STA's ``Stall`` when the server
  sends one, else inferred (a commanded speed that moves nothing for a few steps). USARSim-UDK's STA
  has no Location: the pose is then the latest ``SEN {Type GroundTruth}`` (Location, Orientation's
  yaw), else the latest ``SEN {Type Odometry}`` (``{Pose x,y,yaw}``, from the spawn point, so laid
  over INIT's location), else where the robot was.
* ``SEN {Type Sonar}`` readings go into the sonar buckets, from a whole-ring message (USARSim 3.x)
  or one message per sonar (UDK); a sonar whose range has not changed since its last message is not
  taken again (a whole ring repeats the sonars that did not fire). The sonar geometry is the one ``GEO``
  reports (it replaces the parameter file's). ``SEN {Type RangeScanner}`` scans go to the reflector's
  laser (as one :class:`~saphira.client.sensors.laser.LaserScan`,
  :meth:`~saphira.client.reflector.Reflector.apply_laser_scan`) once the step's STA has moved the robot,
  as Flat's and the Pioneer protocol's do, so the ``sfLaser*`` bindings, avoidance and the perception
  tasks see them; the laser's mount and range are the ones ``GEO`` and ``CONF {Type RangeScanner}`` give.
* Each cycle the setpoints become one ``DRIVE {Left l} {Right r}`` of wheel spin speeds (rad/s), from
  the wheel radius and separation ``GEO`` reports. USARSim takes only speeds: heading setpoints are
  closed here with a braking profile on the robot's rotational deceleration, and position moves run
  on the client already (:mod:`saphira.client.motion`). A DRIVE goes out when it changes, and at least every
  half second.

Time: with a lock-step clock each cycle waits (up to the link timeout, in wall seconds) for the step's
``STA``, so a server stepped in lock-step and the client advance together; with a real-time clock the
link takes what has arrived.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from urllib.parse import parse_qs, urlsplit

import numpy as np

from saphira.client.link.base import ConnectError, LinkEvents, LinkOptions, LinkState
from saphira.client.link.registry import register_link
from saphira.client.link.velocity import VelocityLink
from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import LaserScan
from saphira.core.clock import Clock
from saphira.core.geometry import Pose, norm2_angle
from saphira.gamebots.codec import (
    SONAR_TYPES,
    Configuration,
    Drive,
    GamebotsError,
    Geometry,
    Init,
    LineReader,
    Message,
    RangeScannerMessage,
    SonarScan,
    Sta,
    Vector,
    encode,
    format_message,
    from_unreal,
    parse,
    parse_vector,
    query,
)
from saphira.gamebots.models import UsarModel, WheelGeometry, model_for, sonar_number
from saphira.params.robot_params import SonarUnit
from saphira.protocol.sync import RobotIdentity

log = logging.getLogger("saphira.gamebots")

SCHEME = "usarsim"
DEFAULT_PORT = 3000
CONNECT_TIMEOUT = 5.0
"""Wall seconds to wait for the server to accept the socket."""
FIRST_WAIT = 0.05
"""Wall seconds a lock-step cycle waits for the first STA (the server may be another process)."""
DEFAULT_LASER_RANGE = 20000.0
"""mm: a RangeScanner's range until CONF says (USARSim's SICK LMS200 reaches 20 m)."""
REFRESH = 0.5
"""Seconds between resends of an unchanged DRIVE."""
HEADING_DEADBAND = 0.5
"""deg: a smaller heading error commands no turn."""


def is_usarsim_url(url: str) -> bool:
    return GamebotsLink.handles(url)


@dataclasses.dataclass(frozen=True)
class UsarTarget:
    """What a ``usarsim://`` URL asks for."""

    host: str
    port: int
    model: UsarModel
    location: Vector
    name: str | None

    @classmethod
    def parse(cls, url: str) -> UsarTarget:
        parts = urlsplit(url)
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError as exc:
            raise ConnectError(f"{url!r}: bad port number") from exc
        if not parts.hostname:
            raise ConnectError(f"{url!r}: a usarsim URL needs a host, e.g. usarsim://127.0.0.1:{DEFAULT_PORT}")
        query_values = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(query_values) - {"class", "location", "name"}
        if unknown:
            raise ConnectError(f"{url!r}: unknown option {sorted(unknown)[0]!r} (use class, location, name)")
        try:
            model = model_for(query_values.get("class", "P2DX"))
            location = parse_vector(query_values.get("location", "0,0,0"), "location")
        except GamebotsError as exc:
            raise ConnectError(f"{url!r}: {exc}") from exc
        return cls(parts.hostname, port, model, location, query_values.get("name"))


class GamebotsLink(VelocityLink):
    """A Gamebots robot connection feeding the reflector (see the module docstring)."""

    SCHEME = SCHEME
    STATE_REPORT = "STA"
    STATE_REPORTS = "STA messages"
    NAME = "Gamebots"
    PEER = "the Gamebots server"
    LOG = log
    HEADING_DEADBAND = HEADING_DEADBAND

    def __init__(
        self,
        reflector: Reflector,
        clock: Clock,
        options: LinkOptions | None = None,
        *,
        events: LinkEvents | None = None,
    ) -> None:
        super().__init__(reflector, clock, options, events=events)
        self.target: UsarTarget | None = None
        self.wheels: WheelGeometry | None = None
        self.laser_mount = (0.0, 0.0)
        """mm ahead, mm left of the centre: where ``GEO {Type RangeScanner}`` puts the laser."""
        self.laser_range = DEFAULT_LASER_RANGE
        """mm: the laser's MaxRange (``CONF {Type RangeScanner}``); a reading this long saw nothing."""
        self._scans: list[RangeScannerMessage] = []
        self.last_sta: Sta | None = None
        self.sonar_names: dict[str, int] = {}
        self._last_ranges: dict[int, float] = {}
        self._truth: Sta | None = None
        """The latest GroundTruth (else Odometry) pose as a STA: the pose when STA has no Location."""
        self._truth_rank = 0
        self._reader = LineReader()
        self._stas: list[Sta] = []
        self._drive_sent: tuple[float, float] | None = None
        self._drive_at = -math.inf

    # ------------------------------------------------------------------ connection
    def connect(self, target: object) -> None:
        """Connect, spawn the robot (INIT) and ask for its geometry; the first STA completes the connection."""
        if not isinstance(target, str) or not is_usarsim_url(target):
            raise ConnectError(f"{target!r}: a Gamebots link needs a usarsim://host:port URL")
        if self.transport is not None:
            self.disconnect()
        wanted = UsarTarget.parse(target)
        self.url = f"usarsim://{wanted.host}:{wanted.port}"
        self._open_socket(wanted.host, wanted.port, CONNECT_TIMEOUT)
        self.target = wanted
        self._reader = LineReader()
        self._stas.clear()
        self._scans.clear()
        self._last_ranges.clear()
        self._truth, self._truth_rank = None, 0
        self.last_sta = None
        self.laser_mount, self.laser_range = (0.0, 0.0), DEFAULT_LASER_RANGE
        self._drive_sent = None
        params = wanted.model.params(self.user_params)
        self.wheels = WheelGeometry.of(wanted.model, params)
        self.sonar_names = {}
        self.identity = RobotIdentity(wanted.name or wanted.model.class_name, "USARSim", wanted.model.class_name)
        self.reflector.configure(params)
        self.reflector.restart()
        self.state = LinkState.CONFIGURING
        self._opened_at = self._last_report = self.clock.now()
        init = Init(wanted.model.class_name, wanted.location, wanted.name)
        for message in (init.message(), query("GETGEO", "Robot"), query("GETGEO", "Sonar"),
                        query("GETCONF", "Robot"), query("GETGEO", "RangeScanner"),
                        query("GETCONF", "RangeScanner")):  # fmt: skip
            self.send_message(message)

    def _stop_packets(self, *, quietly: bool) -> list[bytes]:
        """DRIVE 0 0: the wheels stop (a disconnect then closes the socket, and the server removes the robot)."""
        return [encode(Drive(0.0, 0.0).message())]

    def send_message(self, message: Message) -> bool:
        return self.send_raw(encode(message))

    # ------------------------------------------------------------------ input
    def _pump(self, wait: float) -> bool:
        data = self._read_wire(wait)
        if data is None:
            return False
        for line in self._reader.feed(data) if data else []:
            self.on_packet_in.emit(line.encode("latin-1"))
            try:
                self._handle(parse(line))
            except GamebotsError as exc:
                self.counters.undecodable += 1
                log.warning("Gamebots link %s: %s", self.url, exc)
        return True

    def _receive(self) -> None:
        """Handle what arrived (on a lock-step clock, wait for this step's STA)."""
        deadline = time.monotonic() + self.wait_limit
        if not self._pump(0.0):
            return
        # Until the first STA a lock-step cycle does not wait long: an in-process server has not
        # stepped yet (it runs at the end of the cycle); once stepping, every step brings a STA.
        if self.clock.is_lockstep and self.last_sta is None and not self._stas:
            self._pump(FIRST_WAIT)
        waits = self.clock.is_lockstep and self.last_sta is not None
        if waits and not self._await(self._stas, deadline):
            return
        now = self.clock.now()
        for sta in self._stas:
            self._apply_sta(self._posed(sta), now)
        self._stas.clear()
        if self.last_sta is not None:  # before the first STA there is no pose to see from
            for scan in self._scans:
                self._apply_laser(scan)
        self._scans.clear()
        if self.state == LinkState.CONNECTED:
            self._update_rates(now)
        self._check_silence(now)

    def _handle(self, message: Message) -> None:
        kind, sensor = message.kind, message.get("Type")
        if kind == "STA":
            self._stas.append(Sta.read(message))
        elif kind == "SEN" and sensor in SONAR_TYPES:
            self._apply_sonar(SonarScan.read(message))
        elif kind == "SEN" and sensor in ("GroundTruth", "Odometry"):
            self._take_sensor_pose(message, sensor)
        elif kind == "SEN" and sensor == "RangeScanner":
            self._scans.append(RangeScannerMessage.read(message))
        elif kind == "GEO" and sensor in SONAR_TYPES:
            self._apply_sonar_geometry(Geometry.read(message))
        elif kind == "GEO" and sensor == "RangeScanner":
            sensors = Geometry.read(message).sensors
            if sensors:
                x, y, _ = from_unreal(sensors[0].location)
                self.laser_mount = (x, y)
        elif kind == "CONF" and sensor == "RangeScanner":
            self.laser_range = Configuration.read(message).number("MaxRange", DEFAULT_LASER_RANGE / 1000.0) * 1000.0
        elif kind == "GEO" and sensor == "GroundVehicle" and self.wheels is not None:
            radius = message.number("WheelRadius", self.wheels.radius)
            self.wheels = WheelGeometry(radius, message.number("WheelSeparation", self.wheels.separation))
        elif kind == "ERR":  # our server's answer to a refused command (an INIT out of bounds, …)
            self.counters.other_packets += 1
            text = (message.get("Message") or "").replace("_", " ")
            log.warning("Gamebots server %s refused a command: %s", self.url, text)
        elif kind in ("SEN", "GEO", "CONF", "NFO", "MIS", "RES"):
            self.counters.other_packets += 1
        else:
            raise GamebotsError(f"unexpected message {kind}")

    def _take_sensor_pose(self, message: Message, sensor: str) -> None:
        """Keep a GroundTruth or Odometry pose for a STA without Location (GroundTruth wins)."""
        rank = 2 if sensor == "GroundTruth" else 1
        if rank < self._truth_rank:
            return
        if sensor == "GroundTruth":
            location = message.vector("Location")
            orientation = message.vector("Orientation") or (0.0, 0.0, 0.0)
            if location is None:
                raise GamebotsError("GroundTruth without Location", format_message(message))
            yaw = orientation[2]
        else:
            pose = message.vector("Pose")
            if pose is None:
                raise GamebotsError("Odometry without Pose", format_message(message))
            start = self.target.location if self.target is not None else (0.0, 0.0, 0.0)
            location, yaw = (start[0] + pose[0], start[1] + pose[1], start[2]), pose[2]
        self._truth = Sta(message.number("Time", 0.0), location, (0.0, yaw, 0.0), (0.0, 0.0, 0.0), 0.0)
        self._truth_rank = rank

    def _posed(self, sta: Sta) -> Sta:
        """``sta`` with a Location: its own, else the sensors' pose, else the last pose (or INIT's place)."""
        if sta.location is not None:
            return sta
        source = self._truth or self.last_sta
        if source is not None and source.location is not None:
            return dataclasses.replace(sta, location=source.location, attitude=source.attitude)
        start = self.target.location if self.target is not None else (0.0, 0.0, 0.0)
        return dataclasses.replace(sta, location=start)

    def _apply_sonar_geometry(self, geometry: Geometry) -> None:
        """The sonar ring as GEO describes it replaces the parameter file's (names keep their order)."""
        units = []
        names: dict[str, int] = {}
        for k, sensor in enumerate(geometry.sensors):
            x, y, th = from_unreal(sensor.location, sensor.orientation[2])
            units.append(SonarUnit(k, x, y, th))
            names[sensor.name] = k
        if not units:
            return
        params = dataclasses.replace(self.reflector.params, sonar_units=tuple(units))
        self.reflector.configure(params)
        self.sonar_names = names

    def _apply_sonar(self, scan: SonarScan) -> None:
        readings = []
        for name, metres in scan.ranges:
            number = self.sonar_names.get(name, sonar_number(name))
            if number is None or number >= len(self.reflector.params.sonar_units):
                continue
            if self._last_ranges.get(number) == metres:
                continue
            self._last_ranges[number] = metres
            readings.append((number, round(metres * 1000.0)))
        self.reflector.apply_sonar_ranges(readings)
        for _ in readings:
            self._sonar_times.add(self.clock.now())

    def _apply_laser(self, message: RangeScannerMessage) -> None:
        """A RangeScanner scan (metres, right to left over the FOV) into the reflector's laser."""
        ranges = np.asarray(message.ranges, dtype=np.float64) * 1000.0
        half = math.degrees(message.fov) / 2.0
        angles = np.linspace(-half, half, len(ranges)) if len(ranges) > 1 else np.zeros(len(ranges))
        state = self.reflector.state
        mount_x, mount_y = self.laser_mount
        scan = LaserScan(ranges, angles, state.odo_pose, state.global_pose, self.laser_range, mount_x, mount_y)
        self.reflector.apply_laser_scan(scan)

    def _apply_sta(self, sta: Sta, now: float) -> None:
        reflector = self.reflector
        assert sta.location is not None, "posed before it is applied"
        x, y, th = from_unreal(sta.location, sta.attitude[1])
        previous = self.last_sta
        before = (
            None
            if previous is None or previous.location is None
            else from_unreal(previous.location, previous.attitude[1])
        )
        dt = 0.0 if previous is None else sta.time - previous.time
        report = self._pose_report(Pose(x, y, norm2_angle(th)), before, dt, sta.stalled)
        self.last_sta = sta
        half = math.radians(report.rvel) / (reflector.params.diff_conv_factor or 0.0056)
        reflector.apply_report(
            dataclasses.replace(report, leftv=report.vel - half, rightv=report.vel + half, battery=sta.battery)
        )
        self._step_taken(now, self.identity.robot_class if self.identity else "USARSim")

    # ------------------------------------------------------------------ output
    def reflect(self) -> None:
        """Reflect phase: the setpoints as one DRIVE, when it changed or is due again."""
        if self.state != LinkState.CONNECTED or self.wheels is None:
            return
        vel, rvel = self.setpoints()
        self._commanded = vel
        spin = self.wheels.spin_speeds(vel, rvel)
        now = self.clock.now()
        if spin != self._drive_sent or now - self._drive_at >= REFRESH:
            self._drive_sent, self._drive_at = spin, now
            self.send_message(Drive(*spin).message())

    def rot_decel(self) -> float:
        """The robot's rotational deceleration (its acceleration when the parameters give none)."""
        params = self.reflector.params
        return float(params.rot_decel or params.rot_accel or 100.0)


register_link(SCHEME, GamebotsLink)
