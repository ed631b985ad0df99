"""Clocks that pace the scheduler's cycle, and the statistics kept about each cycle.

Two implementations share one interface (docs/architecture.md §2):

* :class:`RealTimeClock` keeps a drift-free cadence: deadline *k* is ``start + k * period``, computed
  from the start, never from "now". A cycle that overruns its slot is counted; the clock then waits
  for the next slot on the grid instead of running back-to-back cycles to catch up, so overruns are
  never accumulated.
* :class:`LockStepClock` runs on virtual time: every cycle advances exactly one period and returns
  at once. Listeners (the embedded simulator) are stepped once per cycle, which makes a run
  deterministic and as fast as the CPU allows.

Every timeout in the system is measured on a clock, never on the wall clock.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DEFAULT_PERIOD = 0.1
"""Saphira's cycle: 100 ms."""

TickListener = Callable[[], None]


class Clock(ABC):
    """Paces cycles. ``cycle`` counts completed cycles; ``now()`` is seconds since the start."""

    def __init__(self, period: float = DEFAULT_PERIOD) -> None:
        if period <= 0:
            raise ValueError(f"clock period must be positive, got {period}")
        self.period = period
        self.cycle = 0
        self.overruns = 0

    @abstractmethod
    def now(self) -> float:
        """Seconds elapsed on this clock since it started."""

    @abstractmethod
    def wait_next(self) -> None:
        """Block until the next cycle is due, then count it."""

    def cycles_for(self, seconds: float) -> int:
        """Whole cycles covering ``seconds`` (at least one for any positive time)."""
        if seconds <= 0:
            return 0
        return max(1, math.ceil(seconds / self.period - 1e-9))

    @property
    def is_lockstep(self) -> bool:
        return False


class RealTimeClock(Clock):
    """Wall-clock pacing on a fixed grid of deadlines (drift-free), ``speed`` times real time.

    ``speed`` 2.0 runs the cycles twice as fast as the wall clock (the embedded simulator only: a
    robot is real time). ``monotonic`` and ``sleep`` are injectable so the cadence can be exercised exactly.
    """

    def __init__(
        self,
        period: float = DEFAULT_PERIOD,
        *,
        speed: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(period)
        if not (math.isfinite(speed) and speed > 0):
            raise ValueError(f"clock speed must be a finite factor greater than 0, got {speed}")
        self.speed = speed
        self._monotonic = monotonic
        self._sleep = sleep
        self._start = monotonic()
        self._slot = 0

    @classmethod
    def following(cls, clock: Clock) -> RealTimeClock:
        """A real-time clock that carries on from ``clock``: same period, cycle count and time, so the
        timers a session set on the old clock keep their meaning (a session switching to real time)."""
        follower = cls(clock.period)
        follower.cycle = follower._slot = clock.cycle
        follower._start -= clock.now()
        return follower

    def now(self) -> float:
        return (self._monotonic() - self._start) * self.speed

    def wait_next(self) -> None:
        self._slot += 1
        deadline = self._slot * self.period
        elapsed = self.now()
        if elapsed > deadline:
            # The cycle ran past its slot: count it and resume on the next free slot of the grid.
            self.overruns += 1
            self._slot = math.floor(elapsed / self.period) + 1
            deadline = self._slot * self.period
        remaining = deadline - self.now()
        if remaining > 0:
            self._sleep(remaining / self.speed)
        self.cycle += 1


class LockStepClock(Clock):
    """Virtual time: each cycle advances exactly one period and steps every listener once."""

    def __init__(self, period: float = DEFAULT_PERIOD) -> None:
        super().__init__(period)
        self._listeners: list[TickListener] = []

    def now(self) -> float:
        return self.cycle * self.period

    def add_listener(self, listener: TickListener) -> None:
        """Call ``listener`` once per cycle, between the end of one cycle and the start of the next."""
        self._listeners.append(listener)

    def remove_listener(self, listener: TickListener) -> None:
        self._listeners.remove(listener)

    @property
    def has_listeners(self) -> bool:
        """Something in this process steps with the clock (the embedded simulator, a test's server): a
        peer that lives in lock-step with it, however it is reached."""
        return bool(self._listeners)

    def wait_next(self) -> None:
        for listener in tuple(self._listeners):
            listener()
        self.cycle += 1

    @property
    def is_lockstep(self) -> bool:
        return True


@dataclass(frozen=True)
class CycleSummary:
    """Durations in milliseconds over the recorded window."""

    cycles: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    overruns: int

    def __str__(self) -> str:
        return (
            f"{self.cycles} cycles, p50 {self.p50_ms:.2f} ms, p99 {self.p99_ms:.2f} ms, "
            f"max {self.max_ms:.2f} ms, {self.overruns} overruns"
        )


class CycleStats:
    """Cycle durations in a fixed ring (no growth over long runs) plus running totals."""

    def __init__(self, window: int = 4096) -> None:
        self._durations = np.zeros(window, dtype=np.float64)
        self._count = 0
        self.max_ns = 0

    def record(self, duration_ns: int) -> None:
        self._durations[self._count % len(self._durations)] = duration_ns
        self._count += 1
        if duration_ns > self.max_ns:
            self.max_ns = duration_ns

    @property
    def cycles(self) -> int:
        return self._count

    def summary(self, overruns: int = 0) -> CycleSummary:
        n = min(self._count, len(self._durations))
        if n == 0:
            return CycleSummary(0, 0.0, 0.0, 0.0, overruns)
        window = self._durations[:n]
        p50, p99 = np.percentile(window, [50, 99])
        return CycleSummary(self._count, float(p50) / 1e6, float(p99) / 1e6, self.max_ns / 1e6, overruns)
