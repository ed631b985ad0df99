"""Benchmark of the Pioneer codec: SIP decode/encode and the streaming receiver.

Run: ``python bench/bench_codec.py``. Each figure is printed with a baseline measured in the same run
on the same bytes, and the ratio codec/baseline:

* decode: ``decode_sip`` (typed Sip with 16 SonarReading entries) vs. the bare precompiled
  ``struct.unpack_from`` calls that read the same fields into tuples;
* encode: ``encode_sip`` (payload + framing + checksum) vs. bare ``struct.pack`` of the same values;
* receiver: ``PacketReceiver.feed`` over a stream of SIP frames in 4 KiB chunks (search, count
  check, checksum, copy) vs. slicing the same stream at the known packet offsets.
"""

from __future__ import annotations

import struct
import sys
import time
from collections.abc import Callable
from itertools import chain
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saphira.protocol import (
    PacketReceiver,
    Sip,
    SonarReading,
    decode_frame,
    decode_sip,
    encode_sip,
)


def rate(fn: Callable[[], object], n: int, repeats: int = 5) -> float:
    """Best-of-``repeats`` calls per second of ``fn``."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def main() -> None:
    sonar = tuple(SonarReading(i, 400 + 97 * i) for i in range(16))
    sip = Sip(
        x=1234, y=65000, th=-534, left_vel=250, right_vel=240, battery=130, flags=0x1F, sonar=sonar,
        gripper_state=0, analog_port=0, analog=0, digin=255, digout=255, battery_dv=130, charge_state=0,
        rot_vel=-100, fault_flags=0, lat_vel=0, temperature=-127, state_of_charge=0,
    )  # fmt: skip
    frame = encode_sip(sip)
    payload = decode_frame(frame)
    assert len(frame) == 89 and decode_sip(payload) == sip

    head = struct.Struct("<BHHhhhBHhHBB")
    entries = struct.Struct("<" + "BH" * 16)
    tail = struct.Struct("<BBBBBHBhHhbb")

    def raw_decode() -> object:
        return head.unpack_from(payload, 0), entries.unpack_from(payload, 20), tail.unpack_from(payload, 68)

    values = head.unpack_from(payload, 0), entries.unpack_from(payload, 20), tail.unpack_from(payload, 68)

    def raw_encode() -> object:
        return head.pack(*values[0]) + entries.pack(*values[1]) + tail.pack(*values[2])

    n = 100_000
    dec, dec_base = rate(lambda: decode_sip(payload), n), rate(raw_decode, n)
    enc, enc_base = rate(lambda: encode_sip(sip), n), rate(raw_encode, n)

    stream = frame * 20_000
    offsets = [(i + 3, i + len(frame) - 2) for i in range(0, len(stream), len(frame))]

    def receive() -> object:
        receiver = PacketReceiver()
        out = list(chain.from_iterable(receiver.feed(stream[i : i + 4096]) for i in range(0, len(stream), 4096)))
        assert len(out) == 20_000 and receiver.stats.dropped == 0
        return out

    def slice_known() -> object:
        return [stream[a:b] for a, b in offsets]

    rx = rate(receive, 1, repeats=5) * 20_000
    rx_base = rate(slice_known, 1, repeats=5) * 20_000

    print("Pioneer codec, one core, SIP with 16 sonar readings (89 bytes framed)")
    rows = [
        ("decode_sip", dec, "SIPs/s", "struct.unpack_from", dec_base),
        ("encode_sip", enc, "SIPs/s", "struct.pack", enc_base),
        ("receiver", rx, "pkts/s", "known-offset slice", rx_base),
    ]
    for name, value, unit, base_name, base in rows:
        ratio = value / base
        print(f"  {name:<11}{value:>11,.0f} {unit}  baseline {base_name:<18}{base:>12,.0f}/s  ratio {ratio:.3f}")
    print(f"  receiver     {rx * len(frame) / 1e6:>12.1f} MB/s")
    print(f"  target >= 100,000 SIPs/s decoded: {'met' if dec >= 100_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
