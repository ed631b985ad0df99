"""Every file reader against the bad files of the security review (issue 24 item 3, F7, F10): each gives a
``file:line:col`` error (or names the file) with exit status 2, in bounded time and memory; never a
traceback, a hang, gigabytes, or control bytes echoed to the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from saphira.app.cli import main
from saphira.client.artifacts import PointList
from saphira.core.errors import SaphiraError, SourceError
from saphira.params.robot_params import MAX_SONARS, ParamsError, load_params
from saphira.perception.mapfile import MapFileError, load_map_file
from saphira.record.recording import MAX_IDLE_CYCLES, read_recording, replay
from saphira.world.flat_world import MAX_LISTED, MAX_TRANSITIONS, WorldFileError, load_world_file
from saphira.world.world import WorldError, load_world
from tests.realtime import WAIT
from tests.sim_process import PROJECT

DIGITS_5000 = "9" * 5000
HALL = "width 4000\nheight 4000\n0 0 4000 0\n0 4000 4000 4000\n"


def saphira(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m saphira ARGS`` with a bound on how long it may take."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    return subprocess.run([sys.executable, "-m", "saphira", *args], cwd=PROJECT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)  # fmt: skip


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``saphira ARGS`` in this process: the exit status and what it wrote to stderr."""
    status = main(list(args))
    return status, capsys.readouterr().err


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# ================================================================================ parameter files
@pytest.mark.parametrize(
    ("line", "where", "message"),
    [
        (f"SwitchToBaudRate {DIGITS_5000}", ":3:18:", "SwitchToBaudRate: '99999999999999999999'... (5000 characters)"),
        (f"SonarNum {DIGITS_5000}", ":3:10:", "out of range (more than 18 digits)"),
        (f"SonarUnit {DIGITS_5000} 1 2 3", ":3:11:", "out of range (more than 18 digits)"),
        ("SonarNum 1000000000", ":3:10:", f"1000000000 is out of range (at most {MAX_SONARS} sonars)"),
        ("RobotRadius -250", ":3:13:", "RobotRadius: '-250' is out of range (a length in mm: more than 0"),
        ("RobotRadius 1e999", ":3:13:", "RobotRadius: '1e999' is out of range (not a finite number)"),
        ("RobotRadius " + "4" * 400, ":3:13:", "out of range (not a finite number)"),
        ("RobotRadius 0", ":3:13:", "out of range"),
        ("DistConvFactor 0", ":3:16:", "out of range (a conversion factor: more than 0"),
        ("TransVelMax 99999", ":3:13:", "out of range"),
        ("SonarUnit 0 1e9 0 0", ":3:13:", "out of range (a position in mm"),
    ],
)
def test_saphira_params_refuses_out_of_range_values_at_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, where: str, message: str
) -> None:
    path = write(tmp_path / "a.p", f"Class Pioneer\nSubclass p3dx\n{line}\n")
    status, err = run_main(capsys, "params", str(path))
    assert status == 2
    assert f"{path}{where}" in err and message in err
    assert len(err) < 1000  # a 5000-digit value is named, not echoed


def test_saphira_run_stops_at_a_bad_radius_before_connecting(tmp_path: Path) -> None:
    path = write(tmp_path / "r.p", "Subclass p3dx\nRobotRadius 1e999\n")
    done = saphira("run", "colbert/demo.act", "--params", str(path), "--duration", "1")
    assert done.returncode == 2, done.stderr
    assert f"{path}:2:13: RobotRadius: '1e999' is out of range" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_sonar_indices_are_summarised_as_runs(tmp_path: Path) -> None:
    path = write(tmp_path / "s.p", f"SonarNum {MAX_SONARS}\nSonarUnit 0 1 2 3\nSonarUnit 5 1 2 3\n")
    params = load_params(path)
    assert params.sonar_num == MAX_SONARS
    (warning,) = params.warnings
    assert f"(missing 1-4, 6-{MAX_SONARS - 1})" in warning


# ================================================================================ worlds and maps
def test_a_push_frame_of_huge_numbers_is_a_located_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "b.wld", "width 6000\nheight 6000\npush 1e308 1e308 0\n1e308 0 1e308 10\npop\n")
    status, err = run_main(capsys, "map", str(path))
    assert status == 2
    assert f"{path}:3:6: number '1e308' out of range" in err


def test_push_angles_that_add_up_past_the_float_range_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "t.wld", "push 0 0 1e308\npush 0 0 1e308\n0 0 10 10\n")
    with pytest.raises(WorldError, match=r"t.wld:1:10: number '1e308' out of range"):
        load_world(path)


def test_a_5000_digit_count_in_an_aria_map_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "c.map", f"2D-Map\nNumLines: {DIGITS_5000}\nLINES\n0 0 10 10\n")
    status, err = run_main(capsys, "map", str(path))
    assert status == 2
    assert f"{path}:2:11: NumLines must be a whole number (at most 12 digits)" in err
    assert len(err) < 1000


def test_a_5000_digit_map_id_is_a_located_error(tmp_path: Path) -> None:
    path = write(tmp_path / "i.smap", f"WALL ({DIGITS_5000}) 0 0 0 100\n")
    with pytest.raises(MapFileError, match=r"i.smap:1:6: an id is a positive integer"):
        load_map_file(PointList(), path)


def test_loading_a_large_saphira_map_takes_linear_time(tmp_path: Path) -> None:
    # Quadratic before (each add scanned the pointlist): 50k walls took ~28 s inside the cycle.
    path = write(tmp_path / "big.smap", "".join(f"WALL {i} {i % 97} 0 100\n" for i in range(50_000)))
    pointlist = PointList()
    start = time.perf_counter()
    made = load_map_file(pointlist, path)
    assert len(made) == len(pointlist) == 50_000
    assert time.perf_counter() - start < 10.0


# ================================================================================ Flat World files
@pytest.mark.parametrize(
    ("data", "where", "byte"),
    [
        (b"WORLD W a.wld\nMAP a.wld\n\xff\xfe\x00\x01", ":3:1:", "byte 0xff at byte offset 24"),
        ("WORLD W a.wld\n".encode("utf-16"), ":1:1:", "byte 0xff at byte offset 0"),
        (b"WORLD W a\xe9.wld\n", ":1:10:", "byte 0xe9 at byte offset 9"),
    ],
)
def test_a_flat_world_file_that_is_not_utf8_names_the_byte(tmp_path: Path, data: bytes, where: str, byte: str) -> None:
    path = write(tmp_path / "w.world", data)
    with pytest.raises(WorldFileError) as caught:
        load_world_file(path)
    assert str(caught.value).startswith(f"{path}{where} Flat World file is not UTF-8 text: {byte}")


def test_saphira_sim_flat_refuses_a_binary_world_file_with_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path / "bin.world", bytes(range(256)) * 4)
    done = saphira("sim", "--flat", "0", "--flat-world", str(path))
    assert done.returncode == 2
    assert f"saphira sim: {path}:2:118: Flat World file is not UTF-8 text: byte 0x80 at byte offset 128" in done.stderr
    assert "Traceback" not in done.stderr


def test_too_many_transitions_are_refused_at_the_first_one_too_many(tmp_path: Path) -> None:
    write(tmp_path / "a.wld", HALL)
    lines = ["WORLD W a.wld", "MAP a.wld"] + ["TRANSITION (1000 1000 500 go) a.wld"] * (MAX_TRANSITIONS + 1)
    path = write(tmp_path / "many.world", "\n".join(lines) + "\n")
    with pytest.raises(WorldFileError, match=rf"many.world:{MAX_TRANSITIONS + 3}:1: more than {MAX_TRANSITIONS} TRA"):
        load_world_file(path)


def test_overlapping_automatic_transitions_are_counted_not_listed(tmp_path: Path) -> None:
    # 10k such lines took over 4 GB of warning text; the count is capped and the list summarised.
    for name in ("a.wld", "b.wld"):
        write(tmp_path / name, HALL)
    lines = ["WORLD W a.wld", "MAP a.wld"] + ["TRANSITION (1000 1000 500) b.wld"] * MAX_TRANSITIONS
    path = write(tmp_path / "same.world", "\n".join(lines) + "\n")
    start = time.perf_counter()
    world = load_world_file(path)
    assert time.perf_counter() - start < 10.0
    pairs = MAX_TRANSITIONS * (MAX_TRANSITIONS - 1) // 2
    assert len(world.warnings) == MAX_LISTED + 1
    assert world.warnings[0].startswith(f"{path}:4: automatic transitions at lines 3 and 4 of map a.wld overlap")
    assert world.warnings[-1] == f"{path}: and {pairs - MAX_LISTED} more overlapping pairs of automatic transitions"


@pytest.mark.parametrize(
    ("text", "where", "name"),
    [
        ("WORLD W building.world\n", ":1:9:", "building.world"),
        ("WORLD W a.wld\nMAP /etc/passwd\n", ":2:5:", "/etc/passwd"),
        ("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2 3 go) nowhere.wld (1 2 3)\n", ":3:23:", "nowhere.wld"),
    ],
)
def test_a_map_that_cannot_be_loaded_is_an_error_at_the_line_naming_it(
    tmp_path: Path, text: str, where: str, name: str
) -> None:
    write(tmp_path / "a.wld", HALL)
    write(tmp_path / "building.world", "WORLD B a.wld\n")
    path = write(tmp_path / "w.world", text)
    with pytest.raises(WorldFileError) as caught:
        load_world_file(path)
    assert str(caught.value).startswith(f"{path}{where} map {name!r} cannot be loaded: ")


# ================================================================================ recordings
REC_HEAD = "# saphira recording 2\n# robot tcp://127.0.0.1:8101\n"


def test_a_line_stamped_far_ahead_is_refused_instead_of_replaying_every_cycle(tmp_path: Path) -> None:
    # Replay ran 10 million cycles (some 5 minutes) before; now the line is an error where it stands.
    path = write(tmp_path / "far.rec", REC_HEAD + "3 = 0.0 0.0 0.0 0.0 0.0 13.0 0\n10000000 = 0 0 0 0 0 13 0\n")
    start = time.perf_counter()
    with pytest.raises(
        SourceError, match=rf"far.rec:4:1: cycle 10000000 leaves 9999999 cycles .*at most {MAX_IDLE_CYCLES}"
    ):
        replay(path)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        (f"# saphira recording {DIGITS_5000}\n", ":1:", "the version must be a whole number of at most 12 digits"),
        (REC_HEAD + f"# end {DIGITS_5000} events, cycle 3\n", ":3:", "the event count must be a whole number"),
        (
            REC_HEAD + "1e15 = 0 0 0 0 0 13 0\n",
            ":3:1:",
            "a cycle must be a whole number of at most 12 digits, not '1e15'",
        ),
        (REC_HEAD + f"{DIGITS_5000} = 0 0 0 0 0 13 0\n", ":3:1:", "a cycle must be a whole number"),
    ],
)
def test_huge_numbers_in_a_recording_are_located_errors(tmp_path: Path, text: str, where: str, what: str) -> None:
    path = write(tmp_path / "n.rec", text)
    with pytest.raises(SourceError) as caught:
        read_recording(path)
    assert str(caught.value).startswith(f"{path}{where} {what}")
    assert len(str(caught.value)) < 300


def test_saphira_replay_of_a_directory_says_so_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_main(capsys, "replay", str(tmp_path))
    assert status == 2
    assert err == f"saphira replay: {tmp_path}: cannot read recording: it is a directory, not a regular file\n"


def test_dev_zero_is_refused_as_a_recording_and_a_flat_world_before_reading() -> None:
    with pytest.raises(SaphiraError, match="/dev/zero: cannot read recording: it is a character device"):
        read_recording("/dev/zero")
    with pytest.raises(WorldFileError, match="/dev/zero: cannot read Flat World file: it is a character device"):
        load_world_file("/dev/zero")


def test_a_fifo_is_refused_as_a_recording_or_flat_world_instead_of_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = saphira("replay", str(fifo), timeout=WAIT)
    assert done.returncode == 2
    assert f"{fifo}: cannot read recording: it is a FIFO (named pipe), not a regular file" in done.stderr
    done = saphira("sim", "--flat", "0", "--flat-world", str(fifo), timeout=WAIT)
    assert done.returncode == 2
    assert f"{fifo}: cannot read Flat World file: it is a FIFO (named pipe)" in done.stderr


def test_a_file_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.p"
    with path.open("wb") as handle:
        handle.truncate(10 * 1024**3)  # sparse: 10 GB that take no disk
    with pytest.raises(ParamsError, match=r"huge.p: parameter file too large: 10240.0 MiB \(at most 1.0 MiB\)"):
        load_params(path)


# ================================================================================ F10: terminal escapes
ESCAPES = "\x1b]0;TITLE-HACKED\x07\x1b[31mRED\x1b[0m"


@pytest.mark.parametrize(
    ("name", "text", "command"),
    [
        ("esc.rec", f"# saphira recording 2\n# robot x\n3 < {ESCAPES}\n", "replay"),
        ("esc.wld", f"width 1000\nheight 1000\n{ESCAPES} 1 2 3\n", "map"),
        ("esc.p", "Subclass p3dx\nRobotRadius 2\u009b31mRED\u009b0m\n", "params"),  # C1 CSI: 8-bit ESC [
    ],
)
def test_error_excerpts_escape_control_characters(tmp_path: Path, name: str, text: str, command: str) -> None:
    path = write(tmp_path / name, text)
    done = saphira(command, str(path))
    assert done.returncode == 2, done.stderr
    assert str(path) in done.stderr
    assert not any(0x80 <= ord(c) < 0xA0 or (ord(c) < 0x20 and c != "\n") for c in done.stderr)
    assert "\\x1b" in done.stderr or "\\x9b" in done.stderr


def test_a_map_excerpt_escapes_control_characters_in_sfloadmapfile_messages(tmp_path: Path) -> None:
    path = write(tmp_path / "esc.smap", f"WALL 0 0 0 100\nDOOR{ESCAPES} 0 0 0 100\n")
    with pytest.raises(MapFileError) as caught:
        load_map_file(PointList(), path)
    pretty = caught.value.pretty()
    assert pretty.startswith(f"{path}:2:1: unknown artifact ")
    assert "\x1b" not in pretty and "\x07" not in pretty
    assert pretty.splitlines()[1] == "    DOOR\\x1b]0;TITLE-HACKED\\x07\\x1b[31mRED\\x1b[0m 0 0 0 100"
