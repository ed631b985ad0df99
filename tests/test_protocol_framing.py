"""Packet framing and checksum: the worked packets of docs/protocol.md §1, limits, frame errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.protocol import (
    MAX_COUNT_CLIENT,
    MAX_COUNT_SERVER,
    DecodeError,
    EncodeError,
    checksum,
    decode_frame,
    encode_packet,
)

# Framed client commands and server replies, byte for byte (the format of docs/protocol.md §1).
WORKED_FRAMES = [
    "FA FB 03 00 00 00",
    "FA FB 03 01 00 01",
    "FA FB 03 02 00 02",
    "FA FB 06 01 3B 01 00 02 3B",
    "FA FB 06 02 3B 01 00 03 3B",
    "FA FB 06 04 3B 01 00 05 3B",
    "FA FB 06 12 3B 01 00 13 3B",
    "FA FB 06 1C 3B 01 00 1D 3B",
    "FA FB 06 0B 3B 2C 01 37 3C",
    "FA FB 06 0B 1B 2C 01 37 1C",
    "FA FB 06 15 3B 14 00 29 3B",
    "FA FB 06 15 1B 14 00 29 1B",
    "FA FB 06 0C 3B 5A 00 66 3B",
    "FA FB 06 0D 1B 2D 00 3A 1B",
    "FA FB 03 07 00 07",
    "FA FB 06 ED 3B 02 00 EF 3B",
    "FA FB 0B EE 2B 05 48 65 6C 6C 6F 00 C5 4E",
    "FA FB 09 03 2B 01 02 01 06 00 05 33",
    "FA FB 10 E0 00 E8 03 00 00 30 F8 FF FF 5A 00 00 00 52 FA",
    "FA FB 06 20 3B FB 0A 1B 45",
    "FA FB 06 20 1B FB 09 1B 24",
    "FA FB 18 02 41 4D 52 49 53 69 6D 00 50 69 6F 6E 65 65 72 00 70 33 64 78 00 EB BD",
]


def reference_checksum(payload: bytes) -> int:
    """§2.2 word by word, the way the manual's C listing and ARIA's calcCheckSum do it."""
    c = 0
    i = 0
    while len(payload) - i > 1:
        c = (c + (payload[i] << 8 | payload[i + 1])) & 0xFFFF
        i += 2
    if len(payload) - i > 0:
        c ^= payload[i]
    return c


@pytest.mark.parametrize("hex_frame", WORKED_FRAMES)
def test_worked_frames_decode_and_reencode(hex_frame: str) -> None:
    frame = bytes.fromhex(hex_frame)
    payload = decode_frame(frame)
    assert payload == frame[3:-2]
    assert frame[2] == len(payload) + 2
    assert checksum(payload) == frame[-2] << 8 | frame[-1]
    assert encode_packet(payload) == frame


@given(st.binary(min_size=1, max_size=300))
def test_checksum_matches_the_word_by_word_reference(payload: bytes) -> None:
    assert checksum(payload) == reference_checksum(payload)


@given(st.binary(min_size=1, max_size=MAX_COUNT_CLIENT - 2))
def test_encode_then_decode_frame_roundtrips(payload: bytes) -> None:
    frame = encode_packet(payload)
    assert len(frame) == len(payload) + 5
    assert decode_frame(frame) == payload


def test_encode_packet_limits() -> None:
    with pytest.raises(EncodeError, match="empty payload"):
        encode_packet(b"")
    assert encode_packet(bytes(253))[2] == 255
    with pytest.raises(EncodeError, match="count 256"):
        encode_packet(bytes(254))
    assert encode_packet(bytes(198), MAX_COUNT_SERVER)[2] == 200
    with pytest.raises(EncodeError, match="above the limit 200"):
        encode_packet(bytes(199), MAX_COUNT_SERVER)


def test_decode_frame_errors_name_the_offset() -> None:
    good = encode_packet(b"\x0b\x3b\x2c\x01")
    with pytest.raises(DecodeError) as err:
        decode_frame(b"\xfa\xfc" + good[2:])
    assert err.value.offset == 0 and str(err.value).startswith("byte 0: ")
    with pytest.raises(DecodeError) as err:
        decode_frame(good[:-1])
    assert err.value.offset == 2
    with pytest.raises(DecodeError) as err:
        decode_frame(good[:-1] + bytes((good[-1] ^ 1,)))
    assert err.value.offset == len(good) - 2 and "checksum" in err.value.message
    with pytest.raises(DecodeError, match="below the minimum"):
        decode_frame(b"\xfa\xfb\x02\x00\x00")
    with pytest.raises(DecodeError, match="above the limit 200"):
        decode_frame(encode_packet(bytes(199)), MAX_COUNT_SERVER)
    with pytest.raises(DecodeError, match="shorter than its 3-byte header"):
        decode_frame(b"\xfa")
