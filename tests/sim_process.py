"""``saphira sim`` as a second process, for tests that need a real server on loopback."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.realtime import WAIT

PROJECT = Path(__file__).resolve().parents[1]


class Program:
    """``python -m saphira.app.sim ARGS`` and the addresses it prints."""

    def __init__(self, *args: str, robots: int = 1, quiet: bool = True) -> None:
        env = dict(os.environ, PYTHONPATH=str(PROJECT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "saphira.app.sim", *(["-q"] if quiet else []), *args],
            cwd=PROJECT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.output = b""
        self.addresses = self._wait_for_addresses(robots)

    def _wait_for_addresses(self, count: int) -> list[str]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + WAIT
        while True:
            found = re.findall(rb"listening on (\S+)", self.output)
            if len(found) >= count:
                return [f.decode() for f in found]
            remaining = deadline - time.monotonic()
            if remaining <= 0:  # a failed start leaves no simulator behind
                self.proc.kill()
                raise AssertionError(f"no 'listening on' lines in {WAIT:.0f} s: {self.stop()[1]!r}")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 4096)
                assert chunk, f"the simulator exited early: {self.output!r} {self.stop()[1]!r}"
                self.output += chunk

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, bytes]:
        """Signal the program, wait for it; (exit status, everything it printed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=WAIT)
        return self.proc.returncode, self.output + out + err

    def wait(self) -> tuple[int, bytes]:
        out, err = self.proc.communicate(timeout=WAIT)
        return self.proc.returncode, self.output + out + err


def with_and_without(option: str, run: Callable[[Path, bool], None], folder: Path) -> None:
    """``run(folder / "True", True)`` and ``run(folder / "False", False)`` at once (each drives its own
    simulator in real time, so together they take the time of one); a failure names its side of ``option``."""
    with ThreadPoolExecutor(2) as pool:
        runs = {given: pool.submit(run, folder / str(given), given) for given in (True, False)}
    for given, done in runs.items():
        try:
            done.result()
        except BaseException as failure:
            raise AssertionError(f"{'with' if given else 'without'} {option}: {failure}") from failure
