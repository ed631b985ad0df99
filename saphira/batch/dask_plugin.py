"""The Dask worker plugin of a batch (a module of its own: importing it imports ``distributed``)."""

from __future__ import annotations

from typing import Any

from distributed import WorkerPlugin

from saphira.jit import warm_up


class WarmUp(WorkerPlugin):
    """Each worker (restarted ones too) compiles or loads the kernels before its first trial, so that
    a trial's deadline measures the trial, not the worker's start."""

    name = "saphira-warm-up"

    def setup(self, worker: Any) -> None:
        import saphira.batch.trial  # noqa: F401  (defines the kernels a trial uses)

        warm_up()
