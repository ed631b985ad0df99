"""Behavior quality: the manual's demo stack keeps moving in AMROffice without touching a wall.

The stack is demo.act's (docs/colbert.md §9, manual Listings 6.5-6.7): sfAvoidCollision(1.0, 1.0, 8.0,
300.0) at priority 0, sfKeepOff(100.0, 0.25) at 1, sfConstantVelocity(300) at 2 and sfStop at 3,
preferred turn left. Over 10 simulated minutes it must average at least 150 mm/s of odometric speed
(the distance the robot's own odometry reports, over the time) with no wall contact and no stall, from
the map's home pose over several simulator seeds (each seed changes the sonar noise and odometry error,
so the runs diverge); tests/test_behaviors.py's 30-minute runs check the same from rooms and corridors
of the office. Lock-step, one run per test so ``pytest -n 4`` spreads them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from saphira.behavior.behavior import TurnDir
from saphira.behavior.library import find_behavior
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator

AMR_OFFICE = Path(__file__).resolve().parents[1] / "maps" / "AMROffice.map"
HOME = None  # the map's own start: its Dock cairn, (-2822, -2937) facing -91.9 degrees
RUNS = [
    (HOME, 0),
    (HOME, 1),
    (HOME, 2),
]
"""From the map's home pose here; the starts in rooms and corridors are tests/test_behaviors.py's 30-minute
wanders, which check this average over their first 10 minutes."""
MINUTES = 10.0


def run_id(pose: tuple[float, float, float] | None, seed: int) -> str:
    where = "home" if pose is None else ",".join(f"{v:g}" for v in pose)
    return f"{where} seed {seed}"


@pytest.mark.slow
@pytest.mark.parametrize(("pose", "seed"), RUNS, ids=[run_id(p, s) for p, s in RUNS])
def test_the_demo_stack_averages_150_mm_s_for_10_minutes_without_a_contact(
    pose: tuple[float, float, float] | None, seed: int
) -> None:
    robot = Robot()
    sim = attach_simulator(robot, AMR_OFFICE, "p3dx", seed=seed, pose=pose)
    robot.executive.preferred_turn_dir = TurnDir.LEFT
    robot.start_behavior(find_behavior("avoid_collision"), 1.0, 1.0, 8.0, 300.0, priority=0)
    robot.start_behavior(find_behavior("keep_off"), 100.0, 0.25, priority=1)
    robot.start_behavior(find_behavior("constant_velocity"), 300.0, priority=2)
    robot.start_behavior(find_behavior("stop"), priority=3)
    cycles = robot.clock.cycles_for(MINUTES * 60.0)
    odometric = 0.0
    x, y = robot.state.ax, robot.state.ay
    stalled_cycles = 0
    for _ in range(cycles):
        robot.step()
        odometric += math.hypot(robot.state.ax - x, robot.state.ay - y)
        x, y = robot.state.ax, robot.state.ay
        stalled_cycles += sim.sim_robot.stalled
    assert sim.wall_contacts == 0 and stalled_cycles == 0
    assert odometric / (cycles * robot.clock.period) >= 150.0
