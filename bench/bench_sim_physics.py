"""Simulator physics speed: 100 ms steps per second of CPU.

Loads: one P3-DX (16 sonars) wandering in AMROffice.map, and ten of them. The baseline, measured in
the same run, is one P3-DX wandering in an empty world (no walls to query or hit), so the ratio
shows what walls, collisions and sonar returns cost. Targets: >= 2,000 steps/s for one robot
(aim >= 5,000, the protocol server adds SIP encoding) and >= 200 steps/s for ten.

Run from the project root: ``python bench/bench_sim_physics.py``.
"""

from __future__ import annotations

import time
from pathlib import Path

from saphira.params.robot_params import find_params_file, load_params
from saphira.sim.simulation import Simulation
from saphira.world.world import World, load_world

OFFICE = Path(__file__).resolve().parents[1] / "maps" / "AMROffice.map"
DT = 0.1


def wander(world: World | None, robots: int, steps: int) -> float:
    """Steps per second for ``robots`` P3-DXs driving changing arcs for ``steps`` steps."""
    sim = Simulation(world, seed=1)
    params = load_params(find_params_file("p3dx"))
    fleet = [sim.add_robot(params) for _ in range(robots)]
    for _ in range(20):  # warm up: caches filled, ramps started
        sim.step(DT)
    start = time.perf_counter()
    for i in range(steps):
        if i % 30 == 0:
            for k, robot in enumerate(fleet):
                robot.cmd_vel(600 if (i // 30 + k) % 3 else -300)
                robot.cmd_rvel(25 if (i // 30 + k) % 2 else -40)
        sim.step(DT)
        for robot in fleet:
            robot.take_new_readings()
    return steps / (time.perf_counter() - start)


def main() -> None:
    office = load_world(OFFICE)
    baseline = wander(None, 1, 3000)
    print(f"baseline: 1 robot, empty world      {baseline:9.0f} steps/s")
    for label, robots, steps, target in (("1 robot, AMROffice", 1, 3000, 2000), ("10 robots, AMROffice", 10, 400, 200)):
        rate = wander(office, robots, steps)
        print(
            f"{label:<33} {rate:9.0f} steps/s  ratio {rate / baseline:5.2f}x baseline  "
            f"({rate * robots:7.0f} robot-steps/s; target >= {target} steps/s)"
        )


if __name__ == "__main__":
    main()
