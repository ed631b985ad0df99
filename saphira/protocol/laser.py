"""In-band simulated laser packets 0x60 and 0x61 (pioneer-protocol.md §9.3), as AMRISim sends them.

A full scan follows every SIP, split into packets of at most :data:`MAX_READINGS_PER_PACKET`
readings; each packet says how many readings the whole scan has and the index of its first one.

* 0x60: ``s16 x mm, s16 y mm, s16 th deg`` (the odometric pose), ``u16 total``, ``u16 first``,
  ``u8 count``, then ``count`` × ``u16 range mm``.
* 0x61 (extended): ``u16 total``, ``u16 first``, ``u8 count``, ``count`` × (``u16 range``,
  ``u8 reflectance``, ``u8 0``, ``u8 0``), then ``u8 laser index`` and ``u8 flags`` (bit 0: the robot
  was moved by SIM_SET_POSE since the last packet).

The encoder builds each packet's readings with one numpy conversion, so a 181-reading scan costs
microseconds rather than a Python loop per reading.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import CHECKSUM_LEN, HEADER, checksum_at
from saphira.protocol.packet_ids import PacketId

MAX_READINGS_PER_PACKET: Final = 32
"""AMRISim's limit on the readings in one laser packet."""

FLAG_MOVED: Final = 0x01
"""0x61 flags bit 0: SIM_SET_POSE moved the robot since the last laser packet."""

LASER_IDS: Final = frozenset((PacketId.LASER, PacketId.LASER_EXTENDED))

_POSE: Final = struct.Struct("<hhh")
_HEAD: Final = struct.Struct("<HHB")
_EXTENDED_READING: Final = np.dtype([("range", "<u2"), ("refl", "u1"), ("pad", "u1", (2,))])


@dataclass(frozen=True, slots=True)
class LaserPacket:
    """One decoded laser packet: ``count`` readings from index ``first`` of a ``total``-reading scan.

    ``pose`` (odometric x mm, y mm, th deg) comes only in 0x60; ``reflectance``, ``laser_index`` and
    ``flags`` only in 0x61 (``reflectance`` is empty for 0x60).
    """

    extended: bool
    total: int
    first: int
    ranges: tuple[int, ...]
    reflectance: tuple[int, ...] = ()
    pose: tuple[int, int, int] | None = None
    laser_index: int = 0
    flags: int = 0

    @property
    def count(self) -> int:
        return len(self.ranges)

    @property
    def moved(self) -> bool:
        return bool(self.flags & FLAG_MOVED)


def decode_laser(payload: bytes | bytearray) -> LaserPacket:
    """Decode a 0x60 or 0x61 payload (ID byte first); :class:`DecodeError` names the byte offset."""
    data = bytes(payload)
    if not data or data[0] not in LASER_IDS:
        got = f"0x{data[0]:02X}" if data else "nothing"
        raise DecodeError(f"packet ID is {got}, expected 0x60 or 0x61 (laser)", 0)
    extended = data[0] == PacketId.LASER_EXTENDED
    pos = 1
    pose: tuple[int, int, int] | None = None
    if not extended:
        if len(data) < pos + _POSE.size:
            raise DecodeError("laser packet too short for its robot pose", len(data))
        pose = _POSE.unpack_from(data, pos)
        pos += _POSE.size
    if len(data) < pos + _HEAD.size:
        raise DecodeError("laser packet too short for total, first index and count", len(data))
    total, first, count = _HEAD.unpack_from(data, pos)
    pos += _HEAD.size
    if first + count > total:
        raise DecodeError(f"readings {first}..{first + count - 1} lie beyond the scan's {total}", pos - 5)
    size = count * (5 if extended else 2)
    tail = 2 if extended else 0
    if len(data) < pos + size + tail:
        raise DecodeError(f"{count} readings need {size + tail} bytes, {len(data) - pos} remain", len(data))
    if extended:
        readings = np.frombuffer(data, _EXTENDED_READING, count, pos)
        index, flags = data[pos + size], data[pos + size + 1]
        return LaserPacket(True, total, first, tuple(readings["range"].tolist()),
                           tuple(readings["refl"].tolist()), None, index, flags)  # fmt: skip
    ranges = np.frombuffer(data, "<u2", count, pos)
    return LaserPacket(False, total, first, tuple(ranges.tolist()), (), pose)


def laser_packets(
    ranges: Sequence[float] | npt.NDArray[np.float64],
    *,
    extended: bool,
    pose: tuple[float, float, float] = (0.0, 0.0, 0.0),
    reflectance: Sequence[int] | npt.NDArray[np.int_] | None = None,
    laser_index: int = 0,
    flags: int = 0,
    per_packet: int = MAX_READINGS_PER_PACKET,
) -> list[bytes]:
    """A whole scan as framed packets of at most ``per_packet`` readings (0x61 if ``extended``).

    Ranges are mm, rounded and clipped to 0..65535. ``pose`` (0x60 only) is the odometric pose,
    clipped to 16 bits as AMRISim does. ``flags`` (0x61) goes into every packet of the scan: all
    its readings were taken after the move.
    """
    if not 1 <= per_packet <= MAX_READINGS_PER_PACKET:
        raise EncodeError(f"a laser packet holds 1..{MAX_READINGS_PER_PACKET} readings, not {per_packet}")
    values = np.clip(np.rint(np.asarray(ranges, dtype=np.float64)), 0, 0xFFFF).astype("<u2")
    total = int(values.shape[0])
    if total > 0xFFFF:
        raise EncodeError(f"a scan of {total} readings does not fit the u16 total")
    if extended:
        body = np.zeros(total, dtype=_EXTENDED_READING)
        body["range"] = values
        if reflectance is not None:
            body["refl"] = np.clip(np.asarray(reflectance), 0, 255)
        data, size = body.tobytes(), _EXTENDED_READING.itemsize
        head = bytes((PacketId.LASER_EXTENDED,))
        tail = bytes((laser_index & 0xFF, flags & 0xFF))
    else:
        data, size = values.tobytes(), 2
        head = bytes((PacketId.LASER,)) + _POSE.pack(*(max(-0x8000, min(0x7FFF, round(v))) for v in pose))
        tail = b""
    packets = []
    for first in range(0, total, per_packet):
        count = min(per_packet, total - first)
        payload = b"".join((head, _HEAD.pack(total, first, count), data[first * size : (first + count) * size], tail))
        c = checksum_at(payload, 0, len(payload))
        packets.append(HEADER + bytes((len(payload) + CHECKSUM_LEN,)) + payload + bytes((c >> 8, c & 0xFF)))
    return packets
