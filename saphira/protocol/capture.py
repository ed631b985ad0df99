"""Reader for the packet-capture text files in ``tests/data/captures`` (one line per packet).

Line format (lines starting with ``#`` are proxy events and are skipped)::

    2026-11-21T15:17:26.181996 +0.173897 c1 C->S PKT #1 len=6 chk=ok | FA FB 03 00 00 00 | cmd=0(PULSE/SYNC0)

timestamp, seconds since the capture started, connection, direction (``C->S`` client to server,
``S->C`` server to client), packet number, length, checksum verdict, the bytes in hex, a decoding.
A malformed line raises :class:`saphira.core.errors.SourceError` naming ``file:line:column``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from saphira.core.errors import SourceError, SourcePosition

CLIENT_TO_SERVER: Final = "C->S"
SERVER_TO_CLIENT: Final = "S->C"
_DIRECTIONS: Final = (CLIENT_TO_SERVER, SERVER_TO_CLIENT)


@dataclass(frozen=True, slots=True)
class CaptureRecord:
    """One captured packet: ``t`` seconds since the capture started, ``direction``, the ``raw`` bytes."""

    t: float
    direction: str
    raw: bytes
    connection: str
    number: int
    checksum_ok: bool
    timestamp: str
    decoding: str
    line: int

    @property
    def payload(self) -> bytes:
        """The bytes between the count byte and the checksum (ID byte first), unchecked."""
        return self.raw[3:-2]


def _fail(source: str, line_no: int, column: int, line: str, message: str) -> SourceError:
    return SourceError(message, SourcePosition(source, line_no, column), line)


def _parse_line(line: str, line_no: int, source: str) -> CaptureRecord:
    head, sep, rest = line.partition(" | ")
    if not sep:
        raise _fail(source, line_no, 1, line, "expected 'header | hex bytes | decoding'")
    hex_part, _, decoding = rest.partition(" | ")
    tokens = head.split()
    if len(tokens) != 8 or tokens[4] != "PKT":
        raise _fail(
            source,
            line_no,
            1,
            line,
            "expected 'timestamp +seconds connection direction PKT #n len=N chk=verdict'",
        )
    timestamp, t_text, connection, direction, _, number_text, len_text, chk_text = tokens

    def column_of(token: str) -> int:
        return head.find(token) + 1

    try:
        t = float(t_text)
    except ValueError:
        raise _fail(source, line_no, column_of(t_text), line, f"bad time offset {t_text!r}") from None
    if direction not in _DIRECTIONS:
        raise _fail(source, line_no, column_of(direction), line, f"direction {direction!r} is not C->S or S->C")
    if not number_text.startswith("#") or not number_text[1:].isdigit():
        raise _fail(source, line_no, column_of(number_text), line, f"bad packet number {number_text!r}")
    if not len_text.startswith("len=") or not len_text[4:].isdigit():
        raise _fail(source, line_no, column_of(len_text), line, f"bad length field {len_text!r}")
    if not chk_text.startswith("chk="):
        raise _fail(source, line_no, column_of(chk_text), line, f"bad checksum field {chk_text!r}")
    hex_column = len(head) + len(sep) + 1
    try:
        raw = bytes.fromhex(hex_part)
    except ValueError as exc:
        raise _fail(source, line_no, hex_column, line, f"bad hex bytes: {exc}") from None
    length = int(len_text[4:])
    if len(raw) != length:
        raise _fail(source, line_no, hex_column, line, f"{len(raw)} hex bytes but {len_text}")
    return CaptureRecord(
        t,
        direction,
        raw,
        connection,
        int(number_text[1:]),
        chk_text == "chk=ok",
        timestamp,
        decoding.strip(),
        line_no,
    )


def parse_capture(text: str, source: str = "<capture>") -> list[CaptureRecord]:
    """Parse capture text; ``source`` names it in error messages."""
    records = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        records.append(_parse_line(line, line_no, source))
    return records


def read_capture(path: str | Path) -> list[CaptureRecord]:
    """Read and parse a capture file."""
    p = Path(path)
    return parse_capture(p.read_text(encoding="utf-8"), str(p))


def stream_bytes(records: Iterable[CaptureRecord], direction: str) -> bytes:
    """The concatenated bytes of one direction, in capture order (what that side's receiver saw)."""
    return b"".join(r.raw for r in records if r.direction == direction)
