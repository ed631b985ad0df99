"""A Dask cluster of our own on loopback for the ``--scheduler`` tests: a ``dask scheduler`` and one worker."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tests.realtime import WAIT


def free_port() -> int:
    """A TCP port nothing on loopback listens on (for a scheduler to take, or for nothing to answer)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def cluster(port: int, env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` on ``port`` and one single-threaded worker, both ready; yields (scheduler, worker).

    The worker's environment names the scheduler's pid (``BATCH_SCHEDULER_PID``), for a hook that kills it.
    """
    from dask.distributed import Client

    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], env=env, **quiet)  # fmt: skip
    worker_env = {**env, "BATCH_SCHEDULER_PID": str(scheduler.pid)}
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                               "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60"],
                              env=worker_env, **quiet)  # fmt: skip
    try:
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(1, timeout=120)
        yield scheduler, worker
    finally:
        for proc in (worker, scheduler):
            proc.kill()
            proc.wait(timeout=WAIT)
