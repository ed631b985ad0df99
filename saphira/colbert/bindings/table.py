"""The binding table: the Saphira API under its manual names, for Colbert (docs/architecture.md §6).

Every name registered here needs its entry in ``docs/colbert.md`` (one bullet line; the shell's
``help`` prints it), which ``tests/test_docs.py`` checks.

Every ``sf*`` name exists only here and in the concept modules registered with it
(the ``bindings_*`` modules of this package). Each binding is one line of a table,
grouped by topic: name, Colbert signature, implementation (a Python call on the robot session), help
text. Bindings that need a robot raise a runtime error naming the function when the evaluator has none.

Choices the manual leaves open, documented here:

* **Pointer out-parameters** (``sfOccBoxRet``, ``sfOccPlaneRet``) take ``&x, &y`` of two ``float``
  variables (Colbert :class:`~saphira.colbert.compile.compiler.Ref` pointers) and store the reading's
  coordinates there. ``sfOccBox`` accepts the manual examples' extra sixth argument and ignores it.
* ``sfLEFT``/``sfRIGHT`` are the occupancy directions; ``sfStalledMotor`` also accepts them, as well
  as the ``0``/``1`` the BumpAndGo example passes (0 = left, 1 = right).
* ``sfSMessage`` and ``sfMessage`` take printf formats, floats included (unlike the original).
* ``sfInitBasicProcs``, ``sfInitControlProcs`` are no-ops: a :class:`~saphira.robot.Robot` always
  runs the reflector tasks and the behavior executive. ``sfInitInterpretationProcs``,
  ``sfInitRegistrationProcs`` and ``sfInitAwareProcs`` start :mod:`saphira.perception`'s task sets;
  ``sfLeftWallHyp``/``sfRightWallHyp`` are ``point *`` (with ``length``), ``sfCurrentEnvironment``
  NULL or the corridor the robot is in. Display and drawing: :mod:`~saphira.colbert.bindings.display`.
* ``sObjInFront()`` (used by the manual's ``approach`` example, undocumented there) is the distance
  along x from the robot's front to the nearest current reading of a sonar pointing within
  :data:`FRONT_CONE` degrees of ahead and lying within :data:`FRONT_MARGIN` of the body's sides;
  5000 if none.
* Raw packets (``packet.act``): ``sfRobotCom*`` send on the link. ``sfHaveClientPacket()`` polls
  without blocking, ``sfWaitClientPacket(ms)`` waits (see :mod:`saphira.colbert.bindings.link`):
  when the ``packets`` task has been removed they read the link themselves; the packet is parsed into
  ``sfRobot`` as it is read, so ``sfProcessClientPacket`` has nothing left to do.
  ``sfReadClient*`` read the current packet's payload, starting with its type byte.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from saphira.behavior.behavior import TurnDir
from saphira.client.artifacts import ArtifactType, Category, Point, create_global_point, create_local_point
from saphira.client.motion import MotionControl
from saphira.client.reflector import RobotStatus
from saphira.client.sensors.device import DeviceBinding, DeviceError, device_types
from saphira.client.sensors.sonar import NO_ECHO, Region
from saphira.colbert.bindings.context import BindingContext, Connection
from saphira.colbert.bindings.link import install_link_bindings
from saphira.colbert.compile.symbols import ColbertRuntimeError, Ref, Slot, parse_type
from saphira.colbert.syntax.limits import MAX_FORMAT_WIDTH
from saphira.core import geometry
from saphira.core.geometry import Pose
from saphira.core.tasks import TaskState
from saphira.perception import Perception, perception_for
from saphira.protocol.commands import Command

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["BindingTable", "Bindings", "c_format", "install_bindings"]

STATUS_CODES = {
    RobotStatus.NOT_CONNECTED: 0,
    RobotStatus.STOPPED: 1,
    RobotStatus.MOVING: 2,
    RobotStatus.STALLED: 3,
    RobotStatus.NO_HIGH_POWER: 4,
}

_FORMAT_RE = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?([diouxXeEfFgGcs%])")


def c_format(fmt: str, args: tuple[Any, ...]) -> str:
    """printf-style formatting with C's conversions; numbers are converted to what the spec wants."""
    values = list(args)

    def take() -> Any:
        return values.pop(0) if values else 0

    def one(match: re.Match[str]) -> str:
        flags, width, precision, conv = match.groups()
        if conv == "%":
            return "%"
        if width == "*":
            width = str(int(take()))
        if precision == "*":
            precision = str(int(take()))
        for part, number in (("width", width), ("precision", precision)):
            if number is not None and abs(int(number)) > MAX_FORMAT_WIDTH:
                raise ColbertRuntimeError(f"format {part} {number} in '{match.group(0)}' is over {MAX_FORMAT_WIDTH}")
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        value = take()
        if conv in "diu":
            return (spec + "d") % int(value or 0)
        if conv in "oxX":
            return (spec + conv) % int(value or 0)
        if conv in "eEfFgG":
            return (spec + conv) % float(value or 0.0)
        if conv == "c":
            return (spec + "s") % (chr(value) if isinstance(value, int) else str(value)[:1])
        return (spec + "s") % ("(null)" if value is None else value)

    return _FORMAT_RE.sub(one, fmt)


class Bindings:
    """What every binding module shares: its :class:`BindingContext` (``ctx``), the robot checked on use,
    messages, raw packets from the robot, and the helpers of this module's tables."""

    def __init__(self, ctx: BindingContext) -> None:
        self.ctx = ctx
        self.packets: deque[tuple[int, bytes]] = deque(maxlen=64)
        """Packets from the robot with the cycle each came in; only fresh ones are handed out."""
        self.packet = b""
        self.read_pos = 0
        if ctx.robot is not None:
            robot = ctx.robot
            robot.link.on_packet_in.connect(lambda packet: self.packets.append((robot.clock.cycle, packet)))

    @property
    def robot(self) -> Robot:
        if self.ctx.robot is None:
            raise ColbertRuntimeError("this needs a robot session")
        return self.ctx.robot

    @property
    def motion(self) -> MotionControl:
        return self.robot.motion

    @property
    def pose(self) -> Pose:
        return self.robot.state.global_pose

    def say(self, fmt: str, *args: Any) -> None:
        text = c_format(fmt, args)
        self.ctx.say(text)
        if self.ctx.robot is not None:  # a link whose peer shows messages (Flat's message field) shows it too
            self.ctx.robot.link.show_message(text)

    def stalled_motor(self, which: int) -> int:
        state = self.robot.state
        if which in (0, Region.LEFT):
            return int(state.stall_left)
        if which in (1, Region.RIGHT):
            return int(state.stall_right)
        raise ColbertRuntimeError(f"sfStalledMotor: {which} is neither sfLEFT nor sfRIGHT")

    def send_two_bytes(self, command: int, high: int, low: int) -> None:
        """``sfRobotCom2Bytes``: the argument is two bytes; a value outside 0..255 is an error, not wrapped."""
        for name, value in (("high", high), ("low", low)):
            if not 0 <= value <= 255:
                raise ColbertRuntimeError(f"sfRobotCom2Bytes: the {name} byte {value} is outside 0..255")
        self.send(command, (high << 8) | low)

    def obj_in_front(self) -> int:
        radius = self.robot.params.robot_radius
        nearest = float(NO_ECHO)
        for bucket in self.robot.sonar.buckets:
            ahead = abs(bucket.pose.th) <= FRONT_CONE and bucket.range < NO_ECHO and bucket.x > 0.0
            if ahead and abs(bucket.y) <= radius + FRONT_MARGIN:
                nearest = min(nearest, bucket.x - radius)
        return NO_ECHO if nearest >= NO_ECHO else max(0, round(nearest))

    def occ_ret(self, result: tuple[int, float, float], x: Ref | None, y: Ref | None) -> int:
        for ref, value in ((x, result[1]), (y, result[2])):
            if ref is None:
                raise ColbertRuntimeError("null pointer: pass &x and &y of two float variables")
            ref.set(float(value))
        return result[0]

    def sonar_bucket(self, index: int) -> Any:
        buckets = self.robot.sonar.buckets
        if not 0 <= index < len(buckets):
            raise ColbertRuntimeError(f"there is no sonar {index} (this robot has {len(buckets)})")
        return buckets[index]

    def turn_dir(self) -> int:
        return int(self.robot.executive.preferred_turn_dir)

    def set_turn_dir(self, value: int) -> None:
        if value not in (TurnDir.LEFT, TurnDir.RIGHT):
            raise ColbertRuntimeError(f"sfPreferredTurnDir must be sfLEFTTURN or sfRIGHTTURN, not {value}")
        self.robot.executive.preferred_turn_dir = TurnDir(value)

    @property
    def perception(self) -> Perception:
        robot = self.robot
        return perception_for(robot.reflector, robot.scheduler)

    def environment(self) -> Any:
        return None if self.ctx.robot is None else self.perception.current_environment

    def local_point(self, x: float, y: float, th: float) -> Point:
        return create_local_point(self.pose, x, y, th)

    def global_point(self, x: float, y: float, th: float) -> Point:
        return create_global_point(self.pose, x, y, th)

    def suspend_task(self, name: str, cycles: int) -> None:
        task = self.ctx.scheduler.find(name)
        if task is None:
            raise ColbertRuntimeError(f"no activity or behavior named '{name}'")
        self.ctx.scheduler.suspend(task, max(0, cycles))

    def task_signal(self, name: str, what: str) -> None:
        self.ctx.runtime.signal(None, what, name)

    def start_activity(self, schema: str, iname: str, timeout: int, suspend: int, *args: Any) -> int:
        try:
            self.ctx.runtime.start(schema, args, iname=iname or None, timeout=timeout, suspend=bool(suspend))
        except ColbertRuntimeError as exc:
            self.ctx.say(f"sfStartActivity: {exc}")
            return -1
        return 0

    def point_op(self, target: Any, pose: Pose) -> None:
        if target is None:
            raise ColbertRuntimeError("null pointer dereference")
        target.x, target.y, target.th = pose.x, pose.y, pose.th

    def connect(self, port: int, name: str) -> int:
        kind = {_LOCALPORT: "local", _TTYPORT: "serial", _TCPPORT: "server"}.get(port)
        if kind is None:
            raise ColbertRuntimeError(f"sfConnectToRobot: unknown port type {port}")
        connection = self.ctx.connection
        try:
            if connection is None:
                raise ColbertRuntimeError("there is no robot connection in this session")
            connection.connect(kind, name or None, self.ctx.say)
        except Exception as exc:  # the manual's function reports failure as 0
            self.ctx.say(f"sfConnectToRobot: {exc}")
            return 0
        return 1

    def connection(self, name: str) -> Connection:
        """The session's robot connection; an error naming the binding ``name`` when it has none."""
        if self.ctx.connection is None:
            raise ColbertRuntimeError(f"{name}: there is no robot connection in this session")
        return self.ctx.connection

    # ---- raw packets (packet.act)
    def send(self, command: int, arg: Any = None) -> None:
        if not self.robot.link.send_command(command, arg):
            raise ColbertRuntimeError("not connected: the command could not be sent")

    def send_string(self, command: int, text: str) -> None:
        """``sfRobotComStr``: the string as the robot's generation reads it (PSOS: NUL-terminated)."""
        self.send(command, self.robot.link.string_arg(text))

    def send_counted(self, command: int, text: str, n: int) -> None:
        """``sfRobotComStrn``: a count-prefixed string of ``n`` bytes (padded with NULs, as C's would)."""
        data = text.encode("latin-1", "replace")[: max(0, n)]
        self.send(command, self.robot.link.string_arg(data.ljust(max(0, n), b"\0"), counted=True))

    def have_packet(self) -> int:
        """``sfWaitClientPacket``'s test: a packet of this cycle or the last one is made current.

        Older ones (the connection's handshake replies, SIPs nobody waited for) are dropped: a wait is
        for the robot's next packets, not for what came in before anyone asked."""
        robot = self.robot
        packets = self.packets
        while packets and packets[0][0] < robot.clock.cycle - 1:
            packets.popleft()
        if not packets and "packets" not in robot.scheduler:
            robot.link.receive()
        if not packets:
            return 0
        self.packet = packets.popleft()[1]
        self.read_pos = 0
        return 1

    def read(self, n: int) -> bytes:
        data = self.packet[self.read_pos : self.read_pos + n]
        self.read_pos += len(data)
        return data.ljust(n, b"\0")

    def read_string(self) -> str:
        rest = self.packet[self.read_pos :]
        text, _, _ = rest.partition(b"\0")
        self.read_pos += len(text) + 1
        return text.decode("latin-1")


FRONT_CONE = 35.0
"""sObjInFront: sonars pointing within this many degrees of straight ahead count."""
FRONT_MARGIN = 300.0
"""sObjInFront: readings up to this far (mm) beside the robot's body count as in front."""

_LOCALPORT, _TTYPORT, _TCPPORT = 1, 2, 3
_DISPLAY_SETTINGS = ("DISPLAY", "GLOBAL", "WAKE", "STEP", "OCCGRID")


def _set_pose(robot: Robot, ax: float | None = None, ay: float | None = None, ath: float | None = None) -> None:
    s = robot.state
    x, y, th = s.ax if ax is None else ax, s.ay if ay is None else ay, s.ath if ath is None else ath
    robot.reflector.set_global_pose(x, y, th)


# ---- structs (docs/colbert.md §8) -------------------------------------------------------------------
def _robot_slot(
    name: str, type: str, get: Callable[[Robot], Any], set: Callable[[Robot, Any], None] | None = None
) -> Slot:
    return Slot(name, parse_type(type), getter=get, setter=set)


def _attr_slot(name: str, type: str, convert: Callable[[Any], Any], default: Any = None) -> Slot:
    """A slot over an attribute that needs converting (bools and enums read as ints)."""
    return Slot(
        name,
        parse_type(type),
        getter=lambda p: convert(getattr(p, name, default)) if type == "int" else getattr(p, name, default),
        setter=lambda p, v: setattr(p, name, convert(v)),
    )


ROBOT_SLOTS = [
    _robot_slot("x", "float", lambda r: 0.0),
    _robot_slot("y", "float", lambda r: 0.0),
    _robot_slot("th", "float", lambda r: 0.0),
    _robot_slot("ax", "float", lambda r: r.state.ax, lambda r, v: _set_pose(r, ax=v)),
    _robot_slot("ay", "float", lambda r: r.state.ay, lambda r, v: _set_pose(r, ay=v)),
    _robot_slot("ath", "float", lambda r: r.state.ath, lambda r, v: _set_pose(r, ath=v)),
    _robot_slot("leftv", "float", lambda r: r.state.leftv),
    _robot_slot("rightv", "float", lambda r: r.state.rightv),
    _robot_slot("vel", "float", lambda r: r.state.vel),
    _robot_slot("rvel", "float", lambda r: r.state.rvel),
    _robot_slot("status", "int", lambda r: STATUS_CODES[r.state.status]),
    _robot_slot("battery", "float", lambda r: r.state.battery),
    _robot_slot("bumpers", "int", lambda r: r.state.stall_word),
    _robot_slot("digoutput", "int", lambda r: r.state.digout),
    _robot_slot("diginput", "int", lambda r: r.state.digin),
    _robot_slot("analog", "int", lambda r: r.state.analog),
    _robot_slot("control", "float", lambda r: r.state.control),
    _robot_slot("compass", "float", lambda r: r.state.compass or 0.0),
    _robot_slot("motor_packet_count", "int", lambda r: r.state.motor_packet_count),
    _robot_slot("sonar_packet_count", "int", lambda r: r.state.sonar_packet_count),
    _robot_slot("vision_packet_count", "int", lambda r: r.reflector.accessories.state.vision_packet_count),
    _robot_slot("temperature", "int", lambda r: r.state.temperature or 0),
    _robot_slot("ptu", "int", lambda r: r.reflector.accessories.state.ptu),
]

ROBOT_HELP = (
    "the robot (sfRobot), as last reported. x, y, th are its pose in its own frame, the LPS (local "
    "perceptual space), whose origin it is: always 0. Its pose in the global frame is ax, ay, ath (mm, mm, "
    "deg), the registered position the information area shows; move it with sfMoveRobot. leftv, rightv, "
    "vel (mm/s), rvel (deg/s): wheel and robot velocities; status: STATUS_STOPPED, STATUS_MOVING...; "
    "bumpers: the motor-stall bits (sfStalledMotor)."
)
"""``help robot``'s text (manual §3.1, ``struct robot``)."""

POINT_SLOTS = [
    *(Slot(n, parse_type("float"), attr=n) for n in ("x", "y", "th", "ax", "ay", "ath")),
    *(Slot(n, parse_type("int"), attr=n) for n in ("type", "id", "matched", "announced")),
    _attr_slot("cat", "int", int),
    _attr_slot("snew", "int", int),
    _attr_slot("viewable", "int", int),
    _attr_slot("width", "float", float, 0.0),
    _attr_slot("length", "float", float, 0.0),
    Slot("name", parse_type("string"), getter=lambda p: getattr(p, "name", "")),  # a world goal's; read only
]


def _constants() -> list[tuple[str, str, Any, str]]:
    """(name, type, value, help) of every constant."""
    return [
        # ---- task states (docs/colbert.md §4)
        *((f"sf{s.name}", "int", int(s), f"task state {s.name}") for s in TaskState),
        # ---- turn directions (§6.7)
        ("sfLEFTTURN", "int", 1, "preferred turn direction: left"),
        ("sfRIGHTTURN", "int", -1, "preferred turn direction: right"),
        ("sfNOTURN", "int", 0, "no preferred turn direction"),
        # ---- occupancy directions and buffers (§8.4); sfLEFT/sfRIGHT also name stalled motors
        *((f"sf{r.name}", "int", int(r), f"occupancy direction/source {r.name}") for r in Region),
        # ---- robot status (§3.1)
        *((f"STATUS_{s.name}", "int", code, f"sfRobot.status: {s.value}") for s, code in STATUS_CODES.items()),
        # ---- artifacts (§8.1-§8.2)
        ("NULL", "ptr", None, "the null pointer"),
        *((t.name, "int", int(t), f"artifact type {t.name}") for t in ArtifactType),
        *(
            (f"sf{t}", "int", int(ArtifactType[t]), f"artifact type for sf*Artifact: {t}")
            for t in ("CORRIDOR", "DOOR", "JUNCTION", "WALL", "LANE", "POINT")
        ),
        *((c.name, "int", int(c), f"artifact category {c.name}") for c in Category),
        # ---- connection (§5.7)
        ("sfLOCALPORT", "int", _LOCALPORT, "sfConnectToRobot: the simulator on this host"),
        ("sfTTYPORT", "int", _TTYPORT, "sfConnectToRobot: a serial port"),
        ("sfTCPPORT", "int", _TCPPORT, "sfConnectToRobot: a TCP server"),
        ("sfCOMLOCAL", "string", "", "sfConnectToRobot: the default local connection"),
        ("sfCOM1", "string", "/dev/ttyS0", "first serial port"),
        ("sfCOM2", "string", "/dev/ttyS1", "second serial port"),
        # ---- client commands (§5.4), e.g. sfCOMVEL
        *((f"sfCOM{c.name}", "int", int(c), f"client command {c.name} ({int(c)})") for c in Command),
        # ---- display state (§11.5)
        *((f"sf{d}", "int", i, f"display setting {d}") for i, d in enumerate(_DISPLAY_SETTINGS)),
        # ---- C's truth values, as the manual's examples write them (sfSetDisplayState(sfSTEP, TRUE))
        ("TRUE", "int", 1, "C's true, as the manual writes it (1)"),
        ("FALSE", "int", 0, "C's false, as the manual writes it (0)"),
    ]


def _variables(s: Bindings) -> list[tuple[str, str, Callable[[], Any], Callable[[Any], None] | None, str]]:
    """(name, type, getter, setter, help) of every linked variable."""
    ctx = s.ctx

    def setting(name: str, key: str, convert: Callable[[Any], Any] = str) -> tuple[Any, Any]:
        def get() -> Any:
            return convert(s.connection(name).settings[key])

        def put(value: Any) -> None:
            s.connection(name).settings[key] = str(value)

        return get, put

    def attr(owner: Callable[[], Any], name: str, get: Callable[[Any], Any], put: Callable[[Any], Any]) -> Any:
        return (lambda: get(getattr(owner(), name))), (lambda v: setattr(owner(), name, put(v)))

    return [
        ("sfRobot", "robot", lambda: s.robot, None, "the robot as last reported (help robot)"),
        ("sfBehaviorControl", "int", *attr(lambda: s.motion, "behavior_control", int, bool), "1: behaviors drive"),
        ("sfPreferredTurnDir", "int", s.turn_dir, s.set_turn_dir, "sfLEFTTURN or sfRIGHTTURN when blocked"),
        ("sfIsConnected", "int", lambda: int(ctx.robot is not None and ctx.robot.connected), None, "1 while connected"),
        ("sfLoadDirectory", "string", lambda: str(ctx.load_directory), ctx.change_directory, "the load directory"),
        ("sfCurrentEnvironment", "point *", s.environment, None, "the artifact the robot is in, or NULL"),
        ("sfLeftWallHyp", "point *", lambda: s.perception.left_wall, None, "wall hypothesis on the left"),
        ("sfRightWallHyp", "point *", lambda: s.perception.right_wall, None, "wall hypothesis on the right"),
        (
            "add_new_features",
            "int",
            *attr(lambda: s.perception.registration, "add_new_features", int, bool),
            "1: unmatched sensed corridors and doorways become map artifacts",
        ),
        (
            "snap_to_right_angle_grid",
            "int",
            *attr(lambda: s.perception.registration, "snap_to_right_angle_grid", int, bool),
            "1: corridors found by map building are aligned to multiples of 90 degrees",
        ),
        ("sfFrontMaxRange", "float", *attr(lambda: s.robot.sonar, "front_max_range", float, float), "front range (mm)"),
        ("sfComSerial", "string", *setting("sfComSerial", "serial"), "serial port"),
        ("sfSerialBaud", "int", *setting("sfSerialBaud", "baud", int), "serial baud rate"),
        ("sfComPipe", "string", *setting("sfComPipe", "local"), "local connection"),
        ("sfComServer", "string", *setting("sfComServer", "server"), "TCP server host"),
    ]


def _functions(s: Bindings) -> list[tuple[str, str, Callable[..., Any], str]]:
    """(name, signature, implementation, help) of every function; '...' in a signature means varargs."""
    ctx, sched, g = s.ctx, s.ctx.scheduler, geometry

    def m(method: str) -> Callable[..., Any]:
        return lambda *a: getattr(s.motion, method)(*a)

    def pl(method: str) -> Callable[..., Any]:
        return lambda *a: getattr(s.robot.reflector.pointlist, method)(*a)

    def pts(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *a: fn(*map(_nn, a))

    def into(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *a: s.point_op(a[-1], fn(*map(_nn, a[:-1])))

    def occ(box: bool) -> Callable[..., Any]:
        def run(xy: int, a: int, b: int, c: int, d: int, *rest: Any) -> int:
            son = s.robot.sonar
            if box:
                result = son.occ_box_ret(Region(xy), a, b, c, d)
            else:
                result = son.occ_plane_ret(Region(xy), Region(a), b, c, d)
            return s.occ_ret(result, *rest[:2]) if len(rest) == 2 and isinstance(rest[0], Ref | None) else result[0]

        return run

    return [
        # ---- direct motion (§4.2)
        ("sfSetVelocity", "void(int)", m("set_velocity"), "translational velocity setpoint (mm/s)"),
        ("sfSetRVelocity", "void(int)", m("set_rvelocity"), "rotational velocity setpoint (deg/s, + left)"),
        ("sfSetHeading", "void(int)", m("set_heading"), "absolute heading setpoint (deg, odometric frame)"),
        ("sfSetDHeading", "void(int)", m("set_dheading"), "change the heading setpoint by d degrees"),
        ("sfSetPosition", "void(int)", m("set_position"), "move d mm (negative: back)"),
        ("sfSetMaxVelocity", "void(int)", m("set_max_velocity"), "top speed of position moves (mm/s)"),
        ("sfDonePosition", "int(int)", m("done_position"), "1 once within tol mm of the commanded position"),
        ("sfDoneHeading", "int(int)", m("done_heading"), "1 once within tol degrees of the commanded heading"),
        ("sfTargetVel", "float()", m("target_vel"), "the velocity setpoint being reflected (mm/s)"),
        ("sfTargetHead", "float()", m("target_head"), "the heading setpoint (deg)"),
        ("sfMoveRobot", "void(float, float, float)", lambda *a: s.robot.reflector.move_robot(*a), "shift the pose"),
        # ---- stalls and sonar (§3.1-§3.3)
        ("sfStalledMotor", "int(int)", s.stalled_motor, "1 if the motor on side sfLEFT (0) or sfRIGHT (1) stalled"),
        ("sfIsStalled", "int()", lambda: s.robot.state.stalled, "1 if either motor is stalled"),
        ("sfSonarRange", "int(int)", lambda n: s.sonar_bucket(n).range, "last range of sonar n (mm; 5000: none)"),
        ("sfSonarXCoord", "float(int)", lambda n: s.sonar_bucket(n).x, "x of sonar n's last reading (robot frame)"),
        ("sfSonarYCoord", "float(int)", lambda n: s.sonar_bucket(n).y, "y of sonar n's last reading (robot frame)"),
        ("sfSonarNew", "int(int)", lambda n: s.robot.sonar.take_new(s.sonar_bucket(n).index), "1 once per reading"),
        ("sfSetFrontBuffer", "void(int)", lambda n: s.robot.sonar.set_front_buffer(n), "front buffer size; 0 clears"),
        ("sfSetSideBuffer", "void(int)", lambda n: s.robot.sonar.set_side_buffer(n), "side buffer size; 0 clears"),
        ("sObjInFront", "int()", s.obj_in_front, "mm from the robot's front to the nearest reading ahead"),
        # ---- occupancy (§8.4)
        ("sfOccBox", "int(int, int, int, int, int, ...)", occ(True), "nearest reading in box cx, cy, h, w; 5000: none"),
        ("sfOccBoxRet", "int(int, int, int, int, int, float *, float *)", occ(True), "sfOccBox, storing x, y"),
        ("sfOccPlane", "int(int, int, int, int, int)", occ(False), "nearest reading beyond d between s1, s2"),
        ("sfOccPlaneRet", "int(int, int, int, int, int, float *, float *)", occ(False), "sfOccPlane, storing x, y"),
        # ---- artifacts and the pointlist (§8.2)
        ("sfCreateLocalPoint", "point *(float, float, float)", s.local_point, "a new point at LPS x, y, th"),
        ("sfCreateGlobalPoint", "point *(float, float, float)", s.global_point, "a new point at global x, y, th"),
        (
            "sfCreateLocalArtifact",
            "point *(int, int, float, float, float, float, float)",
            pl("create_local_artifact"),
            "new artifact (type, id, x, y, th, width, length) on the pointlist",
        ),
        (
            "sfCreateGlobalArtifact",
            "point *(int, int, float, float, float, float, float)",
            pl("create_global_artifact"),
            "the same from global coordinates",
        ),
        ("sfAddPoint", "void(point *)", pts(pl("add")), "keep p updated as the robot moves"),
        ("sfAddPointCheck", "void(point *)", pts(pl("add")), "sfAddPoint unless already there"),
        ("sfRemPoint", "void(point *)", pts(pl("remove")), "take p off the pointlist"),
        ("sfFindArtifact", "point *(int)", pl("find"), "the artifact with that id, or NULL"),
        ("sfFindGoal", "point *(string)", pl("find_goal"), "the world goal of that name, or NULL"),
        ("sfRemArtifact", "void(int)", pl("remove_id"), "remove the artifact with that id"),
        ("sfSetLocalCoords", "void(point *)", lambda p: _nn(p).set_local_coords(s.pose), "local from global"),
        ("sfSetGlobalCoords", "void(point *)", lambda p: _nn(p).set_global_coords(s.pose), "global from local"),
        # ---- geometry (§8.3)
        ("sfNormAngle", "float(float)", g.norm_angle, "angle in [0, 360)"),
        ("sfNorm2Angle", "float(float)", g.norm2_angle, "angle in (-180, 180]"),
        ("sfNorm3Angle", "float(float)", g.norm3_angle, "angle folded into [-90, 90]"),
        ("sfAddAngle", "float(float, float)", g.add_angle, "a1 + a2 in [0, 360)"),
        ("sfSubAngle", "float(float, float)", g.sub_angle, "a1 - a2 in [0, 360)"),
        ("sfAdd2Angle", "float(float, float)", g.add2_angle, "a1 + a2 in (-180, 180]"),
        ("sfSub2Angle", "float(float, float)", g.sub2_angle, "a1 - a2 in (-180, 180]"),
        ("sfPointPhi", "float(point *)", pts(g.point_phi), "bearing of p from the robot (deg)"),
        ("sfPointDist", "float(point *)", pts(g.point_dist), "distance from the robot to p (mm)"),
        ("sfPointNormalDist", "float(point *)", pts(g.point_normal_dist), "signed distance to the line p (left +)"),
        ("sfPointDistPoint", "float(point *, point *)", pts(g.point_dist_point), "distance between p and q"),
        ("sfPointNormalDistPoint", "float(point *, point *)", pts(g.point_normal_dist_point), "q to the line p"),
        ("sfPointXo", "float(point *)", pts(g.point_xo), "the robot's x in p's frame"),
        ("sfPointYo", "float(point *)", pts(g.point_yo), "the robot's y in p's frame"),
        ("sfPointXoPoint", "float(point *, point *)", pts(g.point_xo_point), "q's x in p's frame"),
        ("sfPointYoPoint", "float(point *, point *)", pts(g.point_yo_point), "q's y in p's frame"),
        ("sfPointBaricenter", "void(point *, point *, point *)", into(g.point_baricenter), "r = midpoint of p, q"),
        ("sfPointMove", "void(point *, float, float, point *)", into(g.point_move), "r = p moved by dx, dy"),
        ("sfChangeVP", "void(point *, point *, point *)", into(g.change_vp), "r = q expressed in p's frame"),
        ("sfUnchangeVP", "void(point *, point *, point *)", into(g.unchange_vp), "r = q (in p's frame) in the LPS"),
        # ---- tasks and activities (§2.3, §7.9)
        ("sfGetTaskState", "int(string)", sched.get_task_state, "state of the named task, sfINACTIVE if none"),
        ("sfTaskFinished", "int(string)", sched.task_finished, "1 finished, 2 absent or removed, 0 running"),
        ("sfTaskSuspended", "int(string)", sched.task_suspended, "1 if suspended"),
        ("sfSuspendTask", "void(string, int)", s.suspend_task, "suspend for n cycles (0: until resumed)"),
        ("sfResumeTask", "void(string)", lambda n: s.task_signal(n, "resume"), "resume the named task"),
        ("sfInterruptTask", "void(string)", lambda n: s.task_signal(n, "interrupt"), "interrupt the named task"),
        ("sfRemoveTask", "void(string)", lambda n: s.task_signal(n, "remove"), "remove the named task"),
        ("sfStartActivity", "int(string, string, int, int, ...)", s.start_activity, "start schema; 0 ok, -1 failed"),
        # ---- messages and help (§7.13, §11)
        ("sfSMessage", "void(string, ...)", s.say, "print a printf-formatted message"),
        ("sfMessage", "void(string, ...)", s.say, "print a printf-formatted message"),
        ("sfAddHelp", "void(string, string)", ctx.add_help, "add help text for a name"),
        ("sfGetHelp", "string(string)", lambda n: ctx.get_help(n) or "", 'help text of a name ("" if none)'),
        # ---- connection and micro-task sets (§2.4, §5.7)
        ("sfConnectToRobot", "int(int, string)", s.connect, "connect (sfLOCALPORT..., name); 1 on success"),
        ("sfDisconnectFromRobot", "void()", lambda: s.robot.disconnect(), "send close and shut the connection"),
        ("sfResetRobotVars", "void()", m("reset"), "forget every setpoint"),
        *((name, "void()", lambda: None, "no-op: this layer always runs") for name in _NO_OPS),
        ("sfInitInterpretationProcs", "void()", lambda: s.perception.start_interpretation(), "find walls, doors"),
        ("sfInitRegistrationProcs", "void()", lambda: s.perception.start_registration(), "register on the map"),
        ("sfInitAwareProcs", "void()", lambda: s.perception.start_awareness(), "track sfCurrentEnvironment"),
        ("sfInitLocalizationProcs", "void()", lambda: s.perception.start_localization(), "Monte Carlo localization"),
        ("sfGlobalLocalize", "void()", lambda: s.perception.start_localization(True), "find the pose on the map"),
        # ---- raw packets (§5.7, packet.act)
        ("sfRobotCom", "void(int)", lambda c: s.send(c), "send a command without argument"),
        ("sfRobotComInt", "void(int, int)", lambda c, a: s.send(c, a), "send a command with an integer argument"),
        (
            "sfRobotCom2Bytes",
            "void(int, int, int)",
            s.send_two_bytes,
            "send a command with an integer made of two bytes (high, low)",
        ),
        ("sfRobotComStr", "void(int, string)", s.send_string, "send a command with a string argument"),
        ("sfRobotComStrn", "void(int, string, int)", s.send_counted, "send n characters, count-prefixed"),
        ("sfHaveClientPacket", "int()", s.have_packet, "1 if a packet arrived (it becomes the current one)"),
        ("sfProcessClientPacket", "void(int)", lambda t: None, "no-op: packets are parsed as they are read"),
        ("sfClientBytes", "int()", lambda: len(s.packet) - s.read_pos, "bytes left in the current packet"),
        ("sfReadClientByte", "int()", lambda: s.read(1)[0], "next byte of the current packet"),
        ("sfReadClientSint", "int()", lambda: int.from_bytes(s.read(2), "little", signed=True), "next int16"),
        ("sfReadClientUsint", "int()", lambda: int.from_bytes(s.read(2), "little"), "next uint16"),
        ("sfReadClientWord", "int()", lambda: int.from_bytes(s.read(4), "little", signed=True), "next int32"),
        ("sfReadClientString", "string()", s.read_string, "next NUL-terminated string"),
    ]


_NO_OPS = ("sfInitBasicProcs", "sfInitControlProcs")


def _nn(p: Any) -> Any:
    if p is None:
        raise ColbertRuntimeError("null pointer dereference")
    return p


_SIGNATURE_RE = re.compile(r"^\s*([^()]+?)\s*\((.*)\)\s*$")


def _signature(text: str) -> tuple[str, list[str], bool]:
    match = _SIGNATURE_RE.match(text)
    assert match is not None, text
    args = [a.strip() for a in match.group(2).split(",") if a.strip()]
    varargs = bool(args) and args[-1] == "..."
    return match.group(1), [a for a in args if a != "..."], varargs


@dataclass
class BindingTable:
    """One concept module's bindings, in the shapes of this module's tables (see :func:`install_bindings`)."""

    structs: list[tuple[str, list[Slot], Callable[[], Any] | None, str]] = field(default_factory=list)
    constants: list[tuple[str, str, Any, str]] = field(default_factory=list)
    variables: list[tuple[str, str, Callable[[], Any], Callable[[Any], None] | None, str]] = field(default_factory=list)
    functions: list[tuple[str, str, Callable[..., Any], str]] = field(default_factory=list)


def install_bindings(ctx: BindingContext) -> None:
    """Register the whole Saphira API of the table above, and the predefined behaviors, in ``ctx``.

    The concept modules of this package (``robot``, ``tasks``, ``session``, ``accessories``, ``display``,
    ``maps``, ``flat``) add their own :class:`BindingTable` after this module's tables, in that
    order; then every registered device its built-ins (:mod:`saphira.client.sensors.device`); ``link``
    installs its own.
    """
    from saphira.colbert.bindings import (
        accessories,
        display,
        flat,
        maps,
        robot,
        session,
        tasks,
    )

    s = Bindings(ctx)
    ctx.add_struct("robot", {slot.name: slot for slot in ROBOT_SLOTS}, help=ROBOT_HELP)
    ctx.add_struct("point", {slot.name: slot for slot in POINT_SLOTS}, factory=Point, help="an artifact")
    tables = [
        BindingTable(constants=_constants(), variables=_variables(s), functions=_functions(s)),
        *(
            module.table(s)
            for module in (
                robot,
                tasks,
                session,
                accessories,
                display,
                maps,
                flat,
            )
        ),
    ]
    for table in tables:
        for name, slots, factory, text in table.structs:
            ctx.add_struct(name, {slot.name: slot for slot in slots}, factory=factory, help=text)
        for name, ctype, value, text in table.constants:
            ctx.add_constant(name, ctype, value, help=text)
        for name, ctype, getter, setter, text in table.variables:
            ctx.add_variable(name, ctype, getter=getter, setter=setter, help=text)
        for name, signature, fn, text in table.functions:
            ret, args, varargs = _signature(signature)
            ctx.add_function(name, fn, ret, args, varargs=varargs, help=text)
    _install_device_bindings(ctx, s)
    install_link_bindings(ctx, s)
    _install_behaviors(ctx)


def _install_device_bindings(ctx: BindingContext, s: Bindings) -> None:
    """The built-ins every registered device offers (:meth:`Device.bindings
    <saphira.client.sensors.device.Device.bindings>`), called on the session's robot."""
    for kind in device_types():
        for binding in kind.bindings():

            def call(*args: Any, binding: DeviceBinding = binding) -> Any:
                try:
                    return binding.call(s.robot, *args)
                except DeviceError as exc:
                    raise ColbertRuntimeError(f"{binding.name}: {exc}") from exc

            ret, args, varargs = _signature(binding.signature)
            ctx.add_function(binding.name, call, ret, args, varargs=varargs, help=binding.help)


def _install_behaviors(ctx: BindingContext) -> None:
    """The predefined behaviors under the manual's names (sfAvoidCollision...) as ``behavior`` constants."""
    from saphira.behavior.library import SAPHIRA_NAMES, predefined_behaviors

    defined = predefined_behaviors()
    for manual_name, name in SAPHIRA_NAMES.items():
        defn = defined.get(name)
        if defn is not None:
            ctx.add_behavior(manual_name, defn, help=(getattr(defn, "doc", "") or f"predefined behavior {name}"))
