"""Streaming receiver: resync, drops and their counts, partial packets across feeds, never raising.

The property test interleaves valid packets with junk and feeds the stream split at random byte
boundaries. For "every valid packet comes out exactly once, in order" to be a theorem rather than a
likely outcome, the junk must never be able to form a packet that passes, nor a header whose
declared length reaches over a valid packet (such a candidate either passes the checksum by chance,
1 in 65536, and swallows what it covers, or holds the real packets back until bytes that never come).
So the junk is built from:

* plain garbage: any bytes except ``0xFB``. No ``FA FB`` pair can start inside it, nor straddle into
  the next segment (which is garbage again, or starts with ``FA``). A trailing ``FA`` is allowed: the
  next header then reads ``FA FA FB``, the case ARIA's and AMRISim's receivers get wrong;
* complete corrupt packets: header, count, a body with neither ``FA`` nor ``FB``, and a checksum
  that is deliberately wrong and also free of ``FA``/``FB``. The declared extent ends inside the
  corrupt packet, and rescanning its body finds no header;
* bare headers with a count below 3 or above the receiver's limit, rejected on sight.

Under these rules the expected drop counts are exact, so the test checks them too. A second property
feeds unrestricted bytes (including ``FA FB`` anywhere) and checks what must hold for any input: no
exception, identical results however the stream is split, and every byte accounted for.
"""

from __future__ import annotations

from dataclasses import astuple
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from saphira.protocol import (
    MAX_COUNT_CLIENT,
    MAX_COUNT_SERVER,
    PacketReceiver,
    checksum,
    decode_frame,
    encode_command,
    encode_packet,
    encode_sync2_reply,
)
from saphira.protocol.sync import RobotIdentity

NOT_FB = bytes(b for b in range(256) if b != 0xFB)
NEITHER = bytes(b for b in range(256) if b not in (0xFA, 0xFB))

# A segment is (kind, bytes, payload-if-valid).
Segment = tuple[str, bytes, bytes]


def valid_packets(max_count: int) -> st.SearchStrategy[Segment]:
    return st.binary(min_size=1, max_size=max_count - 2).map(lambda p: ("valid", encode_packet(p), p))


def garbage() -> st.SearchStrategy[Segment]:
    return st.lists(st.sampled_from(NOT_FB), min_size=1, max_size=40).map(lambda bs: ("garbage", bytes(bs), b""))


@st.composite
def corrupt_packets(draw: st.DrawFn, max_count: int) -> Segment:
    body = bytes(draw(st.lists(st.sampled_from(NEITHER), min_size=1, max_size=max_count - 2)))
    good = checksum(body)
    hi = draw(st.sampled_from(NEITHER))
    lo = draw(st.sampled_from(NEITHER).filter(lambda b: (hi << 8 | b) != good))
    return ("bad_checksum", b"\xfa\xfb" + bytes((len(body) + 2,)) + body + bytes((hi, lo)), b"")


def bad_headers(max_count: int) -> st.SearchStrategy[Segment]:
    short = st.integers(0, 2).map(lambda c: ("too_short", bytes((0xFA, 0xFB, c)), b""))
    if max_count == MAX_COUNT_CLIENT:
        return short
    long = st.integers(max_count + 1, 255).map(lambda c: ("too_long", bytes((0xFA, 0xFB, c)), b""))
    return short | long


def streams(max_count: int) -> st.SearchStrategy[list[Segment]]:
    segment = valid_packets(max_count) | garbage() | corrupt_packets(max_count) | bad_headers(max_count)
    return st.lists(segment, max_size=25)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in pairwise(points)]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([MAX_COUNT_CLIENT, MAX_COUNT_SERVER]).flatmap(lambda m: st.tuples(st.just(m), streams(m))),
    st.lists(st.integers(0, 10_000), max_size=30),
)
def test_valid_packets_come_out_once_in_order(case: tuple[int, list[Segment]], cuts: list[int]) -> None:
    max_count, segments = case
    data = b"".join(raw for _, raw, _ in segments)
    receiver = PacketReceiver(max_count)
    out: list[bytes] = []
    for chunk in split(data, cuts):
        out += receiver.feed(chunk)
    assert out == [payload for kind, _, payload in segments if kind == "valid"]
    stats = receiver.stats
    for kind in ("bad_checksum", "too_short", "too_long"):
        assert getattr(stats, kind) == sum(1 for k, _, _ in segments if k == kind)
    assert stats.packets == len(out) and stats.expired == 0
    valid_bytes = sum(len(raw) for kind, raw, _ in segments if kind == "valid")
    assert stats.packet_bytes == valid_bytes
    assert stats.garbage_bytes + receiver.buffered == len(data) - valid_bytes
    assert receiver.buffered <= 1  # at most a trailing FA of garbage


hostile_bytes = st.lists(
    st.sampled_from([0xFA, 0xFB, 0x00, 0x01, 0x02, 0x03, 0x06, 0xC8, 0xFF]) | st.integers(0, 255), max_size=60
).map(bytes)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(hostile_bytes | valid_packets(MAX_COUNT_CLIENT).map(lambda s: s[1]), max_size=20),
    st.lists(st.integers(0, 10_000), max_size=30),
    st.sampled_from([3, 10, MAX_COUNT_SERVER, MAX_COUNT_CLIENT]),
)
def test_any_input_never_raises_and_does_not_depend_on_chunking(
    parts: list[bytes], cuts: list[int], max_count: int
) -> None:
    data = b"".join(parts)
    whole = PacketReceiver(max_count)
    expected = whole.feed(data)
    pieces = PacketReceiver(max_count)
    got: list[bytes] = []
    for chunk in split(data, cuts):
        got += pieces.feed(chunk)
    assert got == expected
    assert astuple(pieces.stats) == astuple(whole.stats) and pieces.buffered == whole.buffered
    stats = whole.stats
    assert stats.packet_bytes + stats.garbage_bytes + whole.buffered == len(data)
    for payload in got:
        assert decode_frame(encode_packet(payload), max_count) == payload
    # Expiring a stuck partial packet never loses accounting either.
    more = pieces.expire_partial()
    assert pieces.stats.packet_bytes + pieces.stats.garbage_bytes + pieces.buffered == len(data)
    assert len(more) == pieces.stats.packets - len(got)


SIP_LIKE = encode_sync2_reply(RobotIdentity("AMRISim", "Pioneer", "p3dx"))
VEL = encode_command(11, 300)


def test_second_fa_keeps_the_sync2_state() -> None:
    """ARIA and AMRISim lose the packet in ``FA FA FB``; we must not."""
    receiver = PacketReceiver()
    assert receiver.feed(b"\xfa" + VEL) == [VEL[3:-2]]
    assert receiver.feed(b"\xfa\xfa\xfa" + VEL + b"\xfa") == [VEL[3:-2]]
    assert receiver.buffered == 1
    assert receiver.feed(VEL) == [VEL[3:-2]]
    assert receiver.stats.garbage_bytes == 5 and receiver.stats.dropped == 0


def test_valid_packet_hidden_inside_a_bad_one_is_found() -> None:
    hidden = encode_command(4, 1)
    bad = bytearray(b"\xfa\xfb" + bytes((len(hidden) + 12,)) + b"\x01\x02\x03" + hidden + b"\x04" * 9)
    receiver = PacketReceiver()
    assert receiver.feed(bytes(bad) + VEL) == [hidden[3:-2], VEL[3:-2]]
    assert receiver.stats.bad_checksum == 1


def test_counts_outside_the_limits() -> None:
    server = PacketReceiver(MAX_COUNT_SERVER)
    too_long = encode_packet(bytes(199))  # count 201
    assert server.feed(too_long + b"\xfa\xfb\x02" + b"\xfa\xfb\x00" + VEL) == [VEL[3:-2]]
    assert (server.stats.too_long, server.stats.too_short) == (1, 2)
    client = PacketReceiver()
    assert client.feed(encode_packet(bytes(253))) == [bytes(253)]


def test_partial_packet_across_one_byte_feeds() -> None:
    receiver = PacketReceiver()
    stream = SIP_LIKE + VEL
    out = [p for byte in stream for p in receiver.feed(bytes((byte,)))]
    assert out == [SIP_LIKE[3:-2], VEL[3:-2]]
    assert receiver.buffered == 0 and receiver.stats.garbage_bytes == 0


def test_expire_partial_rescans_behind_a_stuck_header() -> None:
    receiver = PacketReceiver()
    assert receiver.feed(b"\xfa\xfb\xc8" + VEL) == []  # waits for 200 bytes that never come
    assert receiver.buffered == 3 + len(VEL)
    assert receiver.expire_partial() == [VEL[3:-2]]
    assert receiver.stats.expired == 1 and receiver.stats.dropped == 1
    assert receiver.expire_partial() == []
    assert not receiver.has_partial


def test_reset_discards_buffered_bytes() -> None:
    receiver = PacketReceiver()
    receiver.feed(VEL[:5])
    receiver.reset()
    assert receiver.buffered == 0 and receiver.stats.garbage_bytes == 5
    assert receiver.feed(VEL) == [VEL[3:-2]]


def test_bad_max_count_is_refused() -> None:
    for bad in (2, 256):
        try:
            PacketReceiver(bad)
        except ValueError as exc:
            assert str(bad) in str(exc)
        else:
            raise AssertionError(f"max_count {bad} accepted")
