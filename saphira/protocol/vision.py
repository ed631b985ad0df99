"""FTVS (Fast Track Vision System) blob vision: channel modes, the vision packet and its commands.

The manual (§9, Saphira Vision) describes what the FTVS reports — per colour channel A, B and C a
``struct vinfo { type; x, y; area; h, w; first, num }`` — and how it is commanded:
``sfRobotComStr(VISION_COM, "pioneer_a_mode 2")`` and ``"line_bottom_row 0"``-style parameter
strings. It does not give the packet's bytes, so saphira defines them (documented choice):

* **VISION_COM** is command 16 (``VISION`` in the Saphira-era command header), a string argument.
* **Vision packet** ID ``0x50``, sent every 100 ms: for channels A, B, C in turn, ``type:u8`` then
  ``x, y, area, h, w, first, num`` as int16 little-endian (46 payload bytes). Image coordinates have
  (0, 0) at the image centre, x to the right, y up; ``area`` 0 means no blob.
* **Commands** are ``pioneer_<a|b|c>_mode <0|1|2>``, the line parameters ``line_bottom_row``,
  ``line_num_slices``, ``line_slice_size``, ``line_min_mass`` (a number each), and, as a simulator
  extension standing in for the FTVS's colour training, ``pioneer_<a|b|c>_color <name>``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import PacketId

VISION_COM: Final = 16
"""The command that carries vision strings (``sfRobotComStr(VISION_COM, ...)``)."""

DEG_TO_PIXELS: Final = 3.0
"""About 3 pixels per degree with the FTVS's lens (the manual's ``DEG_TO_PIXELS``)."""

CHANNELS: Final = "abc"
"""Channel letters in packet order: A = 0, B = 1, C = 2."""

LINE_PARAMETERS: Final = ("line_bottom_row", "line_num_slices", "line_slice_size", "line_min_mass")


class VisionMode(IntEnum):
    """A channel's processing mode (``chroma.h``)."""

    BLOB = 0
    """Centre of mass and area of the largest blob (the mode at start-up)."""
    LINE = 1
    """A line on the floor: its centre ``x``, the first row ``first`` and the row count ``num``."""
    BLOB_BB = 2
    """BLOB plus the bounding box's height ``h`` and width ``w``."""


@dataclass(frozen=True, slots=True)
class VisionInfo:
    """One channel's report, the manual's ``struct vinfo`` (pixels; area 0 = no blob, num 0 = no line)."""

    type: int = VisionMode.BLOB
    x: int = 0
    y: int = 0
    area: int = 0
    h: int = 0
    w: int = 0
    first: int = 0
    num: int = 0


@dataclass(frozen=True, slots=True)
class VisionPacket:
    """The three channels' reports of one vision packet."""

    channels: tuple[VisionInfo, VisionInfo, VisionInfo] = (VisionInfo(), VisionInfo(), VisionInfo())


_CHANNEL: Final = struct.Struct("<Bhhhhhhh")
_INT16: Final = (-0x8000, 0x7FFF)
VISION_PAYLOAD_SIZE: Final = 1 + 3 * _CHANNEL.size


def encode_vision_packet(packet: VisionPacket) -> bytes:
    """The framed 0x50 packet; :class:`EncodeError` names a value that does not fit."""
    parts = [bytes([PacketId.VISION])]
    for letter, info in zip(CHANNELS, packet.channels, strict=True):
        values = (info.x, info.y, info.area, info.h, info.w, info.first, info.num)
        if not 0 <= info.type <= 0xFF or not all(_INT16[0] <= v <= _INT16[1] for v in values):
            raise EncodeError(f"vision channel {letter.upper()}: {info} does not fit (type u8, the rest int16)")
        parts.append(_CHANNEL.pack(info.type, *values))
    return encode_packet(b"".join(parts))


def decode_vision_packet(payload: bytes | bytearray) -> VisionPacket:
    """Decode a 0x50 payload (ID byte first); :class:`DecodeError` names the byte offset."""
    if not payload or payload[0] != PacketId.VISION:
        raise DecodeError("not a vision packet (ID 0x50)", 0)
    if len(payload) < VISION_PAYLOAD_SIZE:
        raise DecodeError(f"vision packet of {len(payload)} bytes, expected {VISION_PAYLOAD_SIZE}", len(payload))
    infos = [VisionInfo(*_CHANNEL.unpack_from(payload, 1 + i * _CHANNEL.size)) for i in range(3)]
    return VisionPacket((infos[0], infos[1], infos[2]))


@dataclass(frozen=True, slots=True)
class VisionSetting:
    """A parsed vision command: ``name`` is ``mode``, ``color`` or a line parameter; ``channel`` 0-2
    for per-channel settings (else ``None``); ``value`` an int (modes, line parameters) or a name."""

    name: str
    channel: int | None
    value: int | str


def parse_vision_command(text: str) -> VisionSetting:
    """Read one VISION_COM string; :class:`ValueError` says what is wrong with it."""
    words = text.split()
    if len(words) != 2:
        raise ValueError(f"vision command {text!r}: expected '<setting> <value>'")
    key, value = words[0].lower(), words[1]
    if key in LINE_PARAMETERS:
        return VisionSetting(key, None, _int(text, value))
    parts = key.split("_")
    if len(parts) == 3 and parts[0] == "pioneer" and len(parts[1]) == 1 and parts[1] in CHANNELS:
        channel = CHANNELS.index(parts[1])
        if parts[2] == "mode":
            mode = _int(text, value)
            if mode not in set(VisionMode):
                raise ValueError(f"vision command {text!r}: mode must be 0, 1 or 2")
            return VisionSetting("mode", channel, mode)
        if parts[2] in ("color", "colour"):
            return VisionSetting("color", channel, value.lower())
    raise ValueError(
        f"vision command {text!r}: unknown setting (pioneer_X_mode, pioneer_X_color, {', '.join(LINE_PARAMETERS)})"
    )


def _int(text: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"vision command {text!r}: {value!r} is not an integer") from None
