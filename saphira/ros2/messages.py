"""ROS 2's messages as DDS sees them: IDL structs named and laid out as ROS 2's IDL mapping makes them.

A ROS 2 message ``pkg/msg/Name`` travels on DDS as the struct ``pkg::msg::dds_::Name_``, its fields in
the ``.msg`` file's order, in plain CDR (XCDR1, little endian, the 4-byte encapsulation header first):
what rmw_cyclonedds and rmw_fastrtps put on the wire. Each class here is one message, written with
Cyclone DDS's Python IDL (:class:`cyclonedds.idl.IdlStruct`), so the same class serializes for DDS
and for a ROS 2 bag, and :func:`definition` writes the ``ros2msg`` text a bag's schema carries (the
field lines of the message and of every message it uses, as ``ros2 bag record`` stores them).

The layouts are ROS 2's (Humble and later): ``builtin_interfaces``, ``std_msgs``, ``geometry_msgs``,
``nav_msgs``, ``sensor_msgs``, ``tf2_msgs``, ``rosgraph_msgs``, and RosAria's ``BumperState``. The
test reads them back with an independent ROS 2 type store (rosbags') to check them.
"""

# no "from __future__ import annotations": Cyclone DDS resolves the field types from the live annotations
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, cast

import cyclonedds.idl.types as t
from cyclonedds.idl import IdlStruct

if TYPE_CHECKING:  # what the IDL annotations hold, for the type checker
    from typing import TypeAlias

    float32: TypeAlias = float
    float64: TypeAlias = float
    int8: TypeAlias = int
    uint8: TypeAlias = int
    int32: TypeAlias = int
    uint32: TypeAlias = int
    sequence: TypeAlias = Sequence
    Covariance: TypeAlias = Sequence[float]
else:
    from cyclonedds.idl.types import float32, float64, int8, int32, sequence, uint8, uint32

    Covariance = t.array[t.float64, 36]
    """A 6 × 6 covariance, row-major (``float64[36]``)."""

__all__ = [
    "BatteryState",
    "Bool",
    "BumperState",
    "Clock",
    "Header",
    "LaserScan",
    "MapMetaData",
    "OccupancyGrid",
    "Odometry",
    "PointCloud2",
    "PointField",
    "Pose",
    "PoseWithCovariance",
    "PoseWithCovarianceStamped",
    "Quaternion",
    "String",
    "TFMessage",
    "Time",
    "Transform",
    "TransformStamped",
    "Twist",
    "Vector3",
    "definition",
    "ros_name",
]


def _zeros36() -> list[float]:
    return [0.0] * 36


# ---------------------------------------------------------------- builtin_interfaces, std_msgs, rosgraph_msgs
@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@dataclass
class String(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str = ""


@dataclass
class Bool(IdlStruct, typename="std_msgs::msg::dds_::Bool_"):
    data: bool = False


@dataclass
class Clock(IdlStruct, typename="rosgraph_msgs::msg::dds_::Clock_"):
    clock: Time = field(default_factory=Time)


# ---------------------------------------------------------------- geometry_msgs
@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0
    w: float64 = 1.0


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point = field(default_factory=Point)
    orientation: Quaternion = field(default_factory=Quaternion)


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose = field(default_factory=Pose)
    covariance: Covariance = field(default_factory=_zeros36)


@dataclass
class PoseWithCovarianceStamped(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovarianceStamped_"):
    header: Header = field(default_factory=Header)
    pose: PoseWithCovariance = field(default_factory=PoseWithCovariance)


@dataclass
class Twist(IdlStruct, typename="geometry_msgs::msg::dds_::Twist_"):
    linear: Vector3 = field(default_factory=Vector3)
    angular: Vector3 = field(default_factory=Vector3)


@dataclass
class TwistWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::TwistWithCovariance_"):
    twist: Twist = field(default_factory=Twist)
    covariance: Covariance = field(default_factory=_zeros36)


@dataclass
class Transform(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3 = field(default_factory=Vector3)
    rotation: Quaternion = field(default_factory=Quaternion)


@dataclass
class TransformStamped(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    transform: Transform = field(default_factory=Transform)


# ---------------------------------------------------------------- tf2_msgs, nav_msgs
@dataclass
class TFMessage(IdlStruct, typename="tf2_msgs::msg::dds_::TFMessage_"):
    transforms: sequence[TransformStamped] = field(default_factory=list)


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    pose: PoseWithCovariance = field(default_factory=PoseWithCovariance)
    twist: TwistWithCovariance = field(default_factory=TwistWithCovariance)


@dataclass
class MapMetaData(IdlStruct, typename="nav_msgs::msg::dds_::MapMetaData_"):
    map_load_time: Time = field(default_factory=Time)
    resolution: float32 = 0.0
    width: uint32 = 0
    height: uint32 = 0
    origin: Pose = field(default_factory=Pose)


@dataclass
class OccupancyGrid(IdlStruct, typename="nav_msgs::msg::dds_::OccupancyGrid_"):
    header: Header = field(default_factory=Header)
    info: MapMetaData = field(default_factory=MapMetaData)
    data: sequence[int8] = field(default_factory=list)


# ---------------------------------------------------------------- sensor_msgs, RosAria
@dataclass
class LaserScan(IdlStruct, typename="sensor_msgs::msg::dds_::LaserScan_"):
    header: Header = field(default_factory=Header)
    angle_min: float32 = 0.0
    angle_max: float32 = 0.0
    angle_increment: float32 = 0.0
    time_increment: float32 = 0.0
    scan_time: float32 = 0.0
    range_min: float32 = 0.0
    range_max: float32 = 0.0
    ranges: sequence[float32] = field(default_factory=list)
    intensities: sequence[float32] = field(default_factory=list)


@dataclass
class PointField(IdlStruct, typename="sensor_msgs::msg::dds_::PointField_"):
    name: str = ""
    offset: uint32 = 0
    datatype: uint8 = 0
    count: uint32 = 0


FLOAT32 = 7
"""``sensor_msgs/PointField.FLOAT32``."""


@dataclass
class PointCloud2(IdlStruct, typename="sensor_msgs::msg::dds_::PointCloud2_"):
    header: Header = field(default_factory=Header)
    height: uint32 = 0
    width: uint32 = 0
    fields: sequence[PointField] = field(default_factory=list)
    is_bigendian: bool = False
    point_step: uint32 = 0
    row_step: uint32 = 0
    data: sequence[uint8] = field(default_factory=list)
    is_dense: bool = False


@dataclass
class BatteryState(IdlStruct, typename="sensor_msgs::msg::dds_::BatteryState_"):
    header: Header = field(default_factory=Header)
    voltage: float32 = 0.0
    temperature: float32 = 0.0
    current: float32 = 0.0
    charge: float32 = 0.0
    capacity: float32 = 0.0
    design_capacity: float32 = 0.0
    percentage: float32 = 0.0
    power_supply_status: uint8 = 0
    power_supply_health: uint8 = 0
    power_supply_technology: uint8 = 0
    present: bool = False
    cell_voltage: sequence[float32] = field(default_factory=list)
    cell_temperature: sequence[float32] = field(default_factory=list)
    location: str = ""
    serial_number: str = ""


@dataclass
class BumperState(IdlStruct, typename="rosaria::msg::dds_::BumperState_"):
    """RosAria's bumpers: one flag per bumper segment, front and rear (``rosaria/BumperState``)."""

    header: Header = field(default_factory=Header)
    front_bumpers: sequence[bool] = field(default_factory=list)
    rear_bumpers: sequence[bool] = field(default_factory=list)


# ---------------------------------------------------------------- names and definitions
def ros_name(cls: type[IdlStruct]) -> str:
    """ROS 2's name of a message class: ``nav_msgs::msg::dds_::Odometry_`` → ``nav_msgs/msg/Odometry``."""
    package, kind, _, name = str(cls.__idl_typename__).split("::")
    return f"{package}/{kind}/{name.rstrip('_')}"


_BASE: dict[Any, str] = {
    bool: "bool", str: "string", float: "float64",
    t.float64: "float64", t.float32: "float32", t.int32: "int32", t.uint32: "uint32",
    t.int8: "int8", t.uint8: "uint8",
}  # fmt: skip


def _short(cls: type[IdlStruct]) -> str:
    package, _, name = ros_name(cls).split("/")
    return f"{package}/{name}"


def _field_type(annotation: Any, used: list[type[IdlStruct]]) -> str:
    """The ``.msg`` spelling of one field's type, collecting the message types it uses."""
    if annotation in _BASE:
        return _BASE[annotation]
    if isinstance(annotation, type) and issubclass(annotation, IdlStruct):
        used.append(annotation)
        return _short(annotation)
    spec: Any = typing.get_args(annotation)[-1] if typing.get_args(annotation) else None
    if hasattr(spec, "subtype"):  # Annotated[..., sequence[T] or array[T, N]]
        element = _field_type(spec.subtype, used)
        return f"{element}[{spec.length}]" if hasattr(spec, "length") else f"{element}[]"
    raise TypeError(f"no .msg spelling for {annotation!r}")


def _lines(cls: type[IdlStruct], used: list[type[IdlStruct]]) -> str:
    hints = typing.get_type_hints(cls, include_extras=True)
    return "\n".join(f"{_field_type(hints[f.name], used)} {f.name}" for f in fields(cast(Any, cls))) + "\n"


def definition(cls: type[IdlStruct]) -> str:
    """The ``ros2msg`` text of a message: its fields, then each message it uses (once, depth first)."""
    used: list[type[IdlStruct]] = []
    parts = [_lines(cls, used)]
    done: set[type[IdlStruct]] = {cls}
    while used:
        dep = used.pop(0)
        if dep in done:
            continue
        done.add(dep)
        parts.append("=" * 80 + f"\nMSG: {_short(dep)}\n" + _lines(dep, used))
    return "\n".join(parts)
