"""A Ctrl-C arriving while ``batch --serial`` forks a trial kills that trial's child.

The stop signals are blocked around the fork and delivered when unblocked: the unblock must be inside
the ``try`` whose ``finally`` kills the child, or the child (which ignores SIGTERM) is left running
and the batch waits for it at exit. The signal is injected right after the fork, while blocked.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

from saphira.app.batch.experiment import load_experiment
from saphira.app.batch.isolated import run_in_child

SLOW_PLUGIN = "import time\n\ndef load_init(env):\n    time.sleep(60)\n"


def test_a_ctrl_c_during_the_fork_kills_the_trial_started_and_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow.py").write_text(SLOW_PLUGIN)
    (tmp_path / "main.act").write_text('load "slow.py";\n')
    exp = tmp_path / "exp.toml"
    exp.write_text('[run]\nactivity = "main.act"\nworld = "room"\nduration = 60\n')
    (spec,) = load_experiment(exp).trials()

    process_class = multiprocessing.get_context("fork").Process
    real_start = process_class.start
    started: list[BaseProcess] = []

    def start_then_interrupt(self: BaseProcess) -> None:
        real_start(self)
        started.append(self)
        # The Ctrl-C comes now, while the stop signals are blocked: pending until they are unblocked.
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    monkeypatch.setattr(process_class, "start", start_then_interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_in_child(spec)
        (child,) = started
        assert not child.is_alive() and child.exitcode == -signal.SIGKILL
    finally:
        for child in started:  # before the fix: the child still runs and ignores SIGTERM
            if child.is_alive():
                child.kill()
                child.join()
