"""A wall-clock limit for code that may never return, such as an act stuck in ``while (1) {}``.

A trial runs in a Dask worker's thread or a forked child's main thread (``--serial``), which only a
kill of the whole process ends from outside. First, a timer thread raises :class:`TrialTimeout`
*in the trial's thread* (CPython's ``PyThreadState_SetAsyncExc``) once the limit has passed. The
exception arrives at the next Python bytecode the thread runs, so it ends any loop of Python code: a
Colbert loop, a behavior or plugin that spins. It cannot interrupt one long call into C (a blocking
``time.sleep``, a read) before that call returns, nor a loop that catches ``BaseException``: the
batch kills such a trial at its deadline from outside (:mod:`saphira.app.batch.isolated`, the Dask runner).

:class:`TrialTimeout` derives from ``BaseException`` so that the ``except Exception`` with which the
scheduler and the Colbert runtime trap task errors does not swallow it.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class TrialTimeout(BaseException):
    """The trial ran past its wall-clock limit."""


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


@contextmanager
def wall_clock_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TrialTimeout` in the calling thread if the block is still running after ``seconds``."""
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def expire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                _raise_in(target, TrialTimeout)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["fired"]:
                _raise_in(target, None)  # a timeout that fired but has not been raised yet is withdrawn
