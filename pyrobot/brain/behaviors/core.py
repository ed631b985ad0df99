"""Pyro's stock behaviors (``pyrobot.brain.behaviors.core``): stop, forward, backward, turn left or right.

Each declares its effect in ``setup`` and fires one rule per controller at full truth.
"""

from __future__ import annotations

from pyrobot.brain.behaviors import Behavior

__all__ = ["BackwardBehavior", "ForwardBehavior", "StopBehavior", "TurnLeftBehavior", "TurnRightBehavior"]


class StopBehavior(Behavior):
    """Translate and rotate at 0."""

    def setup(self) -> None:
        self.Effects("translate", 1.0)
        self.Effects("rotate", 1.0)

    def update(self) -> None:
        self.IF(1.0, "translate", 0.0)
        self.IF(1.0, "rotate", 0.0)


class ForwardBehavior(Behavior):
    """Translate at full speed ahead."""

    def setup(self) -> None:
        self.Effects("translate", 1.0)

    def update(self) -> None:
        self.IF(1.0, "translate", 1.0)


class BackwardBehavior(Behavior):
    """Translate at full speed backwards."""

    def setup(self) -> None:
        self.Effects("translate", 1.0)

    def update(self) -> None:
        self.IF(1.0, "translate", -1.0)


class TurnLeftBehavior(Behavior):
    """Rotate left (counter-clockwise) at full rate."""

    def setup(self) -> None:
        self.Effects("rotate", 1.0)

    def update(self) -> None:
        self.IF(1.0, "rotate", 1.0)


class TurnRightBehavior(Behavior):
    """Rotate right (clockwise) at full rate."""

    def setup(self) -> None:
        self.Effects("rotate", 1.0)

    def update(self) -> None:
        self.IF(1.0, "rotate", -1.0)
