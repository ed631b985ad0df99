"""CONFIG (0x20), SIMSTAT (0x62) and the SYNC2 autoconfiguration reply: worked examples and edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.protocol import (
    ConfigPacket,
    DecodeError,
    EncodeError,
    RobotIdentity,
    SimStat,
    SimStatFlags,
    config_payload,
    decode_config,
    decode_frame,
    decode_simstat,
    decode_sync2_reply,
    encode_config,
    encode_simstat,
    encode_sync,
    encode_sync2_reply,
    simstat_payload,
)

WORKED_CONFIG = bytes.fromhex(
    """FA FB 79 20 50 69 6F 6E 65 65 72 00 70 33 64 78 00 53 49 4D 00 00 0F 27 0F 27 0F 27 0F 27
    90 01 41 4D 52 49 53 69 6D 00 64 00 00 00 00 01 00 01 00 00 00 00 D0 07 00 00 00 00 00 00
    00 00 00 96 00 B8 0B 64 00 64 00 00 00 00 00 00 00 2C 01 2C 01 00 00 00 00 00 00 00 00 00
    00 02 00 00 00 00 00 00 00 00 00 53 2E 30 00 00 00 00 00 00 0F 27 0F 27 00 00 00 00 00 00
    00 00 93 5F"""
)
WORKED_SIMSTAT = bytes.fromhex(
    """FA FB 3B 62 00 00 00 00 00 00 64 00 64 00 64 00 E8 03 00 00 F4 01 00 00 00 00 00 00 5A 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 FF FF FF FF 00 00 00 00 00 00 00 00 00 00 00 00 69 60"""
)
S32_FIELDS = [
    "true_x",
    "true_y",
    "true_z",
    "true_th",
    "latitude",
    "longitude",
    "altitude",
    "gps_dop",
    "odom_error_x",
    "odom_error_y",
    "odom_error_th",
]
WORKED_SYNC2 = bytes.fromhex("FA FB 18 02 41 4D 52 49 53 69 6D 00 50 69 6F 6E 65 65 72 00 70 33 64 78 00 EB BD")


def amrisim_default_config() -> ConfigPacket:
    """The CONFIG fields AMRISim sends for a default p3dx session."""
    return ConfigPacket(
        robot_class="Pioneer", subclass="p3dx", serial_number="SIM", rot_vel_top=9999, trans_vel_top=9999,
        rot_accel_top=9999, trans_accel_top=9999, pwm_max=400, name="AMRISim", sip_cycle_time=100,
        front_sonar=1, rear_sonar=1, watchdog=2000, rot_vel_max=150, trans_vel_max=3000, rot_accel=100,
        rot_decel=100, trans_accel=300, trans_decel=300, reset_baud=2, firmware_version="S.0",
        lat_vel_top=9999, lat_accel_top=9999,
    )  # fmt: skip


def test_worked_config_encodes_and_decodes() -> None:
    assert encode_config(amrisim_default_config()) == WORKED_CONFIG
    cfg = decode_config(decode_frame(WORKED_CONFIG))
    assert cfg == amrisim_default_config()
    assert cfg.field_count == 57 and cfg.extra == b""
    assert cfg.is_simulator and cfg.reset_baud_enabled
    assert cfg.high_temperature_shutdown == -128  # absent → ARIA's default


def test_short_config_keeps_defaults_and_reencodes_exactly() -> None:
    payload = decode_frame(WORKED_CONFIG)
    for cut in range(1, len(payload) + 1):
        cfg = decode_config(payload[:cut])
        assert config_payload(cfg) == payload[:cut]
        assert cfg.field_count <= 57
    assert decode_config(payload[:5]).field_count == 0  # "Pio" has no NUL yet
    assert decode_config(payload[:5]).extra == b"Pion"


def test_config_with_every_field() -> None:
    cfg = amrisim_default_config()
    cfg.field_count = 67
    cfg.high_temperature_shutdown = 60
    cfg.bootloader_version = "B1"
    cfg.config_flags = 0b11011
    cfg.gyro_fw_version = -3
    cfg.extra = b"\x01\x02"
    back = decode_config(decode_frame(encode_config(cfg)))
    assert back == cfg


def test_config_errors() -> None:
    with pytest.raises(DecodeError, match="expected 0x20"):
        decode_config(b"\x32")
    with pytest.raises(DecodeError, match="nothing"):
        decode_config(b"")
    with pytest.raises(EncodeError, match="trans_vel_max=70000"):
        encode_config(ConfigPacket(trans_vel_max=70000))
    with pytest.raises(EncodeError, match="contains a NUL"):
        encode_config(ConfigPacket(name="a\x00b"))
    with pytest.raises(EncodeError, match="field_count 68"):
        encode_config(ConfigPacket(field_count=68))


def test_worked_simstat_encodes_and_decodes() -> None:
    stat = SimStat(true_x=1000, true_y=500, true_th=90)
    assert encode_simstat(stat) == WORKED_SIMSTAT
    back = decode_simstat(decode_frame(WORKED_SIMSTAT))
    assert back == stat
    assert back.gps_dop == -1 and back.flag_bits == SimStatFlags(0)


@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=11, max_size=11), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 0xFFFF), min_size=3, max_size=3), st.binary(max_size=5))  # fmt: skip
def test_simstat_roundtrips(s32s: list[int], flags: int, u16s: list[int], extra: bytes) -> None:
    stat = SimStat(flags, sim_interval=u16s[0], real_interval=u16s[1], last_interval=u16s[2], extra=extra)
    for name, value in zip(S32_FIELDS, s32s, strict=True):
        setattr(stat, name, value)
    assert decode_simstat(simstat_payload(stat)) == stat


def test_simstat_errors() -> None:
    payload = decode_frame(WORKED_SIMSTAT)
    with pytest.raises(DecodeError) as err:
        decode_simstat(payload[:-1])
    assert err.value.offset == 3 and "needs 54 bytes, 53 remain" in err.value.message
    with pytest.raises(DecodeError, match="not NUL-terminated"):
        decode_simstat(b"\x62")
    with pytest.raises(DecodeError, match="expected 0x62"):
        decode_simstat(b"\x32" + payload[1:])
    with pytest.raises(EncodeError, match="NUL"):
        simstat_payload(SimStat(reserved1="\x00"))
    with pytest.raises(EncodeError, match="wire format"):
        simstat_payload(SimStat(sim_interval=-1))


def test_sync_packets() -> None:
    assert [encode_sync(n) for n in range(3)] == [
        bytes.fromhex("FA FB 03 00 00 00"),
        bytes.fromhex("FA FB 03 01 00 01"),
        bytes.fromhex("FA FB 03 02 00 02"),
    ]
    with pytest.raises(EncodeError):
        encode_sync(3)


def test_worked_sync2_reply() -> None:
    identity = RobotIdentity("AMRISim", "Pioneer", "p3dx")
    assert encode_sync2_reply(identity) == WORKED_SYNC2
    assert decode_sync2_reply(decode_frame(WORKED_SYNC2)) == identity


def test_sync2_reply_as_aria_reads_it() -> None:
    assert decode_sync2_reply(b"\x02") == RobotIdentity("", "", "")  # pre-4.1 PSOS: bare echo
    assert decode_sync2_reply(b"\x02Erratic\x00Pioneer\x00psos41m") == RobotIdentity("Erratic", "Pioneer", "psos41m")
    assert decode_sync2_reply(b"\x02sim\x00\x00\x00").subclass == ""
    with pytest.raises(DecodeError, match="expected 0x02"):
        decode_sync2_reply(b"\x00")
    with pytest.raises(EncodeError, match="contains a NUL"):
        encode_sync2_reply(RobotIdentity("a\x00", "b", "c"))
