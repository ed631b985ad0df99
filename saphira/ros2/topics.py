"""The ROS 2 topics a run publishes and obeys, and the QoS each is given (rclcpp's profiles).

ROS 2 names a topic ``/odom`` ``rt/odom`` on DDS and a type as its IDL mapping does
(:mod:`saphira.ros2.messages`); the QoS of each topic is what ROS 2's publishers of that kind use:
sensor data best effort, ``/map`` and ``/tf_static`` reliable and transient local (a late subscriber
gets the last one), the rest ROS 2's default (reliable, volatile, depth 10). The DDS node
(:mod:`saphira.ros2.node`) and the bags (:mod:`saphira.ros2.bag`) both read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cyclonedds.idl import IdlStruct

from saphira.ros2 import messages as m

__all__ = ["SUBSCRIBED", "TOPICS", "Kind", "Topic", "qos"]


class Kind:
    """QoS kinds (rclcpp's profiles): what a topic's writer and reader are given."""

    DEFAULT = "default"
    """Reliable, volatile, keep last 10 (``rclcpp::QoS(10)``)."""
    SENSOR = "sensor"
    """Best effort, volatile, keep last 5 (``rclcpp::SensorDataQoS``)."""
    LATCHED = "latched"
    """Reliable, transient local, keep last 1 (a map server's ``/map``, ``/tf_static``, ``ros_discovery_info``)."""
    TF = "tf"
    """Reliable, volatile, keep last 100 (tf2's broadcaster)."""
    CLOCK = "clock"
    """Best effort, volatile, keep last 1 (``rclcpp::ClockQoS``)."""


@dataclass(frozen=True)
class Topic:
    name: str
    type: type[IdlStruct]
    kind: str
    doc: str


TOPICS: tuple[Topic, ...] = (
    Topic("/odom", m.Odometry, Kind.DEFAULT, "odometric pose and velocities, frame odom, child base_link"),
    Topic("/tf", m.TFMessage, Kind.TF, "odom → base_link every cycle; map → odom when anchored on a map"),
    Topic("/tf_static", m.TFMessage, Kind.LATCHED, "base_link → laser, sonar and each sonar_N"),
    Topic("/scan", m.LaserScan, Kind.SENSOR, "each laser scan, frame laser"),
    Topic("/sonar", m.PointCloud2, Kind.SENSOR, "the current sonar readings, frame sonar"),
    Topic("/map", m.OccupancyGrid, Kind.LATCHED, "the map's (or the simulated world's) walls"),
    Topic("/battery_state", m.BatteryState, Kind.DEFAULT, "the battery's voltage, every second"),
    Topic("/bumper_state", m.BumperState, Kind.DEFAULT, "front and rear bumpers (RosAria's), every second"),
    Topic("/motors_state", m.Bool, Kind.LATCHED, "whether the motors are enabled, every second"),
    Topic("/behaviors", m.String, Kind.DEFAULT, "the running activities and behaviors (JSON), when they change"),
    Topic("/clock", m.Clock, Kind.CLOCK, "the run's time, in a lock-step run only (use_sim_time)"),
)
SUBSCRIBED: tuple[Topic, ...] = (
    Topic("/cmd_vel", m.Twist, Kind.SENSOR, "drives the robot (best effort: matches any publisher)"),
    Topic("/initialpose", m.PoseWithCovarianceStamped, Kind.DEFAULT, "sets the global pose (RViz's 2D Pose Estimate)"),
    Topic("/enable_motors", m.Bool, Kind.DEFAULT, "true enables the motors, false disables them"),
)


def qos(kind: str) -> Any:
    """Cyclone DDS's QoS for a :class:`Kind`."""
    from cyclonedds.core import Policy, Qos
    from cyclonedds.util import duration

    reliable = Policy.Reliability.Reliable(duration(milliseconds=100))
    return {
        Kind.DEFAULT: Qos(reliable, Policy.Durability.Volatile, Policy.History.KeepLast(10)),
        Kind.SENSOR: Qos(Policy.Reliability.BestEffort, Policy.Durability.Volatile, Policy.History.KeepLast(5)),
        Kind.LATCHED: Qos(reliable, Policy.Durability.TransientLocal, Policy.History.KeepLast(1)),
        Kind.TF: Qos(reliable, Policy.Durability.Volatile, Policy.History.KeepLast(100)),
        Kind.CLOCK: Qos(Policy.Reliability.BestEffort, Policy.Durability.Volatile, Policy.History.KeepLast(1)),
    }[kind]
