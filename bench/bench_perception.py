"""Cost of the perception tasks per cycle: interpretation + registration + environment tracking + grid.

A P3-DX (16 sonars) patrols the corridor world (maps/corridor.wld) in lock-step with the embedded
simulator, following the map corridor back and forth between x = 4 m and 20 m, with the world's map
(its corridor, 8 doors and every wall segment: 34 map artifacts) on the pointlist. Measured in the same
run:

* baseline — a client cycle without the perception tasks (scheduler + link + reflector + behaviors,
  wall time per ``robot.step()`` less the simulator's own time, which a real robot would not cost);
* perception — the CPU time the tasks ``side segment``, ``test wall``, ``test wall break``,
  ``test matching``, ``test where`` and the occupancy grid's ``occ grid`` spent, per cycle (the
  scheduler's per-task accounting).

Target (issue 11): perception < 1 ms per cycle together with the grid. Run from the project root:
``python bench/bench_perception.py [cycles]``; ``--accuracy [--minutes M]`` prints instead the
registered pose error of M-minute patrols (default 3) over 5 seeds, and, with ``--suspended``, the
same patrols with ``test matching`` suspended.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from saphira.behavior.library import find_behavior
from saphira.client.artifacts import create_corridor, create_door, create_global_point, create_wall
from saphira.core.clock import LockStepClock
from saphira.core.tasks import TaskState
from saphira.perception import perception_for
from saphira.perception.occupancy import TASK_NAME, start_occupancy_grid
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator

TASKS = ("side segment", "test wall", "test wall break", "test matching", "test where", TASK_NAME)
WARMUP = 50
REPEATS = 3
"""Each measurement is repeated, alternating with and without, and the best kept (a shared machine
only ever makes a run slower)."""


def setup(with_perception: bool, seed: int = 0) -> tuple[Robot, EmbeddedSim]:
    robot = Robot()
    sim = attach_simulator(robot, "corridor", "p3dx", pose=(4000.0, 6000.0, 0.0), seed=seed)
    pose = robot.state.global_pose
    pointlist = robot.reflector.pointlist
    corridor = create_corridor(pose, 12000.0, 6000.0, 0.0, 2000.0, 20000.0, global_coords=True, id=1)
    pointlist.add(corridor)
    for i, (x, y, th) in enumerate(
        [(x, 7000.0, 270.0) for x in (3500.0, 9500.0, 14500.0, 19500.0)]
        + [(x, 5000.0, 90.0) for x in (5500.0, 10500.0, 16000.0, 20500.0)]
    ):
        pointlist.add(create_door(pose, x, y, th, 1000.0, global_coords=True, id=10 + i))
    for x1, y1, x2, y2 in sim.simulation.world.segments:
        th = math.degrees(math.atan2(y2 - y1, x2 - x1))
        length = math.hypot(x2 - x1, y2 - y1)
        pointlist.add(create_wall(pose, (x1 + x2) / 2, (y1 + y2) / 2, th, length, global_coords=True))
    if with_perception:
        perception_for(robot.reflector, robot.scheduler).start_registration()
        start_occupancy_grid(robot.reflector, robot.scheduler)
    goals = [create_global_point(pose, 20000.0, 6000.0), create_global_point(pose, 4000.0, 6000.0)]
    follow = find_behavior("follow_corridor")
    robot.start_behavior(find_behavior("avoid_collision"), priority=0)
    robot.start_behavior(find_behavior("stop"), priority=3)
    legs = [robot.start_behavior(follow, corridor, goals[0], priority=1, name="leg")]

    def next_leg(state: int) -> int:
        if legs[-1].state != TaskState.RESUME:
            goal = goals[len(legs) % 2]
            legs.append(robot.start_behavior(follow, corridor, goal, priority=1, name=f"leg {len(legs)}"))
        return TaskState.RESUME

    robot.scheduler.add(next_leg, "patrol")
    return robot, sim


robot_tasks: list[tuple[str, str, str, float]] = []


def measure(with_perception: bool, cycles: int) -> tuple[float, float]:
    """(client ms per cycle without the simulator, perception ms per cycle)."""
    robot, sim = setup(with_perception)
    robot.run(cycles=WARMUP)
    sim_ns = 0
    step = sim.step

    def timed_step() -> None:
        nonlocal sim_ns
        t0 = time.perf_counter_ns()
        step()
        sim_ns += time.perf_counter_ns() - t0

    clock = robot.clock
    assert isinstance(clock, LockStepClock)
    clock.remove_listener(step)
    clock.add_listener(timed_step)
    tasks = [t for t in robot.scheduler.tasks if t.name in TASKS]
    before = sum(t.cpu_ns for t in tasks)
    t0 = time.perf_counter_ns()
    robot.run(cycles=cycles)
    total = time.perf_counter_ns() - t0
    perception = sum(t.cpu_ns for t in tasks) - before
    robot_tasks[:] = [row for row in robot.scheduler.process_list() if row[0] in TASKS]
    return (total - sim_ns) / cycles / 1e6, perception / cycles / 1e6


def accuracy(seed: int, minutes: float, matching: bool = True) -> tuple[float, float, float]:
    """Registered pose error on the patrol: p95 mm, p95 deg, max mm (against the truth the SIP reported)."""
    robot, sim = setup(True, seed)
    if not matching:
        robot.scheduler.suspend("test matching")
    position, heading = [], []
    for _ in range(robot.clock.cycles_for(minutes * 60.0)):
        true = sim.true_pose
        robot.step()
        pose = robot.state.global_pose
        position.append(math.hypot(true.x - pose.x, true.y - pose.y))
        heading.append(abs((true.th - pose.th + 180.0) % 360.0 - 180.0))
    return float(np.percentile(position, 95)), float(np.percentile(heading, 95)), max(position)


def main() -> None:
    if "--accuracy" in sys.argv:
        minutes = float(sys.argv[sys.argv.index("--minutes") + 1]) if "--minutes" in sys.argv else 3.0
        matching = "--suspended" not in sys.argv
        what = "registration" if matching else "test matching suspended"
        print(f"{what}: {minutes:g}-minute patrols, odometry error on")
        print("seed  p95 mm  p95 deg  max mm  wall s")
        for seed in range(5):
            t0 = time.perf_counter()
            p95, p95_th, worst = accuracy(seed, minutes, matching)
            print(f"{seed:4d}  {p95:6.0f}  {p95_th:7.2f}  {worst:6.0f}  {time.perf_counter() - t0:6.0f}", flush=True)
        return
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    runs = [(measure(False, cycles), measure(True, cycles)) for _ in range(REPEATS)]  # interleaved
    base = min(without[0] for without, _ in runs)
    full = min(with_[0] for _, with_ in runs)
    perception = min(with_[1] for _, with_ in runs)
    print(f"{cycles} cycles x {REPEATS} runs (best of each), P3-DX (16 sonars), corridor world, 34 map artifacts")
    print(f"client cycle without perception : {base:7.3f} ms")
    print(f"client cycle with perception    : {full:7.3f} ms")
    print(f"perception + grid per cycle     : {perception:7.3f} ms  (target < 1 ms)")
    print(f"ratio perception / baseline     : {perception / base:7.2f}")
    print(f"ratio cycle with / without      : {full / base:7.2f}")
    print("per task (us per call):")
    for name, _, _, us in robot_tasks:
        print(f"  {name:16s} {us:7.1f}")


if __name__ == "__main__":
    main()
