"""Learning environments' steps per second against the simulator's, measured in the same run.

Baselines: ``world`` is the simulation's physics alone (``Simulation.step``: one robot driving, sonar,
no protocol); ``robot+sim`` is a client :class:`~saphira.robot.Robot` in lock-step with the embedded
simulator and its server (``attach_simulator`` then ``robot.run``: codec, link, the six phases), the least
an environment step that goes through the real client can cost. Then ``Wander-v0`` stepped alone, and 8 of
them in Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv``, and 8 in the batched form
(:class:`~saphira.learn.batched.BatchedWanderEnv`; steps counted per robot). Every robot drives
in a circle without ending its episode, so no reset is timed. Prints steps/s and the ratios; the issue's
target is one environment at 3,000 steps/s or more. Run from the project root:
``python bench/bench_learn.py [--steps N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from saphira.learn.batched import BatchedWanderEnv
from saphira.learn.envs import WanderEnv
from saphira.params.robot_params import params_for_file
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.sim.simulation import Simulation
from saphira.world.world import load_world

ACTION = np.array([0.5, 0.3], np.float32)
"""A circle of about 1.6 m radius: the robot keeps moving and its sonar keeps changing."""
VECTOR = 8


def rate(run: Callable[[int], None], steps: int) -> float:
    """Steps per second of ``run(steps)``, the best of three."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run(steps)
        best = min(best, time.perf_counter() - start)
    return steps / best


def world_steps(steps: int) -> None:
    simulation = Simulation(load_world("room"), 0)
    robot = simulation.add_robot(params_for_file("p3dx"), (3000.0, 1500.0, 0.0))
    robot.cmd_vel(250)
    robot.cmd_rvel(18)
    for _ in range(steps):
        simulation.step(0.1)


def robot_sim_steps(steps: int) -> None:
    robot = Robot()
    attach_simulator(robot, "room", pose=(3000.0, 1500.0, 0.0))
    robot.motion.set_velocity(250)
    robot.motion.set_rvelocity(18)
    robot.run(cycles=steps)


def env_steps(steps: int) -> None:
    env = WanderEnv(world="room", end_on_contact=False)
    env.reset(seed=0, options={"pose": (3000.0, 1500.0, 0.0)})
    for _ in range(steps):
        env.step(ACTION)


def vector_rate(vector: str, steps: int) -> float:
    """Robot steps per second of :data:`VECTOR` robots, ``vector`` being ``sync``, ``async`` or ``batched``
    (made and reset before the clock starts)."""
    envs: gym.vector.VectorEnv[Any, Any, Any]
    if vector == "batched":
        envs = BatchedWanderEnv(VECTOR, world="room", end_on_contact=False)
    else:
        kind = gym.vector.SyncVectorEnv if vector == "sync" else gym.vector.AsyncVectorEnv
        envs = kind([lambda: WanderEnv(world="room", end_on_contact=False) for _ in range(VECTOR)])
    envs.reset(seed=0, options={"pose": (3000.0, 1500.0, 0.0)})
    actions = np.tile(ACTION, (VECTOR, 1))

    def run(robot_steps: int) -> None:
        for _ in range(robot_steps // VECTOR):
            envs.step(actions)

    try:
        return rate(run, steps)
    finally:
        envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="steps per measurement (default 3000)")
    steps = parser.parse_args().steps
    rates = {
        "world": rate(world_steps, steps),
        "robot+sim": rate(robot_sim_steps, steps),
        "env": rate(env_steps, steps),
        f"{VECTOR} sync": vector_rate("sync", steps),
        f"{VECTOR} async": vector_rate("async", steps),
        f"{VECTOR} batched": vector_rate("batched", steps),
    }
    for name, value in rates.items():
        print(f"{name:>10}: {value:8.0f} steps/s")
    print(
        f"env / robot+sim: {rates['env'] / rates['robot+sim']:.2f}   env / world: {rates['env'] / rates['world']:.3f}"
    )
    print(f"{VECTOR} sync / env: {rates[f'{VECTOR} sync'] / rates['env']:.2f}   "
          f"{VECTOR} async / env: {rates[f'{VECTOR} async'] / rates['env']:.2f}   "
          f"{VECTOR} batched / env: {rates[f'{VECTOR} batched'] / rates['env']:.2f}   "
          f"{VECTOR} batched / {VECTOR} sync: {rates[f'{VECTOR} batched'] / rates[f'{VECTOR} sync']:.2f}")  # fmt: skip
    print(f"one env: {rates['env']:.0f} steps/s (target >= 3000)")


if __name__ == "__main__":
    main()
