"""``connect`` and ``disconnect`` typed at a real ``saphira shell --no-sim`` prompt, to a ``saphira sim``
subprocess over TCP and over a unix-domain socket (the manual's local pipe, ``SAPHIRA_COMPIPE``).

Before the fix the first ``connect`` never returned: the prompt held the scheduler's lock while it
waited for the cycles that carry the handshake. Every step waits for the output it expects."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from saphira.app.session import ColbertConnection
from saphira.client.link.base import ConnectError, LinkState
from saphira.client.transport import memory_pair
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import RealTimeClock
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from tests.realtime import WAIT
from tests.sim_process import PROJECT, Program
from tests.test_shell import Terminal


def _shell_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, SAPHIRA_HISTORY=str(tmp_path / "history"), SAPHIRA_LOAD=str(tmp_path), TERM="dumb")
    env.pop("SAPHIRA_COMPIPE", None)
    env.update(extra)
    return env


def _connect_and_disconnect(term: Terminal, command: str, url: str) -> None:
    term.expect("colbert> ")
    assert "0 (int)" in term.run("sfIsConnected")
    out = term.run(command)
    assert f"connected to {url} (P3DX, Pioneer p3dx)" in out, out
    assert "1 (int)" in term.run("sfIsConnected")
    assert f"disconnected from {url}" in term.run("disconnect")
    assert "0 (int)" in term.run("sfIsConnected")
    assert "not connected" in term.run("disconnect")


@pytest.mark.parametrize("kind", ["tcp", "unix"])
def test_shell_connects_and_disconnects_from_the_prompt(tmp_path: Path, kind: str) -> None:
    socket_path = tmp_path / "sim.sock"
    sim = Program("--unix", str(socket_path)) if kind == "unix" else Program("--port", "0")
    try:
        if kind == "unix":
            url = f"unix://{socket_path}"
            assert sim.addresses == [url]
            term = Terminal("--no-sim", env=_shell_env(tmp_path, SAPHIRA_COMPIPE=str(socket_path)))
            command = "connect local"
        else:
            url = f"tcp://{sim.addresses[0]}"
            term = Terminal("--no-sim", env=_shell_env(tmp_path))
            command = f"connect server {sim.addresses[0]}"
        _connect_and_disconnect(term, command, url)
        # connecting again works, and connecting while connected moves the connection (no silent no-op)
        assert f"connected to {url}" in term.run(command)
        out = term.run(f'sfConnectToRobot(sfLOCALPORT, "{url}")')
        assert f"disconnected from {url}" in out and "1 (int)" in out, out
        term.send("exit")
        assert term.close() == 0
    finally:
        status, output = sim.stop()
    assert status == 128 + signal.SIGTERM, output
    assert not socket_path.exists()  # the simulator removes its socket file


def test_connect_to_nothing_fails_at_once_and_the_shell_goes_on(tmp_path: Path) -> None:
    term = Terminal("--no-sim", env=_shell_env(tmp_path))
    term.expect("colbert> ")
    out = term.run(f"connect local {tmp_path / 'none.sock'}")
    assert f"cannot connect to unix://{tmp_path / 'none.sock'}" in out, out
    assert "0 (int)" in term.run("sfIsConnected")
    term.send("exit")
    assert term.close() == 0


def _shell_lines(tmp_path: Path, *lines: str) -> str:
    """``saphira shell`` (embedded simulator) fed ``lines`` on a pipe; everything it printed."""
    proc = subprocess.run(
        [sys.executable, "-m", "saphira", "shell", "-q"], cwd=PROJECT, env=_shell_env(tmp_path),
        input="\n".join([*lines, "exit"]) + "\n", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_embedded_shell_says_what_connect_really_uses(tmp_path: Path) -> None:
    out = _shell_lines(tmp_path, "connect local", "sfIsConnected")
    assert "disconnected from sim://embedded" in out
    assert "connected to sim://embedded (" in out and "tcp://127.0.0.1:8101" not in out, out
    assert "1 (int)" in out


def test_embedded_shell_connect_server_moves_to_that_robot(tmp_path: Path) -> None:
    sim = Program("--port", "0", "--params", "pion1m")
    try:
        address = sim.addresses[0]
        out = _shell_lines(tmp_path, f"connect server {address}", "sfIsConnected", "disconnect", "connect local")
    finally:
        sim.stop()
    assert f"connected to tcp://{address} (" in out and "pion1m)" in out, out
    assert f"disconnected from tcp://{address}" in out
    assert "connected to sim://embedded (" in out.split(f"disconnected from tcp://{address}")[1], out


def test_a_connect_that_cannot_open_keeps_the_connection(tmp_path: Path) -> None:
    out = _shell_lines(tmp_path, f"connect local {tmp_path / 'none.sock'}", "sfIsConnected")
    assert "cannot connect to unix://" in out and "disconnected" not in out, out
    assert out.rstrip().endswith("1 (int)"), out


def test_an_activity_starts_the_connection_and_waits_for_it(tmp_path: Path) -> None:
    """Inside an activity ``sfConnectToRobot`` only starts the handshake (blocking there would stop the
    cycles that carry it); the activity then waits with ``waitfor sfIsConnected``, as the manual does."""
    path = tmp_path / "sim.sock"
    sim = Program("--unix", str(path))
    try:
        robot = Robot(RealTimeClock())
        lines: list[str] = []
        ev = Evaluator(robot, output=lines.append, read_init=False, connection=ColbertConnection(robot))
        assert ev.eval_text(
            f'act c {{ int r; r = sfConnectToRobot(sfLOCALPORT, "{path}"); waitfor sfIsConnected timeout 100; }}'
        )
        assert ev.eval_text("start c")
        activity = ev.activity("c")
        assert activity is not None
        assert robot.run_until(lambda: activity.finished, max_cycles=100)
        assert activity.state == TaskState.SUCCESS and robot.connected
        assert activity.local("r") == 1 and f"connecting to unix://{path}" in lines
        robot.disconnect()
    finally:
        sim.stop()


def test_waiting_for_a_connection_ends_on_the_wall_clock_when_cycles_stall() -> None:
    """In real time the wait for the handshake has a wall-clock deadline: a scheduler whose cycles
    stop coming (here a clock that never wakes) cannot keep ``connect`` waiting for ever."""
    release = threading.Event()
    robot = Robot(RealTimeClock(sleep=lambda seconds: release.wait()))
    client_end, _server_end = memory_pair("silent")
    robot.link.connect(client_end)  # a peer that never answers
    robot.scheduler.start_async()
    errors: list[BaseException] = []

    def wait() -> None:
        try:
            robot.wait_connected(0.2)
        except ConnectError as exc:
            errors.append(exc)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(timeout=WAIT)
    stalled = waiter.is_alive()
    release.set()
    robot.scheduler.stop()
    assert not stalled, "wait_connected never returned"
    assert len(errors) == 1 and "within 0.2 s" in str(errors[0])
    assert robot.link.state is LinkState.FAILED


def test_a_files_connect_under_saphira_run_names_the_embedded_simulator(tmp_path: Path) -> None:
    script = tmp_path / "c.act"
    script.write_text('connect server robot.lan;\nsfSMessage("after connect");\n')
    proc = subprocess.run(
        [sys.executable, "-m", "saphira", "run", str(script), "--duration", "1"], cwd=PROJECT,
        env=_shell_env(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "connected to sim://embedded (" in proc.stdout and "robot.lan" not in proc.stdout, proc.stdout
    assert "disconnected" not in proc.stdout and "after connect" in proc.stdout
