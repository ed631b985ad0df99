"""The Gamebots codec: every message of the USARSim tutorial round-trips; typed forms; clear errors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from saphira.gamebots.codec import (
    Configuration,
    Drive,
    GamebotsError,
    Geometry,
    Init,
    JointDrive,
    LineReader,
    Message,
    RangeScannerMessage,
    SensorGeometry,
    SonarScan,
    Sta,
    encode,
    format_message,
    from_unreal,
    parse,
    read_drive,
    to_unreal,
)

SEED = Path(__file__).parent / "data" / "gamebots" / "seed_messages.txt"
SEED_LINES = [line for line in SEED.read_text().splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("line", SEED_LINES, ids=[line[:40] for line in SEED_LINES])
def test_every_seed_message_round_trips(line: str) -> None:
    message = parse(line)
    assert format_message(message) == line
    assert parse(encode(message).decode()) == message


@pytest.mark.parametrize("line", SEED_LINES, ids=[line[:40] for line in SEED_LINES])
def test_the_slides_brace_less_form_reads_as_one_pair_per_segment(line: str) -> None:
    bare = parse(line.replace("{", "").replace("}", ""))
    assert list(bare.pairs()) == list(parse(line).pairs())
    assert all(len(segment) == 1 for segment in bare.segments)


def test_seed_messages_read_as_their_types() -> None:
    messages = {(m.kind, m.get("Type")): m for m in map(parse, SEED_LINES)}
    sta = Sta.read(messages["STA", None])
    assert sta.time == 12.5 and sta.location == (1.2, 3.4, -0.5) and sta.battery == 1200.5
    assert sta.attitude == (0.0, 1.5708, 0.0) and sta.light is False
    sonar = SonarScan.read(messages["SEN", "Range"])
    assert sonar.ranges == (("F1", 4.5), ("F2", 3.25)) and sonar.sensor_type == "Range"
    laser = RangeScannerMessage.read(parse(SEED_LINES[3]))
    assert laser.name == "Scanner1" and laser.ranges == (1.5, 2.25, 3.0)
    geo = Geometry.read(messages["GEO", "Range"])
    assert [s.name for s in geo.sensors] == ["F1", "F2"]
    assert geo.sensors[0].location == (0.145, -0.13, 0.0)
    assert geo.sensors[0].orientation == (0.0, 0.0, -1.5708)  # the 2003 Direction is pitch,yaw,roll
    init = Init.read(parse(SEED_LINES[8]))
    assert init == Init("USARBot.P2AT", (312.0, -600.0, -305.0), "R1")
    assert Init.read(init.message()) == init


def test_drive_in_both_forms() -> None:
    wheels = read_drive(parse("DRIVE {Left 1.0} {Right -0.5} {Light true} {Flip false}"))
    assert wheels == Drive(1.0, -0.5, None, True, False)
    assert read_drive(wheels.message()) == wheels
    joint = read_drive(parse("DRIVE {Name LeftFWheel} {Steer 10} {Order 1} {Value 2000}"))
    assert joint == JointDrive("LeftFWheel", 1, 2000.0, 10)
    assert read_drive(joint.message()) == joint
    normalized = read_drive(parse("DRIVE {Left 50} {Right 50} {Normalized True}"))
    assert isinstance(normalized, Drive) and normalized.normalized is True


def test_typed_messages_round_trip() -> None:
    sta = Sta(3.1, (1.0, -2.0, 0.0), (0.0, 0.5, 0.0), (0.3, 0.0, 0.0), 7190.0, True, True)
    assert Sta.read(parse(format_message(sta.message()))) == sta
    scan = SonarScan(1.5, (("F1", 0.25), ("R8", 5.0)))
    assert SonarScan.read(parse(format_message(scan.message()))) == scan
    laser = RangeScannerMessage(2.0, "Scanner1", 0.0175, 3.1416, (1.0, 2.5, 20.0))
    assert RangeScannerMessage.read(parse(format_message(laser.message()))) == laser
    geo = Geometry("Sonar", (SensorGeometry("F1", (0.069, -0.136, 0.0), (0.0, 0.0, -1.5708)),))
    text = format_message(geo.message())
    assert text == (
        "GEO {Type Sonar} {Name F1 Location 0.0690,-0.1360,0.0000 Orientation 0.0000,0.0000,-1.5708 Mount HARD}"
    )
    assert Geometry.read(parse(text)) == geo
    conf = Configuration("GroundVehicle", (("Name", "P2AT"), ("MaxSpeed", "10.9091")))
    assert Configuration.read(parse(format_message(conf.message()))) == conf
    assert conf.number("MaxSpeed", 0.0) == 10.9091


def test_unreal_frame_is_metres_left_handed_and_clockwise() -> None:
    location, yaw = to_unreal(1500.0, 2000.0, 90.0)
    assert location == (1.5, -2.0, 0.0)  # y to the right
    assert yaw == pytest.approx(-math.pi / 2)  # a left turn is a negative yaw
    assert from_unreal(location, yaw) == pytest.approx((1500.0, 2000.0, 90.0))


def test_a_last_segment_left_open_ends_with_the_line_as_usarsim_reads_it() -> None:
    """Pyro's USARSim robot ends its INIT with the last brace open; USARSim took the line's end for it."""
    message = parse("INIT {ClassName USARBot.P2DX} {Location 1.0,-1.0,0.0} {Name utbot\r\n")
    assert message.segments == (
        (("ClassName", "USARBot.P2DX"),),
        (("Location", "1.0,-1.0,0.0"),),
        (("Name", "utbot"),),
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", "empty line"),
        ("drive {Left 1}", "type in capitals, not 'drive' at column 1"),
        ("DRIVE {Left 1} {Right}", "'Right' has no value (segments are name-value pairs) at column 17"),
        ("DRIVE {Left 1 {Right 1}", "unclosed '{' at column 7"),
        ("DRIVE {Left 1} Right 2", "expected '{' before 'Right' at column 16"),
        ("DRIVE {Left {1}}", "unclosed '{' at column 7"),
        ("DRIVE {}", "empty segment"),
        ("DRIVE {1 Left}", "a name must start with a letter, not '1' at column 8"),
    ],
)
def test_errors_name_the_offending_text_and_column(line: str, expected: str) -> None:
    with pytest.raises(GamebotsError) as caught:
        parse(line)
    assert expected in str(caught.value)
    if line:
        assert repr(line) in str(caught.value)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("DRIVE {Left fast}", "Left must be a number, not 'fast'"),
        ("DRIVE {Left 1} {Light maybe}", "Light must be true or false, not 'maybe'"),
        ("DRIVE {Name Arm} {Order one} {Value 1}", "Order must be an integer, not 'one'"),
        ("DRIVE {Name Arm} {Value 1}", "DRIVE needs a Order value"),
        ("DRIVE {Left nan}", "Left must be a finite number, not 'nan'"),
    ],
)
def test_bad_values_are_named(line: str, expected: str) -> None:
    with pytest.raises(GamebotsError, match=expected.replace("(", r"\(")):
        read_drive(parse(line))


def test_bad_vectors_and_missing_fields_are_named() -> None:
    with pytest.raises(GamebotsError, match="Location must be a vector x,y,z, not '1,2'"):
        Init.read(parse("INIT {ClassName USARBot.P2DX} {Location 1,2}"))
    with pytest.raises(GamebotsError, match="INIT needs a ClassName value"):
        Init.read(parse("INIT {Location 1,2,3}"))
    assert Sta.read(parse("STA {Time 1} {Battery 7000}")).location is None  # USARSim-UDK's STA: no pose


def test_line_reader_splits_crlf_and_lf_across_chunks() -> None:
    reader = LineReader()
    assert reader.feed(b"STA {Time 1}\r\nSEN {Ty") == ["STA {Time 1}"]
    assert reader.feed(b"pe Sonar}\n\r\n") == ["SEN {Type Sonar}"]
    assert parse("SEN {Type Sonar}") == Message.of("SEN", ("Type", "Sonar"))
