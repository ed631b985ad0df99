"""Cost of the occupancy grid (``occ grid`` task, saphira/perception/occupancy.py) per client cycle.

A P3-DX (16 sonars, ~5 readings a cycle) wanders the corridor world with the demo stack (avoid
collision, keep off, constant velocity, stop), lock-step against the embedded simulator, twice with the
same seed: without the grid (the baseline, measured in this run) and with it, alternately,
:data:`REPEATS` times each (the fastest of each kind counts: other processes only slow a run down).
Printed: the mean cycle time of each run (client + embedded simulator), their ratio, and the grid
task's own time per cycle.
The grid's contribution to issue 11's "< 1 ms per cycle" budget is the last figure.

Run from the project root: ``python bench/bench_occupancy.py [seconds]`` (default 60 s of robot time).
"""

from __future__ import annotations

import sys
import time

from saphira.behavior.library import start_wander_stack
from saphira.perception.occupancy import OccupancyTask, start_occupancy_grid
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator

WARMUP = 50
REPEATS = 3


def wander(seconds: float, grid: bool) -> tuple[float, float, int]:
    """(mean cycle s, mean grid-task s per cycle, readings integrated) of one run."""
    robot = Robot()
    attach_simulator(robot, "corridor", "p3dx", seed=3, odometry_error=False)
    start_wander_stack(robot)
    spent = [0.0]
    readings = 0
    if grid:
        occ = start_occupancy_grid(robot.reflector, robot.scheduler)
        task = robot.scheduler.get("occ grid")
        assert isinstance(task, OccupancyTask)
        step = task.step

        def timed(state: int) -> int:
            t = time.perf_counter()
            try:
                return step(state)
            finally:
                spent[0] += time.perf_counter() - t

        task.step = timed  # type: ignore[method-assign]
    robot.run(cycles=WARMUP)
    spent[0] = 0.0
    cycles = robot.clock.cycles_for(seconds)
    start = time.perf_counter()
    robot.run(cycles=cycles)
    elapsed = time.perf_counter() - start
    if grid:
        readings = occ.readings
    return elapsed / cycles, spent[0] / cycles, readings


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    runs = [(wander(seconds, grid=False), wander(seconds, grid=True)) for _ in range(REPEATS)]
    base = min(b[0] for b, _ in runs)  # other processes only ever slow a run down: keep the fastest
    with_grid = min(g[0] for _, g in runs)
    task = min(g[1] for _, g in runs)
    readings = runs[0][1][2]
    print(f"{seconds:g} s of robot time, corridor world, P3-DX wandering (lock-step, embedded simulator)")
    print(f"  cycle without grid: {base * 1e3:7.3f} ms   (baseline)")
    print(f"  cycle with grid:    {with_grid * 1e3:7.3f} ms   ratio {with_grid / base:.2f}")
    print(f"  occ grid task:      {task * 1e3:7.3f} ms per cycle  ({readings} readings integrated)")


if __name__ == "__main__":
    main()
