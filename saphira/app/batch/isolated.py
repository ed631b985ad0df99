"""One trial in a child process of the batch, for ``--serial``: a hang or a crash ends that trial only.

The watchdog (:mod:`saphira.app.batch.watchdog`) ends a trial looping in Python, but not one blocked in a
C call (``time.sleep``) or in a loop that catches ``BaseException``, and nothing in-process survives a
plugin's ``os._exit``. So each serial trial is forked: the parent waits for its result until
:func:`deadline` and then kills it (a ``timeout`` row); a child that ends without a result is a
``crashed`` row. The child ignores SIGINT and SIGTERM: a Ctrl-C is the batch's to handle, and it
kills the trial running then, which writes no row (a run cut short would report truncated metrics).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import signal
import time
from multiprocessing.connection import Connection

from saphira.app.batch.experiment import TrialSpec
from saphira.app.batch.trial import STATUS_CRASHED, STATUS_TIMEOUT, TrialResult, base_row, run_trial

GRACE_SECONDS = 2.0
"""Beyond its time limit (plus 10 %) a trial has this long to report before it is killed."""
POLL_SECONDS = 0.5
PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def deadline(spec: TrialSpec) -> float:
    """Wall-clock seconds after which a trial the watchdog could not end is killed."""
    return spec.time_limit * 1.1 + GRACE_SECONDS


def failed(spec: TrialSpec, status: str, error: str) -> TrialResult:
    """The row of a trial that never reported: what it was, its status and why."""
    row = base_row(spec)
    row["status"], row["error"] = status, error
    return TrialResult(row)


def killed_after(spec: TrialSpec) -> TrialResult:
    """The ``timeout`` row of a trial killed at its :func:`deadline`."""
    return failed(spec, STATUS_TIMEOUT, f"killed after {deadline(spec):g} s of wall-clock time: it did not end "
                  f"at its {spec.time_limit:g} s limit (blocked in a C call, or catching BaseException?)")  # fmt: skip


def run_in_child(spec: TrialSpec) -> TrialResult:
    """Run the trial in a forked child; its result, a ``timeout`` row or a ``crashed`` row."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(spec, sender), name=f"saphira-trial-{spec.trial_id}", daemon=True)
    # A stop signal's handler must not run inside fork's own callbacks, where its exception would be
    # swallowed ("Exception ignored in ..."): held back until the child is started, then delivered at
    # the unblock, inside the try whose finally kills the child (which ignores SIGTERM: left running,
    # the batch would wait for it at exit).
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        child.start()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        sender.close()
        end = time.monotonic() + deadline(spec)
        while time.monotonic() < end:
            if receiver.poll(min(POLL_SECONDS, max(end - time.monotonic(), 0.0))):
                try:
                    result: TrialResult = receiver.recv()
                except EOFError:  # it ended without a result
                    child.join(GRACE_SECONDS)
                    return failed(spec, STATUS_CRASHED, _how_it_ended(child.exitcode))
                child.join(GRACE_SECONDS)  # a thread a plugin left running may keep it: then it is killed
                return result
        return killed_after(spec)
    finally:
        sender.close()
        receiver.close()
        if child.is_alive():
            child.kill()
            child.join()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # still blocked if the start failed


def _child(spec: TrialSpec, sender: Connection) -> None:
    _die_with_parent()
    for signum in STOP_SIGNALS:  # born with them blocked: one pending now is discarded
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    sender.send(run_trial(spec))
    sender.close()


def _die_with_parent() -> None:
    """Linux: be killed when the batch is (a SIGKILL leaves it no time to kill a hung child)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _how_it_ended(code: int | None) -> str:
    if code is None:
        return "the trial's process closed its pipe without reporting and did not end"
    if code < 0:
        return f"the trial's process was killed by {signal.Signals(-code).name} before it reported"
    return f"the trial's process exited with status {code} before it reported (os._exit, or a crash)"
