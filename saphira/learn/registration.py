"""The Gymnasium ids of saphira's environments, registered in the ``saphira/`` namespace."""

from __future__ import annotations

import gymnasium as gym

MAX_EPISODE_STEPS = 1000
"""Steps before an episode is truncated: 100 s of robot time."""

ENVS = {
    "Wander": "saphira.learn.envs:WanderEnv",
    "GoTo": "saphira.learn.envs:GoToEnv",
    "FollowCorridor": "saphira.learn.envs:FollowCorridorEnv",
}
VECTOR_ENVS = {"Wander": "saphira.learn.batched:BatchedWanderEnv"}
"""Batched forms, made by ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``."""


def register_envs() -> None:
    """Register every environment (continuous and ``…Discrete``) unless already registered."""
    for name, entry_point in ENVS.items():
        for suffix, kwargs in (("", {}), ("Discrete", {"discrete": True})):
            env_id = f"saphira/{name}{suffix}-v0"
            if env_id not in gym.registry:
                gym.register(env_id, entry_point=entry_point, vector_entry_point=VECTOR_ENVS.get(name),
                             max_episode_steps=MAX_EPISODE_STEPS, kwargs=kwargs)  # fmt: skip
