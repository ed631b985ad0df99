"""A lost robot link as a user meets it: ``saphira run`` and ``saphira shell`` against a ``saphira sim``
subprocess, directly or through a fault-injecting TCP proxy (:class:`tests.fault_link.FaultProxy`).

Before the fix a run with behaviors only drove on blind for ever, exit 0, once its server was gone.
Each fault is applied once the run has said it is connected; how long the run takes to end after it is
measured, every wait is on the program's own output and bounded.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest

from saphira.client.link.base import DEFAULT_LINK_TIMEOUT
from tests.fault_link import FaultProxy
from tests.sim_process import Program
from tests.test_cli import saphira_in_process
from tests.test_run_lifecycle import DEADLINE, read_until, start
from tests.test_shell import Terminal
from tests.test_shell_connect import _shell_env

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WANDER = """\
act started { waitfor 0 timeout 5; sfSMessage("running"); }
start started;
act watcher { waitfor !sfIsConnected; sfSMessage("watcher saw the link go, sfIsConnected = %d", sfIsConnected); }
start watcher;
start sfConstantVelocity(200) priority 2;
"""
"""Behaviors only (no direct motion that would fail by luck), an activity that says the cycles are running,
and one waiting for the loss."""

HOOK = """\
def load_init(env):
    robot = env.robot
    robot.scheduler.on_disconnect.connect(lambda: print("disconnect hook: connected =", int(robot.connected)))
"""
"""A plugin's disconnect hook (what the manual's sfOnDisconnectFn is from Python)."""


CLOSED = "[Cc]onnection (closed|reset) by peer"
"""How a proxy's close reads on the client's side: an orderly close, or a reset if bytes were in flight."""


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "wander.act").write_text(WANDER)
    (tmp_path / "hook.py").write_text(HOOK)
    return [str(tmp_path / "wander.act"), str(tmp_path / "hook.py")]


def _ended_after(files: list[str], url: str, fault: object, *options: str) -> tuple[int, str, float]:
    """Run ``files`` on ``url``; once running call ``fault()``; (exit status, output, seconds to the end).

    The end is the summary: the robot is stopped and the run has said how it ended. (The interpreter's
    own teardown after it, numba's compiled kernels included, takes up to a second more on a busy machine.)
    """
    proc = start("run", *files, "--robot", url, *options)
    assert proc.stdout is not None
    before = read_until(proc.stdout.fileno(), b"running\n")
    fault()  # type: ignore[operator]
    at = time.monotonic()
    summary = read_until(proc.stdout.fileno(), b"--- lost the robot link")
    seconds = time.monotonic() - at
    out, err = proc.communicate(timeout=DEADLINE)
    return proc.returncode, (before + summary + out + err).decode(), seconds


@pytest.mark.parametrize("kind", ["tcp", "unix", "pty"])
def test_a_server_that_goes_away_ends_the_run_at_once_with_exit_2(files: list[str], tmp_path: Path, kind: str) -> None:
    """The issue's case on every Pioneer line: a closed socket, and a serial port that gives EOF (EIO)."""
    args = {"tcp": ("--port", "0"), "unix": ("--unix", str(tmp_path / "robot.sock")), "pty": ("--pty",)}[kind]
    sim = Program(*args)
    address = sim.addresses[0]
    url = {"tcp": f"tcp://{address}", "unix": address, "pty": address}[kind]
    try:
        status, output, seconds = _ended_after(files, url, lambda: sim.stop(signal.SIGTERM), "--link-timeout", "60")
    finally:
        sim.stop()
    assert status == 2, output
    assert seconds < 30.0, output  # at once: well before the 60 s link timeout, however busy the machine
    if kind == "pty":
        lost = re.escape(f"lost the robot link (serial://{address}?baud=9600: [Errno 5] Input/output error)")
    else:
        lost = rf"lost the robot link \({re.escape(url)}: {CLOSED}\)"
    assert re.search(rf"^{lost}$", output, re.M) and re.search(rf"^--- {lost}:", output, re.M), output
    assert "disconnect hook: connected = 0" in output
    assert "watcher saw the link go, sfIsConnected = 0" in output
    assert "lost 1x, reconnected 0x" in output
    assert "Traceback" not in output


def test_a_silent_robot_ends_the_run_after_the_link_timeout(files: list[str]) -> None:
    sim = Program("--port", "0")
    host, port = sim.addresses[0].split(":")
    proxy = FaultProxy((host, int(port)))
    try:
        status, output, seconds = _ended_after(
            files, proxy.url, lambda: proxy.set_fault("blackhole"), "--link-timeout", "1"
        )
    finally:
        proxy.close()
        sim.stop()
    assert status == 2, output
    assert seconds < DEFAULT_LINK_TIMEOUT, output  # the 1 s given, not the default's 8 s
    silence = re.search(rf"^lost the robot link \({proxy.url}: no SIP for (\d+\.\d) s\)$", output, re.M)
    assert silence is not None and 1.0 <= float(silence[1]) < DEFAULT_LINK_TIMEOUT, output
    assert "watcher saw the link go, sfIsConnected = 0" in output


def test_reconnect_waits_for_the_robot_and_resumes(tmp_path: Path) -> None:
    act = tmp_path / "cruise.act"
    act.write_text("start sfConstantVelocity(200) priority 2;\n")
    sim = Program("--port", "0")
    host, port = sim.addresses[0].split(":")
    proxy = FaultProxy((host, int(port)))
    try:
        proc = start("run", str(act), "--robot", proxy.url, "--reconnect", "20", "--duration", "6")
        assert proc.stdout is not None
        seen = read_until(proc.stdout.fileno(), b"connected to P3DX")
        proxy.set_fault("refuse")  # the robot goes, and is not there for a while
        seen += read_until(proc.stdout.fileno(), b"for it to come back\n")
        assert proxy.accepted == 1
        proxy.set_fault("none")  # back: the next try gets through
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        proxy.close()
        sim.stop()
    output = (seen + out + err).decode()
    assert proc.returncode == 0, output
    assert re.search(rf"^lost the robot link \({proxy.url}: {CLOSED}\); waiting up to 20 s", output, re.M), output
    assert re.search(rf"^reconnected to {proxy.url}; parameters from .*p3dx\.p; activities resumed$", output, re.M)
    assert proxy.accepted == 2
    assert "lost 1x, reconnected 1x" in output and "--- done:" in output


def test_the_shell_stays_up_and_says_so(tmp_path: Path) -> None:
    sim = Program("--port", "0")
    host, port = sim.addresses[0].split(":")
    proxy = FaultProxy((host, int(port)))
    try:
        term = Terminal("--robot", proxy.url, env=_shell_env(tmp_path))
        term.expect("colbert> ")
        assert "1 (int)" in term.run("sfIsConnected")
        proxy.set_fault("close")
        said = term.expect("\n")
        said += term.expect("(the shell stays up; 'connect' reaches a robot again)")
        assert re.search(rf"lost the robot link \({proxy.url}: {CLOSED}\)", said), said
        assert "0 (int)" in term.run("sfIsConnected")
        term.send("exit")
        assert term.close() == 0
    finally:
        proxy.close()
        sim.stop()


def test_help_describes_the_link_timeout_and_reconnect() -> None:
    for command in ("run", "shell"):
        text = " ".join(saphira_in_process(command, "--help").stdout.split())
        assert "--link-timeout S" in text and "ARIA's connection timeout" in text and "default 8" in text
        assert "--reconnect [S]" in text and "reload its parameters and resume them" in text


@pytest.mark.parametrize("command", ["run", "shell"])
@pytest.mark.parametrize("option", [("--reconnect",), ("--link-timeout", "2")])
def test_link_options_without_a_robot_are_refused(files: list[str], command: str, option: tuple[str, ...]) -> None:
    result = saphira_in_process(command, files[0], *option)
    assert result.returncode == 2, result.stdout
    why = "needs --robot URL (the embedded simulator's in-process line is never lost)"
    assert result.stderr == f"saphira {command}: {option[0]} {why}\n"


def test_a_run_that_ends_while_waiting_for_the_robot_is_a_lost_link(tmp_path: Path) -> None:
    act = tmp_path / "cruise.act"
    act.write_text('start sfConstantVelocity(200) priority 2;\nsfSMessage("running");\n')
    sim = Program("--port", "0")
    host, port = sim.addresses[0].split(":")
    proxy = FaultProxy((host, int(port)))
    try:
        status, output, _ = _ended_after(
            [str(act)], proxy.url, lambda: proxy.set_fault("refuse"), "--reconnect", "60", "--duration", "4"
        )
    finally:
        proxy.close()
        sim.stop()
    assert status == 2, output
    lost = rf"lost the robot link \({proxy.url}: {CLOSED}\); not back when the run ended"
    assert re.search(rf"^{lost}$", output, re.M) and re.search(rf"^--- {lost}:", output, re.M), output
