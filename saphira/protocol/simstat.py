"""The SIMSTAT packet (ID 0x62), sent after SIM_STAT 1/2 (docs/protocol.md §7).

Layout as AMRISim's ``sendSIMSTAT`` emits it (ARIA's two parsers disagree with it)::

    0x62, str reserved1, str reserved2 (both empty: one NUL each), flags:u32,
    sim_interval:u16, real_interval:u16, last_interval:u16,
    true_x:s32 mm, true_y:s32 mm, true_z:s32, true_th:s32 deg,
    latitude:s32, longitude:s32 (degrees × 10^7), altitude:s32 (cm), gps_dop:s32 (DOP × 100; −1 none),
    odom_error_x:s32, odom_error_y:s32, odom_error_th:s32 (× 10^7)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntFlag
from typing import Final

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.reader import PacketReader


class SimStatFlags(IntFlag):
    HAVE_MAP = 1 << 0
    """Documented in the AMRISim README; the code never sets it."""
    GEOREFERENCED = 1 << 1
    """The map has an OriginLatLonAlt: latitude/longitude/altitude are meaningful."""
    ODOMETRY_ERROR = 1 << 2
    """The odometry-error fields are valid."""


@dataclass(slots=True)
class SimStat:
    """Simulator status: timing, the robot's true pose, GPS and odometry error (raw units)."""

    flags: int = 0
    sim_interval: int = 100
    real_interval: int = 100
    last_interval: int = 100
    true_x: int = 0
    true_y: int = 0
    true_z: int = 0
    true_th: int = 0
    latitude: int = 0
    longitude: int = 0
    altitude: int = 0
    gps_dop: int = -1
    odom_error_x: int = 0
    odom_error_y: int = 0
    odom_error_th: int = 0
    reserved1: str = ""
    reserved2: str = ""
    extra: bytes = b""

    @property
    def flag_bits(self) -> SimStatFlags:
        return SimStatFlags(self.flags)


_BODY: Final = struct.Struct("<IHHHiiiiiiiiiii")


def decode_simstat(payload: bytes | bytearray) -> SimStat:
    """Decode a SIMSTAT payload (ID 0x62 first); raises :class:`DecodeError` if it is too short."""
    if not payload or payload[0] != PacketId.SIMSTAT:
        got = f"0x{payload[0]:02X}" if payload else "nothing"
        raise DecodeError(f"packet ID is {got}, expected 0x62 (SIMSTAT)", 0)
    data = bytes(payload)
    reader = PacketReader(data, 1)
    reserved: list[str] = []
    for _ in range(2):
        if reader.pos >= len(data) or data.find(b"\x00", reader.pos) < 0:
            raise DecodeError("SIMSTAT reserved string is not NUL-terminated", reader.pos)
        reserved.append(reader.nul_string().decode("latin-1"))
    start = reader.pos
    if len(data) - start < _BODY.size:
        raise DecodeError(f"SIMSTAT body needs {_BODY.size} bytes, {len(data) - start} remain", start)
    stat = SimStat(*_BODY.unpack_from(data, start))
    stat.reserved1, stat.reserved2 = reserved
    stat.extra = data[start + _BODY.size :]
    return stat


def simstat_payload(stat: SimStat) -> bytes:
    """The payload of :func:`encode_simstat` (ID byte first, no framing)."""
    try:
        head = b"".join(
            (
                bytes((PacketId.SIMSTAT,)),
                stat.reserved1.encode("latin-1"),
                b"\x00",
                stat.reserved2.encode("latin-1"),
                b"\x00",
            )
        )
        body = _BODY.pack(
            stat.flags,
            stat.sim_interval,
            stat.real_interval,
            stat.last_interval,
            stat.true_x,
            stat.true_y,
            stat.true_z,
            stat.true_th,
            stat.latitude,
            stat.longitude,
            stat.altitude,
            stat.gps_dop,
            stat.odom_error_x,
            stat.odom_error_y,
            stat.odom_error_th,
        )
    except (struct.error, UnicodeEncodeError) as exc:
        raise EncodeError(f"SIMSTAT does not fit the wire format: {exc}") from None
    if head.count(b"\x00") != 2:
        raise EncodeError("SIMSTAT reserved strings must not contain NUL")
    return head + body + stat.extra


def encode_simstat(stat: SimStat) -> bytes:
    """A complete framed SIMSTAT packet."""
    return encode_packet(simstat_payload(stat))
