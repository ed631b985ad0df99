"""``saphira batch`` never reports a result it did not measure: hung and crashed trials, Ctrl-C, SIGTERM.

The faults are injected by a plugin this file writes: a task blocked in ``time.sleep`` (a C call the
watchdog cannot interrupt), a loop that swallows ``BaseException`` (the watchdog's too) and
``os._exit``. Every batch runs through the command line, in a child process.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from saphira.app.batch.metrics import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0  # the bound of every wait for a batch

PLUGIN = """
import os, time

def _hang() -> int:
    time.sleep(3600)  # one C call: the watchdog's exception waits for it to return
    return 0

def _swallow() -> int:
    while True:
        try:
            time.sleep(0.01)
        except BaseException:  # eats the watchdog's TrialTimeout
            pass

def _crash() -> int:
    os._exit(3)

def load_init(env):
    env.add_function("hang", _hang, "int", ())
    env.add_function("swallow", _swallow, "int", ())
    env.add_function("crash", _crash, "int", ())
"""

ACTIVITY = """load "faults.py";
int mode;
act Drive
{
  start sfConstantVelocity(300.0) priority 0 noblock;
  waitfor 0 timeout 5;
  if (mode == 1) hang();
  if (mode == 2) swallow();
  if (mode == 3) crash();
  waitfor 0;
}
start Drive;
"""


def _experiment(folder: Path, body: str) -> Path:
    (folder / "faults.py").write_text(PLUGIN)
    (folder / "drive.act").write_text(ACTIVITY)
    exp = folder / "exp.toml"
    exp.write_text(f'[run]\nactivity = "drive.act"\nworld = "room"\n{body}')
    return exp


def _command(exp: Path, out: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "saphira", "batch", str(exp), "--out", str(out), "--no-plots", "-q", *options]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _batch(exp: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_command(exp, out, *options), env=_env(), capture_output=True, text=True, timeout=WAIT * 2)


def _rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "trials.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _measured(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {r["trial"]: {k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows}


def _faults(time_limit: int, modes: str = "0, 1, 2, 3") -> str:
    return f"duration = 2\ntime_limit = {time_limit}\n[grid]\nmode = [{modes}]\n"


def _check_fault_rows(rows: list[dict[str, str]], time_limit: int) -> None:
    by_mode = {r["mode"]: r for r in rows}
    assert sorted(by_mode) == ["0", "1", "2", "3"]
    assert by_mode["0"]["status"] == "ok" and float(by_mode["0"]["distance"]) > 100
    for mode in "12":  # killed at the time limit + 10 % + 2 s of grace
        assert by_mode[mode]["status"] == "timeout", by_mode[mode]
        error = by_mode[mode]["error"]
        assert f"killed after {time_limit * 1.1 + 2:g} s" in error and f"{time_limit} s limit" in error
    assert by_mode["3"]["status"] == "crashed", by_mode["3"]


def test_serial_trials_that_block_in_c_swallow_the_watchdog_or_exit_are_rows_and_the_batch_goes_on(
    tmp_path: Path,
) -> None:
    exp = _experiment(tmp_path, _faults(2))  # 2 s: the good trial needs ~0.3 s, on a loaded machine 1
    out = tmp_path / "out"
    start = time.monotonic()
    done = _batch(exp, out, "--serial")
    assert done.returncode == 1, done.stdout + done.stderr
    assert time.monotonic() - start < WAIT  # two trials killed at 4.2 s, not hung
    rows = _rows(out)
    _check_fault_rows(rows, 2)
    crashed = next(r for r in rows if r["mode"] == "3")
    assert "exited with status 3 before it reported" in crashed["error"]
    assert f"trial {crashed['trial']} (crashed)" in done.stdout  # the summary lists it
    again = _batch(exp, out, "--serial")  # resuming does not run the crash again
    assert again.returncode == 1 and "4 already in" in again.stdout and "running 0" in again.stdout
    assert _rows(out) == rows


def test_on_dask_a_hung_trial_s_future_has_a_deadline_and_its_worker_is_restarted(tmp_path: Path) -> None:
    # 2 s: a trial on a loaded machine's worker may take 1. The two hangs first: they run at once.
    exp = _experiment(tmp_path, _faults(2, "1, 2, 0, 3"))
    out = tmp_path / "out"
    start = time.monotonic()
    done = _batch(exp, out, "--workers", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert time.monotonic() - start < WAIT * 1.5  # a cluster, two restarts and a crash on a loaded machine
    rows = _rows(out)
    _check_fault_rows(rows, 2)
    assert "worker process died" in next(r for r in rows if r["mode"] == "3")["error"]


def _wait_for_rows(out: Path, count: int, batch: subprocess.Popen[str]) -> None:
    end = time.monotonic() + WAIT
    while time.monotonic() < end and batch.poll() is None:
        if (out / "trials.csv").is_file() and len(_rows(out)) >= count:
            return
        time.sleep(0.05)  # polling a file another process writes: the wait itself is bounded
    raise AssertionError(f"no {count} rows in {WAIT} s (exit status {batch.poll()})")


def test_an_interrupted_serial_batch_stops_writes_no_truncated_row_and_resumes_to_the_clean_rows(
    tmp_path: Path,
) -> None:
    """Ctrl-C to the process group (the trial's process gets it too) and SIGTERM to the batch alone, each
    compared with one clean run of the same experiment (a run of its own for each would measure the same rows)."""
    exp = _experiment(tmp_path, "duration = 15\nseeds = 3\n")
    clean = tmp_path / "clean"
    assert _batch(exp, clean, "--serial").returncode == 0
    reference = _measured(_rows(clean))
    for signum, to_group in [(signal.SIGINT, True), (signal.SIGTERM, False)]:
        _interrupt_and_resume(exp, tmp_path / f"out-{signum.name}", signum, to_group, reference)


def _interrupt_and_resume(
    exp: Path, out: Path, signum: signal.Signals, to_group: bool, reference: dict[str, dict[str, str]]
) -> None:
    """Interrupt a serial batch of ``exp`` once it has a row, check what it kept, resume it to ``reference``."""
    batch = subprocess.Popen(_command(exp, out, "--serial"), env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        _wait_for_rows(out, 1, batch)
        if to_group:  # as a terminal's Ctrl-C: the trial's process gets it too
            os.killpg(batch.pid, signum)
        else:
            batch.send_signal(signum)
        stdout, stderr = batch.communicate(timeout=WAIT)
    finally:
        if batch.poll() is None:
            os.killpg(batch.pid, signal.SIGKILL)
            batch.wait()
    assert batch.returncode == 128 + signum, stdout + stderr
    assert f"interrupted by {signum.name}" in stdout and "run the same command to resume" in stdout
    partial = _measured(_rows(out))
    assert 1 <= len(partial) < 3
    assert all(partial[trial] == reference[trial] for trial in partial)  # nothing truncated
    resumed = _batch(exp, out, "--serial")
    assert resumed.returncode == 0 and f"{len(partial)} already in" in resumed.stdout
    assert _measured(_rows(out)) == reference


def test_batch_help_states_the_exit_statuses_and_how_to_resume() -> None:
    done = subprocess.run([sys.executable, "-m", "saphira", "batch", "--help"], env=_env(), capture_output=True,
                          text=True, timeout=WAIT)  # fmt: skip
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    for words in ("130 when interrupted by Ctrl-C, 143 by SIGTERM", "run the same command again to resume",
                  "each in a child process", "crashed"):  # fmt: skip
        assert words in text, words
