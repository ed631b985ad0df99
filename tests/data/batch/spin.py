"""A Colbert plugin for tests/test_batch.py: a function that never returns, one that raises, and a
metrics hook that can kill the batch (to test resuming). Written for this project."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any


def _spin() -> int:
    n = 0
    while True:  # a hang in Python code, which only the trial's wall-clock limit ends
        n += 1


def _fails() -> int:
    return 1 // 0


def load_init(env: Any) -> None:
    env.add_function("spin", _spin, "int", ())
    env.add_function("python_fails", _fails, "int", ())


def count_and_maybe_die(trial: Any) -> dict[str, float]:
    """Metrics hook: logs each call; kills the batch (its process group: a serial trial runs in a child
    of the batch) at the 3rd trial unless KILL_MARKER exists."""
    log = Path(os.environ["BATCH_TEST_LOG"])
    with log.open("a") as out:
        out.write(trial.spec.trial_id + "\n")
    calls = len(log.read_text().split())
    marker = log.with_suffix(".killed")
    if calls == 3 and not marker.exists():
        marker.write_text("killed once\n")
        os.killpg(os.getpgid(0), signal.SIGKILL)
    return {"pid": os.getpid()}


def count_and_kill_scheduler(trial: Any) -> dict[str, float]:
    """Metrics hook run on a Dask worker: logs each call; SIGKILLs the scheduler (BATCH_SCHEDULER_PID) at
    the 3rd trial unless KILL_MARKER exists, so the batch loses its scheduler with rows already written."""
    log = Path(os.environ["BATCH_TEST_LOG"])
    with log.open("a") as out:
        out.write(trial.spec.trial_id + "\n")
    marker = log.with_suffix(".killed")
    if len(log.read_text().split()) == 3 and not marker.exists():
        marker.write_text("killed once\n")
        os.kill(int(os.environ["BATCH_SCHEDULER_PID"]), signal.SIGKILL)
    return {"pid": os.getpid()}


def pid(trial: Any) -> dict[str, float]:
    """Metrics hook: the process the trial ran in (on a Dask worker, the worker's)."""
    return {"pid": os.getpid()}
