"""The ``saphira`` command as a user meets it: real subprocesses, real files, the real simulator."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest.mock import patch

import pytest

from tests.sim_process import PROJECT, Program

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def saphira(
    *args: str, cwd: Path = PROJECT, stdin: str | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "saphira", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def saphira_in_process(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``saphira ARGS`` as the installed command runs it (``saphira.app.cli:main``), in this process.

    For command lines refused before anything runs: what ``saphira`` prints and its exit status are
    main's, without starting an interpreter that imports the whole stack once per refusal. Any other
    exception propagates, so a traceback still fails the test.
    """
    from saphira.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), patch("sys.stdin", io.StringIO(stdin)):
        try:
            status = main(list(args))
        except SystemExit as done:
            status = done.code if isinstance(done.code, int) else 1
    return subprocess.CompletedProcess(["saphira", *args], status, out.getvalue(), err.getvalue())


def summary_pose(stdout: str) -> tuple[float, float, float]:
    m = re.search(r"final pose \((-?\d+), (-?\d+), (-?[\d.]+)\)", stdout)
    assert m, stdout
    return float(m[1]), float(m[2]), float(m[3])


def test_help_reads_like_a_man_page() -> None:
    out = saphira("--help").stdout
    for command in ("run", "sim", "shell", "check", "params", "worlds", "replay"):
        assert re.search(rf"^\s+{command}\b", out, re.M), command
    run_help = saphira("run", "--help").stdout
    assert "--robot URL" in run_help and "exit status" in run_help and "--plot PNG" in run_help


@pytest.mark.parametrize("command", ["run", "sim", "shell", "check", "params", "worlds", "replay", "map", "batch"])
def test_each_commands_help_prints_as_written(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from saphira.app.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(f"usage: saphira {command}")
    assert "%%" not in out  # a description is not %-formatted, unlike an option's help


def test_every_command_is_one_row_of_the_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Each ``app/<cmd>.py`` exports its Command; ``saphira --help`` lists the table's rows, in order, each
    with its summary, and ``saphira CMD`` runs the row's ``run`` (issue 36: one registration line)."""
    from saphira.app.cli import build_parser, commands, main
    from saphira.app.commands import command_list

    table = commands()
    names = [command.name for command in table]
    assert names == ["run", "sim", "shell", "check", "params", "worlds", "replay", "export", "map", "batch", "tune"]
    assert all(command.run.__module__.startswith("saphira.app.") for command in table)
    top = build_parser().format_help()
    listed = top[top.index("commands:") :]
    assert listed == command_list(table)
    rows = [line.split()[0] for line in listed.splitlines()[1:] if line.startswith("  ") and line[2] != " "]
    assert rows == names
    assert main(["worlds"]) == 0 and "simple" in capsys.readouterr().out  # app/worlds.py's run


def test_help_names_every_robot_url_and_server_protocol() -> None:
    from saphira.app.cli import build_parser

    top = build_parser().format_help()
    assert "brains" in top and "--flat PORT" in top and "--gamebots PORT" in top
    run_help = " ".join(saphira("run", "--help").stdout.split())
    for scheme in ("tcp://", "serial://", "unix://", "flat://", "usarsim://"):
        assert scheme in run_help, scheme


def test_params_and_worlds_list_what_is_bundled() -> None:
    params = saphira("params").stdout
    assert re.search(r"^p3dx\s+Pioneer\s+p3dx\s+16 sonars", params, re.M)
    assert re.search(r"^psos41m\s+Pioneer", params, re.M)
    worlds = saphira("worlds").stdout
    assert re.search(r"^simple\s+\.wld", worlds, re.M) and re.search(r"^corridor\s+\.wld", worlds, re.M)


def test_check_reports_three_independent_errors_with_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "three.act"
    bad.write_text(
        "act one\n{\n  int a;\n  a = 1 +;\n}\n"
        "act two\n{\n  move(100)\n  turn(90);\n}\n"
        "act three\n{\n  while (a < 3 { a = a + 1; }\n}\n"
    )
    result = saphira("check", str(bad))
    assert result.returncode == 1
    positions = re.findall(r"three\.act:(\d+):(\d+):", result.stdout)
    assert positions == [("4", "10"), ("8", "12"), ("13", "16")]
    assert result.stdout.count("^") == 3
    assert "3 errors in 1 file" in result.stdout


def test_check_accepts_the_sample_files() -> None:
    files = sorted(str(p) for p in (PROJECT / "colbert").glob("*.act"))
    result = saphira("check", *files)
    assert result.returncode == 0, result.stdout
    assert f"0 errors in {len(files)} files" in result.stdout


def test_run_demo_for_60_seconds_prints_summary_and_writes_the_plot(tmp_path: Path) -> None:
    plot = tmp_path / "demo.png"
    result = saphira("run", "colbert/demo.act", "--duration", "60", "--plot", str(plot))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "--- done: 600 cycles, 60.0 s robot time" in result.stdout
    assert "simulator: 0 wall contacts" in result.stdout
    assert plot.stat().st_size > 10_000
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    m = re.search(r"travelled ([\d.]+) m", result.stdout)
    assert m and float(m[1]) > 5.0  # it wandered


def test_run_exit_code_reflects_a_failed_activity(tmp_path: Path) -> None:
    act = tmp_path / "fails.act"
    act.write_text('act f { sfSMessage("about to fail"); fail; }\nstart f;\n')
    result = saphira("run", str(act), "--world", "room")
    assert result.returncode == 1
    assert "about to fail" in result.stdout and "activity f: FAILURE" in result.stdout


def test_run_reports_a_syntax_error_and_exits_2(tmp_path: Path) -> None:
    act = tmp_path / "broken.act"
    act.write_text("act f {\n  move(100\n}\n")
    result = saphira("run", str(act))
    assert result.returncode == 2
    assert "broken.act:3:1:" in result.stdout


def test_run_of_a_missing_file_is_one_line_before_any_robot_is_reached(tmp_path: Path) -> None:
    program = Program("--port", "0")  # a robot that would be reached first before the check
    try:
        for path, says in ((tmp_path / "nothere.act", "no such file"), (tmp_path, "a folder, not a file")):
            result = saphira("run", str(path), "--robot", f"tcp://{program.addresses[0]}", timeout=60)
            assert result.returncode == 2, result.stdout + result.stderr
            assert result.stderr == f"saphira run: {path}: {says}\n", result.stderr
            assert result.stdout == "", result.stdout  # not even "connecting to ..."
    finally:
        program.stop()


def test_record_a_two_minute_demo_and_replay_it_cycle_for_cycle(tmp_path: Path) -> None:
    rec = tmp_path / "demo.rec"
    result = saphira("run", "colbert/demo.act", "--duration", "120", "--record", str(rec))
    assert result.returncode == 0, result.stderr
    replay = saphira("replay", str(rec))
    assert replay.returncode == 0, replay.stdout
    m = re.search(r"compared (\d+) reflector states; 0 differ", replay.stdout)
    assert m and int(m[1]) >= 1190


def test_shell_evaluates_prints_values_and_survives_errors() -> None:
    script = "\n".join(
        [
            "int x;",
            "x = 6 * 7;",
            "x",
            "x / 2.0",
            "foo(;",
            "1 / 0",
            "act hello(int n) {",
            '  sfSMessage("hello %d", n);',
            "}",
            "help sfSetVelocity",
            "exit",
        ]
    )
    result = saphira("shell", "--no-sim", stdin=script + "\n", timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "42 (int)" in out and "21.0 (float)" in out
    assert "<prompt 5>:1:5:" in out and "division by zero" in out
    assert "sfSetVelocity" in out


def test_verbose_and_quiet_logging(tmp_path: Path) -> None:
    act = tmp_path / "idle.act"
    act.write_text("act idle { move(10); }\nstart idle;\n")
    loud = saphira("run", str(act), "--world", "room", "-v")
    assert "INFO saphira.client.link.pioneer: connected to P3DX" in loud.stderr
    quiet = saphira("run", str(act), "--world", "room", "-q")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        (("--robot", "tcp://127.0.0.1:1"), "a robot given with --robot runs in its own time"),
        (("--realtime",), "--realtime is --speed 1: give one of them"),
    ],
)
def test_speed_where_it_cannot_pace_the_embedded_simulator_is_a_usage_error(
    extra: tuple[str, ...], complaint: str
) -> None:
    result = saphira_in_process("run", "colbert/demo.act", "--speed", "4", *extra)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("saphira run: ") and result.stderr.count("\n") == 1
    assert complaint in result.stderr


def test_run_with_speed_paces_the_embedded_simulator_without_the_live_view() -> None:
    from saphira.app.cli import build_parser
    from saphira.app.run import Session
    from saphira.core.clock import RealTimeClock

    paced = Session(build_parser().parse_args(["run", "colbert/direct.act", "--speed", "8"]))
    assert isinstance(paced.robot.clock, RealTimeClock) and paced.robot.clock.speed == 8.0
    fast = Session(build_parser().parse_args(["run", "colbert/direct.act"]))
    assert fast.robot.clock.is_lockstep


@pytest.mark.parametrize(
    ("option", "value", "complaint"),
    [
        ("--duration", "-5", "greater than 0"),
        ("--duration", "0", "greater than 0"),
        ("--duration", "nan", "finite"),
        ("--duration", "inf", "finite"),
        ("--duration", "soon", "not a number"),
        ("--seed", "-1", "0 or more"),
        ("--plot", "out.xyz", "extension '.xyz'; matplotlib writes"),
        ("--plot", "out", "no extension"),
    ],
)
def test_bad_option_values_are_one_line_usage_errors_before_anything_runs(
    tmp_path: Path, option: str, value: str, complaint: str
) -> None:
    rec = tmp_path / "never.rec"
    result = saphira_in_process("run", "colbert/demo.act", "--record", str(rec), option, value)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"saphira run: argument {option}: ") and complaint in result.stderr
    assert not rec.exists()  # nothing ran: not even the recording was opened


def test_check_counts_the_files_that_have_errors_among_those_checked(tmp_path: Path) -> None:
    """Two errors in one of two files is "2 errors in 1 of 2 files", not "in 2 files" (issue 32 §3)."""
    bad = tmp_path / "a.act"
    bad.write_text("act one\n{\n  move(100)\n}\nact two\n{\n  turn(;\n}\n")
    good = tmp_path / "b.act"
    good.write_text("act three() { move(100); }\n")
    result = saphira_in_process("check", str(bad), str(good))
    assert result.returncode == 1
    assert result.stdout.count(f"{bad}:") == 2
    assert result.stdout.splitlines()[-1] == "2 errors in 1 of 2 files"
    (tmp_path / "c.act").write_text("act four\n{\n  move(;\n}\n")
    both = saphira_in_process("check", str(bad), str(tmp_path / "c.act"))
    assert both.stdout.splitlines()[-1] == "3 errors in 2 files"


def test_the_shell_shows_sfrobot_by_name_pose_and_link_and_help_robot_says_x_is_the_lps_origin() -> None:
    """``sfRobot`` printed as ``<saphira.robot.Robot object at 0x...>`` (issue 32 §3); ``help robot`` now
    says that x, y, th are the LPS's 0 and the global pose is ax, ay, ath (manual §3.1)."""
    script = "sfRobot;\nsfMoveRobot(250.0, -100.0, 90.0);\nsfRobot;\nsfRobot.x;\nsfRobot.ax;\nhelp robot\nexit\n"
    result = saphira("shell", "--world", "room", stdin=script, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = re.findall(r"^.*<Robot (.*)> \(robot\)$", result.stdout, re.M)
    assert shown == ["P3DX at (1500, 4000, 0.0) on sim:client", "P3DX at (1750, 3900, 90.0) on sim:client"]
    assert re.search(r"^.*0\.0 \(float\)\n.*1750\.0 \(float\)$", result.stdout, re.M), result.stdout
    assert "x, y, th are its pose in its own frame, the LPS (local perceptual space), whose origin it is: always 0" in (
        result.stdout
    )
    assert "Its pose in the global frame is ax, ay, ath (mm, mm, deg)" in result.stdout
    alone = saphira_in_process("shell", "--no-sim", stdin="sfRobot;\n")
    assert "<Robot robot at (0, 0, 0.0) not connected> (robot)" in alone.stdout
