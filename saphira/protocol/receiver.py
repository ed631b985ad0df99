"""Streaming packet receiver: bytes in any chunking → checked payloads (docs/protocol.md §1).

Rules (§1, made chunking-independent):

* Scan for the two-byte header ``FA FB``. A byte sequence ``FA FA FB`` therefore still syncs on the
  second ``FA`` (ARIA and AMRISim lose that packet).
* A count below 3 ("too short") or above ``max_count`` ("too long") rejects the candidate at once.
  Use 200 for a server (PSOS rule) and 255 for a client (ARIA accepts any count byte).
* A wrong checksum rejects it. After any rejection the scan resumes at the byte after the rejected
  ``FA``, so a valid packet hidden inside a corrupted one, or right after a lost byte, is still found.
  A packet that passes is consumed whole and never rescanned, so valid packets come out exactly once.
* A partial packet waits for more bytes, across any number of :meth:`PacketReceiver.feed` calls. The
  receiver has no clock: a caller that sees the line go quiet mid-packet (ARIA waits 100 ms) calls
  :meth:`PacketReceiver.expire_partial`, which rejects the pending candidate and rescans behind it.
* Nothing raises. Every byte fed is accounted for: ``packet_bytes + garbage_bytes + buffered`` equals
  the total fed (bytes of rejected candidates are garbage).
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.protocol.framing import (
    CHECKSUM_LEN,
    HEADER,
    HEADER_LEN,
    MAX_COUNT_CLIENT,
    MIN_COUNT,
    checksum_at,
)


@dataclass(slots=True)
class ReceiverStats:
    """Counters since the receiver was created: delivered packets and each kind of drop."""

    packets: int = 0
    packet_bytes: int = 0
    """Bytes of delivered packets, framing included."""
    garbage_bytes: int = 0
    """Bytes skipped while looking for a header, including those of rejected candidates."""
    bad_checksum: int = 0
    too_long: int = 0
    too_short: int = 0
    expired: int = 0
    """Partial packets abandoned by :meth:`PacketReceiver.expire_partial`."""

    @property
    def dropped(self) -> int:
        """Rejected candidate packets of every kind."""
        return self.bad_checksum + self.too_long + self.too_short + self.expired


class PacketReceiver:
    """Incremental framer: :meth:`feed` bytes, get back the payloads (ID byte + data) of good packets."""

    __slots__ = ("_buf", "max_count", "stats")

    def __init__(self, max_count: int = MAX_COUNT_CLIENT) -> None:
        if not MIN_COUNT <= max_count <= MAX_COUNT_CLIENT:
            raise ValueError(f"max_count {max_count} is outside {MIN_COUNT}..{MAX_COUNT_CLIENT}")
        self.max_count = max_count
        self.stats = ReceiverStats()
        self._buf = bytearray()

    @property
    def buffered(self) -> int:
        """Bytes held back: a partial packet, or a trailing ``FA`` that may start a header."""
        return len(self._buf)

    @property
    def has_partial(self) -> bool:
        """True while a header has been seen and the rest of its packet has not arrived."""
        return len(self._buf) >= 2 and self._buf[0] == 0xFA and self._buf[1] == 0xFB

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Append ``data`` and return the payloads of every packet completed by it, in stream order."""
        buf = self._buf
        buf += data
        return self._scan()

    def expire_partial(self) -> list[bytes]:
        """Give up on the pending partial packet (a mid-packet timeout) and rescan the bytes behind it.

        Returns the payloads found in them; does nothing when no partial packet is pending.
        """
        if not self.has_partial:
            return []
        self.stats.expired += 1
        self.stats.garbage_bytes += 1
        del self._buf[:1]
        return self._scan()

    def reset(self) -> None:
        """Forget any buffered bytes (counted as garbage), e.g. after reconnecting."""
        self.stats.garbage_bytes += len(self._buf)
        self._buf.clear()

    def _scan(self) -> list[bytes]:
        buf = self._buf
        n = len(buf)
        find = buf.find
        max_count = self.max_count
        stats = self.stats
        out: list[bytes] = []
        append = out.append
        garbage = 0
        pos = 0
        while True:
            p = find(HEADER, pos)
            if p < 0:
                # Keep a trailing FA: the next feed may bring its FB.
                keep = n - 1 if n > pos and buf[n - 1] == 0xFA else n
                garbage += keep - pos
                pos = keep
                break
            garbage += p - pos
            pos = p
            if p + HEADER_LEN > n:
                break
            count = buf[p + 2]
            if count < MIN_COUNT:
                stats.too_short += 1
            elif count > max_count:
                stats.too_long += 1
            else:
                end = p + HEADER_LEN + count
                if end > n:
                    break
                start = p + HEADER_LEN
                length = count - CHECKSUM_LEN
                if checksum_at(buf, start, length) == (buf[end - 2] << 8 | buf[end - 1]):
                    append(bytes(buf[start : start + length]))
                    stats.packet_bytes += end - p
                    pos = end
                    continue
                stats.bad_checksum += 1
            # Rejected candidate: its FA is garbage; rescan from the next byte.
            garbage += 1
            pos = p + 1
        stats.garbage_bytes += garbage
        stats.packets += len(out)
        if pos:
            del buf[:pos]
        return out
