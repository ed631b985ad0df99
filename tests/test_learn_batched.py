"""The batched Wander (saphira.learn.batched): N robots in one loop give each what the single Wander gives."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import saphira.learn  # noqa: F401  (registers the saphira/ ids)
from saphira.learn.batched import BatchedWanderEnv


def same(batched: Any, single: Any) -> bool:
    """Equal to the bit: arrays, and dicts and tuples of them."""
    if isinstance(batched, tuple):
        return len(batched) == len(single) and all(same(b, s) for b, s in zip(batched, single, strict=True))
    if isinstance(batched, dict):
        return batched.keys() == single.keys() and all(same(batched[k], single[k]) for k in batched)
    return bool(np.array_equal(batched, single)) and np.asarray(batched).dtype == np.asarray(single).dtype


def test_each_robot_gets_what_the_single_wander_gives_through_autoresets() -> None:
    """3 batched robots against 3 single ``Wander-v0`` in Gymnasium's SyncVectorEnv (its NEXT_STEP autoreset):
    the same seeds and actions give the same observations, rewards, ends and infos for 300 steps, across
    episodes ended by a wall and by the time limit."""
    kwargs: dict[str, Any] = {"world": "room", "max_episode_steps": 100}
    batched = gym.make_vec("saphira/Wander-v0", num_envs=3, vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(batched, BatchedWanderEnv)
    single = gym.make_vec("saphira/Wander-v0", num_envs=3, vectorization_mode="sync", **kwargs)
    assert isinstance(single, gym.vector.SyncVectorEnv)
    assert batched.observation_space == single.observation_space and batched.action_space == single.action_space
    assert same(batched.reset(seed=11), single.reset(seed=11))
    actions = np.random.default_rng(0)
    contacts = truncations = 0
    for _ in range(300):
        action = np.stack([actions.uniform(0.2, 1.0, 3), actions.uniform(-1.0, 1.0, 3)], axis=1).astype(np.float32)
        got, want = batched.step(action), single.step(action)
        assert all(same(g, w) for g, w in zip(got, want, strict=True))
        contacts += int(got[2].sum())
        truncations += int(got[3].sum())
    assert contacts >= 1 and truncations >= 1, "episodes ended both ways, and the robots were reset"
    assert same(batched.reset(seed=[4, 5, 6]), single.reset(seed=[4, 5, 6]))
    batched.close()
    single.close()


def test_the_discrete_form_and_a_reset_seed_reproduce_the_run() -> None:
    def run() -> list[np.ndarray]:
        envs = gym.make_vec("saphira/WanderDiscrete-v0", num_envs=2, vectorization_mode="vector_entry_point")
        obs, _ = envs.reset(seed=3)
        seen = [obs["sonar"]]
        for step in range(40):
            obs, rewards, *_ = envs.step(np.array([1, 4 if step < 20 else 2]))
            seen += [obs["sonar"], rewards]
        envs.close()
        return seen

    first, again = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[-2][0], first[-2][1]), "two robots, two runs"
    assert sum(float(r.sum()) for r in first[2::2]) > 0.5, "the robots moved"
