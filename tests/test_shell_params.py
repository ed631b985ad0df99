"""``saphira shell --params FILE`` lays FILE over the robot's model for the client, as ``saphira run
--params`` does: with the embedded simulator and with a robot over TCP (issue 18). Before the fix the
shell gave the file to the simulator only, and the client drove with its model's built-in values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sim_process import PROJECT, Program

AMIGO = Path(__file__).parent / "data" / "aria-params" / "amigo.p"


def _shell(tmp_path: Path, *args: str, lines: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """``saphira shell ARGS`` fed ``lines`` then ``exit`` on a pipe."""
    env = dict(os.environ, SAPHIRA_HISTORY=str(tmp_path / "history"), SAPHIRA_LOAD=str(tmp_path))
    env.pop("SAPHIRA_COMPIPE", None)
    return subprocess.run(
        [sys.executable, "-m", "saphira", "shell", *args], cwd=PROJECT, env=env,
        input="\n".join([*lines, "exit"]) + "\n", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_embedded_shell_uses_the_params_file_on_the_client(tmp_path: Path) -> None:
    done = _shell(tmp_path, "--params", str(AMIGO), lines=("sfIsConnected",))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"connected; parameters from {AMIGO}" in done.stdout, done.stdout
    assert "1 (int)" in done.stdout


def test_quiet_shell_prints_no_connection_note(tmp_path: Path) -> None:
    """``-q`` is "only errors": what is typed still answers, the connection note goes (as in ``run -q``)."""
    done = _shell(tmp_path, "-q", "--params", str(AMIGO), lines=("sfIsConnected",))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "1 (int)\n", done.stdout


@pytest.mark.parametrize("client_params", [True, False], ids=["with-params", "without-params"])
def test_shell_over_tcp_uses_the_params_file_on_the_client(tmp_path: Path, client_params: bool) -> None:
    """A robot that reports itself an amigo: with ``--params`` the file is laid over the model; without
    it the shell uses the model's built-in values (ARIA's choice)."""
    program = Program("--params", str(AMIGO), "--port", "0")
    try:
        extra = ("--params", str(AMIGO)) if client_params else ()
        done = _shell(tmp_path, "--robot", f"tcp://{program.addresses[0]}", *extra)
    finally:
        program.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    expected = str(AMIGO) if client_params else "<built-in amigo>"
    assert f"connected; parameters from {expected}" in done.stdout, done.stdout


def test_shell_refuses_a_params_file_that_is_not_one_before_connecting(tmp_path: Path) -> None:
    """Checked before the robot is reached (it used to be ignored with ``--robot``)."""
    garbage = tmp_path / "garbage.p"
    garbage.write_bytes(b"\x00\x01 not parameters\n")
    done = _shell(tmp_path, "--robot", "tcp://127.0.0.1:1", "--params", str(garbage))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"saphira shell: {garbage}:1" in done.stderr, done.stderr
    assert "connecting" not in done.stdout, done.stdout
