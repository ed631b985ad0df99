"""Wander batched: N robots stepped in one loop of one process, as one Gymnasium vector environment.

:class:`BatchedWanderEnv` holds N robots, each on its own lock-step simulator (a one-robot
:class:`~saphira.learn.fleet.Fleet`, seeded as :class:`~saphira.learn.envs.WanderEnv` seeds its own), and
gives for each exactly what ``WanderEnv`` gives for the same seed and actions, bit for bit. What it saves
is everything between the robots and the batch: no ``gymnasium.Env`` per robot, no wrappers (time limit,
order enforcing, checker), no per-robot observation dicts to concatenate and copy. Actions are scaled,
observations, rewards and ends computed with numpy on whole arrays. What stays per robot is the robot
itself: its client's cycle (the six phases, codec, link) and its simulator's world step and server.

``gymnasium.make_vec("saphira/Wander-v0", num_envs=N, vectorization_mode="vector_entry_point")`` makes it.
Autoreset is Gymnasium 1.x's default, ``NEXT_STEP``: the step after a robot's episode ends resets it (its
action ignored, reward 0). ``reset(seed=s)`` seeds robot *i* with ``s + i``, as ``SyncVectorEnv`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from saphira.core.geometry import Pose
from saphira.learn.envs import (
    CONTACT_REWARD,
    DISCRETE_ACTIONS,
    Obs,
    action_space,
    distance_m,
    random_start,
    robot_spaces,
)
from saphira.learn.fleet import SONAR_MAX_M, Fleet, resolve_params, resolve_world
from saphira.learn.policy import BehaviorSpec, Driver
from saphira.params.laser import laser_config
from saphira.params.robot_params import RobotParams
from saphira.world.world import World

Seeds = int | Sequence[int | None] | None


class BatchedWanderEnv(VectorEnv[Obs, npt.NDArray[Any], npt.NDArray[Any]]):
    """``num_envs`` Wander robots (sonar robots: a laser robot needs ``SyncVectorEnv``) stepped together.

    The keywords are :class:`~saphira.learn.envs.WanderEnv`'s (without rendering), plus
    ``max_episode_steps`` (truncation, as the registered id's time limit; None: never).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (gymnasium's own attribute)

    def __init__(
        self,
        num_envs: int = 1,
        world: str | Path | World | None = None,
        params: str | Path | RobotParams = "p3dx",
        *,
        odometry_error: bool = True,
        discrete: bool = False,
        max_speed: float = 500.0,
        max_turn: float = 60.0,
        end_on_contact: bool = True,
        behaviors: Sequence[BehaviorSpec] = (),
        policy_priority: int | None = None,
        max_episode_steps: int | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        self.num_envs = num_envs
        self.world = resolve_world(world if world is not None else "simple")
        self.params = resolve_params(params)
        if laser_config(self.params) is not None:
            raise ValueError(
                f"{self.params.name}: the batched Wander takes sonar robots; use SyncVectorEnv for a laser"
            )
        self.odometry_error, self.discrete, self.end_on_contact = odometry_error, discrete, end_on_contact
        self.behaviors, self.policy_priority = tuple(behaviors), policy_priority
        self.max_episode_steps = max_episode_steps
        self.single_observation_space: spaces.Space[Any] = spaces.Dict(robot_spaces(self.params))
        self.single_action_space: spaces.Space[Any] = action_space(discrete)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._scale = np.array([max_speed, max_turn])
        self._discrete = np.array(DISCRETE_ACTIONS) * self._scale
        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        self.fleets: list[Fleet | None] = [None] * num_envs
        self._drivers: list[Driver | None] = [None] * num_envs
        n, sonars = num_envs, self.params.sonar_num
        self._ranges = np.zeros((n, sonars), np.float32)
        self._speeds = np.zeros((n, 2))
        self._xy = np.zeros((n, 2))
        self._contacts = np.zeros(n, np.int64)
        self._elapsed = np.zeros(n, np.int64)
        self._autoreset = np.zeros(n, np.bool_)

    def reset(self, *, seed: Seeds = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Every robot a new simulation: robot *i* seeded with ``seed + i`` (or ``seed[i]``); ``options`` as
        ``WanderEnv.reset``'s, for every robot (``{"pose": (x, y, th)}``)."""
        seeds = [None] * self.num_envs if seed is None else seed
        if isinstance(seeds, int):
            seeds = [seeds + i for i in range(self.num_envs)]
        if len(seeds) != self.num_envs:
            raise ValueError(f"{len(seeds)} seeds for {self.num_envs} robots")
        sim_seeds = np.array([self._reset_robot(i, s, options) for i, s in enumerate(seeds)], np.int64)
        self._autoreset[:] = False
        self._read(range(self.num_envs))
        return self._observe(), {"sim_seed": sim_seeds, "_sim_seed": np.ones(self.num_envs, np.bool_)}

    def step(
        self, actions: npt.NDArray[Any]
    ) -> tuple[Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        setpoints = self._setpoints(actions)
        restarting = self._autoreset.copy()
        stepping = ~restarting
        before = self._xy.copy()
        contacts_before = self._contacts.copy()
        sim_seeds = np.zeros(self.num_envs, np.int64)
        moving = np.flatnonzero(stepping)
        for i in np.flatnonzero(restarting):
            sim_seeds[i] = self._reset_robot(int(i), None, None)
        for i in moving:
            driver = self._drivers[i]
            assert driver is not None
            driver.apply(float(setpoints[i, 0]), float(setpoints[i, 1]))
        for i in moving:
            fleet = self.fleets[i]
            assert fleet is not None
            fleet.step()
        self._read(range(self.num_envs))
        moved = self._xy - before
        rewards = np.where(stepping, distance_m(moved[:, 0], moved[:, 1]), 0.0)
        contact = stepping & (self._contacts > contacts_before)
        rewards[contact] += CONTACT_REWARD
        terminated = contact & self.end_on_contact
        self._elapsed[stepping] += 1
        truncated = np.zeros(self.num_envs, np.bool_)
        if self.max_episode_steps is not None:
            truncated = stepping & (self._elapsed >= self.max_episode_steps)
        self._autoreset = terminated | truncated
        infos: dict[str, Any] = {}
        if moving.size:
            infos |= {
                "contact": contact,
                "_contact": stepping,
                "contacts": self._contacts.copy(),
                "_contacts": stepping,
            }
        if restarting.any():
            infos |= {"sim_seed": sim_seeds, "_sim_seed": restarting}
        return self._observe(), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        for fleet in self.fleets:
            if fleet is not None:
                fleet.close()
        self.fleets = [None] * self.num_envs

    # ------------------------------------------------------------------ parts
    def _reset_robot(self, i: int, seed: int | None, options: dict[str, Any] | None) -> int:
        """Robot ``i``'s new simulation, drawn as ``WanderEnv.reset`` draws it; its seed for the simulator."""
        rng = self._rngs[i]
        if seed is not None or rng is None:
            rng = self._rngs[i] = seeding.np_random(seed)[0]
        sim_seed = int(rng.integers(2**31))
        pose = (options or {}).get("pose") or random_start(self.world, self.params, rng)
        old = self.fleets[i]
        if old is not None:
            old.close()
        fleet = self.fleets[i] = Fleet(self.world, self.params, [Pose(*pose)], seed=sim_seed,
                                       odometry_error=self.odometry_error)  # fmt: skip
        self._drivers[i] = Driver(fleet.agents[0].robot, self.behaviors, self.policy_priority)
        self._elapsed[i] = 0
        return sim_seed

    def _setpoints(self, actions: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Every robot's (mm/s, deg/s) from the batch of actions."""
        if self.discrete:
            chosen: npt.NDArray[np.float64] = self._discrete[np.asarray(actions, np.int64).reshape(self.num_envs)]
            return chosen
        fractions = np.clip(np.asarray(actions, np.float64).reshape(self.num_envs, 2), -1.0, 1.0)
        scaled: npt.NDArray[np.float64] = fractions * self._scale
        return scaled

    def _read(self, robots: range) -> None:
        """What each robot's client and simulator say now, into the batch's arrays (the only per-robot reads)."""
        for i in robots:
            fleet = self.fleets[i]
            assert fleet is not None
            agent = fleet.agents[0]
            self._ranges[i] = [bucket.range for bucket in agent.robot.sonar.buckets]
            state = agent.robot.state
            self._speeds[i] = (state.vel, state.rvel)
            body = agent.body
            self._xy[i] = (body.x, body.y)
            self._contacts[i] = agent.contacts

    def _observe(self) -> Obs:
        sonar = np.minimum(self._ranges / np.float32(1000.0), np.float32(SONAR_MAX_M))
        velocity = np.stack([self._speeds[:, 0] / 1000.0, np.radians(self._speeds[:, 1])], axis=1).astype(np.float32)
        return {"sonar": sonar, "velocity": velocity}
