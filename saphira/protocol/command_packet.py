"""Client command packets: encoding (client side) and decoding (server side) (docs/protocol.md §2).

The decoder follows AMRISim: it never fails on a short argument; reads past the end give 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.protocol.args import int_arg, str_arg
from saphira.protocol.commands import ArgType, command_name
from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import MAX_COUNT_SERVER, encode_packet
from saphira.protocol.reader import PacketReader

CommandArg = int | str | bytes | bytearray | None
"""``None``: no argument; ``int``: 0x3B/0x1B integer; ``str``: ARIA ``comStr`` string; ``bytes``:
argument bytes already encoded (by :mod:`saphira.protocol.args`), appended verbatim."""


def command_payload(command: int, arg: CommandArg = None) -> bytes:
    """The payload (command byte + argument) of a command packet; see :func:`encode_command`."""
    if not 0 <= command <= 0xFF:
        raise EncodeError(f"command number {command} is outside 0..255")
    head = bytes((command,))
    if arg is None:
        return head
    if isinstance(arg, int):
        return head + int_arg(arg)
    if isinstance(arg, str):
        return head + str_arg(arg)
    return head + bytes(arg)


def encode_command(command: int, arg: CommandArg = None) -> bytes:
    """A complete framed command packet, e.g. ``encode_command(Command.VEL, -300)``.

    Raises :class:`EncodeError` when a value is out of range or the packet's count would exceed 200,
    the most a server accepts.
    """
    return encode_packet(command_payload(command, arg), MAX_COUNT_SERVER)


@dataclass(frozen=True, slots=True)
class CommandPacket:
    """A decoded command: its number, the argument-type byte and the raw argument bytes.

    ``int_arg`` is the signed integer when the argument is an integer (type 0x3B or 0x1B; the
    magnitude is 0 if its bytes are missing), else ``None``. ``data`` is everything after the command
    byte, type byte included; the accessors below read it with AMRISim's semantics.
    """

    command: int
    arg_type: int | None
    int_arg: int | None
    data: bytes

    @property
    def name(self) -> str:
        """Canonical command name (PULSE/OPEN/CLOSE for 0/1/2; the link knows if it is a SYNC)."""
        return command_name(self.command)

    @property
    def has_arg(self) -> bool:
        return bool(self.data)

    @property
    def magnitude(self) -> int:
        """The u16 after the type byte, ignoring the sign (what AMRISim uses for ENABLE, SONAR, SETV...)."""
        data = self.data
        return data[1] | data[2] << 8 if len(data) >= 3 else 0

    @property
    def int_value(self) -> int:
        """AMRISim ``getIntFromPacket``: −magnitude if the type byte is 0x1B, else +magnitude; 0 if absent."""
        return -self.magnitude if self.arg_type == ArgType.NEGINT else self.magnitude

    def byte_pair(self) -> tuple[int, int]:
        """The integer argument split into signed (high, low) bytes: VEL2 gives (left, right)."""
        word = self.int_value & 0xFFFF
        high, low = word >> 8, word & 0xFF
        return (high - 256 if high > 127 else high, low - 256 if low > 127 else low)

    def string(self) -> bytes:
        """Length-prefixed string (type, length L, L characters; stops at a NUL), as AMRISim reads it."""
        data = self.data
        if len(data) < 2:
            return b""
        text = data[2 : 2 + data[1]]
        nul = text.find(b"\x00")
        return text if nul < 0 else text[:nul]

    def nul_string(self) -> bytes:
        """PSOS NUL-terminated string after the type byte (to the end if there is no NUL)."""
        return PacketReader(self.data, 1).nul_string()

    def raw(self) -> bytes:
        """The bytes after the type byte (ARIA ``comDataN``)."""
        return self.data[1:]

    def pose(self) -> tuple[int, int, int]:
        """SIM_SET_POSE's int32 x, y, th after the (ignored) type byte; missing values read 0."""
        r = self.reader()
        return (r.s32(), r.s32(), r.s32())

    def reader(self) -> PacketReader:
        """A lenient reader positioned after the type byte, for op-specific layouts (SIM_CTRL, SETO)."""
        return PacketReader(self.data, 1)


def decode_command(payload: bytes | bytearray) -> CommandPacket:
    """Decode a command payload (command byte + argument) as a server does.

    Only an empty payload is an error (:class:`DecodeError`); short arguments read as 0.
    """
    if not payload:
        raise DecodeError("empty payload: no command byte", 0)
    data = bytes(payload[1:])
    if not data:
        return CommandPacket(payload[0], None, None, b"")
    arg_type = data[0]
    value: int | None = None
    if arg_type == ArgType.POSINT or arg_type == ArgType.NEGINT:
        magnitude = data[1] | data[2] << 8 if len(data) >= 3 else 0
        value = -magnitude if arg_type == ArgType.NEGINT else magnitude
    return CommandPacket(payload[0], arg_type, value, data)
