"""Learning and tuning over the lock-step simulator (``pip install 'saphira[learn]'``; docs/learning.md).

Importing the package registers the Gymnasium environments ``saphira/Wander-v0``, ``saphira/GoTo-v0``,
``saphira/FollowCorridor-v0`` (and their ``…Discrete-v0`` forms); ``gymnasium.make("saphira.learn:saphira/Wander-v0")``
imports it on the way. ``Wander``'s batched form, :mod:`saphira.learn.batched`, is what
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` makes. The PettingZoo environment
is :mod:`saphira.learn.multi_wander_v0`.
"""

from __future__ import annotations

from saphira.learn.registration import register_envs

register_envs()

__all__ = ["register_envs"]
