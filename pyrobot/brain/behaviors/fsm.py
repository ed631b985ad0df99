"""Pyro's ``pyrobot.brain.behaviors.fsm``: finite-state brains of :class:`State`s.

``FSMBrain(engine)``, or ``FSMBrain(name, engine)`` as Pyro's own examples make it.
"""

from __future__ import annotations

from pyrobot.brain.behaviors import FSMBrain, State

__all__ = ["FSMBrain", "State"]
