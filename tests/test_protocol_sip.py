"""SIP codec: a worked AMRISim SIP, both layouts, optional fields, byte-exact round trips, bit helpers."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.protocol import (
    ChargeState,
    DecodeError,
    EncodeError,
    FaultFlags,
    Sip,
    SipFlags,
    SipLayout,
    SonarReading,
    Stall,
    decode_frame,
    decode_sip,
    encode_packet,
    encode_sip,
    is_sip_id,
    sip_payload,
)

WORKED_SIP = bytes.fromhex(
    "FA FB 26 32 0D 08 06 04 FF 03 A8 00 E7 00 82 00 00 00 00 01 00 00 00 00 00 00"
    "FF FF 82 00 00 64 00 00 00 00 00 81 00 2A A4"
)
P3DX = {"dist": 0.485, "angle": 0.001534, "diff": 0.0056}
TAIL_NAMES = [
    "gripper_state",
    "analog_port",
    "analog",
    "digin",
    "digout",
    "battery_dv",
    "charge_state",
    "rot_vel",
    "fault_flags",
    "lat_vel",
    "temperature",
    "state_of_charge",
    "uc_time",
    "flags3",
]


def test_worked_sip_decodes_to_the_documented_values() -> None:
    sip = decode_sip(decode_frame(WORKED_SIP))
    assert (sip.x, sip.y, sip.th, sip.left_vel, sip.right_vel) == (2061, 1030, 1023, 168, 231)
    assert (sip.battery, sip.stall, sip.control, sip.flags, sip.compass, sip.sonar) == (130, 0, 0, 1, 0, ())
    assert (sip.gripper_state, sip.analog_port, sip.analog, sip.digin, sip.digout) == (0, 0, 0, 0xFF, 0xFF)
    assert (sip.battery_dv, sip.charge_state, sip.rot_vel, sip.fault_flags) == (130, 0, 100, 0)
    assert (sip.lat_vel, sip.temperature, sip.state_of_charge) == (0, -127, 0)
    assert (sip.uc_time, sip.flags3, sip.extra) == (None, None, b"")
    # ARIA's unit conversions for a p3dx.
    assert sip.x * P3DX["dist"] == pytest.approx(999.6, abs=0.06)
    assert sip.y * P3DX["dist"] == pytest.approx(499.6, abs=0.06)
    assert math.degrees(sip.th * P3DX["angle"]) == pytest.approx(89.91, abs=0.005)
    assert (sip.left_vel + sip.right_vel) / 2 == pytest.approx(199.5)
    assert sip.rot_vel is not None and sip.rot_vel / 10 == pytest.approx(10.0)
    assert sip.motors_enabled and not sip.sonar_enabled and not sip.moving


def test_worked_sip_encodes_byte_for_byte() -> None:
    sip = Sip(
        x=2061, y=1030, th=1023, left_vel=168, right_vel=231, battery=130, flags=SipFlags.MOTORS_ENABLED,
        gripper_state=0, analog_port=0, analog=0, digin=0xFF, digout=0xFF, battery_dv=130, charge_state=0,
        rot_vel=100, fault_flags=0, lat_vel=0, temperature=-127, state_of_charge=0,
    )  # fmt: skip
    assert encode_sip(sip) == WORKED_SIP
    assert encode_sip(decode_sip(decode_frame(WORKED_SIP))) == WORKED_SIP


def test_psos_layout_reads_ptu_and_the_input_tail() -> None:
    sonar = (SonarReading(3, 1234), SonarReading(0, 5000))
    sip = Sip(0x33, 100, 200, -5, 10, 12, 121, 0x0101, 7, compass=45, sonar=sonar, ptu=150, timer=600,
              analog=17, digin=0x0F, digout=0xF0)  # fmt: skip
    frame = encode_sip(sip, SipLayout.PSOS)
    payload = decode_frame(frame)
    assert payload[16:18] == struct.pack("<H", 150)
    assert payload[20:23] == bytes.fromhex("03 D2 04")  # one sonar entry: number 3, range 1234
    assert payload[-5:] == struct.pack("<HBBB", 600, 17, 0x0F, 0xF0)
    back = decode_sip(payload, SipLayout.PSOS)
    assert back == sip
    assert back.moving and back.left_motor_stalled and back.right_motor_stalled
    # The ARCOS reader sees the PTU word as flags and the timer bytes as gripper/analog-port bytes.
    as_arcos = decode_sip(payload)
    assert (as_arcos.flags, as_arcos.ptu, as_arcos.gripper_state, as_arcos.analog_port) == (
        150,
        0,
        600 & 0xFF,
        2,
    )


def test_psos_sip_without_tail_and_with_future_fields() -> None:
    core = sip_payload(Sip(0x32, 1, 2, 3), SipLayout.PSOS)
    assert len(core) == 20
    assert decode_sip(core, SipLayout.PSOS).timer is None
    longer = core + struct.pack("<HBBB", 1, 2, 3, 4) + b"future"
    sip = decode_sip(longer, SipLayout.PSOS)
    assert (sip.timer, sip.analog, sip.digin, sip.digout, sip.extra) == (1, 2, 3, 4, b"future")
    assert sip_payload(sip, SipLayout.PSOS) == longer
    with pytest.raises(DecodeError, match="not a PSOS SIP"):
        decode_sip(b"\x20" + core[1:], SipLayout.PSOS)


@pytest.mark.parametrize("tail_len", range(0, 30))
def test_arcos_optional_groups_stop_where_the_packet_stops(tail_len: int) -> None:
    full_tail = struct.pack("<BBBBBHBhHhbbII", 1, 2, 3, 4, 5, 129, 3, -55, 0x12, -7, 40, 80, 123456, 0xABCDEF)
    tail = (full_tail + b"\xee" * 6)[:tail_len]
    payload = sip_payload(Sip(sonar=(SonarReading(1, 300),))) + tail
    sip = decode_sip(payload)
    values = [getattr(sip, name) for name in TAIL_NAMES]
    # Group boundaries (bytes): 5, 7, 8, 10, 12, 14, 15, 16, 20, 24.
    ends = [5, 5, 5, 5, 5, 7, 8, 10, 12, 14, 15, 16, 20, 24]
    expected = [1, 2, 3, 4, 5, 129, 3, -55, 0x12, -7, 40, 80, 123456, 0xABCDEF]
    for value, end, want in zip(values, ends, expected, strict=True):
        assert value == (want if tail_len >= end else None)
    consumed = max([0] + [e for e in ends if e <= tail_len])
    assert sip.extra == tail[consumed:]
    assert sip_payload(sip) == payload


sonar_entries = st.lists(st.builds(SonarReading, st.integers(0, 255), st.integers(0, 0xFFFF)), max_size=40)
s16 = st.integers(-0x8000, 0x7FFF)
u8, u16 = st.integers(0, 0xFF), st.integers(0, 0xFFFF)


@st.composite
def arcos_sips(draw: st.DrawFn) -> Sip:
    sip = Sip(
        draw(st.sampled_from([0x32, 0x33])), draw(u16), draw(u16), draw(s16), draw(s16), draw(s16), draw(u8),
        draw(u16), draw(s16), draw(u16), draw(u8), tuple(draw(sonar_entries)),
    )  # fmt: skip
    tail = [draw(u8), draw(u8), draw(u8), draw(u8), draw(u8), draw(u16), draw(u8), draw(s16), draw(u16),
            draw(s16), draw(st.integers(-128, 127)), draw(st.integers(-128, 127)),
            draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 2**32 - 1))]  # fmt: skip
    groups = draw(st.integers(0, 10))
    present = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14][groups - 1] if groups else 0
    for name, value in zip(TAIL_NAMES[:present], tail, strict=False):
        setattr(sip, name, value)
    if groups == 10:
        sip.extra = draw(st.binary(max_size=8))
    return sip


@given(arcos_sips())
def test_arcos_sip_roundtrips(sip: Sip) -> None:
    frame = encode_sip(sip)
    assert decode_sip(decode_frame(frame)) == sip


@given(st.sampled_from([0x32, 0x33]), st.binary(min_size=18, max_size=18), sonar_entries, st.binary(max_size=40))
def test_any_wellformed_payload_reencodes_byte_exact(pid: int, core: bytes, sonar: list[SonarReading],
                                                     tail: bytes) -> None:  # fmt: skip
    payload = bytes((pid,)) + core + bytes((len(sonar),))
    payload += b"".join(struct.pack("<BH", *r) for r in sonar) + tail
    for layout in SipLayout:
        assert sip_payload(decode_sip(payload, layout), layout) == payload


def test_decode_errors_name_the_offset() -> None:
    payload = decode_frame(WORKED_SIP)
    with pytest.raises(DecodeError) as err:
        decode_sip(payload[:15])
    assert err.value.offset == 15
    with pytest.raises(DecodeError) as err:
        decode_sip(b"\x20" + payload[1:])
    assert err.value.offset == 0 and "not a SIP" in err.value.message
    truncated = payload[:19] + b"\x03" + bytes.fromhex("00 10 00 01 20")  # 3 entries announced, 1 whole
    with pytest.raises(DecodeError) as err:
        decode_sip(truncated)
    assert err.value.offset == 23 and "only 1 whole" in err.value.message


def test_encode_errors_name_the_field() -> None:
    with pytest.raises(EncodeError, match="left_vel=40000"):
        encode_sip(Sip(left_vel=40000))
    with pytest.raises(EncodeError, match="temperature=-200"):
        encode_sip(Sip(temperature=-200))
    with pytest.raises(EncodeError, match="sonar entry 1"):
        encode_sip(Sip(sonar=(SonarReading(1, 2), SonarReading(300, 2))))
    with pytest.raises(EncodeError, match="timer"):
        encode_sip(Sip(timer=-1), SipLayout.PSOS)
    with pytest.raises(EncodeError, match="at most 77"):
        encode_sip(Sip(sonar=(SonarReading(0, 0),) * 78))


def test_positions_wrap_to_16_bits_on_encode() -> None:
    sip = decode_sip(sip_payload(Sip(x=-1, y=0x12345)))
    assert (sip.x, sip.y) == (0xFFFF, 0x2345)


def test_stall_word_bits() -> None:
    assert Stall.from_word(0x0001) == Stall(left_motor=True)
    assert Stall.from_word(0x0100) == Stall(right_motor=True)
    both = Sip(stall=0x0101)
    assert both.left_motor_stalled and both.right_motor_stalled and both.stall_bits.any_motor
    front = Stall.from_word(0b0000_0110_0000_0000)  # high byte bits 1,2 → front segments 0,1
    assert (front.front_bumpers, front.rear_bumpers, front.any_motor) == (0b11, 0, False)
    rear = Stall.from_word(0b1000_0000)  # low byte bit 7 → rear segment 6
    assert rear.rear_bumpers == 1 << 6
    for word in range(0, 0x10000, 257):
        assert Stall.from_word(word).to_word() == word
    with pytest.raises(ValueError, match=r"0\.\.0x7F"):
        Stall(front_bumpers=0x80).to_word()


def test_flag_helpers() -> None:
    sip = Sip(flags=0x001F | SipFlags.ESTOP, fault_flags=0b10010, charge_state=3)
    assert sip.flag_bits & SipFlags.ESTOP and sip.motors_enabled and sip.sonar_enabled
    assert sip.fault_bits == FaultFlags.TEMPERATURE_WARNING | FaultFlags.GYRO_FAULT
    assert sip.charge is ChargeState.FLOAT
    assert Sip().charge is ChargeState.UNKNOWN and Sip(charge_state=77).charge is ChargeState.UNKNOWN
    assert Sip().fault_bits is None
    assert not Sip(flags=SipFlags.MOTORS_ENABLED).sonar_enabled
    assert is_sip_id(0x32) and is_sip_id(0x33) and not is_sip_id(0x30)


def test_amrisim_sip_sizes() -> None:
    """AMRISim SIP sizes: sonar off → count 0x26 (41 bytes); 16 sonar → 89 bytes."""
    amrisim_tail = {"gripper_state": 0, "analog_port": 0, "analog": 0, "digin": 255, "digout": 255,
                    "battery_dv": 130, "charge_state": 0, "rot_vel": 0, "fault_flags": 0, "lat_vel": 0,
                    "temperature": -127, "state_of_charge": 0}  # fmt: skip
    off = encode_sip(Sip(**amrisim_tail))  # type: ignore[arg-type]
    assert (off[2], len(off)) == (0x26, 41)
    sonar = tuple(SonarReading(i, 1000 + i) for i in range(16))
    assert len(encode_sip(Sip(sonar=sonar, **amrisim_tail))) == 89  # type: ignore[arg-type]
    assert encode_packet(sip_payload(Sip(sonar=sonar))) == encode_sip(Sip(sonar=sonar))
