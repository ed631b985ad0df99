"""Commands: worked packets (docs/protocol.md §1), every table number of §4, argument encoders, server decoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.protocol import (
    ArgType,
    Command,
    CommandArg,
    DecodeError,
    EncodeError,
    SimCtrlOp,
    byte_pair,
    command_name,
    data_arg,
    decode_command,
    decode_frame,
    encode_command,
    int_arg,
    pose_arg,
    psos_str_arg,
    sim_ctrl_arg,
    sim_load_map_arg,
    str_arg,
    strn_arg,
)

# (command, argument, framed bytes as in docs/protocol.md §1)
WORKED_COMMANDS: list[tuple[int, CommandArg, str]] = [
    (Command.SYNC0, None, "FA FB 03 00 00 00"),
    (Command.SYNC1, None, "FA FB 03 01 00 01"),
    (Command.SYNC2, None, "FA FB 03 02 00 02"),
    (Command.PULSE, None, "FA FB 03 00 00 00"),
    (Command.OPEN, None, "FA FB 03 01 00 01"),
    (Command.OPEN, 1, "FA FB 06 01 3B 01 00 02 3B"),
    (Command.CLOSE, None, "FA FB 03 02 00 02"),
    (Command.CLOSE, 1, "FA FB 06 02 3B 01 00 03 3B"),
    (Command.ENABLE, 1, "FA FB 06 04 3B 01 00 05 3B"),
    (Command.CONFIG, 1, "FA FB 06 12 3B 01 00 13 3B"),
    (Command.SONAR, 1, "FA FB 06 1C 3B 01 00 1D 3B"),
    (Command.VEL, 300, "FA FB 06 0B 3B 2C 01 37 3C"),
    (Command.VEL, -300, "FA FB 06 0B 1B 2C 01 37 1C"),
    (Command.RVEL, 20, "FA FB 06 15 3B 14 00 29 3B"),
    (Command.RVEL, -20, "FA FB 06 15 1B 14 00 29 1B"),
    (Command.HEAD, 90, "FA FB 06 0C 3B 5A 00 66 3B"),
    (Command.DHEAD, -45, "FA FB 06 0D 1B 2D 00 3A 1B"),
    (Command.SETO, None, "FA FB 03 07 00 07"),
    (Command.SIM_STAT, 2, "FA FB 06 ED 3B 02 00 EF 3B"),
    (Command.SIM_MESSAGE, "Hello", "FA FB 0B EE 2B 05 48 65 6C 6C 6F 00 C5 4E"),
    (Command.POLLING, psos_str_arg(b"\x01\x02\x01\x06"), "FA FB 09 03 2B 01 02 01 06 00 05 33"),
    (
        Command.SIM_SET_POSE,
        pose_arg(1000, -2000, 90),
        "FA FB 10 E0 00 E8 03 00 00 30 F8 FF FF 5A 00 00 00 52 FA",
    ),
    (Command.VEL2, byte_pair(10, -5), "FA FB 06 20 3B FB 0A 1B 45"),
    (Command.VEL2, byte_pair(-10, 5), "FA FB 06 20 1B FB 09 1B 24"),
]


@pytest.mark.parametrize(("command", "arg", "hex_frame"), WORKED_COMMANDS)
def test_worked_commands_encode_byte_for_byte(command: int, arg: CommandArg, hex_frame: str) -> None:
    assert encode_command(command, arg) == bytes.fromhex(hex_frame)


@pytest.mark.parametrize(("command", "arg", "hex_frame"), WORKED_COMMANDS)
def test_worked_commands_decode(command: int, arg: CommandArg, hex_frame: str) -> None:
    packet = decode_command(decode_frame(bytes.fromhex(hex_frame)))
    assert packet.command == command
    if arg is None:
        assert (packet.arg_type, packet.int_arg, packet.data) == (None, None, b"")
    elif isinstance(arg, int):
        assert packet.int_arg == arg == packet.int_value
        assert packet.arg_type == (ArgType.NEGINT if arg < 0 else ArgType.POSINT)
    elif isinstance(arg, str):
        assert packet.string() == arg.encode()
    else:
        assert packet.data == arg


def test_decoded_argument_accessors() -> None:
    poll = decode_command(decode_frame(bytes.fromhex("FA FB 09 03 2B 01 02 01 06 00 05 33")))
    assert poll.nul_string() == b"\x01\x02\x01\x06"
    assert [b - 1 for b in poll.nul_string()] == [0, 1, 0, 5]
    pose = decode_command(decode_frame(bytes.fromhex("FA FB 10 E0 00 E8 03 00 00 30 F8 FF FF 5A 00 00 00 52 FA")))
    assert pose.pose() == (1000, -2000, 90)
    assert pose.int_arg is None  # type byte 0 is not an integer argument
    vel2 = decode_command(decode_frame(bytes.fromhex("FA FB 06 20 1B FB 09 1B 24")))
    assert vel2.int_arg == -2555
    assert vel2.byte_pair() == (-10, 5)
    assert decode_command(decode_frame(bytes.fromhex("FA FB 06 20 3B FB 0A 1B 45"))).byte_pair() == (10, -5)
    message = decode_command(decode_frame(bytes.fromhex("FA FB 0B EE 2B 05 48 65 6C 6C 6F 00 C5 4E")))
    assert message.string() == b"Hello"
    assert message.raw() == b"\x05Hello\x00"


def test_server_reads_past_the_end_as_zero() -> None:
    """AMRISim semantics (§1): SIM_STAT with no argument reads 0, a cut integer reads 0."""
    bare = decode_command(bytes((Command.SIM_STAT,)))
    assert bare.int_arg is None and bare.int_value == 0 and bare.magnitude == 0 and not bare.has_arg
    cut = decode_command(bytes((Command.VEL, ArgType.POSINT, 0x2C)))
    assert cut.int_arg == 0 and cut.int_value == 0
    assert decode_command(bytes((Command.SIM_SET_POSE, 0, 0xE8, 0x03))).pose() == (0, 0, 0)
    assert decode_command(bytes((Command.SIM_MESSAGE, ArgType.STRING))).string() == b""
    reader = decode_command(bytes((Command.SIM_CTRL,))).reader()
    assert (reader.s16(), reader.u16(), reader.nul_string(), reader.remaining) == (0, 0, b"", 0)
    with pytest.raises(DecodeError, match="no command byte"):
        decode_command(b"")


def test_magnitude_ignores_the_sign_byte() -> None:
    """ENABLE, SONAR, SETV... use only the magnitude in AMRISim."""
    packet = decode_command(decode_frame(encode_command(Command.SETA, -300)))
    assert (packet.int_arg, packet.magnitude) == (-300, 300)


@given(st.integers(-0xFFFF, 0xFFFF), st.integers(0, 255))
def test_int_argument_roundtrips(value: int, command: int) -> None:
    packet = decode_command(decode_frame(encode_command(command, value)))
    assert (packet.command, packet.int_arg) == (command, value)


@given(st.integers(-128, 127), st.integers(-128, 127))
def test_byte_pair_roundtrips_through_the_signed_int(high: int, low: int) -> None:
    packet = decode_command(decode_frame(encode_command(Command.VEL2, byte_pair(high, low))))
    assert packet.byte_pair() == (high, low)


def test_string_argument_styles() -> None:
    assert str_arg("ab") == b"\x2b\x02ab\x00"
    assert strn_arg(b"ab") == b"\x2b\x02ab"
    assert psos_str_arg("ab") == b"\x2bab\x00"
    assert data_arg(b"\x00\x01") == b"\x2b\x00\x01"
    assert decode_command(decode_frame(encode_command(Command.TTY2, strn_arg(b"xyz")))).string() == b"xyz"
    with pytest.raises(EncodeError, match="NUL"):
        psos_str_arg(b"a\x00b")
    with pytest.raises(EncodeError, match="latin-1"):
        str_arg("snow ☃")


def test_sim_ctrl_load_map_counts_the_nul() -> None:
    packet = decode_command(decode_frame(encode_command(Command.SIM_CTRL, sim_load_map_arg("AMROffice.map"))))
    reader = packet.reader()
    assert reader.s16() == SimCtrlOp.LOAD_MAP
    length = reader.u16()
    assert reader.take(length) == b"AMROffice.map\x00"
    assert reader.remaining == 0
    master = decode_command(decode_frame(encode_command(Command.SIM_CTRL, sim_load_map_arg("m", master=True))))
    assert master.int_arg == SimCtrlOp.MASTER_LOAD_MAP
    assert sim_ctrl_arg(SimCtrlOp.SIM_INFO) == b"\x3b\x06\x00"


def test_encode_errors() -> None:
    with pytest.raises(EncodeError, match="exceeds 65535"):
        int_arg(0x10000)
    with pytest.raises(EncodeError, match="below -65535"):
        int_arg(-0x10000)
    with pytest.raises(EncodeError, match=r"outside 0\.\.255"):
        encode_command(256)
    with pytest.raises(EncodeError, match=r"outside -128\.\.255"):
        byte_pair(256, 0)
    with pytest.raises(EncodeError, match="int32"):
        pose_arg(2**31, 0, 0)
    longest = encode_command(Command.SIM_MESSAGE, "x" * 194)  # 1 + 1 + 1 + 194 + 1 = 198 payload bytes
    assert longest[2] == 200
    with pytest.raises(EncodeError, match="above the limit 200"):
        encode_command(Command.SIM_MESSAGE, "x" * 195)


# Every number in the PSOS, ARCOS and simulator command tables (docs/protocol.md §4).
TABLE_NUMBERS = [
    0, 1, 2, 3, 7, 11, 12, 13, 21, 22, 30, 31, 32, 33, 41, 64,
    4, 5, 6, 8, 9, 10, 15, 17, 18, 19, 20, 23, 26, 28, 29, 35, 36, 37, 38, 40, 42, 43, 44, 45, 47, 49,
    50, 51, 52, 55, 57, 58, 59, 60, 61, 62, 63, 65, 66, 67, 68, 69, 90, 91, 92, 95, 96, 97, 98,
    125, 126, 127, 128, 129, 110, 113, 120, 123, 124, 149, 150, *range(210, 221), 250, 251, 252, 253, 255,
    224, 225, 226, 230, 231, 232, 233, 236, 237, 238, 239,
]  # fmt: skip


@pytest.mark.parametrize("number", TABLE_NUMBERS)
def test_every_table_number_has_a_name(number: int) -> None:
    assert Command(number) == number
    assert not command_name(number).startswith("UNKNOWN")


def test_shared_numbers_are_aliases() -> None:
    for alias, name in [
        ("SYNC0", "PULSE"),
        ("SYNC1", "OPEN"),
        ("SYNC2", "CLOSE"),
        ("OLD_SIM_LRF_ENABLE", "ADSEL"),
        ("ENDSIM", "BATTERYINFO"),
        ("POWER_24V", "POWER_12V"),
        ("SEEKURIMU", "IMUREQUEST"),
    ]:
        assert Command[alias] is Command[name] and Command[alias].name == name
    assert Command(0).name == "PULSE"
    assert command_name(254) == "UNKNOWN_254"
    assert decode_command(b"\x0b").name == "VEL"
