"""The PettingZoo parallel environment: several robots in one lock-step world (saphira.learn.multi_wander_v0)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from saphira.learn import multi_wander_v0


def test_passes_pettingzoos_parallel_api_test() -> None:
    parallel_api_test(multi_wander_v0.parallel_env(), num_cycles=200)


def test_the_same_seed_gives_the_same_run() -> None:
    parallel_seed_test(lambda: multi_wander_v0.parallel_env(robots=2), num_cycles=100)


def run(seed: int) -> list[np.ndarray]:
    """Every agent's observations and rewards until all have ended (150 steps at most), actions seeded too."""
    env = multi_wander_v0.parallel_env(robots=3)
    actions = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = []
    for _ in range(150):
        if not env.agents:
            break
        obs, rewards, *_ = env.step({name: actions.uniform(-1, 1, 2).astype(np.float32) for name in env.agents})
        seen += [np.concatenate([obs[n]["sonar"], obs[n]["velocity"], [rewards[n]]]) for n in sorted(obs)]
    return seen


def test_the_same_seed_gives_the_same_observations_to_the_last_step() -> None:
    """(PettingZoo's seed test stops at its first step: its ``any(terminations)`` asks whether the dict has keys.)"""
    first, again, other = run(3), run(3), run(4)
    assert len(first) > 30
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert len(first) != len(other) or not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_robots_meeting_head_on_both_count_the_contact_and_end() -> None:
    """Two robots 1.5 m apart facing each other in the open room: driving ahead, they meet in the middle."""
    env = multi_wander_v0.parallel_env(robots=2, odometry_error=False)
    poses = [(2250.0, 3000.0, 0.0), (3750.0, 3000.0, 180.0)]
    env.reset(seed=0, options={"poses": poses})
    ahead = {name: np.array([0.6, 0.0], np.float32) for name in env.possible_agents}
    ended: dict[str, float] = {}  # each agent's last reward
    for _ in range(100):
        if not env.agents:
            break
        _, rewards, terminations, truncations, infos = env.step({name: ahead[name] for name in env.agents})
        assert not any(truncations.values())
        ended.update({name: rewards[name] for name, done in terminations.items() if done and infos[name]["contact"]})
    assert env.agents == [] and sorted(ended) == ["robot_0", "robot_1"], "both ended on the contact"
    assert all(reward < 0 for reward in ended.values())
    assert env.fleet is not None
    first, second = (agent.true_pose for agent in env.fleet.agents)
    assert second.x - first.x == pytest.approx(2 * env.params.robot_radius, abs=60.0), "stopped body to body"


def test_the_aec_form_and_rgb_array() -> None:
    aec = multi_wander_v0.env(robots=2)
    aec.reset(seed=1)
    assert aec.agents == ["robot_0", "robot_1"]
    parallel = multi_wander_v0.parallel_env(robots=2, render_mode="rgb_array")
    parallel.reset(seed=1)
    parallel.step({name: np.array([0.5, 0.3], np.float32) for name in parallel.agents})
    image = parallel.render()
    assert image is not None and image.ndim == 3 and image.dtype == np.uint8
