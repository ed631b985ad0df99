"""``saphira batch --scheduler`` when the scheduler is not what it should be: a peer that accepts the
connection and never answers (a stopped scheduler looks the same), and a real ``dask scheduler`` process
killed in the middle of a batch. Both end with status 2 and one line; the rows written stay, and the batch
resumes from them. Each runs the ``saphira`` program in its own process.
"""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.dask_cluster import cluster, free_port
from tests.realtime import WAIT

DATA = Path(__file__).parent / "data" / "batch"
ROOT = Path(__file__).resolve().parent.parent
SAPHIRA = [sys.executable, "-m", "saphira"]
BOUND = 180.0
"""Seconds the batch has to end in these tests; before the fix it never ended."""


def _experiment(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(f'[run]\nactivity = "{DATA / "stack.act"}"\nworld = "room"\nparams = "p3dx"\n{body}',
                    encoding="utf-8")  # fmt: skip
    return path


def _rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "trials.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@contextmanager
def _silent_listener() -> Iterator[str]:
    """A loopback port whose connections are accepted, held open and never answered."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # closed at the end of the test
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone does not
        server.close()
        thread.join(timeout=WAIT)
        for sock in held:
            sock.close()


def test_a_peer_that_accepts_and_never_answers_ends_the_batch_with_status_2(tmp_path: Path) -> None:
    exp = _experiment(tmp_path, "duration = 1\n")
    with _silent_listener() as address:
        done = subprocess.run([*SAPHIRA, "batch", str(exp), "--out", str(tmp_path / "out"), "--scheduler", address,
                               "--scheduler-timeout", "1"], capture_output=True, text=True, timeout=BOUND)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"saphira batch: cannot reach the Dask scheduler at {address}: "
                                   "no answer within 1 s (--scheduler-timeout)")  # fmt: skip


def test_a_scheduler_killed_mid_batch_is_one_line_and_the_batch_resumes(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"  # the hook kills the scheduler at the 3rd trial, once
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BATCH_TEST_LOG": str(log)}
    exp = _experiment(tmp_path, f'duration = 1\nseeds = [0, 1, 2, 3, 4]\n'
                      f'[metrics]\nhook = "{DATA / "spin.py"}:count_and_kill_scheduler"\n')  # fmt: skip
    port, out = free_port(), tmp_path / "out"
    address = f"tcp://127.0.0.1:{port}"
    command = [*SAPHIRA, "batch", str(exp), "--out", str(out), "--scheduler", address, "--no-plots", "-q"]
    with cluster(port, env) as (scheduler, _):
        lost = subprocess.run(command, capture_output=True, text=True, timeout=BOUND, env=env)
        assert scheduler.wait(timeout=WAIT) == -9  # the hook killed it, in the middle of the batch
    assert lost.returncode == 2, lost.stderr
    assert lost.stderr.strip() == (f"saphira batch: lost the Dask scheduler at {address}: its connection was lost; "
                                   f"2 of 5 trials are in {out / 'trials.csv'}; run the same command again to "
                                   "resume")  # fmt: skip
    kept = _rows(out)
    assert len(kept) == 2 and {r["status"] for r in kept} == {"ok"}
    # Resumed without a cluster (a second one would double the test's time): the rows are the engine's.
    serial = [*command[: command.index("--scheduler")], "--serial", "--no-plots", "-q"]
    resumed = subprocess.run(serial, capture_output=True, text=True, timeout=BOUND, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 already in" in resumed.stdout
    rows = _rows(out)
    assert sorted(r["seed"] for r in rows) == ["0", "1", "2", "3", "4"]  # none lost, none twice
    assert rows[:2] == kept and {r["status"] for r in rows} == {"ok"}
