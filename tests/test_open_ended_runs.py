"""Runs that do not end on their own say so, and options that would be ignored or fail late are refused first.

Through real ``saphira run`` and ``saphira shell`` subprocesses: a lock-step run with no end, read off a
pipe (not a terminal) until its first progress line, then stopped with SIGTERM. Command lines whose
robot (a silent listening socket) must never be reached run through the command's ``main`` in this
process (refused before anything runs: no interpreter to start for each).
"""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from saphira.app.progress import PROGRESS_SECONDS
from tests.silent_robot import knocked, silent_robot, url
from tests.sim_process import PROJECT
from tests.test_cli import saphira, saphira_in_process

IDLE = "act idle() { waitfor 0; }\nstart idle();\n"
"""An activity that never ends."""


def read_until(process: subprocess.Popen[str], wanted: str, seconds: float) -> list[str]:
    """stdout lines up to the first one containing ``wanted`` (asserted to come within ``seconds`` of wall time)."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + seconds
    while not seen or wanted not in seen[-1]:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no line with {wanted!r} in {seconds} s: {seen}"
        try:
            seen.append(lines.get(timeout=remaining).rstrip("\n"))
        except queue.Empty:
            continue
    return seen


def test_a_lock_step_run_with_no_end_says_how_it_ends_and_reports_progress_off_a_terminal(tmp_path: Path) -> None:
    act = tmp_path / "idle.act"
    act.write_text(IDLE)
    process = subprocess.Popen(
        [sys.executable, "-m", "saphira", "run", str(act)],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = read_until(process, "still running at", 120)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    assert PROGRESS_SECONDS == 600
    assert lines[-2] == (
        "running until the activities end (no --duration): Ctrl-C or SIGTERM stops it; a progress line every "
        "10 min of robot time"
    )
    assert lines[-1].startswith("still running at 0:10:00 robot time (")
    assert lines[-1].endswith(
        "s wall): idle behaviors colbert motion; pose (16500, 25000, 0.0); Ctrl-C or SIGTERM stops it"
    )
    assert "Traceback" not in stderr


def test_a_run_that_ends_by_itself_or_by_duration_prints_no_progress(tmp_path: Path) -> None:
    act = tmp_path / "idle.act"
    act.write_text(IDLE)
    limited = saphira("run", str(act), "--duration", "700", timeout=120)
    assert limited.returncode == 0, limited.stdout + limited.stderr
    assert "running until" not in limited.stdout and "still running at" not in limited.stdout
    short = tmp_path / "short.act"
    short.write_text("act s() { move(100); }\nstart s();\n")
    ends = saphira("run", str(short), timeout=120)
    assert ends.returncode == 0 and "running until the activities end" in ends.stdout
    assert "still running at" not in ends.stdout


@pytest.mark.parametrize("command", ["run", "shell"])
@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (("--world", "room"), "--world sets up the embedded simulator, which --robot replaces: leave it out"),
        (("--seed", "3"), "--seed sets up the embedded simulator, which --robot replaces: leave it out"),
        (("--world", "simple", "--seed", "0"), "--seed and --world set up the embedded simulator, which --robot"),
    ],
)
def test_world_and_seed_with_a_robot_are_refused_before_it_is_reached(
    command: str, options: tuple[str, ...], complaint: str
) -> None:
    with silent_robot() as robot:
        result = saphira_in_process(command, "colbert/direct.act", "--robot", url(robot), *options)
        assert not knocked(robot)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"saphira {command}: {complaint}") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "localhost:{port}"])
def test_a_robot_address_without_a_scheme_suggests_tcp(address: str) -> None:
    with silent_robot() as robot:
        given = address.format(port=robot.getsockname()[1])
        result = saphira_in_process("run", "colbert/direct.act", "--robot", given)
        assert not knocked(robot)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"saphira run: --robot {given} has no scheme; did you mean --robot tcp://{given}?\n"


@pytest.mark.parametrize("command", ["run", "shell"])
def test_a_busy_ui_port_is_one_line_and_exit_2_before_the_robot_is_reached(command: str) -> None:
    with silent_robot() as robot, silent_robot() as taken:
        port = taken.getsockname()[1]
        result = saphira_in_process(command, "colbert/direct.act", "--robot", url(robot), "--ui", str(port))
        assert not knocked(robot)
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr == f"saphira {command}: cannot serve the live view on 127.0.0.1:{port}: Address already in use\n"
    )


def test_a_port_taken_between_the_check_and_the_serving_is_still_one_line() -> None:
    from saphira.colbert.evaluator import Evaluator
    from saphira.core.errors import SaphiraError
    from saphira.robot import Robot
    from saphira.ui.liveview import serve

    robot = Robot()
    with silent_robot() as taken:
        port = taken.getsockname()[1]
        with pytest.raises(SaphiraError, match=f"^cannot serve the live view on 127.0.0.1:{port}: "):
            serve(robot, Evaluator(robot, read_init=False), ("127.0.0.1", port), say=lambda line: None)
