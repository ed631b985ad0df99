"""Pyro's ``pyrobot.brain.behaviors.fsm``: finite-state brains, ``FSMBrain(engine)`` with :class:`State`s."""

from __future__ import annotations

from pyrobot.brain.behaviors import FSMBrain, State

__all__ = ["FSMBrain", "State"]
