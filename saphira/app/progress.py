"""What a ``saphira run`` with no end set says: how it will end, and, off a terminal, that it is still going.

Without ``--duration`` a run ends when its activities do, which may be never (a brain, a wander); in
lock-step it then runs as fast as the CPU allows. So it says at the start how it ends, and when
stdout is not a terminal (no status line: a log, a pipe, a batch job) it prints a progress line every
:data:`PROGRESS_SECONDS` of robot time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from saphira.app.console import Console
    from saphira.robot import Robot

__all__ = ["PROGRESS_SECONDS", "RunProgress"]

PROGRESS_SECONDS = 600.0
"""Robot time between progress lines: 10 minutes. Longer than the missions the bundled files run (one to a
few minutes), so a finite run prints none, and in lock-step (100-600x real time here) a run that never
ends adds a line every 1-6 s of wall time: a log visibly growing without flooding. In real time it is
a heartbeat every 10 minutes."""


class RunProgress:
    """The start note and the progress lines of one run (nothing when ``--duration`` or a watcher ends it)."""

    def __init__(self, console: Console, robot: Robot, *, open_ended: bool) -> None:
        self.console = console
        self.robot = robot
        self.open_ended = open_ended
        self.every = max(1, round(PROGRESS_SECONDS / robot.clock.period))
        self.lines = open_ended and not console.show_status and not console.quiet
        self.wall_start = time.monotonic()

    def start(self) -> None:
        """Say how the run ends (before its first cycle)."""
        if not self.open_ended:
            return
        every = f"; a progress line every {PROGRESS_SECONDS / 60:g} min of robot time" if self.lines else ""
        self.console.note(f"running until the activities end (no --duration): Ctrl-C or SIGTERM stops it{every}")

    def cycle(self, running: Callable[[], str]) -> None:
        """After each cycle: a progress line when one is due (``running`` names what runs)."""
        cycle = self.robot.scheduler.cycle
        if not self.lines or cycle % self.every:
            return
        seconds = round(cycle * self.robot.clock.period)
        clock = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        state = self.robot.state
        self.console.message(
            f"still running at {clock} robot time ({time.monotonic() - self.wall_start:.0f} s wall): "
            f"{running() or 'no activity named'}; pose ({state.ax:.0f}, {state.ay:.0f}, {state.ath:.1f}); "
            "Ctrl-C or SIGTERM stops it"
        )
