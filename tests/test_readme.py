"""Every command and example in README.md, run for real.

Shell lines run as the ``saphira`` command (the ``.venv/bin/`` prefix is this interpreter's), in a
scratch folder holding the README's own example files. Robot URLs that name hardware — a serial
port, a robot on the LAN, MobileSim on localhost — are pointed at a ``saphira sim`` second process
(on a pseudo-terminal for the serial one), which the README says stands in for them. The install and
test commands are the ones ``.ci/run`` reads from this README and executes in a fresh clone.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sim_process import PROJECT, Program
from tests.test_cli import summary_pose

README = (PROJECT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)


def shell_lines() -> list[str]:
    lines = []
    for lang, body in BLOCKS:
        if lang == "sh":
            for line in body.splitlines():
                line = re.sub(r"\s+#.*$", "", line).strip()
                if line:
                    lines.append(line)
    return lines


def saphira_commands() -> list[list[str]]:
    """The ``saphira …`` part of every shell line (after the last ``&&``), as argument lists."""
    commands = []
    for line in shell_lines():
        last = line.split("&&")[-1].strip()
        words = shlex.split(last)
        if words and words[0] in ("saphira", ".venv/bin/saphira"):
            commands.append(words[1:])
    return commands


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A working folder with the sample files where the README's relative paths expect them."""
    (tmp_path / "colbert").symlink_to(PROJECT / "colbert")
    (tmp_path / "experiments").symlink_to(PROJECT / "experiments")
    for lang, body in BLOCKS:
        if lang == "c":
            name = re.search(r"/\* (\S+\.act)", body)
            assert name, "each Colbert example in the README names its file in its first comment"
            (tmp_path / name[1]).write_text(body)
    return tmp_path


def run(args: list[str], cwd: Path, stdin: str | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "saphira", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=timeout, check=False)  # fmt: skip


def test_readme_install_and_test_commands_are_what_ci_runs() -> None:
    """``.ci/run`` reads the quick start's commands from README.md: its extraction finds exactly these two."""
    ci = (PROJECT / ".ci" / "run").read_text()
    extract = re.search(r"mapfile -t commands < <\((awk .*) README\.md\)", ci)
    assert extract, "the CI script no longer reads README.md's quick start"
    found = subprocess.run(
        ["bash", "-c", f"{extract[1]} README.md"], cwd=PROJECT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    lines = shell_lines()
    assert found == lines[:2]
    # the user's install runs the demo; the test extra comes with the tests
    assert ".venv/bin/pip install '.[plot]'" in found[0] and "saphira run colbert/demo.act" in found[0]
    assert found[1] == ".venv/bin/pip install '.[test]' && .venv/bin/python -m pytest -n 4"
    assert 'bash -euo pipefail -c "${commands[1]}"' in ci and "git clone" in ci and "mktemp -d" in ci


COMMANDS = saphira_commands()


def drove_the_square_on_a_second_process(stdout: str) -> None:
    """direct.act's square, run over a line to a ``saphira sim`` process (what tests/test_cli.py checked in a
    run of its own: the same program and server, so the README's run of it carries the checks, in real time once).
    """
    assert "activity square: SUCCESS" in stdout
    assert "true pose" not in stdout  # a robot over a line does not know where it really is
    x, y, th = summary_pose(stdout)
    assert abs(x) < 60 and abs(y) < 60  # back where it started (odometric frame)
    assert abs(((th + 180) % 360) - 180) < 4
    travelled = float(re.search(r"travelled ([\d.]+) m", stdout)[1])  # type: ignore[index]
    assert 3.9 < travelled < 4.2


def robot_url(args: list[str]) -> str | None:
    """The hardware URL a README command names (a serial port or a robot on the network), if any."""
    return next((a for a in args if a.startswith(("serial://", "tcp://"))), None)


LOCAL = [args for args in COMMANDS if robot_url(args) is None]
ON_A_ROBOT = [args for args in COMMANDS if robot_url(args) is not None]


def check_result(args: list[str], result: subprocess.CompletedProcess[str], scratch: Path) -> None:
    """What every README command must show: success, a finished run, the files and answers it promises."""
    assert result.returncode == 0, result.stdout + result.stderr
    if args[0] == "run":
        assert "--- done" in result.stdout
        assert "FAILURE" not in result.stdout and "TIMEOUT" not in result.stdout
    if args[:2] == ["run", "colbert/direct.act"] and robot_url(args) is not None:
        drove_the_square_on_a_second_process(result.stdout)
    if "--plot" in args:
        png = scratch / args[args.index("--plot") + 1]
        assert png.read_bytes()[:4] == b"\x89PNG"
    if args[0] == "shell":
        assert "2 (int)" in result.stdout
    if args[0] == "replay" and "--plot" not in args:
        assert " 0 differ" in result.stdout
    if args[0] == "export":
        assert (scratch / args[args.index("-o") + 1]).read_bytes()[:8] == b"\x89MCAP0\r\n"


@pytest.mark.parametrize("args", LOCAL, ids=[" ".join(a)[:60] for a in LOCAL])
def test_readme_command(args: list[str], scratch: Path) -> None:
    if args[0] == "sim":
        sim = Program(*args[1:], "--port", "0")  # the README's port, made free for the test
        code, out = sim.stop()
        assert code == 128 + signal.SIGTERM and b"listening on 127.0.0.1:" in out
        return
    if "--ros2" in args:  # runs until stopped: a peer that knows nothing of saphira sees it, drives it, stops it
        from tests.test_ros2 import drive_with_a_plain_peer

        drive_with_a_plain_peer(args, scratch)
        return
    if args[0] in ("replay", "export"):  # replays the recording the README's run --record command makes
        assert run(["run", "colbert/demo.act", "--duration", "120", "--record", args[1]], scratch).returncode == 0
    stdin = "1 + 1\nexit\n" if args[0] == "shell" else None
    check_result(args, run(args, scratch, stdin=stdin), scratch)


def test_readme_robot_commands_each_drive_a_second_process_simulator(scratch: Path) -> None:
    """Every README command that names a robot, each against its own ``saphira sim`` (on a pseudo-terminal
    for the serial port). A robot runs in real time, so the commands run at once, not one after another:
    the test waits for the longest, not for their sum. Output goes to files, so no pipe can fill and stall one.
    """
    assert {(robot_url(args) or "").split(":")[0] for args in ON_A_ROBOT} == {"serial", "tcp"}
    sims: list[Program] = []
    running: list[tuple[list[str], subprocess.Popen[str], Path]] = []
    try:
        for n, args in enumerate(ON_A_ROBOT):
            robot = robot_url(args)
            assert robot is not None and args[0] == "run"
            serial = robot.startswith("serial")
            sims.append(Program("--world", "room", "--port", "0", *(["--pty"] if serial else [])))
            address = sims[-1].addresses[0]
            replacement = f"serial://{address}" if serial else f"tcp://{address}"
            args = [replacement if a == robot else a for a in args]
            out = scratch / f"robot-command-{n}"
            with (out.with_suffix(".out")).open("w") as stdout, (out.with_suffix(".err")).open("w") as stderr:
                proc = subprocess.Popen([sys.executable, "-m", "saphira", *args], cwd=scratch, text=True,
                                        stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)  # fmt: skip
            running.append((args, proc, out))
        for _, proc, _ in running:
            proc.wait(timeout=180)
    finally:
        for _, proc, _ in running:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for sim in sims:
            sim.stop()
    for args, proc, out in running:
        result = subprocess.CompletedProcess(
            args, proc.returncode, out.with_suffix(".out").read_text(), out.with_suffix(".err").read_text()
        )
        check_result(args, result, scratch)


def test_readme_python_example_runs(scratch: Path) -> None:
    code = next(body for lang, body in BLOCKS if lang == "python")
    result = subprocess.run([sys.executable, "-c", code], cwd=scratch, capture_output=True, text=True,
                            timeout=120, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    m = re.search(r"wall contacts: (\d+), at \((-?\d+), (-?\d+)\)", result.stdout)
    assert m and m[1] == "0"
    assert (int(m[2]), int(m[3])) != (1500, 4000)  # it moved from room.wld's start


def test_readme_says_when_an_open_ended_run_prints_progress() -> None:
    """README said "a progress line every few seconds of wall time": the pace is robot time (issue 32 §3)."""
    from saphira.app.progress import PROGRESS_SECONDS

    text = " ".join(README.split())
    assert f"prints a progress line every {PROGRESS_SECONDS / 60:g} minutes of robot time" in text
    assert "The pace is robot time, so the same run logs the same lines" in text
