"""Pyro's ``pyrobot.brain``: the :class:`Brain` every brain subclasses, and ``avg``.

``Brain`` is saphira's own (:class:`saphira.brain.Brain`): ``Brain(name, engine)`` calls ``setup()``,
then saphira calls ``step()`` ten times a second and ``destroy()`` once at the end of the run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from saphira.brain import Brain as _SaphiraBrain
from saphira.brain import BrainEngine

__all__ = ["Brain", "BrainEngine", "avg"]


class Brain(_SaphiraBrain):
    """A Pyro brain: define ``step`` (and ``setup``, ``destroy`` as needed)."""

    def getRobot(self) -> object:
        """The robot (Pyro's accessor for ``self.robot``)."""
        return self.robot

    def getEngine(self) -> BrainEngine:
        """The engine (Pyro's accessor for ``self.engine``)."""
        return self.engine


def avg(values: Iterable[float]) -> float:
    """The arithmetic mean of a non-empty sequence of numbers."""
    numbers = [float(value) for value in values]
    if not numbers:
        raise ValueError("avg() arg is an empty sequence")
    return math.fsum(numbers) / len(numbers)
