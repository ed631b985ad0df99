"""A ROS 2 peer that knows nothing of saphira: plain Cyclone DDS, ROS 2's topic names, types and QoS.

Run as ``python ros2_peer.py``, in the domain and discovery range the environment gives
(``ROS_DOMAIN_ID``; loopback only here), as ``teleop_twist_keyboard`` and RViz would meet the robot:
it waits for ``/odom`` and ``/scan``, finds the node on ``ros_discovery_info`` (what ``ros2 node list``
reads) with the gids of the DDS writers and readers it discovers, drives forward with ``/cmd_vel``
(asking for more than any Pioneer can do) until odometry shows 0.2 m, goes silent and waits for the
robot to stop, sends a NaN command, then a ``/initialpose``. It prints one JSON line of what it saw; the test judges it.

The message types are written here from ROS 2's ``.msg`` definitions, on purpose not imported from
saphira: the point is that an outsider's types match. Deadlines are generous (a loaded machine) and
every wait ends as soon as what it waits for is seen.
"""

import json
import math
import os
import sys
import time
from dataclasses import dataclass, field

import cyclonedds.idl.types as t
from cyclonedds.builtin import BuiltinDataReader, BuiltinTopicDcpsPublication, BuiltinTopicDcpsSubscription
from cyclonedds.core import Policy, Qos
from cyclonedds.domain import Domain, DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

DEADLINE = 90.0
"""Seconds any one wait may take at most (a loaded machine; each wait ends when its condition holds)."""
PUBLISH_PERIOD = 0.1
"""teleop_twist_keyboard and Nav2 send /cmd_vel at 10-20 Hz."""


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: t.int32 = 0
    nanosec: t.uint32 = 0


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@dataclass
class Bool(IdlStruct, typename="std_msgs::msg::dds_::Bool_"):
    data: bool = False


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: t.float64 = 0.0
    y: t.float64 = 0.0
    z: t.float64 = 0.0


@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: t.float64 = 0.0
    y: t.float64 = 0.0
    z: t.float64 = 0.0


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: t.float64 = 0.0
    y: t.float64 = 0.0
    z: t.float64 = 0.0
    w: t.float64 = 1.0


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point = field(default_factory=Point)
    orientation: Quaternion = field(default_factory=Quaternion)


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose = field(default_factory=Pose)
    covariance: t.array[t.float64, 36] = field(default_factory=lambda: [0.0] * 36)


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
    covariance: t.array[t.float64, 36] = field(default_factory=lambda: [0.0] * 36)


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    pose: PoseWithCovariance = field(default_factory=PoseWithCovariance)
    twist: TwistWithCovariance = field(default_factory=TwistWithCovariance)


@dataclass
class LaserScan(IdlStruct, typename="sensor_msgs::msg::dds_::LaserScan_"):
    header: Header = field(default_factory=Header)
    angle_min: t.float32 = 0.0
    angle_max: t.float32 = 0.0
    angle_increment: t.float32 = 0.0
    time_increment: t.float32 = 0.0
    scan_time: t.float32 = 0.0
    range_min: t.float32 = 0.0
    range_max: t.float32 = 0.0
    ranges: t.sequence[t.float32] = field(default_factory=list)
    intensities: t.sequence[t.float32] = field(default_factory=list)


@dataclass
class Transform(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3 = field(default_factory=Vector3)
    rotation: Quaternion = field(default_factory=Quaternion)


@dataclass
class TransformStamped(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    transform: Transform = field(default_factory=Transform)


@dataclass
class TFMessage(IdlStruct, typename="tf2_msgs::msg::dds_::TFMessage_"):
    transforms: t.sequence[TransformStamped] = field(default_factory=list)


# rmw_dds_common's node discovery, from its .msg files (Iron and later: a gid is char[16], a DDS GUID)
@dataclass
class Gid(IdlStruct, typename="rmw_dds_common::msg::dds_::Gid_"):
    data: t.array[t.uint8, 16] = field(default_factory=lambda: bytes(16))


@dataclass
class NodeEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::NodeEntitiesInfo_"):
    node_namespace: str = ""
    node_name: str = ""
    reader_gid_seq: t.sequence[Gid] = field(default_factory=list)
    writer_gid_seq: t.sequence[Gid] = field(default_factory=list)


@dataclass
class ParticipantEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"):
    gid: Gid = field(default_factory=Gid)
    node_entities_info_seq: t.sequence[NodeEntitiesInfo] = field(default_factory=list)


def yaw(q: Quaternion) -> float:
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


def main() -> None:
    domain_id = int(os.environ["ROS_DOMAIN_ID"])
    # ROS 2's loopback-only discovery, as rmw_cyclonedds configures it for ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
    domain = Domain(
        domain_id,
        '<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface address="127.0.0.1"/>'
        "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto"
        '</ParticipantIndex><Peers><Peer address="localhost"/></Peers></Discovery></Domain></CycloneDDS>',
    )
    dp = DomainParticipant(domain_id)
    reliable = Qos(Policy.Reliability.Reliable(duration(milliseconds=100)), Policy.History.KeepLast(10))
    sensor = Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(5))
    odom = DataReader(dp, Topic(dp, "rt/odom", Odometry), qos=reliable)
    scan = DataReader(dp, Topic(dp, "rt/scan", LaserScan), qos=sensor)
    tf = DataReader(
        dp,
        Topic(dp, "rt/tf", TFMessage),
        qos=Qos(Policy.Reliability.Reliable(duration(milliseconds=100)), Policy.History.KeepLast(100)),
    )
    cmd = DataWriter(dp, Topic(dp, "rt/cmd_vel", Twist), qos=reliable)  # teleop_twist_keyboard's: reliable
    initial = DataWriter(dp, Topic(dp, "rt/initialpose", PoseWithCovarianceStamped), qos=reliable)
    latched = Qos(
        Policy.Reliability.Reliable(duration(milliseconds=100)),
        Policy.Durability.TransientLocal,
        Policy.History.KeepLast(1),
    )  # RosAria's latched motors_state
    motors_state = DataReader(dp, Topic(dp, "rt/motors_state", Bool), qos=latched)
    enable = DataWriter(dp, Topic(dp, "rt/enable_motors", Bool), qos=reliable)
    # what `ros2 node list` reads (ros_discovery_info, as rmw_cyclonedds offers it), and DDS's own discovery
    nodes = DataReader(dp, Topic(dp, "ros_discovery_info", ParticipantEntitiesInfo), qos=latched)
    publications = BuiltinDataReader(dp, BuiltinTopicDcpsPublication)
    subscriptions = BuiltinDataReader(dp, BuiltinTopicDcpsSubscription)
    seen: dict = {"odom": None, "scan": None, "motors": None}
    frames: dict[tuple[str, str], TransformStamped] = {}

    def poll() -> None:
        for o in odom.take(N=64):
            seen["odom"] = o
        for s in scan.take(N=8):
            seen["scan"] = s
        for b in motors_state.take(N=8):
            seen["motors"] = b.data
        for message in tf.take(N=64):
            for tr in message.transforms:
                frames[(tr.header.frame_id, tr.child_frame_id)] = tr

    result: dict = {"waits": []}

    def wait_for(condition, what: str, publish=None) -> float:
        start = time.monotonic()
        while not condition():
            if time.monotonic() - start > DEADLINE:
                print(json.dumps({"error": f"timed out waiting for {what}"}), flush=True)
                sys.exit(1)
            if publish is not None:
                publish()
            time.sleep(PUBLISH_PERIOD)
            poll()
        result["waits"].append(round(time.monotonic() - start, 2))
        return time.monotonic() - start

    wait_for(lambda: seen["odom"] is not None and seen["scan"] is not None, "/odom and /scan")
    # The node on the ROS 2 graph: its name, and gids that are the DDS GUIDs of the endpoints discovered
    infos: dict[bytes, ParticipantEntitiesInfo] = {}
    endpoints: dict[str, dict[bytes, tuple[bytes, str]]] = {"writers": {}, "readers": {}}

    def node_seen() -> bool:
        for info in nodes.take(N=16):
            infos[bytes(info.gid.data)] = info
        for kind, reader in (("writers", publications), ("readers", subscriptions)):
            for e in reader.take(N=256):
                endpoints[kind][e.key.bytes] = (e.participant_key.bytes, e.topic_name)
        for participant, info in infos.items():
            for node in info.node_entities_info_seq:
                listed = {"writers": node.writer_gid_seq, "readers": node.reader_gid_seq}
                topics = {
                    kind: sorted(
                        endpoints[kind][bytes(g.data)][1]
                        for g in gids
                        if bytes(g.data) in endpoints[kind] and endpoints[kind][bytes(g.data)][0] == participant
                    )
                    for kind, gids in listed.items()
                }
                if node.node_name == "saphira" and "rt/odom" in topics["writers"] and "rt/cmd_vel" in topics["readers"]:
                    result["node"] = {
                        "namespace": node.node_namespace,
                        "name": node.node_name,
                        "gids": {k: len(v) for k, v in listed.items()},
                        **topics,
                    }
                    return True
        return False

    wait_for(node_seen, "the saphira node on ros_discovery_info, its gids those of its DDS endpoints")
    o, s = seen["odom"], seen["scan"]
    result["odom_frames"] = [o.header.frame_id, o.child_frame_id]
    result["scan"] = {
        "frame": s.header.frame_id,
        "count": len(s.ranges),
        "angle_min": s.angle_min,
        "angle_max": s.angle_max,
        "finite": sum(math.isfinite(r) for r in s.ranges),
    }
    start_x = o.pose.pose.position.x
    speeds: list[float] = []

    def drive() -> None:
        cmd.write(Twist(Vector3(5.0, 0.0, 0.0), Vector3(0.0, 0.0, 0.0)))  # far beyond a Pioneer's limit
        if seen["odom"] is not None:
            speeds.append(seen["odom"].twist.twist.linear.x)

    wait_for(lambda: seen["odom"].pose.pose.position.x - start_x >= 0.2, "0.2 m of travel", publish=drive)
    result["moved"] = seen["odom"].pose.pose.position.x - start_x
    result["max_speed"] = max(speeds)
    silent = time.monotonic()
    wait_for(lambda: abs(seen["odom"].twist.twist.linear.x) < 1e-3, "the watchdog's stop")
    result["stopped_after"] = time.monotonic() - silent
    # A NaN command is refused: the robot stays where it stopped.
    rest_x = seen["odom"].pose.pose.position.x
    nan_sent = time.monotonic()
    wait_for(
        lambda: time.monotonic() - nan_sent > 1.0,
        "a second of NaN commands",
        publish=lambda: cmd.write(Twist(Vector3(math.nan, 0.0, 0.0), Vector3(0.0, 0.0, math.inf))),
    )
    result["moved_on_nan"] = abs(seen["odom"].pose.pose.position.x - rest_x)
    # RViz's 2D Pose Estimate: map -> odom -> base_link becomes (2, 3) facing +y.
    pose = Pose(Point(2.0, 3.0, 0.0), Quaternion(0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)))

    def placed() -> bool:
        m_o, o_b = frames.get(("map", "odom")), frames.get(("odom", "base_link"))
        if m_o is None or o_b is None:
            return False
        mo, ob = m_o.transform, o_b.transform
        a = yaw(mo.rotation)
        x = mo.translation.x + math.cos(a) * ob.translation.x - math.sin(a) * ob.translation.y
        y = mo.translation.y + math.sin(a) * ob.translation.x + math.cos(a) * ob.translation.y
        th = a + yaw(ob.rotation)
        result["placed"] = [x, y, math.degrees(math.atan2(math.sin(th), math.cos(th)))]
        return abs(x - 2.0) < 0.05 and abs(y - 3.0) < 0.05 and abs(result["placed"][2] - 90.0) < 2.0

    wait_for(
        placed,
        "the pose /initialpose set",
        publish=lambda: initial.write(PoseWithCovarianceStamped(Header(Time(), "map"), PoseWithCovariance(pose))),
    )
    # RosAria's disable_motors, as a topic: /motors_state says so
    wait_for(lambda: seen["motors"] is True, "/motors_state true")
    wait_for(lambda: seen["motors"] is False, "/motors_state false", publish=lambda: enable.write(Bool(False)))
    result["motors_disabled"] = True
    print(json.dumps(result), flush=True)
    del domain  # held until here: the domain's configuration lives as long as this object


if __name__ == "__main__":
    main()
