"""The Pioneer packet codec: pure functions from bytes to typed packets and back (no I/O).

Conventions: ``encode_*`` return complete framed packets ready for the wire; ``*_payload`` return the
payload only (ID/command byte + data); ``decode_*`` take a payload, as :class:`PacketReceiver` yields
it. Values stay in raw wire units; unit conversion belongs to the state reflector.
"""

from saphira.protocol.args import (
    byte_pair,
    data_arg,
    int_arg,
    pose_arg,
    psos_str_arg,
    sim_ctrl_arg,
    sim_load_map_arg,
    str_arg,
    strn_arg,
)
from saphira.protocol.capture import (
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT,
    CaptureRecord,
    parse_capture,
    read_capture,
    stream_bytes,
)
from saphira.protocol.command_packet import (
    CommandArg,
    CommandPacket,
    command_payload,
    decode_command,
    encode_command,
)
from saphira.protocol.commands import ArgType, Command, SimCtrlOp, command_name
from saphira.protocol.config import ConfigPacket, config_payload, decode_config, encode_config
from saphira.protocol.errors import DecodeError, EncodeError, PacketError
from saphira.protocol.framing import (
    HEADER,
    MAX_COMMAND_PAYLOAD,
    MAX_COUNT_CLIENT,
    MAX_COUNT_SERVER,
    MIN_COUNT,
    checksum,
    decode_frame,
    encode_packet,
)
from saphira.protocol.packet_ids import SIP_IDS, PacketId, is_sip_id
from saphira.protocol.reader import PacketReader
from saphira.protocol.receiver import PacketReceiver, ReceiverStats
from saphira.protocol.simstat import SimStat, SimStatFlags, decode_simstat, encode_simstat, simstat_payload
from saphira.protocol.sip import Sip, SipLayout, SonarReading, decode_sip, encode_sip, sip_payload
from saphira.protocol.sip_bits import ChargeState, FaultFlags, SipFlags, Stall
from saphira.protocol.sync import (
    RobotIdentity,
    decode_sync2_reply,
    encode_sync,
    encode_sync2_reply,
    sync2_reply_payload,
)

__all__ = [
    "CLIENT_TO_SERVER",
    "HEADER",
    "MAX_COMMAND_PAYLOAD",
    "MAX_COUNT_CLIENT",
    "MAX_COUNT_SERVER",
    "MIN_COUNT",
    "SERVER_TO_CLIENT",
    "SIP_IDS",
    "ArgType",
    "CaptureRecord",
    "ChargeState",
    "Command",
    "CommandArg",
    "CommandPacket",
    "ConfigPacket",
    "DecodeError",
    "EncodeError",
    "FaultFlags",
    "PacketError",
    "PacketId",
    "PacketReader",
    "PacketReceiver",
    "ReceiverStats",
    "RobotIdentity",
    "SimCtrlOp",
    "SimStat",
    "SimStatFlags",
    "Sip",
    "SipFlags",
    "SipLayout",
    "SonarReading",
    "Stall",
    "byte_pair",
    "checksum",
    "command_name",
    "command_payload",
    "config_payload",
    "data_arg",
    "decode_command",
    "decode_config",
    "decode_frame",
    "decode_simstat",
    "decode_sip",
    "decode_sync2_reply",
    "encode_command",
    "encode_config",
    "encode_packet",
    "encode_simstat",
    "encode_sip",
    "encode_sync",
    "encode_sync2_reply",
    "int_arg",
    "is_sip_id",
    "parse_capture",
    "pose_arg",
    "psos_str_arg",
    "read_capture",
    "sim_ctrl_arg",
    "sim_load_map_arg",
    "simstat_payload",
    "sip_payload",
    "str_arg",
    "stream_bytes",
    "strn_arg",
    "sync2_reply_payload",
]
