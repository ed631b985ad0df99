"""The SYNC handshake packets and the SYNC2 autoconfiguration reply (docs/protocol.md §3).

SYNC0/1/2 requests and the SYNC0/SYNC1 echoes are the bare bytes ``0``, ``1``, ``2``. The server's
SYNC2 echo carries three NUL-terminated strings: robot name, class, subclass (PSOS ≥ 4.1, ARCOS,
AMRISim). Older PSOS sends the bare echo; those strings then decode as "".
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.reader import PacketReader


@dataclass(frozen=True, slots=True)
class RobotIdentity:
    """Who the server says it is. ARIA lowercases ``subclass`` to choose the parameter file."""

    name: str
    robot_class: str
    subclass: str


def encode_sync(n: int) -> bytes:
    """The framed SYNCn packet (n = 0, 1, 2): both the client request and the server's bare echo."""
    if n not in (0, 1, 2):
        raise EncodeError(f"SYNC number {n} is not 0, 1 or 2")
    return encode_packet(bytes((n,)))


def sync2_reply_payload(identity: RobotIdentity) -> bytes:
    """The payload of :func:`encode_sync2_reply`: ``02 name\\0 class\\0 subclass\\0``."""
    parts = [bytes((PacketId.SYNC2,))]
    for label, text in (
        ("name", identity.name),
        ("class", identity.robot_class),
        ("subclass", identity.subclass),
    ):
        try:
            raw = text.encode("latin-1")
        except UnicodeEncodeError:
            raise EncodeError(f"robot {label} {text!r} is not latin-1 text") from None
        if b"\x00" in raw:
            raise EncodeError(f"robot {label} {text!r} contains a NUL")
        parts.append(raw + b"\x00")
    return b"".join(parts)


def encode_sync2_reply(identity: RobotIdentity) -> bytes:
    """The server's framed SYNC2 echo with the autoconfiguration strings."""
    return encode_packet(sync2_reply_payload(identity))


def decode_sync2_reply(payload: bytes | bytearray) -> RobotIdentity:
    """Read name, class and subclass from a SYNC2 echo payload, as ARIA's ``bufToStr`` does.

    A missing string reads as "" and an unterminated one runs to the end of the packet. Raises
    :class:`DecodeError` only when the ID byte is not 2.
    """
    if not payload or payload[0] != PacketId.SYNC2:
        got = f"0x{payload[0]:02X}" if payload else "nothing"
        raise DecodeError(f"packet ID is {got}, expected 0x02 (SYNC2)", 0)
    reader = PacketReader(bytes(payload), 1)
    name, robot_class, subclass = (reader.nul_string().decode("latin-1") for _ in range(3))
    return RobotIdentity(name, robot_class, subclass)
