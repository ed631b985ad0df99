"""The Gymnasium environments over the lock-step simulator (saphira.learn): Gymnasium's own checker, the
registered ids, reproducibility to the bit, the vector API, and the policy beside hand-written behaviors."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import saphira.learn  # noqa: F401  (registers the saphira/ ids)
from saphira.learn.envs import FollowCorridorEnv, GoToEnv, RobotEnv, WanderEnv
from tests.sim_process import PROJECT

IDS = ["saphira/Wander-v0", "saphira/GoTo-v0", "saphira/FollowCorridor-v0", "saphira/WanderDiscrete-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_passes_gymnasiums_env_checker(env_id: str) -> None:
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_make_imports_the_package_by_its_module_prefix_in_a_fresh_interpreter() -> None:
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('saphira.learn:saphira/Wander-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(sorted(obs), env.spec.max_episode_steps, env.unwrapped.params.sonar_num)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['sonar',", "'velocity']", "1000", "16"]


def rollout(env: RobotEnv, seed: int, steps: int) -> list[np.ndarray]:
    """Observations of ``steps`` steps with actions drawn from a generator seeded by ``seed``."""
    actions = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = [np.concatenate([obs[k] for k in sorted(obs)])]
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(actions.uniform(-1, 1, 2).astype(np.float32))
        seen.append(np.concatenate([obs[k] for k in sorted(obs)]))
        if terminated or truncated:
            obs, _ = env.reset()
    return seen


def test_the_same_seed_gives_the_same_observations_for_1000_steps() -> None:
    first = rollout(WanderEnv(), 7, 1000)
    again = rollout(WanderEnv(), 7, 1000)
    other = rollout(WanderEnv(), 8, 1000)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    assert np.ptp(np.stack(first)[:, :16]) > 1.0, "the sonar saw the robot move"


def test_wander_rewards_distance_and_ends_on_contact() -> None:
    env = WanderEnv(world="room", odometry_error=False)
    env.reset(seed=0, options={"pose": (1500.0, 3000.0, 0.0)})  # the 6 m room's east wall lies ahead
    total, steps, info = 0.0, 0, dict[str, object]()
    terminated = False
    while not terminated and steps < 400:
        _, reward, terminated, _, info = env.step(np.array([1.0, 0.0], np.float32))
        total += reward
        steps += 1
    assert terminated and info["contact"], "driving straight ahead meets the wall"
    travelled = (env.agent.true_pose.x - 1500.0) / 1000.0
    assert travelled > 4.0
    assert total == pytest.approx(travelled - 1.0, abs=0.01)


def test_goto_reaches_a_goal_straight_ahead() -> None:
    env = GoToEnv(world="room", odometry_error=False)
    obs, _ = env.reset(seed=0, options={"pose": (1000.0, 3000.0, 0.0), "goal": (2500.0, 3000.0)})
    assert obs["goal"] == pytest.approx([1.5, 0.0, 1.0], abs=1e-3)
    for _ in range(100):
        obs, reward, terminated, _, _ = env.step(np.array([0.6, 0.0], np.float32))
        if terminated:
            break
    assert terminated and reward > GoToEnv.ARRIVAL_REWARD
    assert abs(env.agent.true_pose.x - 2500.0) <= env.goal_radius


def test_follow_corridor_rewards_progress_along_the_axis() -> None:
    env = FollowCorridorEnv(odometry_error=False)
    for heading, sign in ((0.0, 1.0), (180.0, -1.0)):
        obs, _ = env.reset(seed=0, options={"pose": (8000.0, 6000.0, heading)})
        assert obs["corridor"] == pytest.approx([0.0, 0.0, 1.0], abs=1e-3), "on the centre line, along it"
        total = sum(env.step(np.array([1.0, 0.0], np.float32))[1] for _ in range(30))
        assert total == pytest.approx(sign * (env.agent.true_pose.x - 8000.0) / 1000.0, abs=0.02)
        assert total > 1.0


def test_a_laser_robot_observes_its_scan_in_metres() -> None:
    env = WanderEnv(world="room", params="p3dx-laser", odometry_error=False)
    obs, _ = env.reset(seed=0, options={"pose": (1500.0, 3000.0, 0.0)})
    for _ in range(5):
        obs, *_ = env.step(np.zeros(2, np.float32))
    assert obs["laser"].shape == (181,)
    assert env.observation_space.contains(obs)
    assert obs["laser"][90] == pytest.approx(4.5, abs=0.1), "the east wall, 4.5 m ahead of the laser"


def test_the_policy_is_one_behavior_of_the_blend_below_avoid_collision() -> None:
    """Driving flat out at a wall ends in contact alone, but not beside a higher-priority avoid_collision."""

    def contacts(**kwargs: object) -> int:
        env = WanderEnv(world="room", odometry_error=False, end_on_contact=False, **kwargs)  # type: ignore[arg-type]
        env.reset(seed=0, options={"pose": (1500.0, 3000.0, 0.0)})
        for _ in range(300):
            env.step(np.array([0.6, 0.0], np.float32))
        return env.agent.contacts

    assert contacts() > 0
    assert contacts(behaviors=[("avoid_collision", 0)], policy_priority=1) == 0
    assert contacts(behaviors=[("avoid_collision", 2)], policy_priority=1) > 0, "below the policy it cannot steer"


def test_rgb_array_renders_the_plot_of_the_episode() -> None:
    env = gym.make("saphira/Wander-v0", render_mode="rgb_array")
    env.reset(seed=0)
    for _ in range(10):
        env.step(np.array([0.5, 0.2], np.float32))
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10, "walls, path and legend drawn"


def test_sync_and_async_vector_envs_step_independent_robots() -> None:
    for vector in (gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv):
        envs = vector([lambda: gym.make("saphira/Wander-v0") for _ in range(2)])
        obs, _ = envs.reset(seed=[1, 2])
        assert obs["sonar"].shape == (2, 16)
        for _ in range(5):
            obs, rewards, *_ = envs.step(np.full((2, 2), 0.5, np.float32))
        assert rewards.shape == (2,)
        assert not np.array_equal(obs["sonar"][0], obs["sonar"][1])
        envs.close()


def test_human_mode_serves_the_live_view_on_loopback_at_the_robots_pace() -> None:
    env = WanderEnv(world="room", render_mode="human")
    env.human.say = lambda line: None  # type: ignore[union-attr]
    env.reset(seed=0)
    assert env.human is not None and env.human.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(env.human.url, timeout=60) as page:
        assert page.status == 200 and "<html" in page.read().decode()
    first = env.human.url
    start = time.monotonic()
    for _ in range(5):
        env.step(np.array([0.3, 0.0], np.float32))
    assert time.monotonic() - start >= 0.4, "each step waits out the robot's 100 ms cycle"
    env.reset(seed=1)  # a new episode, a new view; the last one stopped
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(first, timeout=60)
    env.close()
