"""The node on ROS 2's graph: ``ros_discovery_info``, what ``ros2 node list`` reads.

A DDS participant is not a ROS 2 node: ROS 2's DDS middlewares (rmw_cyclonedds, rmw_fastrtps) tell
each other which nodes a participant holds on the topic ``ros_discovery_info`` (no ``rt/`` prefix;
reliable, transient local, keep last 1), as ``rmw_dds_common/msg/ParticipantEntitiesInfo``: the
participant's gid, then for each node its namespace, its name, and the gids of its readers and
writers. A gid is the entity's 16-byte DDS GUID (12-byte prefix, 4-byte entity id), zero-padded to
the distribution's gid size: 16 bytes from Iron on (rmw_dds_common 2.0: Iron, Jazzy, Kilted,
Rolling), 24 before (Humble). The two layouts do not read each other, so
:func:`saphira.ros2.discovery.gid_size` follows Jazzy, the current LTS, unless ``ROS_DISTRO`` names
Humble (or an older distribution).
"""

# no "from __future__ import annotations": Cyclone DDS resolves the field types from the live annotations
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cyclonedds.idl.types as t
from cyclonedds.idl import IdlStruct

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    sequence: TypeAlias = Sequence
else:
    from cyclonedds.idl.types import sequence

__all__ = ["DISCOVERY_TOPIC", "NODE_NAME", "NODE_NAMESPACE", "entities_info", "gid", "info_types"]

DISCOVERY_TOPIC = "ros_discovery_info"
NODE_NAME = "saphira"
NODE_NAMESPACE = "/"


def gid(guid: bytes, size: int) -> bytes:
    """A DDS GUID as a ROS 2 gid of ``size`` bytes (the GUID, then zeros)."""
    return guid.ljust(size, b"\0")


_TYPES: dict[int, tuple[Any, Any, Any]] = {}


def info_types(size: int) -> tuple[Any, Any, Any]:
    """``rmw_dds_common``'s Gid, NodeEntitiesInfo and ParticipantEntitiesInfo with gids of ``size`` bytes."""
    if size in _TYPES:
        return _TYPES[size]

    octets: Any = t.array[t.uint8, size]  # type: ignore[misc]

    @dataclass
    class Gid(IdlStruct, typename="rmw_dds_common::msg::dds_::Gid_"):
        data: octets = field(default_factory=lambda: bytes(size))

    @dataclass
    class NodeEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::NodeEntitiesInfo_"):
        node_namespace: str = ""
        node_name: str = ""
        reader_gid_seq: sequence[Gid] = field(default_factory=list)
        writer_gid_seq: sequence[Gid] = field(default_factory=list)

    @dataclass
    class ParticipantEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"):
        gid: Gid = field(default_factory=Gid)
        node_entities_info_seq: sequence[NodeEntitiesInfo] = field(default_factory=list)

    _TYPES[size] = (Gid, NodeEntitiesInfo, ParticipantEntitiesInfo)
    return _TYPES[size]


def entities_info(participant: bytes, readers: list[bytes], writers: list[bytes], size: int) -> Any:
    """The ``ParticipantEntitiesInfo`` of a participant holding the one node :data:`NODE_NAME` (GUIDs given)."""
    gid_type, node_type, info_type = info_types(size)

    def as_gid(guid: bytes) -> Any:
        return gid_type(gid(guid, size))

    node = node_type(NODE_NAMESPACE, NODE_NAME, [as_gid(r) for r in readers], [as_gid(w) for w in writers])
    return info_type(as_gid(participant), [node])
