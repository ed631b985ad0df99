"""The robot as a Pyro brain sees it: ``robot.range``, ``robot.move``, ``robot.x`` … over the state reflector.

Pyro (Blank, Kumar, Meeden, Yanco: "Pyro: a Python-based versatile programming environment for teaching
robotics", 2003) gives every robot one interface whatever the hardware; :class:`PyroRobot` is that
interface over a :class:`~saphira.robot.Robot`, so a brain runs unchanged on every link (embedded,
``tcp://``, ``flat://``, ``usarsim://``).

* Range sensors: ``robot.range`` (also ``robot.sonar``) is the sonar ring, a :class:`RangeDevice`.
  ``robot.range[i]`` is one :class:`RangeReading`; ``robot.range["front-all"]`` a named group;
  ``robot.range[1, 2]`` and ``robot.range[2:6]`` lists. A 16-sonar Pioneer ring has Pyro's own index
  sets (:data:`PIONEER16_GROUPS`); any other ring gets the same names by each transducer's bearing and
  side of the body (:func:`groups_by_bearing`). Distances are the numbers Pyro's Pioneer driver gave:
  clamped to 0..2.99 m, in ``robot.range.units``: Pyro's default ``"ROBOTS"`` (0.75 m each, Pyro's
  figure for a Pioneer; ``robot.range.robot_unit_mm`` changes it, e.g. to the parameter file's
  diameter), ``"METERS"``/``"M"``, ``"CM"``, ``"MM"``, ``"SCALED"`` (0..1 of the maximum range) or
  ``"RAW"`` (metres, as Pyro's driver had it).
* Motion: ``move(translate, rotate)``, ``translate(v)``, ``rotate(v)``, ``motors(left, right)`` and
  ``stop()`` take Pyro's normalised speeds in -1..1 (1.0 is the top speed or turn rate: the parameter
  file's ``TransVelMax``/``RotVelMax``, or a Pioneer's firmware defaults where it leaves them at 0).
  They take the channels from the behaviors, as a direct motion does, until :meth:`PyroRobot.release`.
* Pose: ``x``, ``y`` (m), ``th`` (degrees, 0..360), ``thr`` (radians) are the global pose; ``stall``.
* Description: ``type`` (the robot's class, ``"Pioneer"``), ``subtype``, ``name``, ``radius`` (m),
  ``supports``, ``hasA(feature)``, ``requires(feature)``; ``update()`` is there for brains that call it
  (the reflector is updated every cycle before brains step).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Final, overload

from saphira.client.sensors.sonar import NO_ECHO, SonarPose
from saphira.core.errors import SaphiraError
from saphira.params.laser import laser_declared

if TYPE_CHECKING:
    from saphira.robot import Robot

DEFAULT_MAX_VELOCITY: Final = 750.0
"""mm/s that ``translate`` 1.0 means when the parameter file leaves TransVelMax to the robot."""
DEFAULT_MAX_RVELOCITY: Final = 100.0
"""deg/s that ``rotate`` 1.0 means when the parameter file leaves RotVelMax to the robot."""

PYRO_ROBOT_UNIT_MM: Final = 750.0
"""What one ``"ROBOTS"`` unit is in Pyro's Pioneer (ARIA) driver: 0.75 m, whatever the robot."""
PYRO_MAX_RANGE_MM: Final = 2990.0
"""Where Pyro's Pioneer driver clamped every sonar reading (2.99 m): ``"SCALED"`` is a fraction of it."""

UNITS: Final[dict[str, float | None]] = {
    "ROBOTS": None,
    "METERS": 1000.0,
    "M": 1000.0,
    "CM": 10.0,
    "MM": 1.0,
    "RAW": 1000.0,
    "SCALED": None,
}
"""Pyro's range units: mm per unit, or None where the unit is relative (robot units, the range).
``"RAW"`` is metres, as Pyro's Pioneer driver gave it."""

PIONEER16_GROUPS: Final[dict[str, tuple[int, ...]]] = {
    "all": tuple(range(16)),
    "front": (3, 4),
    "front-left": (1, 2, 3),
    "front-right": (4, 5, 6),
    "front-all": (1, 2, 3, 4, 5, 6),
    "left": (0, 15),
    "right": (7, 8),
    "left-front": (0,),
    "right-front": (7,),
    "left-back": (15,),
    "right-back": (8,),
    "back-right": (9, 10, 11),
    "back-left": (12, 13, 14),
    "back": (11, 12),
    "back-all": (9, 10, 11, 12, 13, 14),
}
"""Pyro's sonar groups for a Pioneer's 16-transducer ring (front 0-7 from left to right, rear 8-15
from right to left), as its ARIA robot class defines them."""

_BY_BEARING: Final[dict[str, Callable[[SonarPose], bool]]] = {
    "front": lambda p: abs(p.th) <= 20.0,
    "front-left": lambda p: 0.0 < p.th <= 60.0,
    "front-right": lambda p: -60.0 <= p.th < 0.0,
    "front-all": lambda p: abs(p.th) < 75.0,
    "left": lambda p: 75.0 <= p.th <= 105.0,
    "right": lambda p: -105.0 <= p.th <= -75.0,
    "left-front": lambda p: 75.0 <= p.th <= 105.0 and p.x >= 0.0,
    "right-front": lambda p: -105.0 <= p.th <= -75.0 and p.x >= 0.0,
    "left-back": lambda p: 75.0 <= p.th <= 105.0 and p.x < 0.0,
    "right-back": lambda p: -105.0 <= p.th <= -75.0 and p.x < 0.0,
    "back-left": lambda p: 105.0 < p.th < 180.0,
    "back-right": lambda p: -180.0 < p.th < -105.0,
    "back": lambda p: abs(p.th) >= 160.0,
    "back-all": lambda p: abs(p.th) > 105.0,
    "all": lambda p: True,
}
"""The same group names for any other ring, chosen by bearing (degrees, 0 ahead, + left) and, for the
side groups, by which half of the body the transducer sits on (``x`` ahead of the centre or behind)."""

FEATURES: Final = ("range-sensor", "sonar", "continuous-movement", "odometry")
"""What every saphira robot supports, in Pyro's feature names (``hasA``/``requires``)."""


class PyroError(SaphiraError):
    """A brain requires a feature the robot has not got (``robot.requires("laser")``)."""


def groups_by_bearing(poses: Sequence[SonarPose]) -> dict[str, tuple[int, ...]]:
    """Pyro's group names for a ring that is not a Pioneer's 16, by each transducer's pose."""
    return {name: tuple(i for i, pose in enumerate(poses) if test(pose)) for name, test in _BY_BEARING.items()}


class RangeReading:
    """One range sensor's latest reading (Pyro's ``SensorValue``), read when asked."""

    def __init__(self, device: RangeDevice, index: int) -> None:
        self._device = device
        self.pos = index
        self.index = index

    @property
    def value(self) -> float:
        """The distance in the device's current units."""
        return self.distance()

    @property
    def bearing(self) -> float:
        """The sensor's direction on the body, degrees (0 ahead, + left)."""
        return self._device.pose(self.pos).th

    @property
    def geometry(self) -> tuple[float, float, float, float, float]:
        """Pyro's ``(x, y, z, th, arc)`` of the sensor on the body: metres and radians."""
        pose = self._device.pose(self.pos)
        return (pose.x / 1000.0, pose.y / 1000.0, 0.03, math.radians(pose.th), math.radians(7.5))

    def distance(self, unit: str | None = None) -> float:
        """The reading in ``unit`` (the device's current units when None)."""
        return self._device.convert(self._device.range_mm(self.pos), unit)

    def angle(self, unit: str = "degrees") -> float:
        """The sensor's bearing on the body in ``"degrees"`` or ``"radians"`` (0 ahead, + left)."""
        kind = unit.lower()
        if kind == "degrees":
            return self.bearing
        if kind == "radians":
            return math.radians(self.bearing)
        raise ValueError(f"an angle is in 'degrees' or 'radians', not {unit!r}")

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"<range {self.pos}: {self.distance():.2f} {self._device.units}>"


class RangeDevice:
    """``robot.range``: the sonar ring by index, tuple, slice and group name."""

    type = "sonar"

    def __init__(self, saphira: Robot) -> None:
        self._robot = saphira
        self._units = "ROBOTS"
        self.max_range_mm = min(PYRO_MAX_RANGE_MM, float(NO_ECHO))
        """Readings are clamped here (``setMaxvalue``); ``"SCALED"`` is a fraction of it."""
        self.robot_unit_mm = PYRO_ROBOT_UNIT_MM
        """What one ``"ROBOTS"`` unit is: Pyro's 0.75 m; ``2000 * robot.radius`` for the robot's diameter."""
        self._groups: dict[str, tuple[int, ...]] | None = None
        self._groups_for: tuple[SonarPose, ...] = ()

    # ----------------------------------------------------------------- units
    @property
    def units(self) -> str:
        return self._units

    @units.setter
    def units(self, unit: str) -> None:
        self._units = _unit_name(unit)

    def getMaxvalue(self) -> float:
        """The longest reading, in the current units."""
        return self.convert(self.max_range_mm)

    def setMaxvalue(self, value: float) -> None:
        """Clip readings at ``value`` (current units) from now on."""
        mm = self.convert_to_mm(float(value))
        if not (math.isfinite(mm) and mm > 0.0):
            raise ValueError(f"a maximum range must be a positive number, not {value}")
        self.max_range_mm = mm

    @property
    def maxvalue(self) -> float:
        return self.getMaxvalue()

    @property
    def radius(self) -> float:
        """The robot's radius in metres (from the parameter file)."""
        return self._robot.params.robot_radius / 1000.0

    # ----------------------------------------------------------------- readings
    @property
    def count(self) -> int:
        return len(self)

    def __len__(self) -> int:
        return len(self._robot.sonar.buckets)

    def __iter__(self) -> Iterator[RangeReading]:
        return (RangeReading(self, i) for i in range(len(self)))

    @overload
    def __getitem__(self, key: int) -> RangeReading: ...
    @overload
    def __getitem__(self, key: str | tuple[int, ...] | slice) -> list[RangeReading]: ...
    def __getitem__(self, key: int | str | tuple[int, ...] | slice) -> RangeReading | list[RangeReading]:
        """One reading by position, or a list: by Pyro group name (``"front-all"``), positions or a slice."""
        if isinstance(key, str):
            positions = self.groups.get(key)
            if positions is None:
                raise KeyError(f"no range group {key!r} (groups: {', '.join(self.groups)})")
            return [RangeReading(self, i) for i in positions]
        if isinstance(key, tuple):
            return [self._reading(i) for i in key]
        if isinstance(key, slice):
            return [RangeReading(self, i) for i in range(*key.indices(len(self)))]
        return self._reading(key)

    def _reading(self, index: int) -> RangeReading:
        if not -len(self) <= index < len(self):
            raise IndexError(f"range sensor {index}: this robot has {len(self)}")
        return RangeReading(self, index % len(self))

    @property
    def value(self) -> list[float]:
        """Every reading in the current units."""
        return [reading.value for reading in self]

    def distance(self, unit: str | None = None) -> list[float]:
        return [reading.distance(unit) for reading in self]

    def angle(self, unit: str = "degrees") -> list[float]:
        return [reading.angle(unit) for reading in self]

    # ----------------------------------------------------------------- groups
    @property
    def groups(self) -> dict[str, tuple[int, ...]]:
        """Group name → sensor indices for this ring (recomputed when the robot's parameters change)."""
        poses = tuple(bucket.pose for bucket in self._robot.sonar.buckets)
        if self._groups is None or poses != self._groups_for:
            self._groups = dict(PIONEER16_GROUPS) if len(poses) == 16 else groups_by_bearing(poses)
            self._groups_for = poses
        return self._groups

    def getGroupNames(self, pos: int) -> list[str]:
        """The groups sensor ``pos`` belongs to."""
        return [name for name, members in self.groups.items() if pos in members]

    # ----------------------------------------------------------------- conversion
    def pose(self, index: int) -> SonarPose:
        return self._robot.sonar.buckets[index].pose

    def range_mm(self, index: int) -> float:
        return float(min(max(self._robot.sonar.range(index), 0.0), self.max_range_mm))

    def convert(self, mm: float, unit: str | None = None) -> float:
        """``mm`` in ``unit`` (the current units when None)."""
        kind = self._units if unit is None else _unit_name(unit)
        if kind == "ROBOTS":
            return mm / self.robot_unit_mm
        if kind == "SCALED":
            return mm / self.max_range_mm
        return mm / float(UNITS[kind] or 1.0)

    def convert_to_mm(self, value: float) -> float:
        """``value`` in the current units, in mm."""
        if self._units == "ROBOTS":
            return value * self.robot_unit_mm
        if self._units == "SCALED":
            return value * self.max_range_mm
        return value * float(UNITS[self._units] or 1.0)


def _unit_name(unit: str) -> str:
    kind = str(unit).upper()
    if kind not in UNITS:
        raise ValueError(f"unknown range unit {kind!r} (units: {', '.join(UNITS)})")
    return kind


class PyroRobot:
    """The robot as a brain sees it, in Pyro's idiom (see the module docstring)."""

    def __init__(self, saphira: Robot) -> None:
        self.saphira = saphira
        self.range = RangeDevice(saphira)
        self.sonar = self.range
        self._hand: Callable[[Callable[[], object]], None] = _now

    def hand_commands_to(self, hand: Callable[[Callable[[], object]], None]) -> None:
        """Give motion commands to ``hand`` to be carried out (a brain's thread hands them to the cycle)."""
        self._hand = hand

    # ----------------------------------------------------------------- description
    @property
    def name(self) -> str:
        identity = self.saphira.link.identity
        return identity.name if identity is not None else self.saphira.params.name

    @property
    def type(self) -> str:
        """The robot's class, as the robot or its parameter file names it (``"Pioneer"``)."""
        identity = self.saphira.link.identity
        return identity.robot_class if identity is not None else self.saphira.params.robot_class

    @property
    def subtype(self) -> str:
        identity = self.saphira.link.identity
        return identity.subclass if identity is not None else self.saphira.params.subclass

    @property
    def radius(self) -> float:
        """The robot's radius in metres."""
        return self.saphira.params.robot_radius / 1000.0

    @property
    def units(self) -> str:
        """The units of ``x`` and ``y``."""
        return "METERS"

    @property
    def supports(self) -> list[str]:
        """Pyro's feature names this robot has (``"laser"`` when it carries one)."""
        features = list(FEATURES)
        if laser_declared(self.saphira.params) or self.saphira.reflector.laser.scans:
            features.append("laser")
        return features

    def hasA(self, feature: str) -> bool:
        return feature in self.supports

    def requires(self, feature: str) -> bool:
        """True when the robot has ``feature``; a brain that needs what is missing fails to load."""
        if not self.hasA(feature):
            raise PyroError(f"this brain requires {feature!r}; the robot supports {', '.join(self.supports)}")
        return True

    def update(self) -> None:
        """Nothing to do: the state reflector is brought up to date every cycle before brains step."""

    # ----------------------------------------------------------------- motion
    @property
    def max_velocity(self) -> float:
        return float(self.saphira.params.trans_vel_max or DEFAULT_MAX_VELOCITY)

    @property
    def max_rvelocity(self) -> float:
        return float(self.saphira.params.rot_vel_max or DEFAULT_MAX_RVELOCITY)

    def move(self, translate: float, rotate: float) -> None:
        """Drive at ``translate`` × top speed and ``rotate`` × top turn rate (both clipped to -1..1)."""
        self.translate(translate)
        self.rotate(rotate)

    def translate(self, value: float) -> None:
        velocity, motion = _unit(value) * self.max_velocity, self.saphira.motion
        self._hand(lambda: motion.set_velocity(velocity))

    def rotate(self, value: float) -> None:
        rvelocity, motion = _unit(value) * self.max_rvelocity, self.saphira.motion
        self._hand(lambda: motion.set_rvelocity(rvelocity))

    def motors(self, left: float, right: float) -> None:
        """Drive the wheels at ``left`` and ``right`` (-1..1 each): their mean translates, half their
        difference rotates."""
        self.move((_unit(left) + _unit(right)) / 2.0, (_unit(right) - _unit(left)) / 2.0)

    def stop(self) -> None:
        self.move(0.0, 0.0)

    def release(self) -> None:
        """Give both channels back to the behaviors."""
        self._hand(self.saphira.motion.release)

    # ----------------------------------------------------------------- pose
    @property
    def x(self) -> float:
        return self.saphira.state.ax / 1000.0

    @property
    def y(self) -> float:
        return self.saphira.state.ay / 1000.0

    @property
    def th(self) -> float:
        return self.saphira.state.ath % 360.0

    @property
    def thr(self) -> float:
        return math.radians(self.th)

    @property
    def stall(self) -> bool:
        return self.saphira.state.stalled


def _now(action: Callable[[], object]) -> None:
    action()


def _unit(value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a Pyro speed must be a number in -1..1, not {value}")
    return max(-1.0, min(1.0, value))
