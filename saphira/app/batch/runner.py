"""Running a batch's trials: serially (each in a child process), on a local Dask cluster, or on an existing one.

The engine is Dask's distributed scheduler, not a home-made one. By default a
:class:`distributed.LocalCluster` is started with one single-threaded worker process per core (a trial
is pure Python and holds the GIL, so threads would not run two at once); ``workers`` overrides the
count; ``scheduler`` (``tcp://HOST:8786``) submits to a running cluster instead, whose workers must
have saphira installed and see the experiment's files at the same paths. ``serial`` runs the trials
one after another, each in a forked child (:mod:`saphira.app.batch.isolated`), without a cluster.
Wherever it runs, a trial that outlives its deadline is a ``timeout`` row and one whose process dies
a ``crashed`` row; the batch goes on.

Trials already in ``DIR/trials.csv`` are skipped, and each result is written as it arrives, so an
interrupted batch resumes where it stopped. Each trial is deterministic for its seed, and a worker
runs it exactly as ``--serial`` does, so the rows (but for the timing columns) are the same wherever it ran.
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import signal
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from saphira.app.batch.experiment import TrialSpec
from saphira.app.batch.isolated import deadline, failed, killed_after, run_in_child
from saphira.app.batch.results import ResultsDir
from saphira.app.batch.trial import STATUS_CRASHED, STATUS_ERROR, STATUS_OK, TrialResult
from saphira.core.errors import SaphiraError
from saphira.core.jit import warm_up

log = logging.getLogger(__name__)

SCHEDULER_TIMEOUT = 20.0
"""Seconds ``--scheduler`` has to answer a request (``--scheduler-timeout``) before the batch gives up on it."""
POLL_SECONDS = 0.5
"""How often the deadlines of the trials running on Dask are checked."""
RESTART_TIMEOUT = 60
"""Seconds a Dask worker of a hung trial has to restart."""
UNHEARD_START_MARGIN = 60
"""A trial whose start no worker reported is abandoned at twice its deadline plus this, from its submission."""


class EngineError(SaphiraError):
    """The Dask scheduler given cannot be reached."""


class SchedulerLost(EngineError):
    """The Dask scheduler given went away, or stopped answering, while the batch ran on it."""


@dataclass
class EngineOptions:
    """Where the trials run: ``serial``, else ``scheduler`` (an address), else a local cluster of ``workers``."""

    serial: bool = False
    workers: int | None = None
    scheduler: str | None = None
    scheduler_timeout: float = SCHEDULER_TIMEOUT

    def describe(self) -> str:
        if self.serial:
            return "serially, each in a child process"
        if self.scheduler:
            return f"on the Dask cluster at {self.scheduler}"
        return f"on a local Dask cluster of {self.local_workers()} worker processes"

    def local_workers(self) -> int:
        """``workers``, else the cores this process may run on."""
        if self.workers:
            return self.workers
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class BatchReport:
    """What a call to :func:`run_trials` did: trials run now, skipped (already done) and failed now."""

    ran: int = 0
    skipped: int = 0
    failed: int = 0


def run_trials(
    trials: Sequence[TrialSpec],
    results: ResultsDir,
    options: EngineOptions,
    on_result: Callable[[TrialResult], None] | None = None,
) -> BatchReport:
    """Run the trials not yet in ``results``, writing each result as it arrives."""
    done = results.current(trials)
    todo = [t for t in trials if t.trial_id not in done]
    report = BatchReport(skipped=len(trials) - len(todo))
    for result in _execute(todo, options):
        results.add(result)
        report.ran += 1
        report.failed += result.status != STATUS_OK
        if on_result is not None:
            on_result(result)
    return report


def _execute(todo: Sequence[TrialSpec], options: EngineOptions) -> Iterator[TrialResult]:
    if not todo:
        return
    if options.serial:
        warm_up()  # once here, not in every forked child
        for spec in todo:
            yield run_in_child(spec)
        return
    with _client(options) as client:
        if not options.scheduler:
            yield from _on_dask(client, todo, None)
            return
        try:
            yield from _on_dask(client, todo, options.scheduler_timeout)
        except (OSError, TimeoutError, CancelledError) as exc:  # its connection closed, or it went silent
            raise SchedulerLost(f"lost the Dask scheduler at {options.scheduler}: {_reason(exc)}") from exc


def _on_dask(client: Any, todo: Sequence[TrialSpec], timeout: float | None) -> Iterator[TrialResult]:
    """Submit as many trials as the cluster has threads. A worker reports each trial's start (an event
    the client hears), from which its :func:`~saphira.app.batch.isolated.deadline` counts; a trial past it
    is a ``timeout`` row and its worker is restarted (its thread may be blocked for good)."""
    from dask.distributed import wait

    from saphira.app.batch.dask_plugin import START_TOPIC, WarmUp, run_reported

    client.register_plugin(WarmUp())
    batch = uuid.uuid4().hex[:8]  # keys and start events of this batch only, on a shared scheduler
    started: dict[str, float] = {}  # key -> when its (latest) start was heard
    client.subscribe_topic(START_TOPIC, lambda event: started.__setitem__(event[1], time.monotonic()))
    pending = deque(todo)
    attempts = itertools.count()  # a trial resubmitted gets a new key: the cancelled one may linger
    running: dict[Any, tuple[TrialSpec, float, str]] = {}  # future -> its trial, when submitted, where
    while pending or running:
        if client.status != "running":  # its connection closed: Dask would retry, but the scheduler's
            raise ConnectionError("its connection closed")  # state (our trials) is gone with it
        # A stopped scheduler keeps its connection open and answers nothing: this request, made every
        # round, waits at most ``timeout`` (``wait`` below polls, and raises once the connection is lost).
        threads = client.nthreads(callback_timeout=timeout)
        for future, (spec, _, worker) in list(running.items()):
            if worker and worker not in threads and future.key not in started:  # its worker went away
                future.cancel()
                del running[future]
                pending.appendleft(spec)
        free = _free_threads(threads, [worker for _, _, worker in running.values()])
        if not free and not running:
            free = [""]  # no worker yet: one trial waits for the first
        while pending and free:
            spec, worker = pending.popleft(), free.pop()
            key = f"saphira-trial-{spec.trial_id}-{batch}-{next(attempts)}"
            where = {"workers": [worker], "allow_other_workers": False} if worker else {}
            future = client.submit(run_reported, spec, key, key=key, pure=False, **where)
            running[future] = (spec, time.monotonic(), worker)
        try:
            done = wait(list(running), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done
        except TimeoutError:  # none ended in that time
            done = set()
        for future in done:
            yield _outcome(running.pop(future)[0], future)
        late = [f for f, (spec, submitted, _) in running.items() if _late(started.get(f.key), submitted, spec)]
        if late:
            _abandon(client, late)
            for future in late:
                yield killed_after(running.pop(future)[0])
    client.unsubscribe_topic(START_TOPIC)


def _free_threads(threads: dict[str, int], placed: list[str]) -> list[str]:
    """One worker address per thread not running one of our trials: a trial goes to one, so that none
    waits behind another (its deadline would count the wait) and a crash takes no other trial with it."""
    return [worker for worker, n in threads.items() for _ in range(n - placed.count(worker))]


def _late(started: float | None, submitted: float, spec: TrialSpec) -> bool:
    """Past its deadline since it started; or, if its start was never heard, long past it since submitted."""
    if started is not None:
        return time.monotonic() > started + deadline(spec)
    return time.monotonic() > submitted + 2 * deadline(spec) + UNHEARD_START_MARGIN


def _outcome(spec: TrialSpec, future: Any) -> TrialResult:
    from dask.distributed import KilledWorker

    try:
        result: TrialResult = future.result()
    except KilledWorker as exc:  # os._exit, a crash: the worker died under it
        result = failed(spec, STATUS_CRASHED, "the trial's worker process died before it reported (os._exit, "
                        f"or a crash; Dask: {type(exc).__name__})")  # fmt: skip
    except Exception as exc:  # the result could not travel back
        result = failed(spec, STATUS_ERROR, f"the Dask task failed: {type(exc).__name__}: {exc}")
    future.release()
    return result


def _abandon(client: Any, late: list[Any]) -> None:
    """Forget the trials past their deadline and restart the workers running them (else close those).
    Other trials on those workers (of several threads) run again elsewhere and report a new start."""
    keys = {future.key for future in late}
    workers = [w for w, held in client.processing().items() if keys & set(held)]
    for future in late:
        future.cancel()
    if not workers:
        return
    try:
        client.restart_workers(workers, timeout=RESTART_TIMEOUT)
    except Exception:  # no nanny to restart it (dask worker --no-nanny)
        try:
            client.retire_workers(workers, close_workers=True)
        except Exception as exc:
            log.warning("could not restart or close Dask worker %s of a hung trial: %s", workers[0], exc)


def _identify(address: str, timeout: float) -> None:
    """Ask the scheduler at ``address`` who it is, waiting at most ``timeout`` seconds in all. A peer that
    accepts the connection and never answers (a stopped scheduler, another program) raises TimeoutError."""
    import asyncio

    from distributed.core import rpc

    async def ask() -> None:
        async with rpc(address, timeout=timeout) as scheduler:
            await scheduler.identity()

    async def bounded() -> None:
        try:
            await asyncio.wait_for(ask(), timeout)
        except TimeoutError:
            raise TimeoutError(f"no answer within {timeout:g} s (--scheduler-timeout)") from None

    asyncio.run(bounded())


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's client logs only critical errors meanwhile."""
    loggers = [logging.getLogger(name) for name in ("distributed", "distributed.client")]  # Dask sets both
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _reason(exc: BaseException) -> str:
    """What went wrong with the scheduler, in one line."""
    if isinstance(exc, CancelledError):  # Dask cancels every future when the connection is lost
        return "its connection was lost"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


@contextmanager
def _client(options: EngineOptions) -> Iterator[Any]:
    """A Dask client: connected to ``options.scheduler``, or to a local cluster started (and closed) here."""
    from dask.distributed import Client, LocalCluster

    if options.scheduler:
        timeout = options.scheduler_timeout
        with _quiet_dask():  # a lost scheduler is one line from the command, not Dask's tracebacks
            try:
                _identify(options.scheduler, timeout)  # Client's own handshake read waits for ever
                client = Client(options.scheduler, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise EngineError(f"cannot reach the Dask scheduler at {options.scheduler}: {_reason(exc)}") from exc
            try:
                yield client
            finally:
                client.close(timeout=timeout)
        return
    import dask

    # The workers' statistical profiler samples the trial thread's stack every 10 ms and holds the
    # GIL while it walks it: measured, it added ~20 % to every trial's CPU time (0.45 -> 0.55 s per
    # 60-second trial), and nobody looks at the dashboard of a cluster started and closed here.
    # A trial that kills its worker (os._exit) is a crashed row at once, not retried on three more;
    # and no worker holds a second trial while one runs (saturation 1.0), which that crash would take.
    settings = {"distributed.worker.profile.enabled": False, "distributed.scheduler.allowed-failures": 0,
                "distributed.scheduler.worker-saturation": 1.0,
                "distributed.worker.multiprocessing-method": "forkserver"}  # fmt: skip
    # Dask's own logs stay quiet: a worker restarted under a hung trial logs tracebacks about lost
    # connections, while what happened to each trial is in its row. No dashboard (docs/batch.md): the
    # scheduler's HTTP endpoint, which it starts anyway, takes a free loopback port instead of 8787, so
    # a cluster already there draws no "port 8787 is already in use" warning.
    with dask.config.set(settings):  # for the cluster's life: a worker restarted later is forked as these were
        _deaf_forkserver()
        with _sigint_held():
            cluster = LocalCluster(
                n_workers=options.local_workers(), threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None, silence_logs=logging.CRITICAL,
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            )  # fmt: skip
        try:
            with Client(cluster) as client:
                yield client
        finally:
            with _silenced("asyncio"):  # closed under running trials: "Future exception was never retrieved"
                cluster.close()
                gc.collect()  # those futures report when collected: now, while the log is silenced


def _deaf_forkserver() -> None:
    """Start multiprocessing's fork server, from which the local cluster's workers are forked, ignoring SIGINT.

    Ctrl-C at a terminal goes to every process of the terminal's group, the workers too: each died with a
    traceback before the batch could close them. The fork server keeps the SIGINT disposition it started
    with for the processes it forks, so with SIGINT ignored at its start every worker ignores it (restarted
    ones too), and only the batch hears Ctrl-C: it closes the cluster. Meanwhile SIGINT is held back, not lost.
    """
    import multiprocessing.forkserver

    from distributed.utils import get_mp_context

    get_mp_context()  # Dask's context for the method configured: it names the modules the server preloads
    with _sigint_held():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, previous)


@contextmanager
def _silenced(name: str) -> Iterator[None]:
    """The logger ``name`` says nothing inside the block."""
    logger = logging.getLogger(name)
    disabled, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = disabled


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread (and the threads it starts) inside the block: one that comes is held
    pending, and handled when the block ends (so a local cluster half started is never left behind)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
