"""Several robots wandering in one world: a PettingZoo parallel environment (``multi_wander_v0``).

Imported as PettingZoo's own environments are::

    from saphira.learn import multi_wander_v0
    env = multi_wander_v0.parallel_env(robots=3)

Each robot (``robot_0`` …) is an agent with Wander's observation (sonar in metres, velocities) and action
(``[vel, rvel]`` in [-1, 1]). All share one lock-step :class:`~saphira.learn.fleet.Fleet`: a step is one
100 ms cycle of every robot, then one world step, so the robots see and can hit each other. An agent's
reward is the distance it covered (m); a contact with a wall or another robot costs
:data:`~saphira.learn.envs.CONTACT_REWARD` and ends that agent, whose robot stops and stays in the world
as an obstacle. Every agent is truncated after ``max_cycles`` steps.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec
from pettingzoo.utils.env import AECEnv

from saphira.core.geometry import Pose
from saphira.learn.envs import CONTACT_REWARD
from saphira.learn.fleet import SONAR_MAX_M, Agent, Fleet, free_pose, resolve_params, resolve_world
from saphira.learn.render import frame
from saphira.params.robot_params import RobotParams
from saphira.world.world import World

Obs = dict[str, np.ndarray]

PLACEMENT_GAP = 200.0
"""Least space (mm) between the bodies of two robots at the start."""


class MultiWanderEnv(ParallelEnv[str, Obs, np.ndarray]):  # type: ignore[misc]  # pettingzoo has no type marker
    """``robots`` robots of ``params`` wandering in ``world`` (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "name": "multi_wander_v0", "render_fps": 10}  # noqa: RUF012

    def __init__(
        self,
        robots: int = 3,
        world: str | Path | World = "room",
        params: str | Path | RobotParams = "p3dx",
        *,
        odometry_error: bool = True,
        max_speed: float = 500.0,
        max_turn: float = 60.0,
        max_cycles: int = 1000,
        render_mode: str | None = None,
    ) -> None:
        if robots < 1:
            raise ValueError(f"robots must be at least 1, not {robots}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.world = resolve_world(world)
        self.params = resolve_params(params)
        self.odometry_error = odometry_error
        self.max_speed, self.max_turn, self.max_cycles = max_speed, max_turn, max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"robot_{k}" for k in range(robots)]
        self.agents: list[str] = []
        observation = spaces.Dict(
            {
                "sonar": spaces.Box(0.0, SONAR_MAX_M, (self.params.sonar_num,), np.float32),
                "velocity": spaces.Box(-10.0, 10.0, (2,), np.float32),
            }
        )
        self.observation_spaces = {name: observation for name in self.possible_agents}
        self.action_spaces = {name: spaces.Box(-1.0, 1.0, (2,), np.float32) for name in self.possible_agents}
        self.fleet: Fleet | None = None
        self._rng = np.random.default_rng()
        self._by_name: dict[str, Agent] = {}
        self._contacts: dict[str, int] = {}
        self._cycles = 0
        self._paths: dict[str, list[Pose]] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """A new simulation, seeded from the environment's generator (reseeded by ``seed``), the robots placed
        apart at random, or at ``options["poses"]`` (one (x, y, th) per robot)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self.fleet is not None:
            self.fleet.close()
        poses = (options or {}).get("poses") or self._places()
        sim_seed = int(self._rng.integers(2**31))
        self.fleet = Fleet(self.world, self.params, [Pose(*p) for p in poses], seed=sim_seed,
                           odometry_error=self.odometry_error)  # fmt: skip
        self.agents = list(self.possible_agents)
        self._by_name = dict(zip(self.agents, self.fleet.agents, strict=True))
        self._contacts = {name: agent.contacts for name, agent in self._by_name.items()}
        self._cycles = 0
        self._paths = {name: [] for name in self.agents}
        self._remember()
        return {name: self._observe(name) for name in self.agents}, {
            name: {"sim_seed": sim_seed} for name in self.agents
        }

    def _places(self) -> list[Pose]:
        """A free place for every robot, each at least :data:`PLACEMENT_GAP` clear of the others."""
        radius = self.params.robot_radius
        places: list[Pose] = []
        while len(places) < len(self.possible_agents):
            x, y = free_pose(self.world, radius + 100.0, self._rng)
            if all(math.hypot(x - px, y - py) >= 2 * radius + PLACEMENT_GAP for px, py, _ in places):
                places.append(Pose(x, y, float(self._rng.uniform(-180.0, 180.0))))
        return places

    def step(
        self, actions: dict[str, np.ndarray]
    ) -> tuple[dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if self.fleet is None:
            raise RuntimeError("call reset() before step()")
        before = {name: self._by_name[name].true_pose for name in self.agents}
        for name in self.agents:
            a = np.clip(np.asarray(actions[name], dtype=np.float64).reshape(2), -1.0, 1.0)
            motion = self._by_name[name].robot.motion
            motion.set_velocity(float(a[0]) * self.max_speed)
            motion.set_rvelocity(float(a[1]) * self.max_turn)
        self.fleet.step()
        self._cycles += 1
        self._remember()
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        for name in self.agents:
            agent = self._by_name[name]
            now, was = agent.true_pose, before[name]
            contact = agent.contacts > self._contacts[name]
            self._contacts[name] = agent.contacts
            rewards[name] = math.hypot(now.x - was.x, now.y - was.y) / 1000.0 + (CONTACT_REWARD if contact else 0.0)
            terminations[name] = contact
            truncations[name] = self._cycles >= self.max_cycles
            infos[name] = {"contact": contact, "contacts": agent.contacts}
        observations = {name: self._observe(name) for name in self.agents}
        for name in self.agents:
            if terminations[name]:
                self._by_name[name].robot.motion.halt()  # it stays in the world, stopped
        self.agents = [name for name in self.agents if not (terminations[name] or truncations[name])]
        return observations, rewards, terminations, truncations, infos

    def _observe(self, name: str) -> Obs:
        agent = self._by_name[name]
        return {"sonar": agent.sonar_m(), "velocity": agent.velocities()}

    def _remember(self) -> None:
        if self.render_mode is None:
            return
        for name, agent in self._by_name.items():
            self._paths[name].append(agent.true_pose)

    def render(self) -> np.ndarray | None:
        """Every robot's path so far over the world: the first robot's as a run's path, the others' in grey."""
        if self.render_mode != "rgb_array" or not self._paths:
            return None
        first, *others = self._paths.values()
        return frame(self.world, first, (), others=others, radius=self.params.robot_radius, title="multi_wander_v0")

    def close(self) -> None:
        if self.fleet is not None:
            self.fleet.close()
            self.fleet = None


def parallel_env(**kwargs: Any) -> MultiWanderEnv:
    """The parallel environment (keyword arguments as :class:`MultiWanderEnv`)."""
    return MultiWanderEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The same environment in PettingZoo's turn-by-turn (AEC) form."""
    return parallel_to_aec(parallel_env(**kwargs))
