"""Ctrl-C at a terminal during ``saphira batch`` on the local Dask cluster: the batch's clean lines, no traceback.

A terminal's Ctrl-C is SIGINT to every process of its foreground group, the cluster's workers included.
The test runs the real command on a pseudo-terminal, waits (on a FIFO, no sleeps) until a worker has
started a trial, and sends SIGINT to the process group as the terminal does. Port 8787 (Dask's dashboard
port) is held meanwhile, by the test or whoever has it: the batch must not warn about it.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tests.sim_process import PROJECT

DATA = Path(__file__).parent / "data" / "batch"
DEADLINE = 180.0
"""Wall seconds for the cluster to start a trial and for the batch to end after Ctrl-C (a loaded machine)."""


@contextlib.contextmanager
def port_8787_taken() -> Iterator[None]:
    """Port 8787 in use while inside: held here, unless another program already holds it."""
    with socket.socket() as holder:
        with contextlib.suppress(OSError):  # taken already: in use either way
            holder.bind(("127.0.0.1", 8787))
            holder.listen()
        yield


def read_chunk(fd: int, deadline: float) -> bytes:
    """What ``fd`` has next (b"" at its end), waiting at most until ``deadline``."""
    remaining = deadline - time.monotonic()
    assert remaining > 0, "timed out"
    if not select.select([fd], [], [], remaining)[0]:
        return read_chunk(fd, deadline)
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: every holder of the terminal's other end has closed it
        return b""


def test_ctrl_c_at_a_terminal_ends_a_dask_batch_with_its_clean_lines_only(tmp_path: Path) -> None:
    activity = tmp_path / "announce.py"
    activity.write_text((DATA / "announce.py").read_text())
    exp = tmp_path / "exp.toml"
    exp.write_text(f'[run]\nactivity = "{activity.name}"\nworld = "room"\nduration = 100000\n')
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    keeper = os.open(fifo, os.O_WRONLY)  # a writer always there: select waits for lines, never for an EOF
    env = {**os.environ, "SAPHIRA_TEST_ANNOUNCE": str(fifo), "PYTHONPATH": str(PROJECT)}
    argv = [sys.executable, "-m", "saphira", "batch", str(exp), "--out", str(tmp_path / "out"), "--workers", "1"]
    with port_8787_taken():
        pid, terminal = pty.fork()
        if pid == 0:  # the child: a session of its own, the pseudo-terminal as its controlling terminal
            os.chdir(PROJECT)
            os.execve(sys.executable, argv, env)
        deadline = time.monotonic() + DEADLINE
        shown = b""
        announced: list[int] = []
        try:
            while not [p for p in announced if p != pid]:  # the batch's own check loads the plugin too
                ready = select.select([reader, terminal], [], [], max(deadline - time.monotonic(), 0))[0]
                assert ready, f"no trial started in {DEADLINE} s: {shown.decode(errors='replace')}"
                if terminal in ready:
                    chunk = read_chunk(terminal, deadline)
                    assert chunk, f"the batch ended before a trial started: {shown.decode(errors='replace')}"
                    shown += chunk
                if reader in ready:
                    announced += [int(line) for line in os.read(reader, 4096).split()]
            os.killpg(pid, signal.SIGINT)  # Ctrl-C: the terminal signals its whole foreground group
            while chunk := read_chunk(terminal, deadline):
                shown += chunk
            _, status = os.waitpid(pid, 0)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            for fd in (reader, keeper, terminal):
                os.close(fd)
    text = shown.decode(errors="replace").replace("\r\n", "\n")
    assert os.waitstatus_to_exitcode(status) == 130, text
    assert "Traceback" not in text and "Error" not in text and "8787" not in text, text
    lines = [line for line in text.split("\n") if line.strip()]
    assert lines[0].startswith("exp.toml: 1 trials of 100000 s; running 1 on a local Dask cluster"), text
    assert lines[-1] == (
        f"interrupted by SIGINT: 0 of 1 trials are in {tmp_path / 'out' / 'trials.csv'} (those running then "
        "wrote nothing); run the same command to resume"
    ), text
