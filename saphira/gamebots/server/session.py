"""One Gamebots client socket on the server side: its robot, its commands and its messages.

A client connects and is greeted, as USARSim greets it, with ``NFO {Gametype …} {Level …} {TimeLimit …}``;
``GETSTARTPOSES`` is answered with the world's start poses (``NFO {StartPoses n} {name x,y,z r,p,y} …``).
It sends ``INIT {ClassName USARBot.P2AT} {Location x,y,z}`` (or ``{Start name}``, a start pose) and
gets a robot of that class at that place in the shared :class:`~saphira.sim.simulation.Simulation` (so
robots of different sockets see and block each other). From then on each world step sends it ``STA``
and one ``SEN {Type Sonar}`` with the whole ring, each sonar's latest reading, as USARSim 3.x does and
Player's driver assumes (and one SEN for the laser when the server has one); ``GETGEO`` and ``GETCONF``
are answered at once; ``DRIVE`` sets the wheel spin speeds, which go to the robot model as wheel speeds
(its acceleration limits and stall on contact apply); ``SET {Type Odometry} {Opcode RESET}`` zeroes the
odometry. ``CAMERA`` is accepted (there is no camera to move), as is the joint form of DRIVE (a Pioneer
has no other joints: logged, ignored), and so is any other SET (logged).
A bad line is logged with the client's address and the offending text and answered with an
``ERR {Message …}`` line; the session goes on. Past :data:`LOGGED_REFUSALS` in a :data:`LOG_INTERVAL`,
a client's bad lines are counted and logged as one line per interval, not one line each (a flood).
INIT is refused when the server already has ``max_robots`` robots, when the client's host has its
share (the server's ``may_spawn`` says), or for a place outside the world's bounds (or not a finite
number of mm).
When the client goes, its robot leaves the world, as USARSim's bot does.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from saphira.client.transport import Transport, TransportClosed
from saphira.gamebots.codec import (
    Configuration,
    Drive,
    GamebotsError,
    Geometry,
    Init,
    JointDrive,
    LineReader,
    Message,
    SensorGeometry,
    SonarScan,
    Sta,
    StartPoses,
    encode,
    format_number,
    format_vector,
    from_unreal,
    parse,
    read_drive,
    to_unreal,
)
from saphira.gamebots.models import UsarModel, WheelGeometry, model_for, sonar_name
from saphira.gamebots.server.laser import RangeScanner
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.raycast import circle_collides

log = logging.getLogger("saphira.gamebots")

BATTERY_LIFE = 7200.0
"""Seconds of battery a robot starts with; STA's Battery counts them down (USARSim's unit)."""
MAX_ROBOTS = 32
"""Robots one server spawns at most (``saphira sim --max-robots``): each costs every robot's cycle."""
OPEN_WORLD_LIMIT = 1e7
"""mm from the origin a robot may spawn in a world without walls (whose bounds say nothing)."""
GAMETYPE = "USARBotAPI.BotDeathMatch"
"""The game type the NFO greeting names: USARSim's, so clients that check it go on."""
LOG_INTERVAL = 5.0
"""Seconds: a client's refused lines beyond :data:`LOGGED_REFUSALS` are counted and logged once per interval."""
LOGGED_REFUSALS = 5
"""Refused lines of one client logged in full per :data:`LOG_INTERVAL`."""
SONAR_MIN_RANGE = 0.1
SONAR_BEAM = math.radians(30.0)


class GamebotsSession:
    """One client socket and, after its INIT, its robot (see the module docstring)."""

    def __init__(
        self,
        transport: Transport,
        simulation: Simulation,
        laser: RangeScanner | None = None,
        *,
        max_robots: int = MAX_ROBOTS,
        may_spawn: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.transport: Transport | None = transport
        self.max_robots = max_robots
        self.may_spawn = may_spawn
        """Why this client may not spawn a robot now (its host has its share), or None."""
        self.simulation = simulation
        self.laser = laser
        self.reader = LineReader()
        self.robot: SimRobot | None = None
        self.model: UsarModel | None = None
        self.wheels: WheelGeometry | None = None
        self.name = ""
        self.light = False
        self.spin = (0.0, 0.0)
        self.errors = 0
        self.messages_sent = 0
        self.contacts = 0
        self._was_stalled = False
        self.opened_at = time.monotonic()
        """When the client connected (wall clock): the server closes it if no INIT follows in time."""
        self._interval_end = 0.0
        """When (time.monotonic) the current interval of logged refusals ends."""
        self._logged = 0
        """Refused lines logged in full in the current interval."""
        self._unlogged = 0
        """Lines refused and not logged since the last log line about this client."""
        self._last_unlogged = ""

    @property
    def url(self) -> str:
        return self.transport.url if self.transport is not None else "(closed)"

    @property
    def closed(self) -> bool:
        return self.transport is None

    # ------------------------------------------------------------------ input
    def receive(self) -> None:
        """Read and handle every complete line the client has sent."""
        transport = self.transport
        if transport is None:
            return
        try:
            data = transport.read()
            lines = self.reader.feed(data) if data else []
        except TransportClosed:
            self.close("client gone")
            return
        except GamebotsError as exc:
            self.refuse(exc)
            return
        for line in lines:
            try:
                self.handle(parse(line))
            except GamebotsError as exc:
                self.refuse(exc)
            if self.transport is None:
                return

    def refuse(self, error: GamebotsError) -> None:
        """Log a bad line and tell the client why: ``ERR {Message …}``, one word (a value has no spaces),
        so the text's spaces are underscores and anything but printable ASCII outside braces is ``?``."""
        self.errors += 1
        now = time.monotonic()
        if now >= self._interval_end and not self._unlogged:
            self._interval_end, self._logged = now + LOG_INTERVAL, 0
        if self._logged < LOGGED_REFUSALS:
            self._logged += 1
            log.warning("gamebots %s: %s", self.url, error)
        else:
            self._unlogged += 1
            self._last_unlogged = str(error)
        text = "".join(c if "!" <= c <= "~" and c not in "{}" else "_" if c == " " else "?" for c in str(error)[:200])
        self.send(Message.of("ERR", ("Message", text)))

    def log_refused(self, now: float | None = None) -> None:
        """At the end of an interval (``now``, time.monotonic; None: at once), one line: how many lines
        were refused and not logged, and the last of them. The server calls it every step; a flood that
        goes on is only counted in the next interval, so it costs one log line per interval."""
        if not self._unlogged or (now is not None and now < self._interval_end):
            return
        log.warning("gamebots %s: %d more lines refused in %g s (the last: %s)", self.url, self._unlogged,
                    LOG_INTERVAL, self._last_unlogged)  # fmt: skip
        self._unlogged = 0
        if now is not None:  # the flood's next interval logs none in full: it is known already
            self._interval_end, self._logged = now + LOG_INTERVAL, LOGGED_REFUSALS

    def greet(self) -> None:
        """USARSim's first line to a new socket; clients wait for it before they send INIT."""
        level = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.simulation.world.name) or "world"
        self.send(Message.of("NFO", ("Gametype", GAMETYPE), ("Level", level), ("TimeLimit", "0")))

    def start_poses(self) -> StartPoses:
        """The world's start (``position`` or the first home) and its other homes, in Unreal's units."""
        world = self.simulation.world
        places = [world.start_pose] if world.start_pose is not None else []
        places += [home for home in world.homes if home not in places]
        poses = []
        for k, pose in enumerate(places, 1):
            location, yaw = to_unreal(pose[0], pose[1], pose[2])
            poses.append((f"Start{k}", location, (0.0, 0.0, yaw)))
        return StartPoses(tuple(poses))

    def handle(self, message: Message) -> None:
        kind = message.kind
        if kind == "GETSTARTPOSES":
            self.send(self.start_poses().message())
        elif kind == "SET":
            self._set(message)
        elif kind == "INIT":
            self._init(self._at_start(message) or Init.read(message))
        elif kind == "DRIVE":
            self._drive(read_drive(message))
        elif kind == "GETGEO":
            self._require_robot(kind)
            self.send(self.geometry(message.get("Type") or "Robot"))
        elif kind == "GETCONF":
            self._require_robot(kind)
            self.send(self.configuration(message.get("Type") or "Robot"))
        elif kind == "CAMERA":
            log.debug("gamebots %s: CAMERA accepted (no camera on this robot)", self.url)
        else:
            raise GamebotsError(f"unknown command {kind}")

    def _at_start(self, message: Message) -> Init | None:
        """``INIT {ClassName …} {Start Start1}``: USARSim's spawn at a named start pose (GETSTARTPOSES)."""
        start = message.get("Start")
        if start is None or message.get("Location") is not None:
            return None
        for name, location, rotation in self.start_poses().poses:
            if name == start:
                return Init(message.require("ClassName"), location, message.get("Name"), rotation)
        known = ", ".join(name for name, _, _ in self.start_poses().poses) or "none"
        raise GamebotsError(f"INIT: no start pose {start!r} in this world (it has {known})")

    def _set(self, message: Message) -> None:
        """``SET {Type Odometry} {Name Odometry} {Opcode RESET}`` (Player sends it); other SETs move joints."""
        robot, _, _ = self._require_robot("SET")
        if message.get("Type") == "Odometry" and (message.get("Opcode") or "").upper() == "RESET":
            robot.cmd_seto()
            log.info("gamebots %s: %s's odometry reset", self.url, self.name)
        else:
            log.info("gamebots %s: a Pioneer has no joint to SET; ignored", self.url)

    def _require_robot(self, kind: str) -> tuple[SimRobot, UsarModel, WheelGeometry]:
        if self.robot is None or self.model is None or self.wheels is None:
            raise GamebotsError(f"{kind} before INIT: spawn a robot first")
        return self.robot, self.model, self.wheels

    def _init(self, init: Init) -> None:
        if self.robot is not None:
            raise GamebotsError(f"this socket already has a robot ({self.name}); one robot per socket")
        if len(self.simulation.robots) >= self.max_robots:
            raise GamebotsError(f"INIT: the server has its {self.max_robots} robots already (--max-robots)")
        if (why := self.may_spawn()) is not None:
            raise GamebotsError(f"INIT: {why}")
        model = model_for(init.class_name)
        params = model.params()
        yaw = init.rotation[2] if init.rotation is not None else 0.0
        place = from_unreal(init.location, yaw)
        x, y, th = place
        self._check_inside(x, y, th)
        self._check_free(x, y, params.robot_radius)
        self.name = init.name or f"{model.class_name.removeprefix('USARBot.')}-{len(self.simulation.robots) + 1}"
        robot = self.simulation.add_robot(params, place, name=self.name)
        robot.cmd_sonar(True)
        self.robot, self.model, self.wheels = robot, model, WheelGeometry.of(model, params)
        log.info("gamebots %s: spawned %s %s at (%.0f, %.0f, %.0f)", self.url, model.class_name, self.name, x, y, th)

    def _check_inside(self, x: float, y: float, th: float) -> None:
        """Refuse a spawn point outside the world's bounds (or, in a world without walls, far out)."""
        if not all(math.isfinite(v) for v in (x, y, th)):
            raise GamebotsError("INIT: Location and Rotation must be finite numbers of metres and radians")
        xmin, ymin, xmax, ymax = self.simulation.world.bounds
        if xmax > xmin and ymax > ymin:
            if not (xmin <= x <= xmax and ymin <= y <= ymax):
                raise GamebotsError(
                    f"INIT: ({x:.6g}, {y:.6g}) mm lies outside the world "
                    f"(x {xmin:.0f}..{xmax:.0f}, y {ymin:.0f}..{ymax:.0f} mm)"
                )
        elif max(abs(x), abs(y)) > OPEN_WORLD_LIMIT:
            raise GamebotsError(f"INIT: ({x:.6g}, {y:.6g}) mm is more than {OPEN_WORLD_LIMIT:.0f} mm out")

    def _check_free(self, x: float, y: float, radius: float) -> None:
        """USARSim refuses a spawn point inside geometry; so do we, saying where (world frame, mm)."""
        if circle_collides((x, y), radius, self.simulation.world.segments):
            raise GamebotsError(f"INIT: a robot at ({x:.0f}, {y:.0f}) mm would stand in a wall")
        for other in self.simulation.robots:
            if math.hypot(other.x - x, other.y - y) < other.radius + radius:
                raise GamebotsError(f"INIT: a robot at ({x:.0f}, {y:.0f}) mm would stand on {other.name}")

    def _drive(self, drive: Drive | JointDrive) -> None:
        robot, model, wheels = self._require_robot("DRIVE")
        if isinstance(drive, JointDrive):
            log.info("gamebots %s: %s has no joint %s; DRIVE ignored", self.url, model.class_name, drive.name)
            return
        left = self.spin[0] if drive.left is None else drive.left
        right = self.spin[1] if drive.right is None else drive.right
        if drive.normalized:
            top = robot.model.max_velocity / (wheels.radius * 1000.0)
            left, right = left / 100.0 * top, right / 100.0 * top
        self.spin = (left, right)
        if drive.light is not None:
            self.light = drive.light
        if drive.flip:
            log.info("gamebots %s: Flip: %s is upright already (a 2-D world)", self.url, self.name)
        robot.cmd_vel2(*wheels.wheel_speeds(left, right))

    # ------------------------------------------------------------------ replies
    def geometry(self, sensor_type: str) -> Message:
        robot, _, wheels = self._require_robot("GETGEO")
        if sensor_type in ("Robot", "GroundVehicle"):
            params = robot.model.params
            size = (params.robot_length / 1000.0, params.robot_width / 1000.0, 0.25)
            return Message.of(
                "GEO", ("Type", "GroundVehicle"), ("Name", self.name), ("Dimensions", format_vector(size)),
                ("COG", format_vector((0.0, 0.0, 0.0))), ("WheelRadius", format_number(wheels.radius)),
                ("WheelSeparation", format_number(wheels.separation)), ("WheelBase", format_number(0.0)),
            )  # fmt: skip
        if sensor_type in ("Sonar", "Range"):
            sensors = []
            for k, (sx, sy, sth) in enumerate(robot.model.sonar_poses):
                location, yaw = to_unreal(float(sx), float(sy), float(sth))
                sensors.append(SensorGeometry(sonar_name(k), location, (0.0, 0.0, yaw)))
            return Geometry(sensor_type, tuple(sensors)).message()
        if sensor_type == "RangeScanner" and self.laser is not None:
            sensor = SensorGeometry(self.laser.name, (self.laser.mount_x, 0.0, 0.0), (0.0, 0.0, 0.0))
            return Geometry(sensor_type, (sensor,)).message()
        return Geometry(sensor_type, ()).message()

    def configuration(self, sensor_type: str) -> Message:
        robot, model, wheels = self._require_robot("GETCONF")
        if sensor_type in ("Robot", "GroundVehicle"):
            top = robot.model.max_velocity / (wheels.radius * 1000.0)
            values: tuple[tuple[str, str], ...] = (
                ("Name", self.name), ("SteeringType", "SkidSteered"), ("Mass", format_number(model.mass)),
                ("MaxSpeed", format_number(top)), ("MaxTorque", format_number(0.0)),
                ("MaxFrontSteer", format_number(0.0)), ("MaxRearSteer", format_number(0.0)),
            )  # fmt: skip
            return Configuration("GroundVehicle", values).message()
        if sensor_type in ("Sonar", "Range"):
            beam = robot.sonar.beam
            sensors = [
                (("Name", sonar_name(k)), ("MaxRange", format_number(beam.max_range / 1000.0)),
                 ("MinRange", format_number(SONAR_MIN_RANGE)), ("BeamAngle", format_number(SONAR_BEAM)))
                for k in range(robot.sonar.count)
            ]  # fmt: skip
            return Message.of("CONF", ("Type", sensor_type), *sensors)
        if sensor_type == "RangeScanner" and self.laser is not None:
            laser = self.laser
            values = (("Name", laser.name), ("MaxRange", format_number(laser.max_range)),
                      ("MinRange", format_number(0.1)), ("Resolution", format_number(laser.resolution)),
                      ("Fov", format_number(laser.fov)))  # fmt: skip  # USARSim's CONF: Fov (FOV in SEN)
            return Configuration(sensor_type, values).message()
        return Configuration(sensor_type, ()).message()

    # ------------------------------------------------------------------ output
    def after_world_step(self) -> None:
        """Count contacts: a stall that starts in this step is one."""
        robot = self.robot
        if robot is None:
            return
        if robot.stalled and not self._was_stalled:
            self.contacts += 1
        self._was_stalled = robot.stalled

    def step_messages(self, time: float) -> list[Message]:
        """What this step sends: STA, the fired sonars' SEN, and the laser's SEN."""
        robot = self.robot
        if robot is None:
            return []
        location, yaw = to_unreal(robot.x, robot.y, robot.th)
        th = math.radians(robot.th)
        velocity = (robot.vel * math.cos(th) / 1000.0, -robot.vel * math.sin(th) / 1000.0, 0.0)
        sta = Sta(time, location, (0.0, yaw, 0.0), velocity, max(0.0, BATTERY_LIFE - time), self.light, robot.stalled)
        messages = [sta.message()]
        robot.take_new_readings()  # the ring keeps every sonar's latest: USARSim sends them all each step
        ranges = tuple((sonar_name(k), float(mm) / 1000.0) for k, mm in enumerate(robot.sonar.ranges))
        if ranges:
            messages.append(SonarScan(time, ranges).message())
        if self.laser is not None:
            messages.append(self.laser.scan(robot, self.simulation, time).message())
        # USARSim 3.x's pose sensors, which Player's us_bot reads: the truth and the dead reckoning.
        messages.append(Message.of("SEN", ("Time", format_number(time)), ("Type", "GroundTruth"),
                                   ("Name", "GroundTruth"), ("Location", format_vector(location)),
                                   ("Orientation", format_vector((0.0, 0.0, yaw)))))  # fmt: skip
        odo = robot.odometry
        odo_location, odo_yaw = to_unreal(odo.x, odo.y, odo.th)
        messages.append(Message.of("SEN", ("Time", format_number(time)), ("Type", "Odometry"), ("Name", "Odometry"),
                                   ("Pose", format_vector((odo_location[0], odo_location[1], odo_yaw)))))  # fmt: skip
        return messages

    def send(self, *messages: Message) -> None:
        transport = self.transport
        if transport is None or not messages:
            return
        try:
            transport.write(b"".join(encode(m) for m in messages))
        except TransportClosed:
            self.close("client gone")
            return
        self.messages_sent += len(messages)

    def close(self, reason: str) -> None:
        """Close the socket; the robot leaves the world."""
        self.log_refused()
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.close()
        if self.robot is not None and self.robot in self.simulation.robots:
            self.simulation.remove_robot(self.robot)
            log.info("gamebots %s: %s removed (%s)", self.url, self.name, reason)
        self.robot = None
