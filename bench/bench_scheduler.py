"""Scheduler overhead per task per cycle.

Two loads: 1,000 idle tasks (each step returns its state) and 100 tasks doing a little work. The
baseline, measured in the same run, calls the very same step functions in a bare Python loop; the
difference is what the scheduler costs (state checks, timing, signals, reaping). Target: < 2 µs per
task per cycle.
"""

from __future__ import annotations

import time

from saphira.core.clock import LockStepClock
from saphira.core.tasks import FIRST_USER_STATE, Scheduler, Task


class Idle(Task):
    def step(self, state: int) -> int:
        return FIRST_USER_STATE


class Worker(Task):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.acc = 0.0

    def step(self, state: int) -> int:
        for i in range(20):
            self.acc += i * 0.5
        return FIRST_USER_STATE


def measure(make: type[Task], n: int, cycles: int) -> tuple[float, float]:
    sched = Scheduler(LockStepClock())
    tasks = [sched.add(make(f"t{i}")) for i in range(n)]
    sched.run(5)  # warm up past INIT
    t0 = time.perf_counter()
    sched.run(cycles)
    with_sched = (time.perf_counter() - t0) / cycles
    steps = [t.step for t in tasks]
    t0 = time.perf_counter()
    for _ in range(cycles):
        for step in steps:
            step(FIRST_USER_STATE)
    bare = (time.perf_counter() - t0) / cycles
    return with_sched, bare


def main() -> None:
    for label, cls, n, cycles in (("idle", Idle, 1000, 300), ("small work", Worker, 100, 1000)):
        with_sched, bare = measure(cls, n, cycles)
        overhead_us = (with_sched - bare) / n * 1e6
        print(
            f"{label:>10}: {n:5d} tasks  {with_sched * 1e3:7.3f} ms/cycle  "
            f"bare loop {bare * 1e3:7.3f} ms/cycle  "
            f"ratio {with_sched / bare:5.2f}x  overhead {overhead_us:.3f} µs/task/cycle (target < 2 µs)"
        )


if __name__ == "__main__":
    main()
