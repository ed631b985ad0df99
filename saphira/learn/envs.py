"""Gymnasium environments over the lock-step simulator: ``Wander``, ``GoTo`` and ``FollowCorridor``.

Each step is one 100 ms cycle of the robot (:class:`~saphira.learn.fleet.Fleet`). The observation is a
``Dict``: ``sonar`` (every sonar's range, m), ``laser`` (the scan's ranges, m; only for a robot whose
parameter file declares a laser, e.g. ``p3dx-laser``), ``velocity`` (m/s, rad/s) and what the task adds.
The action is ``[vel, rvel]`` in [-1, 1], scaled by ``max_speed`` (mm/s) and ``max_turn`` (deg/s), or with
``discrete=True`` one of :data:`DISCRETE_ACTIONS`. Every episode ends on a contact with a wall (reward
:data:`CONTACT_REWARD`) unless ``end_on_contact=False``; the registered ids truncate after 1,000 steps.

``reset(seed=…)`` makes a new simulation seeded from the environment's generator, so the same seed and the
same actions give the same observations bit for bit. ``behaviors`` (predefined behavior names, with
priorities and parameters) run beside the policy; with ``policy_priority`` the action is one behavior of
the blend (:mod:`saphira.learn.policy`), otherwise it sets the motion directly. ``render_mode="rgb_array"``
draws the run plot's figure; ``"human"`` serves the live view on loopback, paced to the cycle
(:mod:`saphira.learn.human`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from saphira.core.geometry import Pose
from saphira.learn.fleet import SONAR_MAX_M, Agent, Fleet, free_pose, resolve_params, resolve_world
from saphira.learn.human import HumanView
from saphira.learn.policy import BehaviorSpec, Driver
from saphira.learn.render import frame
from saphira.params.laser import laser_config
from saphira.params.robot_params import RobotParams
from saphira.world.world import World

Obs = dict[str, np.ndarray]
Action = np.ndarray | int
FloatOrArray = TypeVar("FloatOrArray", float, np.ndarray)

CONTACT_REWARD = -1.0
"""The reward of the step in which the robot's body meets a wall or another robot."""
DISCRETE_ACTIONS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),  # stop
    (1.0, 0.0),  # ahead
    (0.5, 1.0),  # ahead, turning left
    (0.5, -1.0),  # ahead, turning right
    (0.0, 1.0),  # turn left on the spot
    (0.0, -1.0),  # turn right on the spot
)
"""The discrete actions as fractions of (``max_speed``, ``max_turn``)."""


def robot_spaces(params: RobotParams) -> dict[str, spaces.Space[Any]]:
    """What every environment observes of a robot: its sonar, its velocities and its laser (if it has one)."""
    observed: dict[str, spaces.Space[Any]] = {
        "sonar": spaces.Box(0.0, SONAR_MAX_M, (params.sonar_num,), np.float32),
        "velocity": spaces.Box(-10.0, 10.0, (2,), np.float32),
    }
    laser = laser_config(params)
    if laser is not None:
        observed["laser"] = spaces.Box(0.0, laser.max_range / 1000.0, (laser.count,), np.float32)
    return observed


def action_space(discrete: bool) -> spaces.Space[Any]:
    """``[vel, rvel]`` in [-1, 1], or one of :data:`DISCRETE_ACTIONS`."""
    return spaces.Discrete(len(DISCRETE_ACTIONS)) if discrete else spaces.Box(-1.0, 1.0, (2,), np.float32)


def random_start(world: World, params: RobotParams, rng: np.random.Generator) -> Pose:
    """A start pose (mm, mm, deg) anywhere free in ``world``, facing anywhere."""
    x, y = free_pose(world, params.robot_radius + 100.0, rng)
    return Pose(x, y, float(rng.uniform(-180.0, 180.0)))


def distance_m(dx: FloatOrArray, dy: FloatOrArray) -> FloatOrArray:
    """The distance (m) of a move of ``dx``, ``dy`` mm: Wander's reward, for one robot or a batch.

    One numpy function for both, so the batched form's rewards are the single environment's to the bit
    (``math.hypot`` and ``np.hypot`` round differently in the last place).
    """
    metres: FloatOrArray = np.hypot(dx, dy) / 1000.0
    return metres


class RobotEnv(gym.Env[Obs, Action]):
    """One simulated robot in a world; subclasses say where it starts, what it is told and how it is rewarded."""

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 10}  # noqa: RUF012 (gymnasium's own attribute)
    default_world: ClassVar[str] = "simple"

    def __init__(
        self,
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
        render_mode: str | None = None,
        ui_port: int = 0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.world = resolve_world(world if world is not None else self.default_world)
        self.params = resolve_params(params)
        self.odometry_error = odometry_error
        self.discrete = discrete
        self.max_speed, self.max_turn = max_speed, max_turn
        self.end_on_contact = end_on_contact
        self.behaviors = tuple(behaviors)
        self.policy_priority = policy_priority
        self.render_mode = render_mode
        self.human = HumanView(ui_port) if render_mode == "human" else None
        self.observation_space: spaces.Space[Any] = spaces.Dict(robot_spaces(self.params) | self._task_spaces())
        self.action_space: spaces.Space[Any] = action_space(discrete)
        self.fleet: Fleet | None = None
        self.driver: Driver | None = None
        self._trajectory: list[Pose] = []
        self._estimate: list[Pose] = []
        self._contacts = 0

    # ------------------------------------------------------------------ what a task says
    def _task_spaces(self) -> dict[str, spaces.Space[Any]]:
        return {}

    def _task_obs(self, agent: Agent) -> Obs:
        return {}

    def _start(self, rng: np.random.Generator) -> Pose:
        """The start pose (mm, mm, deg): by default anywhere free, facing anywhere."""
        return random_start(self.world, self.params, rng)

    def _reward(self, agent: Agent, before: Pose) -> tuple[float, bool]:
        """This step's reward and whether the task is done, the robot having moved from ``before``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ gymnasium
    @property
    def agent(self) -> Agent:
        if self.fleet is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        return self.fleet.agents[0]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """A new simulation seeded from the environment's generator; ``options={"pose": (x, y, th)}`` sets the start."""
        super().reset(seed=seed)
        if self.fleet is not None:
            self.fleet.close()
        sim_seed = int(self.np_random.integers(2**31))
        pose = (options or {}).get("pose") or self._start(self.np_random)
        self.fleet = Fleet(self.world, self.params, [Pose(*pose)], seed=sim_seed, odometry_error=self.odometry_error)
        self.driver = Driver(self.agent.robot, self.behaviors, self.policy_priority)
        self._contacts = self.agent.contacts
        self._trajectory, self._estimate = [], []
        self._remember()
        if self.human is not None:
            self.human.show(self.fleet)
        return self._observe(), {"sim_seed": sim_seed}

    def step(self, action: Action) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        agent, fleet, driver = self.agent, self.fleet, self.driver
        assert fleet is not None and driver is not None
        vel, rvel = self._scale(action)
        before = agent.true_pose
        driver.apply(vel, rvel)
        fleet.step()
        self._remember()
        reward, done = self._reward(agent, before)
        contact = agent.contacts > self._contacts
        self._contacts = agent.contacts
        if contact:
            reward += CONTACT_REWARD
            done = done or self.end_on_contact
        if self.human is not None:
            self.human.frame(agent.robot.clock.period)
        return self._observe(), reward, done, False, {"contact": contact, "contacts": agent.contacts}

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        return frame(self.world, self._trajectory, self._estimate, radius=self.params.robot_radius,
                     title=type(self).__name__, goal=self._goal_drawn())  # fmt: skip

    def close(self) -> None:
        if self.human is not None:
            self.human.close()
        if self.fleet is not None:
            self.fleet.close()
            self.fleet = None

    # ------------------------------------------------------------------ parts
    def _goal_drawn(self) -> tuple[float, float] | None:
        return None

    def _scale(self, action: Action) -> tuple[float, float]:
        if self.discrete:
            fv, fr = DISCRETE_ACTIONS[int(action)]
        else:
            a = np.clip(np.asarray(action, dtype=np.float64).reshape(2), -1.0, 1.0)
            fv, fr = float(a[0]), float(a[1])
        return fv * self.max_speed, fr * self.max_turn

    def _observe(self) -> Obs:
        agent = self.agent
        obs: Obs = {"sonar": agent.sonar_m(), "velocity": agent.velocities()}
        if agent.laser is not None:
            obs["laser"] = agent.laser_m()
        obs.update(self._task_obs(agent))
        return obs

    def _remember(self) -> None:
        if self.render_mode is None:
            return
        true, believed = self.agent.true_pose, self.agent.believed_pose()
        self._trajectory.append(true)
        self._estimate.append(believed)


class WanderEnv(RobotEnv):
    """Wander: the reward is the distance covered (m, true pose) in steps without contact."""

    def _reward(self, agent: Agent, before: Pose) -> tuple[float, bool]:
        now = agent.true_pose
        return float(distance_m(now.x - before.x, now.y - before.y)), False


class GoToEnv(RobotEnv):
    """Go to a goal position in a map world; the goal (distance m, bearing's sine and cosine, from where the
    robot believes it is) is in the observation. Reward: progress towards the goal (m), plus
    :data:`ARRIVAL_REWARD` and the episode's end within ``goal_radius`` mm."""

    ARRIVAL_REWARD: ClassVar[float] = 10.0
    default_world: ClassVar[str] = "AMROffice"

    def __init__(self, *args: Any, goal_radius: float = 300.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.goal_radius = goal_radius
        self.goal = (0.0, 0.0)

    def _task_spaces(self) -> dict[str, spaces.Space[Any]]:
        low, high = np.array([0.0, -1.0, -1.0], np.float32), np.array([1000.0, 1.0, 1.0], np.float32)
        return {"goal": spaces.Box(low, high, dtype=np.float32)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        if seed is not None:
            gym.Env.reset(self, seed=seed)
        given = (options or {}).get("goal")
        self.goal = tuple(given) if given else free_pose(self.world, self.params.robot_radius + 100.0, self.np_random)
        return super().reset(options=options)

    def _task_obs(self, agent: Agent) -> Obs:
        pose = agent.believed_pose()
        dx, dy = self.goal[0] - pose.x, self.goal[1] - pose.y
        bearing = math.atan2(dy, dx) - math.radians(pose.th)
        distance = min(math.hypot(dx, dy) / 1000.0, 1000.0)
        return {"goal": np.array([distance, math.sin(bearing), math.cos(bearing)], dtype=np.float32)}

    def _reward(self, agent: Agent, before: Pose) -> tuple[float, bool]:
        now = agent.true_pose
        was = math.hypot(self.goal[0] - before.x, self.goal[1] - before.y)
        left = math.hypot(self.goal[0] - now.x, self.goal[1] - now.y)
        arrived = left <= self.goal_radius
        return (was - left) / 1000.0 + (self.ARRIVAL_REWARD if arrived else 0.0), arrived

    def _goal_drawn(self) -> tuple[float, float] | None:
        return self.goal


class FollowCorridorEnv(RobotEnv):
    """Follow a corridor: the reward is the progress along its axis in the start's direction (m), less
    ``offset_cost`` per metre off the centre line each step. ``corridor`` is the centre line (x0, y0, x1,
    y1, mm) and ``corridor_width`` its width; the defaults are the bundled ``corridor`` world's. The robot
    starts on the centre line, facing along it either way, its heading off by up to 20 degrees."""

    default_world: ClassVar[str] = "corridor"

    def __init__(
        self,
        *args: Any,
        corridor: tuple[float, float, float, float] = (2500.0, 6000.0, 21500.0, 6000.0),
        corridor_width: float = 2000.0,
        offset_cost: float = 0.01,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.corridor = corridor
        self.corridor_width = corridor_width
        self.offset_cost = offset_cost
        x0, y0, x1, y1 = corridor
        length = math.hypot(x1 - x0, y1 - y0)
        self._axis = ((x1 - x0) / length, (y1 - y0) / length)
        self._direction = 1.0

    def _task_spaces(self) -> dict[str, spaces.Space[Any]]:
        return {"corridor": spaces.Box(-1000.0, 1000.0, (3,), np.float32)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """As :meth:`RobotEnv.reset`; a given start pose follows the corridor the way it faces."""
        pose = (options or {}).get("pose")
        if pose is not None:
            facing = math.radians(pose[2]) - math.atan2(self._axis[1], self._axis[0])
            self._direction = 1.0 if math.cos(facing) >= 0.0 else -1.0
        return super().reset(seed=seed, options=options)

    def _start(self, rng: np.random.Generator) -> Pose:
        x0, y0, x1, y1 = self.corridor
        t = float(rng.uniform(0.2, 0.8))
        self._direction = 1.0 if rng.uniform() < 0.5 else -1.0
        heading = math.degrees(math.atan2(self._axis[1], self._axis[0])) + (0.0 if self._direction > 0 else 180.0)
        return Pose(x0 + t * (x1 - x0), y0 + t * (y1 - y0), heading + float(rng.uniform(-20.0, 20.0)))

    def _offset(self, x: float, y: float) -> float:
        """Signed distance (mm) from the centre line, left of the axis positive."""
        x0, y0 = self.corridor[0], self.corridor[1]
        return -(x - x0) * self._axis[1] + (y - y0) * self._axis[0]

    def _task_obs(self, agent: Agent) -> Obs:
        """The centre line as the robot believes it sees it: lateral offset (m), heading error's sine and cosine."""
        pose = agent.believed_pose()
        along = math.atan2(self._axis[1], self._axis[0]) + (0.0 if self._direction > 0 else math.pi)
        error = math.radians(pose.th) - along
        offset = self._direction * self._offset(pose.x, pose.y) / 1000.0
        return {"corridor": np.array([offset, math.sin(error), math.cos(error)], dtype=np.float32)}

    def _reward(self, agent: Agent, before: Pose) -> tuple[float, bool]:
        now = agent.true_pose
        progress = ((now.x - before.x) * self._axis[0] + (now.y - before.y) * self._axis[1]) * self._direction
        return progress / 1000.0 - self.offset_cost * abs(self._offset(now.x, now.y)) / 1000.0, False
