"""Ctrl-C and SIGTERM end ``run``, ``shell`` and ``sim`` with 130 and 143, having stopped what they drive
(issue 23, item 3).

``run`` and ``shell`` drive a robot served by a second process (``saphira sim``, whose log shows the
session ending on the client's CLOSE); tests/test_run_lifecycle.py checks ``run``'s recording too. Every
wait is on a line the program prints, bounded by DEADLINE.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.sim_process import PROJECT
from tests.test_run_lifecycle import DEADLINE, read_until


def spawn(*args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(PROJECT)
    return subprocess.Popen(
        [sys.executable, "-m", *args], cwd=PROJECT, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    """Wait (bounded) for the program to end; (status, stdout, stderr). A hang kills it and fails."""
    try:
        out, err = proc.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running {DEADLINE:g} s after the signal: {out!r} {err!r}")
    return proc.returncode, out, err


DRIVE = b'speed 200;\nsfSMessage("driving");\n'
"""Set the robot going, then say so (what the shell reads; ``run`` runs the same in an activity)."""


def test_a_signal_ends_the_session_after_stopping_the_robot(tmp_path: Path) -> None:
    """``shell`` and ``run``, each with SIGTERM and SIGINT: four sessions, each with its own simulator. They
    drive in real time (a robot over a line does), so they run at once and the test waits for the longest."""
    cases = [(command, sig) for command in ("shell", "run") for sig in (signal.SIGTERM, signal.SIGINT)]
    with ThreadPoolExecutor(len(cases)) as pool:
        sessions = {case: pool.submit(_signal_session, tmp_path / f"{case[0]}-{case[1].name}", *case) for case in cases}
    for (command, sig), session in sessions.items():
        try:
            session.result()
        except BaseException as failure:
            raise AssertionError(f"saphira {command} stopped by {sig.name}: {failure}") from failure


def _signal_session(folder: Path, command: str, sig: signal.Signals) -> None:
    """Drive a ``saphira sim`` robot with ``saphira COMMAND``, send ``sig`` once it is driving, check the end."""
    folder.mkdir()
    sim = spawn("saphira.app.sim", "--port", "0", "--world", "room", "-v")  # -v: sessions are logged
    try:
        address = read_until(sim.stdout.fileno(), b"\n").split()[2].decode()
        act = folder / "drive.act"
        act.write_bytes(b'act hold { speed 200; sfSMessage("driving"); waitfor 0; }\nstart hold;\n')
        files = [str(act)] if command == "run" else []
        client = spawn("saphira", command, *files, "--robot", f"tcp://{address}")
        try:
            assert client.stdin is not None
            if command == "shell":
                client.stdin.write(DRIVE)
                client.stdin.flush()  # the input stays open: only the signal can end this shell
            before = read_until(client.stdout.fileno(), b"driving\n")
            client.send_signal(sig)
            status, out, err = finish(client)
        finally:
            if client.poll() is None:
                client.kill()
        printed = (before + out).decode()
        assert status == 128 + sig, (printed, err)
        assert b"Traceback" not in err
        if command == "shell":
            assert f"({sig.name}: the robot is stopped and the shell ends)" in printed
        else:
            assert f"--- interrupted ({sig.name}):" in printed and "activity hold: still running" in printed
        # The robot heard the stop and the CLOSE (VEL 0, RVEL 0, ENABLE 0, CLOSE): the session did not just drop.
        read_until(sim.stderr.fileno(), b"session ended: CLOSE")
    finally:
        sim.send_signal(signal.SIGTERM)
        sim.communicate(timeout=DEADLINE)


@pytest.mark.parametrize(
    "kind",
    [("--port", "0"), ("--flat", "0"), ("--gamebots", "0")],
    ids=["pioneer", "flat", "gamebots"],
)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_simulator_with_128_plus_its_number(kind: tuple[str, str], sig: signal.Signals) -> None:
    sim = spawn("saphira", "sim", *kind, "--world", "room", "-q")
    try:
        read_until(sim.stdout.fileno(), b"listening on ")
        sim.send_signal(sig)
        status, out, err = finish(sim)
    finally:
        if sim.poll() is None:
            sim.kill()
    assert status == 128 + sig, (out, err)
    assert b"simulator stopped" in out and b"Traceback" not in err
