"""Packet framing: ``FA FB count payload checksum`` (docs/protocol.md §1).

The payload is the command or packet-ID byte followed by its data; ``count`` = len(payload) + 2
(it counts the two checksum bytes). The checksum sums the payload as big-endian 16-bit words modulo
2^16, XORs an odd last byte into the low byte, and is sent high byte first.
"""

from __future__ import annotations

import struct
from typing import Final

from saphira.protocol.errors import DecodeError, EncodeError

HEADER: Final = b"\xfa\xfb"
HEADER_LEN: Final = 3
"""The two sync bytes and the count byte."""
CHECKSUM_LEN: Final = 2

MIN_COUNT: Final = 3
"""The smallest legal count: an ID byte and the checksum."""
MAX_COUNT_SERVER: Final = 200
"""A server (PSOS, and our simulator) ignores command packets whose count exceeds 200 (§1)."""
MAX_COUNT_CLIENT: Final = 255
"""A client (ARIA) accepts any count byte (§1)."""
MAX_PAYLOAD: Final = MAX_COUNT_CLIENT - CHECKSUM_LEN
MAX_COMMAND_PAYLOAD: Final = MAX_COUNT_SERVER - CHECKSUM_LEN
"""The longest command payload a server accepts (198 bytes: command byte + 197 argument bytes)."""

# One precompiled big-endian word unpacker per possible half-length: checksumming is then a single
# C-level unpack plus sum().
_WORDS: Final = tuple(struct.Struct(f">{n}H") for n in range(MAX_COUNT_CLIENT // 2 + 1))


def checksum_at(buf: bytes | bytearray | memoryview, start: int, length: int) -> int:
    """The Pioneer checksum of ``buf[start:start + length]``, read in place (no copy)."""
    half = length >> 1
    words = _WORDS[half] if half < len(_WORDS) else struct.Struct(f">{half}H")
    c: int = sum(words.unpack_from(buf, start)) & 0xFFFF
    if length & 1:
        c ^= buf[start + length - 1]
    return c


def checksum(data: bytes | bytearray | memoryview) -> int:
    """The Pioneer checksum (§1) of ``data``, which is a payload: ID byte through last data byte."""
    return checksum_at(data, 0, len(data))


def encode_packet(payload: bytes | bytearray, max_count: int = MAX_COUNT_CLIENT) -> bytes:
    """Frame ``payload`` (ID/command byte + data) as ``FA FB count payload checksum``.

    Raises :class:`EncodeError` if the payload is empty or its count would exceed ``max_count``
    (255 by default; pass :data:`MAX_COUNT_SERVER` for packets a server must accept).
    """
    n = len(payload)
    if n == 0:
        raise EncodeError("empty payload: a packet needs at least its ID/command byte")
    if n + CHECKSUM_LEN > max_count:
        raise EncodeError(f"payload of {n} bytes gives count {n + CHECKSUM_LEN}, above the limit {max_count}")
    c = checksum_at(payload, 0, n)
    return b"".join((HEADER, bytes((n + CHECKSUM_LEN,)), payload, bytes((c >> 8, c & 0xFF))))


def decode_frame(frame: bytes | bytearray, max_count: int = MAX_COUNT_CLIENT) -> bytes:
    """Check one complete framed packet and return its payload.

    Raises :class:`DecodeError` (offsets count from the first ``FA``) on a bad header, a count outside
    ``MIN_COUNT..max_count``, a length that disagrees with the count, or a wrong checksum.
    """
    if len(frame) < HEADER_LEN:
        raise DecodeError(f"frame of {len(frame)} bytes is shorter than its 3-byte header", len(frame))
    if frame[0] != 0xFA or frame[1] != 0xFB:
        raise DecodeError(f"header is {frame[0]:02X} {frame[1]:02X}, expected FA FB", 0)
    count = frame[2]
    if count < MIN_COUNT:
        raise DecodeError(f"count {count} is below the minimum {MIN_COUNT}", 2)
    if count > max_count:
        raise DecodeError(f"count {count} is above the limit {max_count}", 2)
    if len(frame) != HEADER_LEN + count:
        raise DecodeError(f"count {count} needs a {HEADER_LEN + count}-byte frame, got {len(frame)}", 2)
    length = count - CHECKSUM_LEN
    expected = checksum_at(frame, HEADER_LEN, length)
    got = frame[-2] << 8 | frame[-1]
    if got != expected:
        raise DecodeError(f"checksum {got:04X}, expected {expected:04X}", len(frame) - 2)
    return bytes(frame[HEADER_LEN : HEADER_LEN + length])
