"""What a batch's Dask workers run besides the trial (a module of its own: it imports ``distributed``)."""

from __future__ import annotations

import contextlib
from typing import Any

from dask.distributed import WorkerPlugin, get_worker

from saphira.app.batch.experiment import TrialSpec
from saphira.app.batch.trial import TrialResult, run_trial
from saphira.core.jit import warm_up

START_TOPIC = "saphira-trial-start"
"""The scheduler's event topic on which a worker says it starts a trial (the message is the task's key)."""


def run_reported(spec: TrialSpec, key: str) -> TrialResult:
    """:func:`~saphira.app.batch.trial.run_trial`, after telling the client it starts (its deadline counts
    from then, not from a wait behind another task)."""
    with contextlib.suppress(ValueError):  # not in a worker
        get_worker().log_event(START_TOPIC, key)
    return run_trial(spec)


class WarmUp(WorkerPlugin):
    """Each worker (restarted ones too) compiles or loads the kernels before its first trial, so that
    a trial's deadline measures the trial, not the worker's start."""

    name = "saphira-warm-up"

    def setup(self, worker: Any) -> None:
        import saphira.app.batch.trial  # noqa: F401  (defines the kernels a trial uses)

        warm_up()
