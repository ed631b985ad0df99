"""Clocks: drift-free real-time cadence, counted overruns, lock-step virtual time, statistics."""

from __future__ import annotations

import random
import time

import pytest

from saphira.core.clock import CycleStats, LockStepClock, RealTimeClock
from saphira.core.tasks import Scheduler


class FakeTime:
    """A controllable monotonic clock: sleeping advances it exactly."""

    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.t += dt


def test_realtime_grid_is_exact_with_varying_work() -> None:
    ft = FakeTime()
    clock = RealTimeClock(0.1, monotonic=ft.monotonic, sleep=ft.sleep)
    rng = random.Random(1)
    for k in range(1, 101):
        ft.t += rng.uniform(0.0, 0.09)  # work shorter than the period
        clock.wait_next()
        assert abs(clock.now() - k * 0.1) < 1e-9
    assert clock.overruns == 0


def test_realtime_overruns_are_counted_not_accumulated() -> None:
    ft = FakeTime()
    clock = RealTimeClock(0.1, monotonic=ft.monotonic, sleep=ft.sleep)
    ft.t += 0.25  # one long cycle misses two slots
    clock.wait_next()
    assert clock.overruns == 1
    assert abs(clock.now() - 0.3) < 1e-9  # resumes on the grid, no burst of catch-up cycles
    ft.t += 0.01
    clock.wait_next()
    assert abs(clock.now() - 0.4) < 1e-9
    assert clock.overruns == 1


def test_a_realtime_clock_at_speed_4_runs_each_cycle_in_a_quarter_of_the_wall_time() -> None:
    ft = FakeTime()
    clock = RealTimeClock(0.1, speed=4.0, monotonic=ft.monotonic, sleep=ft.sleep)
    for _ in range(40):
        ft.t += 0.01  # 10 ms of work, 40 ms of clock time at 4x
        clock.wait_next()
    assert abs(clock.now() - 4.0) < 1e-9  # 40 cycles of 100 ms on the clock ...
    assert abs((ft.t - 1000.0) - 1.0) < 1e-9  # ... in one second of wall time
    assert clock.overruns == 0


def test_a_realtime_clock_refuses_a_speed_that_is_not_a_positive_factor() -> None:
    for speed in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="clock speed must be a finite factor greater than 0"):
            RealTimeClock(speed=speed)


def test_realtime_cadence_without_drift_over_100_cycles() -> None:
    """On the real clock: 100 cycles of 20 ms with 0-10 ms of work each.

    The clock sleeps only what is left of each slot: a clock that slept a fixed period after the work
    would ask for 2 s of sleep, ours for 2 s minus the work (~0.5 s), and it never ends before the grid.
    How close to the grid it ends depends on the machine's load, so that is measured in bench/ only;
    the exact arithmetic is checked on a fake clock above.
    """
    period = 0.02
    asked: list[float] = []

    def sleep(seconds: float) -> None:
        asked.append(seconds)
        time.sleep(seconds)

    rng = random.Random(3)
    work = [rng.uniform(0.0, 0.010) for _ in range(100)]
    start = time.monotonic()  # before the clock lays its grid, so the grid's end is never before start + 2 s
    s = Scheduler(RealTimeClock(period, sleep=sleep))
    s.add(lambda state: time.sleep(work[s.cycle]) if s.cycle < 100 else None, "work")
    s.run(100)
    elapsed = time.monotonic() - start
    assert sum(work) > 0.4
    assert s.clock.cycle == 100
    assert elapsed >= 100 * period - 1e-3, elapsed  # never ahead of the grid
    assert sum(asked) <= 100 * period - sum(work) + 1e-3, sum(asked)  # the work is taken off the sleep


def test_lockstep_virtual_time_and_listeners() -> None:
    clock = LockStepClock(0.1)
    ticks: list[float] = []
    clock.add_listener(lambda: ticks.append(clock.now()))
    for _ in range(5):
        clock.wait_next()
    assert clock.cycle == 5
    assert abs(clock.now() - 0.5) < 1e-12
    assert ticks == [0.0, 0.1, 0.2, 0.30000000000000004, 0.4]


def test_cycle_stats_percentiles() -> None:
    stats = CycleStats(window=100)
    for ms in range(1, 101):
        stats.record(ms * 1_000_000)
    summary = stats.summary(overruns=2)
    assert summary.cycles == 100
    assert abs(summary.p50_ms - 50.5) < 1e-9
    assert abs(summary.max_ms - 100.0) < 1e-9
    assert 99.0 <= summary.p99_ms <= 100.0
    assert summary.overruns == 2


def test_scheduler_records_time_per_task() -> None:
    s = Scheduler()
    t = s.add(lambda state: sum(range(1000)) and None, "busy")
    s.run(10)
    assert t.calls == 10 and t.cpu_ns > 0
    assert s.stats.cycles == 10
    names = [row[0] for row in s.process_list()]
    assert names == ["busy"]
