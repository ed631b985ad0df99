"""A lenient little-endian reader with ARIA/AMRISim packet semantics (docs/protocol.md §1).

Reads beyond the end of the data return 0 (or an empty string) instead of failing, exactly as
``ArBasePacket`` does; the position still advances, so every later read also returns 0. This is what
a server needs for command arguments ("SIM_STAT with no argument reads as 0").
"""

from __future__ import annotations

import struct
from typing import Final

_U16: Final = struct.Struct("<H")
_S16: Final = struct.Struct("<h")
_U32: Final = struct.Struct("<I")
_S32: Final = struct.Struct("<i")


class PacketReader:
    """Sequential reads over ``data``; ``remaining`` tells how many bytes are left."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    @property
    def remaining(self) -> int:
        return max(0, len(self.data) - self.pos)

    def _fixed(self, st: struct.Struct) -> int:
        pos = self.pos
        self.pos = pos + st.size
        if pos + st.size > len(self.data):
            return 0
        value: int = st.unpack_from(self.data, pos)[0]
        return value

    def u8(self) -> int:
        pos = self.pos
        self.pos = pos + 1
        return self.data[pos] if pos < len(self.data) else 0

    def s8(self) -> int:
        value = self.u8()
        return value - 256 if value > 127 else value

    def u16(self) -> int:
        return self._fixed(_U16)

    def s16(self) -> int:
        return self._fixed(_S16)

    def u32(self) -> int:
        return self._fixed(_U32)

    def s32(self) -> int:
        return self._fixed(_S32)

    def nul_string(self) -> bytes:
        """Bytes up to (not including) the next NUL, which is consumed; to the end if there is none."""
        data = self.data
        pos = self.pos
        if pos >= len(data):
            return b""
        end = data.find(b"\x00", pos)
        if end < 0:
            self.pos = len(data)
            return data[pos:]
        self.pos = end + 1
        return data[pos:end]

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end of the data)."""
        pos = self.pos
        self.pos = pos + n
        return self.data[pos : pos + n]

    def rest(self) -> bytes:
        """Everything not read yet."""
        pos = self.pos
        self.pos = max(pos, len(self.data))
        return self.data[pos:]
