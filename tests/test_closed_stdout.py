"""``saphira run ... | head -2``: the run stops as soon as the reader of its stdout goes away, even when it
prints nothing more, and exits 141 (128 + SIGPIPE) with nothing on stderr.

A real pipe whose read end the test closes once it has the run's first line; the run is paced in real time,
so before the fix it went on silently until its first progress line, 10 minutes of robot time later.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.test_run_lifecycle import DEADLINE, read_until, start

QUIET = 'sfSMessage("ready");\nact idle { waitfor 0; }\nstart idle;\n'
"""A line, then silence for ever (no --duration)."""


def test_a_run_whose_reader_went_away_stops_at_once_with_141(tmp_path: Path) -> None:
    act = tmp_path / "quiet.act"
    act.write_text(QUIET)
    rec = tmp_path / "run.rec"
    proc = start("run", str(act), "--realtime", "--record", str(rec))
    assert proc.stdout is not None and proc.stderr is not None
    try:
        read_until(proc.stdout.fileno(), b"ready\n")
        proc.stdout.close()  # what `head -1` does once it has its line
        proc.wait(timeout=DEADLINE)  # generous: the run notices within a cycle (100 ms)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.returncode == 128 + signal.SIGPIPE, err
    assert err == ""
    assert rec.read_text().splitlines()[-1].startswith("# end ")  # the robot stopped and the recording closed
