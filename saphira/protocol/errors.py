"""Errors raised by the packet codec: a packet that cannot be decoded, or a value that cannot be encoded.

The streaming receiver never raises (it counts what it drops); these are for the typed decoders and
the encoders, which are handed one packet or one value and must say exactly what is wrong and where.
"""

from __future__ import annotations

from saphira.core.errors import SaphiraError


class PacketError(SaphiraError, ValueError):
    """Base class of the codec's errors (a ``ValueError``, so callers may catch either)."""


class DecodeError(PacketError):
    """A payload that does not match its layout; ``offset`` is the byte offset in the payload (ID = 0).

    ``str(err)`` is ``"byte <offset>: <message>"``.
    """

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"byte {offset}: {message}")
        self.message = message
        self.offset = offset


class EncodeError(PacketError):
    """A value that does not fit the wire format (out of range, too long for a packet, ...)."""
