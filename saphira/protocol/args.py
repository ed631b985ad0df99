"""Command argument encoders (docs/protocol.md §2).

Each returns the argument bytes that follow the command byte, ready to pass to
:func:`saphira.protocol.encode_command` as its ``bytes`` argument.
"""

from __future__ import annotations

import struct
from typing import Final

from saphira.protocol.commands import ArgType, SimCtrlOp
from saphira.protocol.errors import EncodeError

_POS: Final = struct.Struct("<BH")
_POSE: Final = struct.Struct("<Biii")
_SIM_CTRL: Final = struct.Struct("<Bh")

INT_ARG_MAX: Final = 0xFFFF
"""Largest magnitude an integer argument can carry (a u16 after the type byte)."""


def _as_bytes(text: str | bytes | bytearray, what: str) -> bytes:
    if isinstance(text, str):
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError as exc:
            raise EncodeError(f"{what} {text!r} has a character outside latin-1 at index {exc.start}") from None
    return bytes(text)


def int_arg(value: int) -> bytes:
    """``0x3B`` + u16(value) if value ≥ 0, else ``0x1B`` + u16(−value) (ARIA ``comInt``)."""
    if value >= 0:
        if value > INT_ARG_MAX:
            raise EncodeError(f"integer argument {value} exceeds {INT_ARG_MAX}")
        return _POS.pack(ArgType.POSINT, value)
    if value < -INT_ARG_MAX:
        raise EncodeError(f"integer argument {value} is below {-INT_ARG_MAX}")
    return _POS.pack(ArgType.NEGINT, -value)


def byte_pair(high: int, low: int) -> int:
    """Two bytes in one integer argument, as ARIA ``com2Bytes`` builds it (VEL2, PTUPOS, DIGOUT).

    Each byte may be given signed (−128..127) or unsigned (0..255); the combined 16-bit word is read
    as a signed int16, so pass the result to :func:`int_arg` (words ≥ 0x8000 travel as ``0x1B``).
    VEL2: ``high`` = left wheel, ``low`` = right wheel, in Vel2Divisor units.
    """
    for name, b in (("high", high), ("low", low)):
        if not -128 <= b <= 255:
            raise EncodeError(f"{name} byte {b} is outside -128..255")
    word = (high & 0xFF) << 8 | (low & 0xFF)
    return word - 0x10000 if word & 0x8000 else word


def str_arg(text: str | bytes | bytearray) -> bytes:
    """ARIA ``comStr``: ``0x2B``, length byte, characters, NUL (both length-prefixed and NUL-terminated).

    This is what AMRISim expects for SIM_MESSAGE, MESSAGE, TTY2 and TTY4.
    """
    data = _as_bytes(text, "string")
    if len(data) > 0xFF:
        raise EncodeError(f"string of {len(data)} bytes does not fit a length byte")
    return bytes((ArgType.STRING, len(data))) + data + b"\x00"


def strn_arg(data: bytes | bytearray) -> bytes:
    """ARIA ``comStrN``: ``0x2B``, length byte, exactly those bytes, no NUL."""
    raw = bytes(data)
    if len(raw) > 0xFF:
        raise EncodeError(f"string of {len(raw)} bytes does not fit a length byte")
    return bytes((ArgType.STRING, len(raw))) + raw


def psos_str_arg(text: str | bytes | bytearray) -> bytes:
    """PSOS ``sfRobotComStr``: ``0x2B``, characters, NUL (no length byte). E.g. POLLING sequences."""
    data = _as_bytes(text, "string")
    if b"\x00" in data:
        raise EncodeError(f"NUL-terminated string argument contains a NUL at index {data.index(0)}")
    return bytes((ArgType.STRING,)) + data + b"\x00"


def data_arg(data: bytes | bytearray) -> bytes:
    """ARIA ``comDataN``: ``0x2B`` followed by raw bytes, no length byte."""
    return bytes((ArgType.STRING,)) + bytes(data)


def pose_arg(x: int, y: int, th: int) -> bytes:
    """SIM_SET_POSE: type byte 0, then int32 x mm, int32 y mm, int32 th degrees."""
    try:
        return _POSE.pack(0, x, y, th)
    except struct.error:
        raise EncodeError(f"pose ({x}, {y}, {th}) does not fit three int32") from None


def sim_ctrl_arg(op: int, data: bytes | bytearray = b"") -> bytes:
    """SIM_CTRL: a type byte (0x3B), the int16 operation, then the operation's own bytes."""
    if not -0x8000 <= op <= 0x7FFF:
        raise EncodeError(f"SIM_CTRL operation {op} does not fit an int16")
    return _SIM_CTRL.pack(ArgType.POSINT, op) + bytes(data)


def sim_load_map_arg(filename: str | bytes, master: bool = False) -> bytes:
    """SIM_CTRL load map (op 1, or 2 for the master map): u16 length L then the name with its NUL.

    AMRISim copies at most L−1 characters, so L counts the NUL (docs/protocol.md §2).
    """
    name = _as_bytes(filename, "map filename") + b"\x00"
    op = SimCtrlOp.MASTER_LOAD_MAP if master else SimCtrlOp.LOAD_MAP
    return sim_ctrl_arg(op, struct.pack("<H", len(name)) + name)
