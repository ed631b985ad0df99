"""The ARCOS analog gyro packet (ID 0x98) and its command, as ARIA's ``ArAnalogGyro`` reads them.

A Pioneer with the analog gyro accessory sends, while GYRO (58) 1 has turned it on, a 0x98 packet after
each SIP: a count byte, then per reading a signed 16-bit little-endian rate sample and an unsigned
temperature byte (AriaCoda ``src/ArAnalogGyro.cpp``, ``handleGyroPacket``). The sample is the gyro's
10-bit ADC reading: 5 V over 1023 counts, 2.5 V per 300 deg/s, taken every 25 ms (ARIA integrates
``rate * 0.025`` per reading, so a 100 ms SIP cycle carries four). A reading above the zero-rate level
is a clockwise turn (ARIA negates the rate). GYRO 0 turns the packets off, 2 is ARIA's gyro-only mode.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import MAX_PAYLOAD, encode_packet
from saphira.protocol.packet_ids import PacketId

__all__ = [
    "DEG_PER_COUNT",
    "GYRO_ZERO",
    "SAMPLE_PERIOD",
    "GyroPacket",
    "GyroReading",
    "decode_gyro_packet",
    "encode_gyro_packet",
]

DEG_PER_COUNT: Final = 5.0 / 1023.0 * 300.0 / 2.5
"""deg/s of turn per ADC count away from the zero-rate level (about 0.587)."""
GYRO_ZERO: Final = 512
"""The zero-rate level at mid-scale of the 10-bit ADC: what the simulator sends for no turn."""
SAMPLE_PERIOD: Final = 0.025
"""Seconds per reading (ARIA's integration step)."""

_READING = struct.Struct("<hB")
MAX_READINGS: Final = (MAX_PAYLOAD - 2) // _READING.size
"""Most readings one packet holds."""


@dataclass(frozen=True)
class GyroReading:
    """One sample: the raw ADC ``rate`` count and the ``temperature`` byte (sensor units)."""

    rate: int
    temperature: int


@dataclass(frozen=True)
class GyroPacket:
    readings: tuple[GyroReading, ...]


def encode_gyro_packet(packet: GyroPacket) -> bytes:
    """The framed 0x98 packet; :class:`EncodeError` names a reading out of its field's range."""
    if len(packet.readings) > MAX_READINGS:
        raise EncodeError(f"{len(packet.readings)} gyro readings; one packet holds {MAX_READINGS}")
    body = bytearray((PacketId.ANALOG_GYRO, len(packet.readings)))
    for i, reading in enumerate(packet.readings):
        if not (-0x8000 <= reading.rate <= 0x7FFF and 0 <= reading.temperature <= 0xFF):
            raise EncodeError(f"gyro reading {i} ({reading.rate}, {reading.temperature}) is outside int16, uint8")
        body += _READING.pack(reading.rate, reading.temperature)
    return encode_packet(body)


def decode_gyro_packet(payload: bytes | bytearray) -> GyroPacket:
    """Decode a 0x98 payload (ID byte first); :class:`DecodeError` names the byte offset."""
    if not payload or payload[0] != PacketId.ANALOG_GYRO:
        raise DecodeError("not an analog gyro packet (ID 0x98)", 0)
    if len(payload) < 2:
        raise DecodeError("gyro packet without its reading count", len(payload))
    count = payload[1]
    end = 2 + count * _READING.size
    if len(payload) < end:
        raise DecodeError(f"gyro packet says {count} readings but holds {len(payload)} bytes", len(payload))
    readings = tuple(GyroReading(*_READING.unpack_from(payload, 2 + i * _READING.size)) for i in range(count))
    return GyroPacket(readings)
