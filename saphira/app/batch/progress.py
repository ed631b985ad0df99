"""The batch's progress bar, with an estimate of the time left, on stderr.

On a terminal one line is redrawn in place; otherwise (a log file, CI) a plain line is written every
5 % of the trials, so a log shows progress without thousands of lines.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

BAR_WIDTH = 24
LOG_STEP = 0.05


def format_duration(seconds: float) -> str:
    """``0:42``, ``12:05``, ``3:02:10``."""
    whole = max(round(seconds), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts finished trials against ``total``; the rate and time left are from this run's trials only."""

    def __init__(self, total: int, stream: TextIO | None = None, *, tty: bool | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.failed = 0
        self.start = time.monotonic()
        self._logged = -1.0

    def advance(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        fraction = self.done / self.total if self.total else 1.0
        if self.tty:
            width = max(shutil.get_terminal_size().columns - 1, 20)
            self.stream.write("\r" + self.line()[:width] + "\x1b[K")
        elif fraction - self._logged >= LOG_STEP or self.done == self.total:
            self._logged = fraction
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def line(self) -> str:
        fraction = self.done / self.total if self.total else 1.0
        filled = round(fraction * BAR_WIDTH)
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        failed = f", {self.failed} failed" if self.failed else ""
        eta = f"ETA {format_duration(left)}" if self.done < self.total else f"took {format_duration(elapsed)}"
        return (f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total} trials{failed}  "
                f"{rate * 60:.0f}/min  {eta}")  # fmt: skip

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()
