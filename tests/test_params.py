"""Robot parameter files: the bundled files, the parser's errors, and file selection."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path

import pytest

from saphira.core.paths import data_dir
from saphira.params.robot_params import (
    DEFAULTS_SOURCE,
    ParamsError,
    ParamsNotFoundError,
    RobotParams,
    SonarUnit,
    bundled_params,
    find_params_file,
    load_params,
    params_for_robot,
    parse_params,
)

BUNDLED = bundled_params()
REQUIRED = {"pioneer", "psos41m", "psos41x", "pionat", "b14", "b21", "p2dx", "p3dx", "p3dx-sh", "p3at"}


@pytest.fixture(autouse=True)
def _no_user_params(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAPHIRA_PARAMS", raising=False)


def write(directory: Path, filename: str, text: str) -> Path:
    path = directory / filename
    path.write_text(text)
    return path


def test_every_required_file_is_bundled() -> None:
    assert set(BUNDLED) >= REQUIRED


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_file_loads_with_consistent_sonars(name: str) -> None:
    path = data_dir("params") / f"{name}.p"
    params = load_params(path)
    assert params.source == str(path)
    assert params.name and params.robot_class and params.subclass
    text = path.read_text()
    for key in ("Name", "Class", "Subclass", "DistConvFactor", "SonarNum", "AngleJitter", "DistJitter"):
        assert re.search(rf"^{key}\s", text, re.MULTILINE), f"{name}.p lacks {key}"
    assert [u.index for u in params.sonar_units] == list(range(params.sonar_num))
    declared = int(re.search(r"^SonarNum\s+(\d+)", text, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert params.sonar_num == declared
    for unit in params.sonar_units:
        assert -180 <= unit.th <= 180
        # Each sonar sits on the body and looks outwards (within 90 degrees of its radius vector).
        half_length = max(params.robot_length_front, params.robot_length_rear)
        assert math.hypot(unit.x, unit.y) <= math.hypot(half_length, params.robot_width / 2) + 1
        bearing = math.degrees(math.atan2(unit.y, unit.x))
        assert abs((unit.th - bearing + 180) % 360 - 180) < 90
    assert 0 < params.angle_jitter < 0.1 and 0 < params.angle_drift < 0.01 and 0 < params.dist_jitter < 0.1
    assert params.robot_length_front + params.robot_length_rear == pytest.approx(params.robot_length)


def test_reference_values() -> None:
    p3dx = load_params(find_params_file("p3dx"))
    assert (p3dx.dist_conv_factor, p3dx.angle_conv_factor, p3dx.range_conv_factor) == (0.485, 0.001534, 1.0)
    assert (p3dx.diff_conv_factor, p3dx.vel2_divisor, p3dx.robot_radius, p3dx.robot_length_rear) == (
        0.0056,
        20,
        250,
        301,
    )
    assert p3dx.sonar_units[3] == SonarUnit(3, 166, 27, 10)
    assert p3dx.sonar_units[15] == SonarUnit(15, -157, 136, 90)
    assert (p3dx.has_move_command, p3dx.settable_accs_decs, p3dx.switch_to_baud_rate) == (True, True, 38400)
    assert (p3dx.trans_vel_max, p3dx.max_velocity, p3dx.max_rvelocity) == (0, 2200, 500)
    assert p3dx.extra["GyroScaler"] == "1.626"

    p2dx = load_params(find_params_file("p2dx"))
    assert (p2dx.dist_conv_factor, p2dx.range_conv_factor) == (0.84, 0.268)
    assert load_params(find_params_file("p3dx-sh")).dist_conv_factor == 1.0
    p3at = load_params(find_params_file("p3at"))
    assert (p3at.dist_conv_factor, p3at.robot_radius, p3at.sonar_units[0]) == (
        0.465,
        500,
        SonarUnit(0, 147, 136, 90),
    )

    m = load_params(find_params_file("psos41m"))
    assert (m.name, m.subclass, m.angle_conv_factor, m.dist_conv_factor) == (
        "Erratic",
        "psos41m",
        0.0061359,
        0.05066,
    )
    assert (m.vel_conv_factor, m.range_conv_factor, m.front_buffer, m.side_buffer) == (2.5332, 0.1734, 20, 40)
    assert m.sonar_units[0] == SonarUnit(0, 100, 100, 90) and m.sonar_units[6] == SonarUnit(6, 100, -100, -90)
    assert m.angle_drift == 0.003
    at = load_params(find_params_file("pionat"))
    assert (at.robot_radius, at.dist_conv_factor, at.max_velocity) == (330, 0.07, 500)
    assert load_params(find_params_file("b14")).sonar_num == 16
    assert load_params(find_params_file("b21")).sonar_num == 24


def test_builtin_defaults_equal_pioneer_file() -> None:
    from_file = load_params(find_params_file("pioneer"))
    assert dataclasses.replace(from_file, source=DEFAULTS_SOURCE) == RobotParams()
    assert RobotParams().sonar_num == 7


# --- a corrupted copy of each bundled file names the file, the line and the key --------------------


def corrupt(text: str, pattern: str, replace: str) -> tuple[str, int]:
    """``text`` with the last line matching ``pattern`` rewritten; also that line's number."""
    lines = text.splitlines()
    number = max(i for i, line in enumerate(lines) if re.match(pattern, line))
    lines[number] = re.sub(pattern + r".*", replace, lines[number])
    return "\n".join(lines) + "\n", number + 1


CORRUPTIONS = {
    "float in an int key": (r"SonarNum\s", "SonarNum 16.0", "SonarNum", "decimal point"),
    "garbage number": (r"DistConvFactor\s", "DistConvFactor 0.4x85", "DistConvFactor", "not a number"),
    "truncated SonarUnit": (r"SonarUnit\s", "SonarUnit 5 120", "SonarUnit", "needs 4 values"),
    "bad boolean": (r"Holonomic\s", "Holonomic yes", "Holonomic", "not a boolean"),
    "missing value": (r"AngleJitter\s", "AngleJitter   ; forgot", "AngleJitter", "needs a value"),
}


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corrupted_bundled_file_reports_file_line_and_key(name: str, kind: str, tmp_path: Path) -> None:
    pattern, replacement, key, why = CORRUPTIONS[kind]
    text, line = corrupt((data_dir("params") / f"{name}.p").read_text(), pattern, replacement)
    path = write(tmp_path, f"{name}.p", text)
    with pytest.raises(ParamsError) as info:
        load_params(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}:"), message
    assert key in message and why in message
    assert info.value.line == line and info.value.file == str(path)


# --- parser rules ---------------------------------------------------------------------------------

ARIA_TEXT = """\
ConfigVersion 2.0
;SectionFlags for :
;  Robot parameter file

Section General settings
Class Pioneer            ; general type of robot
subclass p3dx            ; keywords are case-insensitive
ROBOTRADIUS 250.00000    ; radius in mm
RobotLength 511
RobotLengthFront 0       ; 0 means half of RobotLength
Holonomic true           ; turns in own radius
HasMoveCommand TRUE
;  IRUnit <IR Number> <IR Type> <Persistance, cycles> <x position, mm> <y
 position, mm>
CompassPort              ; a key with no value
Section Conversion factors
AngleConvFactor 0.00153  # hash comments work too
DistConvFactor 4.85e-1
VelConvFactor 1
RangeConvFactor .5
Section Laser parameters
LaserX 21
Section Laser 2 parameters
LaserX 0
Section Sonar parameters
SonarNum 2
SonarUnit 1 69 -136 -90
SonarUnit 0 69 136 90 1 0 10 25 4335 true
"""


def test_aria_format_sections_comments_and_extra() -> None:
    p = parse_params(ARIA_TEXT, "aria.p")
    assert (p.robot_class, p.subclass, p.robot_radius, p.holonomic, p.has_move_command) == (
        "Pioneer",
        "p3dx",
        250.0,
        True,
        True,
    )
    assert (p.angle_conv_factor, p.dist_conv_factor, p.vel_conv_factor, p.range_conv_factor) == (
        0.00153,
        0.485,
        1.0,
        0.5,
    )
    assert p.robot_length_front == 255.5 and p.robot_length_rear == 250  # rear kept from the defaults
    assert p.sonar_units == (
        SonarUnit(0, 69, 136, 90, ("1", "0", "10", "25", "4335", "true")),
        SonarUnit(1, 69, -136, -90),
    )
    assert p.extra == {
        "position,": "mm>",  # ARIA's own files wrap comments without a ';'; kept, never an error
        "CompassPort": "",
        "LaserX": "21",
        "Laser 2 parameters/LaserX": "0",
    }
    assert p.name == RobotParams().name  # absent keys keep the built-in defaults


def test_saphira_format_and_value_forms() -> None:
    text = "name Simmy ; a comment\nHOLONOMIC 0\nMaxVelocity 5\nAngleDrift 3E-3\nDistJitter -0.\n"
    text += "FrontBuffer +12\n"
    p = parse_params(text, "s.p")
    assert (p.name, p.holonomic, p.max_velocity, p.angle_drift, p.dist_jitter, p.front_buffer) == (
        "Simmy",
        False,
        5.0,
        0.003,
        0.0,
        12,
    )
    assert isinstance(p.max_velocity, float) and isinstance(p.front_buffer, int)
    assert p.sonar_units == RobotParams().sonar_units


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (
            "Name A\nSideBuffer 4.5\n",
            2,
            "SideBuffer: '4.5' is not an integer (integer parameters take no decimal",
        ),
        ("TransVelMax 1e3\n", 1, "TransVelMax: '1e3' is not an integer"),
        ("RobotRadius nan\n", 1, "RobotRadius: 'nan' is not a number"),
        ("MaxVelocity 10 20\n", 1, "MaxVelocity takes one value, got 2"),
        ("Subclass\n", 1, "Subclass needs a value"),
        ("SonarNum\n", 1, "SonarNum needs a value"),
        ("SonarNum -1\n", 1, "SonarNum: -1 is negative"),
        (
            "SonarNum 2\nSonarUnit 0 1 2 3\nSonarUnit 0 1 2 3\n",
            3,
            "SonarUnit 0 given twice (first on line 2)",
        ),
        (
            "SonarNum 2\nSonarUnit 0 1 2 3\nSonarUnit 2 1 2 3\n",
            3,
            "SonarUnit index 2 out of range 0..1 (SonarNum 2)",
        ),
        (
            "SonarUnit 0 1 2 3\nSonarUnit 2 1 2 3\n",
            2,
            "SonarUnit index 2 out of range 0..1 (2 SonarUnit lines)",
        ),
        ("SonarUnit -1 1 2 3\n", 1, "SonarUnit index -1 out of range"),
        ("SonarUnit 1.0 1 2 3\n", 1, "SonarUnit: '1.0' is not an integer"),
        ("SonarUnit 0 1 2 east\n", 1, "SonarUnit: 'east' is not a number"),
    ],
)
def test_malformed_text_raises_params_error(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParamsError) as info:
        parse_params(text, "bad.p")
    assert str(info.value).startswith(f"bad.p:{line}:")
    assert fragment in str(info.value)


def test_error_column_points_at_the_bad_value() -> None:
    with pytest.raises(ParamsError) as info:
        parse_params("\n  DistConvFactor   zero\n", "c.p")
    assert str(info.value).startswith("c.p:2:20: DistConvFactor")
    assert info.value.pretty().endswith("  DistConvFactor   zero\n    " + " " * 19 + "^")


def test_unreadable_file_is_a_params_error(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.p", tmp_path):
        with pytest.raises(ParamsError) as info:
            load_params(path)
        assert str(info.value).startswith(f"{path}: cannot read parameter file")


def test_latin1_comments_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "old.p"
    path.write_bytes(b"Name Old ; \xe9t\xe9 1996\n")
    assert load_params(path).name == "Old"


# --- lookup and selection -------------------------------------------------------------------------


def test_find_bundled_by_bare_name_case_insensitive() -> None:
    expected = data_dir("params") / "p3dx.p"
    assert find_params_file("p3dx") == expected
    assert find_params_file("P3DX.P") == expected
    assert find_params_file(str(expected)) == expected


def test_user_dir_searched_before_bundled(tmp_path: Path) -> None:
    mine = write(tmp_path, "P3DX.p", "Name Mine\nDistConvFactor 0.5\n")
    assert find_params_file("p3dx", [tmp_path]) == mine
    assert find_params_file("p2dx", [tmp_path]) == data_dir("params") / "p2dx.p"
    assert params_for_robot("AMRISim", "Pioneer", "p3dx", [tmp_path]).dist_conv_factor == 0.5


def test_env_var_dirs_come_before_given_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env1, env2, given = (tmp_path / d for d in ("env1", "env2", "given"))
    for d in (env1, env2, given):
        d.mkdir()
    write(given, "robo.p", "Name Given\n")
    in_env2 = write(env2, "robo.p", "Name Env2\n")
    monkeypatch.setenv("SAPHIRA_PARAMS", f"{env1}{os.pathsep}{env2}")
    assert find_params_file("robo", [given]) == in_env2
    write(env1, "ROBO.P", "Name Env1\n")
    assert load_params(find_params_file("robo", [given])).name == "Env1"


def test_not_found_lists_what_is_available(tmp_path: Path) -> None:
    write(tmp_path, "zork.p", "Name Z\n")
    with pytest.raises(ParamsNotFoundError) as info:
        find_params_file("nosuchrobot", [tmp_path])
    message = str(info.value)
    assert "'nosuchrobot'" in message and str(tmp_path) in message
    assert "zork" in message and "p3dx" in message and "b21" in message


def test_selection_is_the_subclass_model_then_its_file(tmp_path: Path) -> None:
    """ARIA's order: the reported subclass's built-in values, overlaid by ``<subclass>.p`` if there is
    one. The robot's name never picks a file (simulators report generic names such as "Pioneer")."""
    write(tmp_path, "amigo.p", "Name from-amigo-file\nDistConvFactor 0.5\n")
    write(tmp_path, "nm.p", "Name from-name\n")
    chosen = params_for_robot("NM", "Pioneer", "AMIGO", [tmp_path])
    assert (chosen.name, chosen.dist_conv_factor) == ("from-amigo-file", 0.5)
    assert chosen.vel_conv_factor == 0.6154 and chosen.sonar_num == 8  # amigo's built-in values
    assert chosen.origins["dist_conv_factor"] == f"model file {tmp_path / 'amigo.p'}"
    assert chosen.origins["vel_conv_factor"] == "built-in amigo"
    (tmp_path / "amigo.p").unlink()
    assert params_for_robot("NM", "Pioneer", "amigo", [tmp_path]).dist_conv_factor == 0.5083


def test_selection_for_real_robots() -> None:
    assert params_for_robot("AMRISim", "Pioneer", "p3dx-sh").source.endswith("p3dx-sh.p")
    assert params_for_robot("Erratic", "Pioneer", "psos41m").subclass == "psos41m"
    # A PSOS 4.1 Pioneer 1 reports subclass "pion1": ARIA's pion1m type, Pioneer 1 factors.
    pion1 = params_for_robot("Erratic", "Pioneer", "pion1")
    assert (pion1.subclass, pion1.dist_conv_factor, pion1.angle_conv_factor) == ("pion1", 0.05066, 0.0061359)
    assert pion1.source == "<built-in pion1m>"
    # Saphira-era robots with no subclass are looked up by class.
    assert params_for_robot("rhino", "B21", "").source.endswith("b21.p")


def test_unknown_subclass_gets_arias_generic_robot_not_pioneer_1() -> None:
    """Pioneer 1 factors on an ARCOS robot multiply distances by ~20: an unknown model is ARIA's generic."""
    p = params_for_robot("Robbie", "Pioneer", "mystery-bot")
    assert (p.dist_conv_factor, p.vel_conv_factor, p.angle_conv_factor) == (1.0, 1.0, 0.001534)
    assert p.subclass == "mystery-bot" and p.source == "<built-in generic>" and p.sonar_num == 0


def test_robot_strings_are_never_paths(tmp_path: Path) -> None:
    evil = write(tmp_path, "evil.p", "Name Evil\n")
    assert params_for_robot(str(evil), str(evil), str(evil)).source == "<built-in generic>"
    assert params_for_robot("x", "y", "../params/p3dx").source == "<built-in generic>"
