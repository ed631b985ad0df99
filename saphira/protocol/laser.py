"""In-band simulated laser packets 0x60 and 0x61 (docs/protocol.md §8), as AMRISim sends them.

A full scan follows every SIP, split into packets of at most :data:`MAX_READINGS_PER_PACKET`
readings; each packet says how many readings the whole scan has and the index of its first one.

* 0x60: ``s16 x mm, s16 y mm, s16 th deg`` (the odometric pose), ``u16 total``, ``u16 first``,
  ``u8 count``, then ``count`` × ``u16 range mm``.
* 0x61 (extended): ``u16 total``, ``u16 first``, ``u8 count``, ``count`` × (``u16 range``,
  ``u8 reflectance``, ``u8 0``, ``u8 0``), then ``u8 laser index`` and ``u8 flags`` (bit 0: the robot
  was moved by SIM_SET_POSE since the last packet).

The encoder lays out the packets of a scan shape once (headers, where each reading goes, which
bytes each checksum sums) and then fills a whole scan, checksums included, in a few numpy
operations: the simulator sends one after every SIP.
"""

from __future__ import annotations

import functools
import itertools
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from saphira.core.arrays import FloatArray
from saphira.core.geometry import ORIGIN, Pose
from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import CHECKSUM_LEN, HEADER
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


@dataclass(frozen=True)
class _Layout:
    """Where everything goes in the packets of one scan shape: built once per (total, kind, size).

    ``head_at`` is, per packet, where its pose (0x60) or laser index and flags (0x61) go.
    ``weights`` turns the stream's bytes into each packet's checksum sum in one product: 256 for
    the high byte of each payload word, 1 for its low byte, 0 for bytes outside the payload and for
    an odd payload's last byte, which is XORed in instead (``odd_packets``, ``odd_at``).
    """

    template: npt.NDArray[np.uint8]
    ranges_at: npt.NDArray[np.intp]
    reflectance_at: npt.NDArray[np.intp]
    head_at: npt.NDArray[np.intp]
    checksum_at: npt.NDArray[np.intp]
    weights: FloatArray
    odd_packets: npt.NDArray[np.intp]
    odd_at: npt.NDArray[np.intp]
    bounds: tuple[int, ...]


@functools.lru_cache(maxsize=32)
def _layout(total: int, extended: bool, per_packet: int) -> _Layout:
    firsts = range(0, total, per_packet)
    stream = bytearray()
    ranges_at: list[int] = []
    reflectance_at: list[int] = []
    head_at: list[int] = []
    checksum_at: list[int] = []
    bounds = [0]
    spans: list[tuple[int, int]] = []
    for first in firsts:
        count = min(per_packet, total - first)
        start = len(stream) + len(HEADER) + 1
        step = 5 if extended else 2
        size = 1 + _HEAD.size + step * count + (2 if extended else _POSE.size)
        kind = PacketId.LASER_EXTENDED if extended else PacketId.LASER
        stream += HEADER + bytes((size + CHECKSUM_LEN, kind))
        if not extended:
            head_at += range(len(stream), len(stream) + _POSE.size)
            stream += bytes(_POSE.size)
        stream += _HEAD.pack(total, first, count)
        for i in range(count):
            ranges_at += (len(stream) + step * i, len(stream) + step * i + 1)
            reflectance_at.append(len(stream) + step * i + 2)
        stream += bytes(step * count)
        if extended:
            head_at += (len(stream), len(stream) + 1)
            stream += bytes(2)
        spans.append((start, len(stream)))
        checksum_at += (len(stream), len(stream) + 1)
        stream += bytes(CHECKSUM_LEN)
        bounds.append(len(stream))
    weights = np.zeros((len(spans), len(stream)))
    odd_packets, odd_at = [], []
    for k, (start, end) in enumerate(spans):
        words = (end - start) // 2
        weights[k, start : start + 2 * words : 2] = 256.0
        weights[k, start + 1 : start + 2 * words : 2] = 1.0
        if (end - start) % 2:
            odd_packets.append(k)
            odd_at.append(end - 1)
    ints = functools.partial(np.array, dtype=np.intp)
    heads = ints(head_at).reshape(len(spans), -1)
    return _Layout(np.frombuffer(bytes(stream), np.uint8), ints(ranges_at), ints(reflectance_at), heads,
                   ints(checksum_at), weights, ints(odd_packets), ints(odd_at), tuple(bounds))  # fmt: skip


def laser_stream(
    ranges: Sequence[float] | FloatArray,
    *,
    extended: bool,
    pose: Pose = ORIGIN,
    reflectance: Sequence[int] | npt.NDArray[np.int_] | None = None,
    laser_index: int = 0,
    flags: int = 0,
    per_packet: int = MAX_READINGS_PER_PACKET,
) -> bytes:
    """:func:`laser_packets` as one byte string, the packets back to back (what the simulator sends).

    The packets of a scan shape are laid out once (:func:`_layout`); each scan is then a handful
    of numpy operations, checksums included, rather than Python work per packet.
    """
    return laser_packets_at(ranges, extended, pose, reflectance, laser_index, flags, per_packet)[0]


def laser_packets_at(
    ranges: Sequence[float] | FloatArray,
    extended: bool,
    pose: Pose,
    reflectance: Sequence[int] | npt.NDArray[np.int_] | None,
    laser_index: int,
    flags: int,
    per_packet: int,
) -> tuple[bytes, tuple[int, ...]]:
    """The packets of a scan back to back, and the offsets where each one starts (and the last ends)."""
    if not 1 <= per_packet <= MAX_READINGS_PER_PACKET:
        raise EncodeError(f"a laser packet holds 1..{MAX_READINGS_PER_PACKET} readings, not {per_packet}")
    values = np.minimum(np.maximum(np.rint(np.asarray(ranges, dtype=np.float64)), 0.0), 65535.0).astype("<u2")
    total = int(values.shape[0])
    if total > 0xFFFF:
        raise EncodeError(f"a scan of {total} readings does not fit the u16 total")
    if total == 0:
        return b"", (0,)
    layout = _layout(total, extended, per_packet)
    stream = layout.template.copy()
    stream[layout.ranges_at] = values.view(np.uint8)
    if extended:
        if reflectance is not None:
            stream[layout.reflectance_at] = np.clip(np.asarray(reflectance), 0, 255)
        if laser_index & 0xFF:  # the template holds 0
            stream[layout.head_at[:, 0]] = laser_index & 0xFF
        if flags & 0xFF:
            stream[layout.head_at[:, 1]] = flags & 0xFF
    else:
        clipped = (max(-0x8000, min(0x7FFF, round(v))) for v in pose)
        stream[layout.head_at] = np.frombuffer(_POSE.pack(*clipped), np.uint8)
    sums = (layout.weights @ stream.astype(np.float64)).astype(np.int64)  # to ">u2" below keeps the low 16 bits
    if not extended and layout.odd_packets.size:
        sums[layout.odd_packets] ^= stream[layout.odd_at]
    elif flags & 0xFF and layout.odd_packets.size:  # an odd 0x61 payload ends with its flags byte
        sums[layout.odd_packets] ^= flags & 0xFF
    stream[layout.checksum_at] = sums.astype(">u2").view(np.uint8)
    return stream.tobytes(), layout.bounds


def laser_packets(
    ranges: Sequence[float] | FloatArray,
    *,
    extended: bool,
    pose: Pose = ORIGIN,
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
    stream, bounds = laser_packets_at(ranges, extended, pose, reflectance, laser_index, flags, per_packet)
    return [stream[a:b] for a, b in itertools.pairwise(bounds)]
