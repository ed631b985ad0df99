"""The Gamebots text protocol of USARSim: one line per message or command, ``TYPE {Name value} …``.

A line is an upper-case data type followed by *segments*. A segment is a brace group holding one or
more name–value pairs separated by blanks: ``{Location 4.5,1.2,0.0}``, ``{Name F1 Range 4.5}``.
A name starts with a letter, so words after a value that cannot be a name continue it, as USARSim's
parser reads them: ``{Location 4.5 1.2 0.0}`` (Player's INIT) and ``{Location 4.5, 1.2, 0.0}`` are
the vector ``4.5,1.2,0.0``, and a start pose ``{P1 1,2,0 0,0,1.57}`` is one value of two vectors.
A command may have no segments at all (``GETSTARTPOSES``). The USARSim tutorial's slides
(the seed) lost the braces; :func:`parse` reads that brace-less form too (each pair is then its own
segment), and :func:`format_message` always writes the braces, as Gamebots sends them. Lines end with
``\\r\\n`` on the wire (:func:`encode`); a reader accepts ``\\n`` alone.

Everything that goes over the wire is a :class:`Message`; the typed views below it
(:class:`Drive`, :class:`Init`, :class:`Sta`, :class:`SonarScan`, :class:`RangeScannerMessage`,
:class:`Geometry`, …) build and read the forms the server and client use. Units and frames are
USARSim 3.x's (docs/gamebots.md): metres, seconds, radians, and Unreal's left-handed frame — x
forward, y to the right, z down, so a positive yaw turns clockwise seen from above. The conversion to
Saphira's frame (mm, degrees, counter-clockwise) is :func:`to_unreal` / :func:`from_unreal`.

Errors (:class:`GamebotsError`) name the offending text and its 1-based column in the line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from saphira.core.errors import SaphiraError
from saphira.core.geometry import Pose

Pair = tuple[str, str]
Segment = tuple[Pair, ...]
Vector = tuple[float, float, float]
"""An Unreal location or rotation: x, y, z (m, y right, z down) or roll, pitch, yaw (rad)."""


class GamebotsError(SaphiraError):
    """A line that is not Gamebots, or a value that is not what its name needs."""

    def __init__(self, message: str, line: str = "", column: int = 0) -> None:
        where = f" at column {column}" if column else ""
        quoted = f" in {line.strip()!r}" if line else ""
        super().__init__(f"{message}{where}{quoted}")
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Message:
    """One Gamebots line: its data type (``STA``, ``DRIVE`` …) and its segments, in order."""

    kind: str
    segments: tuple[Segment, ...] = ()

    @classmethod
    def of(cls, kind: str, *segments: Segment | Pair) -> Message:
        """A message from segments, where a bare ``(name, value)`` pair is a one-pair segment."""
        return cls(kind, tuple(_as_segment(s) for s in segments))

    def pairs(self) -> Iterator[Pair]:
        for segment in self.segments:
            yield from segment

    def get(self, name: str) -> str | None:
        """The value of the first pair called ``name`` (case-sensitive, as Gamebots is), or None."""
        return next((value for key, value in self.pairs() if key == name), None)

    def require(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise GamebotsError(f"{self.kind} needs a {name} value", format_message(self))
        return value

    def number(self, name: str, default: float | None = None) -> float:
        value = self.get(name)
        if value is None:
            if default is None:
                raise GamebotsError(f"{self.kind} needs a {name} value", format_message(self))
            return default
        return parse_float(value, name)

    def vector(self, name: str) -> Vector | None:
        value = self.get(name)
        return None if value is None else parse_vector(value, name)

    def flag(self, name: str) -> bool | None:
        value = self.get(name)
        return None if value is None else parse_bool(value, name)

    def named(self) -> Iterator[Segment]:
        """The segments that start with a ``Name`` pair (one sensor each, in GEO, CONF and SEN)."""
        return (s for s in self.segments if s and s[0][0] == "Name")


def _as_segment(item: Segment | Pair) -> Segment:
    if isinstance(item[0], str):
        return (item,)
    return item


# ---------------------------------------------------------------------------------------------- values
def format_number(value: float) -> str:
    """A float as Gamebots writes them: four decimals, no exponent, no ``-0.0000``."""
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def format_vector(values: Sequence[float]) -> str:
    return ",".join(format_number(v) for v in values)


def parse_float(text: str, name: str = "value") -> float:
    try:
        value = float(text)
    except ValueError:
        raise GamebotsError(f"{name} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise GamebotsError(f"{name} must be a finite number, not {text!r}")
    return value


def parse_vector(text: str, name: str = "value") -> Vector:
    """``x,y,z``; blanks around or instead of the commas are accepted, as USARSim accepts them."""
    parts = re.split(r"\s*,\s*|\s+", text.strip())
    if len(parts) != 3:
        raise GamebotsError(f"{name} must be a vector x,y,z, not {text!r}")
    x, y, z = (parse_float(p, name) for p in parts)
    return x, y, z


def parse_floats(text: str, name: str = "value") -> tuple[float, ...]:
    return tuple(parse_float(p, name) for p in text.split(",")) if text else ()


def parse_bool(text: str, name: str = "value") -> bool:
    lowered = text.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise GamebotsError(f"{name} must be true or false, not {text!r}")


def format_bool(value: bool) -> str:
    return "True" if value else "False"


# ---------------------------------------------------------------------------------------------- lines
def parse(line: str) -> Message:
    """One line (without or with its ``\\r\\n``) as a :class:`Message`."""
    text = line.rstrip("\r\n")
    stripped = text.lstrip()
    if not stripped:
        raise GamebotsError("empty line")
    offset = len(text) - len(stripped)
    kind, _, rest = stripped.partition(" ")
    if not kind.isalpha() or not kind.isupper():
        raise GamebotsError(f"a Gamebots line starts with its type in capitals, not {kind!r}", text, offset + 1)
    start = offset + len(kind) + 1
    if not rest.strip():
        return Message(kind)
    segments = _braced(rest, text, start) if "{" in rest or "}" in rest else _bare(rest, text, start)
    return Message(kind, tuple(segments))


def _braced(rest: str, line: str, start: int) -> list[Segment]:
    segments: list[Segment] = []
    i = 0
    while i < len(rest):
        char = rest[i]
        if char.isspace():
            i += 1
            continue
        if char != "{":
            raise GamebotsError(f"expected '{{' before {rest[i:].split()[0]!r}", line, start + i + 1)
        close = rest.find("}", i + 1)
        inner_open = rest.find("{", i + 1)
        if close < 0 and inner_open < 0:
            close = len(rest)  # the last segment's brace left open: the line's end closes it, as USARSim reads it
        elif close < 0 or 0 <= inner_open < close:
            raise GamebotsError("unclosed '{'", line, start + i + 1)
        segments.append(_pairs(rest[i + 1 : close], line, start + i + 2))
        i = close + 1
    return segments


def _bare(rest: str, line: str, start: int) -> list[Segment]:
    return [(pair,) for pair in _pairs(rest, line, start)]


def _pairs(body: str, line: str, start: int) -> Segment:
    tokens: list[tuple[str, int]] = []
    i = 0
    for word in body.split():
        i = body.index(word, i)
        tokens.append((word, start + i))
        i += len(word)
    if not tokens:
        raise GamebotsError("empty segment '{}'", line, start)
    pairs: list[Pair] = []
    k = 0
    while k < len(tokens):
        word, column = tokens[k]
        if not word[:1].isalpha():
            raise GamebotsError(f"a name must start with a letter, not {word!r}", line, column)
        if k + 1 == len(tokens):
            raise GamebotsError(f"{word!r} has no value (segments are name-value pairs)", line, column)
        value = tokens[k + 1][0]
        k += 2
        while k < len(tokens) and not tokens[k][0][:1].isalpha():  # no name: the value goes on
            more = tokens[k][0]
            value += more if value.endswith(",") or more.startswith(",") else " " + more
            k += 1
        pairs.append((word, value))
    return tuple(pairs)


def format_message(message: Message) -> str:
    """The line for ``message``, braces and all, without the line end."""
    parts = [message.kind]
    parts += ["{" + " ".join(f"{name} {value}" for name, value in segment) + "}" for segment in message.segments]
    return " ".join(parts)


def encode(message: Message) -> bytes:
    return (format_message(message) + "\r\n").encode("ascii")


@dataclass
class LineReader:
    """Splits a byte stream into lines; :meth:`feed` returns the complete ones, decoded."""

    limit: int = 1 << 20
    _buffer: bytearray = field(default_factory=bytearray)

    def feed(self, data: bytes) -> list[str]:
        self._buffer += data
        lines: list[str] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            raw = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[: end + 1]
            if raw.strip():
                lines.append(raw.decode("latin-1"))
        if len(self._buffer) > self.limit:
            self._buffer.clear()
            raise GamebotsError(f"a line longer than {self.limit} bytes")
        return lines


# ---------------------------------------------------------------------------------------------- frames
def to_unreal(x_mm: float, y_mm: float, th_deg: float) -> tuple[Vector, float]:
    """Saphira's (mm, mm, deg counter-clockwise) as Unreal's location (m, y right, z down) and yaw (rad)."""
    return (x_mm / 1000.0, -y_mm / 1000.0, 0.0), -math.radians(th_deg)


def from_unreal(location: Vector, yaw: float = 0.0) -> Pose:
    """Unreal's location (m) and yaw (rad, clockwise) as Saphira's (mm, mm, deg counter-clockwise)."""
    return Pose(location[0] * 1000.0, -location[1] * 1000.0, -math.degrees(yaw))


# ---------------------------------------------------------------------------------------------- commands
@dataclass(frozen=True)
class Init:
    """``INIT {ClassName USARBot.P2AT} {Name R1} {Location x,y,z} {Rotation r,p,y}``: spawn a robot."""

    class_name: str
    location: Vector
    name: str | None = None
    rotation: Vector | None = None

    def message(self) -> Message:
        segments: list[Pair] = [("ClassName", self.class_name)]
        if self.name is not None:
            segments.append(("Name", self.name))
        segments.append(("Location", format_vector(self.location)))
        if self.rotation is not None:
            segments.append(("Rotation", format_vector(self.rotation)))
        return Message.of("INIT", *segments)

    @classmethod
    def read(cls, message: Message) -> Init:
        location = message.vector("Location")
        if location is None:
            raise GamebotsError("INIT needs a Location x,y,z", format_message(message))
        return cls(message.require("ClassName"), location, message.get("Name"), message.vector("Rotation"))


@dataclass(frozen=True)
class Drive:
    """``DRIVE {Left l} {Right r} {Normalized b} {Light b} {Flip b}``: wheel spin speeds (rad/s).

    With ``Normalized`` true the speeds are percentages (-100..100) of the robot's maximum spin speed.
    """

    left: float | None = None
    right: float | None = None
    normalized: bool | None = None
    light: bool | None = None
    flip: bool | None = None

    def message(self) -> Message:
        segments: list[Pair] = []
        if self.left is not None:
            segments.append(("Left", format_number(self.left)))
        if self.right is not None:
            segments.append(("Right", format_number(self.right)))
        for name, flag in (("Normalized", self.normalized), ("Light", self.light), ("Flip", self.flip)):
            if flag is not None:
                segments.append((name, format_bool(flag)))
        return Message.of("DRIVE", *segments)


@dataclass(frozen=True)
class JointDrive:
    """``DRIVE {Name LeftFWheel} {Steer s} {Order 1} {Value 2000}``: one joint of the robot."""

    name: str
    order: int
    value: float
    steer: int | None = None

    def message(self) -> Message:
        segments: list[Pair] = [("Name", self.name)]
        if self.steer is not None:
            segments.append(("Steer", str(self.steer)))
        segments += [("Order", str(self.order)), ("Value", format_number(self.value))]
        return Message.of("DRIVE", *segments)


def read_drive(message: Message) -> Drive | JointDrive:
    """A DRIVE command in either form: the wheels (Left/Right …) or a joint (Name … Order … Value)."""
    if message.kind != "DRIVE":
        raise GamebotsError(f"not a DRIVE command: {message.kind}", format_message(message))
    name = message.get("Name")
    if name is not None:
        steer = message.get("Steer")
        return JointDrive(
            name,
            _int(message.require("Order"), "Order"),
            message.number("Value"),
            None if steer is None else _int(steer, "Steer"),
        )
    left, right = message.get("Left"), message.get("Right")
    return Drive(
        None if left is None else parse_float(left, "Left"),
        None if right is None else parse_float(right, "Right"),
        message.flag("Normalized"),
        message.flag("Light"),
        message.flag("Flip"),
    )


def _int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GamebotsError(f"{name} must be an integer, not {text!r}") from None


def query(kind: str, sensor_type: str) -> Message:
    """``GETGEO {Type Sonar}`` or ``GETCONF {Type Robot}``."""
    return Message.of(kind, ("Type", sensor_type))


# ---------------------------------------------------------------------------------------------- messages
@dataclass(frozen=True)
class Sta:
    """``STA``: the robot's state. Location (m), Velocity (m/s), Attitude pitch,yaw,roll (rad).

    USARSim 3.x's STA carries the Location; USARSim-UDK's has none (``STA {Time t} {Battery b}``:
    the pose comes from the Odometry and GroundTruth sensors), so ``location`` may be None.
    """

    time: float
    location: Vector | None
    attitude: Vector
    velocity: Vector
    battery: float
    light: bool = False
    stalled: bool = False

    def message(self) -> Message:
        where: tuple[Pair, ...] = () if self.location is None else (("Location", format_vector(self.location)),)
        return Message.of(
            "STA",
            ("Time", format_number(self.time)),
            *where,
            ("Velocity", format_vector(self.velocity)),
            ("Attitude", format_vector(self.attitude)),
            ("LightToggle", format_bool(self.light)),
            ("LightIntensity", "0"),
            ("Battery", format_number(self.battery)),
            ("Stall", format_bool(self.stalled)),
        )

    @classmethod
    def read(cls, message: Message) -> Sta:
        return cls(
            message.number("Time", 0.0),
            message.vector("Location"),
            message.vector("Attitude") or (0.0, 0.0, 0.0),
            message.vector("Velocity") or (0.0, 0.0, 0.0),
            message.number("Battery", 0.0),
            bool(message.flag("LightToggle")),
            bool(message.flag("Stall")),
        )


SONAR_TYPES = ("Sonar", "Range")
"""USARSim 3.x calls sonar ``Sonar``; the 2003 tutorial called the same message ``Range``."""


@dataclass(frozen=True)
class SonarScan:
    """``SEN {Time t} {Type Sonar} {Name F1 Range r} …``: ranges (m) by sonar name.

    USARSim 3.x sends the whole ring in one message, each sonar a ``{Name F1 Range r}`` group;
    USARSim-UDK sends one message per sonar, ``{Name F1} {Range r}``; the brace-less tutorial form
    has every pair on its own. :meth:`read` takes them all: each ``Range`` belongs to the ``Name``
    before it.
    """

    time: float
    ranges: tuple[tuple[str, float], ...]
    sensor_type: str = "Sonar"

    def message(self) -> Message:
        return Message.of(
            "SEN",
            ("Time", format_number(self.time)),
            ("Type", self.sensor_type),
            *((("Name", name), ("Range", format_number(r))) for name, r in self.ranges),
        )

    @classmethod
    def read(cls, message: Message) -> SonarScan:
        ranges: list[tuple[str, float]] = []
        name: str | None = None
        for key, value in message.pairs():
            if key == "Name":
                if name is not None:
                    raise GamebotsError(f"sonar {name} has no Range", format_message(message))
                name = value
            elif key == "Range" and name is not None:
                ranges.append((name, parse_float(value, "Range")))
                name = None
        if name is not None:
            raise GamebotsError(f"sonar {name} has no Range", format_message(message))
        return cls(message.number("Time", 0.0), tuple(ranges), message.get("Type") or "Sonar")


@dataclass(frozen=True)
class RangeScannerMessage:
    """``SEN {Time t} {Type RangeScanner} {Name Scanner1} {Resolution r} {FOV f} {Range r1,r2,…}``.

    Ranges in metres from the rightmost beam to the leftmost (Unreal's yaw grows clockwise, so the
    scan runs from -FOV/2 to +FOV/2 in Saphira's counter-clockwise angles, as USARSim's does).
    """

    time: float
    name: str
    resolution: float
    fov: float
    ranges: tuple[float, ...]

    def message(self) -> Message:
        return Message.of(
            "SEN",
            ("Time", format_number(self.time)),
            ("Type", "RangeScanner"),
            ("Name", self.name),
            ("Resolution", format_number(self.resolution)),
            ("FOV", format_number(self.fov)),
            ("Range", ",".join(f"{r:.4f}" for r in self.ranges)),
        )

    @classmethod
    def read(cls, message: Message) -> RangeScannerMessage:
        ranges = parse_floats(message.get("Range") or "", "Range")
        # USARSim writes FOV in SEN and Fov in CONF; the 2003 form has neither (nor Resolution): 180°
        fov = message.number("FOV", message.number("Fov", math.pi))
        resolution = message.number("Resolution", fov / max(1, len(ranges) - 1))
        return cls(message.number("Time", 0.0), message.get("Name") or "", resolution, fov, ranges)


@dataclass(frozen=True)
class SensorGeometry:
    """One sensor's mount: its location (m) and orientation roll,pitch,yaw (rad) on the robot."""

    name: str
    location: Vector
    orientation: Vector
    extra: tuple[Pair, ...] = ()


@dataclass(frozen=True)
class Geometry:
    """``GEO {Type Sonar} {Name F1 Location x,y,z Orientation r,p,y Mount HARD} …``.

    USARSim 3.x's names; the 2003 form ``Position``/``Direction`` (pitch,yaw,roll) is read as well.
    """

    sensor_type: str
    sensors: tuple[SensorGeometry, ...]

    def message(self) -> Message:
        segments: list[Segment] = [(("Type", self.sensor_type),)]
        for s in self.sensors:
            segments.append(
                (("Name", s.name), ("Location", format_vector(s.location)),
                 ("Orientation", format_vector(s.orientation)), ("Mount", "HARD"), *s.extra)
            )  # fmt: skip
        return Message("GEO", tuple(segments))

    @classmethod
    def read(cls, message: Message) -> Geometry:
        sensors = []
        for segment in message.named():
            values = dict(segment)
            name = values["Name"]
            if "Location" in values:
                location = parse_vector(values["Location"], "Location")
                orientation = parse_vector(values.get("Orientation", "0,0,0"), "Orientation")
            elif "Position" in values:
                location = parse_vector(values["Position"], "Position")
                pitch, yaw, roll = parse_vector(values.get("Direction", "0,0,0"), "Direction")
                orientation = (roll, pitch, yaw)
            else:
                raise GamebotsError(f"sensor {name} has no Location", format_message(message))
            known = {"Name", "Location", "Orientation", "Position", "Direction", "Mount"}
            sensors.append(SensorGeometry(name, location, orientation, tuple(p for p in segment if p[0] not in known)))
        return cls(message.get("Type") or "", tuple(sensors))


@dataclass(frozen=True)
class Configuration:
    """``CONF {Type GroundVehicle} {Name P2AT} {MaxSpeed 5.3} …``: a sensor's or the robot's settings."""

    sensor_type: str
    values: tuple[Pair, ...]

    def message(self) -> Message:
        return Message.of("CONF", ("Type", self.sensor_type), *self.values)

    @classmethod
    def read(cls, message: Message) -> Configuration:
        pairs = tuple(p for p in message.pairs() if p[0] != "Type")
        return cls(message.get("Type") or "", pairs)

    def number(self, name: str, default: float) -> float:
        value = dict(self.values).get(name)
        return default if value is None else parse_float(value, name)


@dataclass(frozen=True)
class StartPoses:
    """``NFO {StartPoses n} {P1 x,y,z r,p,y} …``: the world's named start poses (m, rad), GETSTARTPOSES' answer.

    USARSim's manual writes a group per pose; USARSim-UDK writes them all in one group; both read.
    """

    poses: tuple[tuple[str, Vector, Vector], ...]

    def message(self) -> Message:
        groups = [
            ((name, f"{format_vector(where)} {format_vector(rotation)}"),) for name, where, rotation in self.poses
        ]
        return Message.of("NFO", ("StartPoses", str(len(self.poses))), *groups)

    @classmethod
    def read(cls, message: Message) -> StartPoses:
        poses = []
        for name, value in message.pairs():
            if name == "StartPoses":
                continue
            numbers = [parse_float(p, name) for p in re.split(r"[,\s]+", value.strip())]
            if len(numbers) != 6:
                raise GamebotsError(f"start pose {name} must be x,y,z r,p,y, not {value!r}", format_message(message))
            poses.append((name, (numbers[0], numbers[1], numbers[2]), (numbers[3], numbers[4], numbers[5])))
        return cls(tuple(poses))
