"""The codec reads what both USARSim generations and their clients write (issue 26 items 1 and 2)."""

from __future__ import annotations

import math

import pytest

from saphira.gamebots.codec import (
    GamebotsError,
    Init,
    Message,
    RangeScannerMessage,
    SonarScan,
    Sta,
    StartPoses,
    format_message,
    parse,
)


def test_players_init_with_blank_separated_vectors_spawns_where_it_says() -> None:
    line = (
        "INIT {ClassName USARBot.P3AT} {Name R1} {Location 1.500000 -2.000000 0.000000} "
        "{Rotation 0.000000 0.000000 1.570796}"
    )
    init = Init.read(parse(line))
    assert init == Init("USARBot.P3AT", (1.5, -2.0, 0.0), "R1", (0.0, 0.0, 1.570796))


@pytest.mark.parametrize("vector", ["1.5, -2, 0", "1.5 ,-2 ,0", "1.5,-2,0"])
def test_blanks_after_or_around_the_commas_are_one_vector(vector: str) -> None:
    assert Init.read(parse(f"INIT {{ClassName P2DX}} {{Location {vector}}}")).location == (1.5, -2.0, 0.0)


def test_a_command_without_arguments_parses() -> None:
    assert parse("GETSTARTPOSES\r\n") == Message("GETSTARTPOSES")
    assert parse("  GETSTARTPOSES  ") == Message("GETSTARTPOSES")


def test_a_value_that_continues_is_still_checked() -> None:
    with pytest.raises(GamebotsError, match="Location must be a vector x,y,z, not '1 2 3 4'"):
        Init.read(parse("INIT {ClassName P2DX} {Location 1 2 3 4}"))
    with pytest.raises(GamebotsError, match="'Range' has no value"):
        parse("SEN {Name F1 Range}")


def test_start_poses_in_the_manuals_form_and_in_udks_one_group() -> None:
    manual = parse("NFO {StartPoses 2} {P1 1.0,2.0,0.0 0.0,0.0,1.57} {P2 -3,4,0 0,0,0}")
    udk = parse("NFO {StartPoses 2} {P1 1.0,2.0,0.0 0.0,0.0,1.57 P2 -3,4,0 0,0,0}")
    expected = StartPoses((("P1", (1.0, 2.0, 0.0), (0.0, 0.0, 1.57)), ("P2", (-3.0, 4.0, 0.0), (0.0, 0.0, 0.0))))
    assert StartPoses.read(manual) == StartPoses.read(udk) == expected
    written = format_message(expected.message())
    assert written == (
        "NFO {StartPoses 2} {P1 1.0000,2.0000,0.0000 0.0000,0.0000,1.5700} "
        "{P2 -3.0000,4.0000,0.0000 0.0000,0.0000,0.0000}"
    )
    assert StartPoses.read(parse(written)) == expected
    assert StartPoses.read(parse("NFO {StartPoses 0}")) == StartPoses(())


@pytest.mark.parametrize(
    "line",
    [
        "SEN {Time 1.5} {Type Sonar} {Name F1 Range 4.5} {Name F2 Range 0.75}",  # USARSim 3.x: the ring in one
        "SEN {Time 1.5} {Type Sonar} {Name F1} {Range 4.5} {Name F2} {Range 0.75}",  # UDK's groups
        "SEN Time 1.5 Type Sonar Name F1 Range 4.5 Name F2 Range 0.75",  # the tutorial's, without braces
    ],
)
def test_sonar_of_either_generation_and_the_braceless_form(line: str) -> None:
    assert SonarScan.read(parse(line)) == SonarScan(1.5, (("F1", 4.5), ("F2", 0.75)))


def test_a_sonar_without_its_range_is_named() -> None:
    with pytest.raises(GamebotsError, match="sonar F1 has no Range"):
        SonarScan.read(parse("SEN {Type Sonar} {Name F1} {Name F2} {Range 1}"))
    with pytest.raises(GamebotsError, match="sonar F2 has no Range"):
        SonarScan.read(parse("SEN {Type Sonar} {Name F1 Range 1} {Name F2}"))


def test_udks_sta_has_no_location_and_the_laser_reads_fov_either_way() -> None:
    sta = Sta.read(parse("STA {Time 3.2} {Battery 1190}"))
    assert sta.location is None and sta.time == 3.2 and sta.battery == 1190.0
    assert "Location" not in format_message(sta.message())
    scan = RangeScannerMessage.read(parse("SEN {Type RangeScanner} {Name S} {Fov 1.5708} {Range 1,2,3}"))
    assert scan.fov == pytest.approx(math.pi / 2, abs=1e-4)
