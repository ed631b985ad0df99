"""The codec against real ARIA ↔ AMRISim byte captures (tests/data/captures), checked against the
capture's own independent decoding column."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from saphira.core.errors import SourceError
from saphira.protocol import (
    CLIENT_TO_SERVER,
    MAX_COUNT_SERVER,
    SERVER_TO_CLIENT,
    CaptureRecord,
    Command,
    PacketId,
    PacketReceiver,
    RobotIdentity,
    decode_command,
    decode_config,
    decode_frame,
    decode_sip,
    decode_sync2_reply,
    encode_command,
    encode_config,
    encode_sip,
    parse_capture,
    read_capture,
    stream_bytes,
)

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"
CONNECT = CAPTURES / "aria-simpleConnect-amrisim.txt"
MOTION = CAPTURES / "aria-simpleMotionCommands-amrisim.txt"
BOTH = [CONNECT, MOTION]


@pytest.fixture(scope="module", params=BOTH, ids=lambda p: p.name)
def records(request: pytest.FixtureRequest) -> list[CaptureRecord]:
    path: Path = request.param
    return read_capture(path)


def test_record_counts_match_the_data_readme() -> None:
    assert len(read_capture(CONNECT)) == 57
    assert len(read_capture(MOTION)) == 428


def test_every_packet_has_a_correct_checksum(records: list[CaptureRecord]) -> None:
    for r in records:
        assert r.checksum_ok, f"line {r.line}"
        assert decode_frame(r.raw) == r.payload
        assert r.direction in (CLIENT_TO_SERVER, SERVER_TO_CLIENT)
    times = [r.t for r in records]
    assert times == sorted(times)
    for direction in (CLIENT_TO_SERVER, SERVER_TO_CLIENT):
        numbers = [r.number for r in records if r.direction == direction]
        assert numbers == list(range(1, len(numbers) + 1))


SIP_TEXT = re.compile(
    r"x=(-?\d+) y=(-?\d+) th=(-?\d+) lvel=(-?\d+) rvel=(-?\d+) batt=([\d.]+)V stall=0x([0-9A-F]+) "
    r"ctrl=(-?\d+) flags=0x([0-9A-F]+) compass=(\d+) sonars\((\d+)\)=\[([^\]]*)\]"
)


def test_all_motion_sips_decode_in_the_arcos_layout() -> None:
    sips = [r for r in read_capture(MOTION) if r.direction == SERVER_TO_CLIENT and r.payload[0] == 0x32]
    assert len(sips) == 301
    for r in sips:
        sip = decode_sip(r.payload)
        assert sip.extra == b"" and sip.state_of_charge is not None and sip.uc_time is None
        assert encode_sip(sip) == r.raw
        m = SIP_TEXT.search(r.decoding)
        assert m, f"line {r.line}: no SIP decoding text"
        x, y, th, lvel, rvel = (int(v) for v in m.groups()[:5])
        # The capture tool prints ARIA's 15-bit view of x/y; the codec keeps the raw 16-bit counters.
        assert (sip.x & 0x7FFF, sip.y & 0x7FFF) == (x, y)
        assert (sip.th, sip.left_vel, sip.right_vel) == (th, lvel, rvel)
        assert sip.battery / 10 == pytest.approx(float(m.group(6)))
        assert (sip.stall, sip.control, sip.flags, sip.compass) == (
            int(m.group(7), 16), int(m.group(8)), int(m.group(9), 16), int(m.group(10))
        )  # fmt: skip
        entries = [tuple(int(v) for v in e.split(":")) for e in m.group(12).split(",")]
        assert [tuple(s) for s in sip.sonar] == entries and len(entries) == int(m.group(11)) == 16
    # The session drives at up to 250 mm/s and turns at ±10 deg/s (rot vel in 0.1 deg/s).
    decoded = [decode_sip(r.payload) for r in sips]
    assert max(s.left_vel for s in decoded) == 250
    assert {s.rot_vel for s in decoded} >= {100, -100}
    assert all(s.temperature == -127 and s.battery_dv == 130 for s in decoded)


def test_config_reply_decodes_with_sensible_values(records: list[CaptureRecord]) -> None:
    (reply,) = [r for r in records if r.direction == SERVER_TO_CLIENT and r.payload[0] == PacketId.CONFIG]
    cfg = decode_config(reply.payload)
    assert (cfg.robot_class, cfg.subclass, cfg.serial_number, cfg.name) == (
        "Pioneer",
        "p3dx-sh",
        "SIM",
        "AMRISim",
    )
    assert (cfg.trans_vel_max, cfg.rot_vel_max, cfg.trans_accel, cfg.rot_accel) == (3000, 150, 300, 100)
    assert (cfg.sip_cycle_time, cfg.watchdog, cfg.firmware_version) == (100, 2000, "S.0")
    assert cfg.field_count == 57 and cfg.extra == b""
    assert encode_config(cfg) == reply.raw


def test_handshake_replies(records: list[CaptureRecord]) -> None:
    replies = [r for r in records if r.direction == SERVER_TO_CLIENT][:3]
    assert [r.payload for r in replies[:2]] == [b"\x00", b"\x01"]
    identity = decode_sync2_reply(replies[2].payload)
    assert identity == RobotIdentity("AMRISim", "Pioneer", "p3dx-sh")
    assert "strs=['AMRISim', 'Pioneer', 'p3dx-sh']" in replies[2].decoding


COMMAND_TEXT = re.compile(r"cmd=(\d+)\(([A-Z0-9_/]+)\)(?: int=(-?\d+))?")


def test_client_commands_decode_and_reencode(records: list[CaptureRecord]) -> None:
    commands = [r for r in records if r.direction == CLIENT_TO_SERVER]
    for r in commands:
        packet = decode_command(r.payload)
        m = COMMAND_TEXT.search(r.decoding)
        assert m, f"line {r.line}"
        assert packet.command == int(m.group(1))
        expected_int = None if m.group(3) is None else int(m.group(3))
        assert packet.int_arg == expected_int
        assert encode_command(packet.command, packet.int_arg) == r.raw
    assert [decode_command(r.payload).command for r in commands[:3]] == [0, 1, 2]
    assert decode_command(commands[-1].payload).command == Command.CLOSE


@pytest.mark.parametrize("chunk", [1, 7, 89, 4096])
def test_receiver_yields_every_packet_with_zero_drops(records: list[CaptureRecord], chunk: int) -> None:
    for direction, max_count in ((SERVER_TO_CLIENT, 255), (CLIENT_TO_SERVER, MAX_COUNT_SERVER)):
        data = stream_bytes(records, direction)
        receiver = PacketReceiver(max_count)
        out: list[bytes] = []
        for i in range(0, len(data), chunk):
            out += receiver.feed(data[i : i + chunk])
        assert out == [r.payload for r in records if r.direction == direction]
        stats = receiver.stats
        assert (stats.dropped, stats.garbage_bytes, receiver.buffered) == (0, 0, 0)
        assert stats.packet_bytes == len(data)


def test_malformed_lines_name_file_line_and_column() -> None:
    good = "2026-11-21T15:17:26.181996 +0.173897 c1 C->S PKT #1 len=6 chk=ok | FA FB 03 00 00 00 | cmd=0"
    assert parse_capture(f"# comment\n\n{good}\n")[0].raw == bytes.fromhex("FA FB 03 00 00 00")
    cases = {
        good.replace("len=6", "len=7"): ("hex bytes but len=7", 68),
        good.replace("C->S", "C<-S"): ("direction", 41),
        good.replace("00 00 00 |", "00 0G 00 |"): ("bad hex", 68),
        good.replace(" | ", " ; "): ("expected 'header", 1),
        good.replace("+0.173897", "+zero"): ("bad time offset", 28),
        good.replace("#1", "#x"): ("bad packet number", 50),
    }
    for line, (message, column) in cases.items():
        with pytest.raises(SourceError) as err:
            parse_capture(f"{good}\n{line}\n", "cap.txt")
        assert err.value.message.startswith(message) or message in err.value.message
        assert (err.value.file, err.value.line, err.value.column) == ("cap.txt", 2, column)
