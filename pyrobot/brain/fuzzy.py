"""Pyro's ``pyrobot.brain.fuzzy``: a fuzzy truth value in 0..1 over a range ``[Min, Max]``.

``Fuzzy(lo, hi)`` is a ramp; ``Fuzzy(lo, hi) >> x`` is how far ``x`` has climbed it (0 at ``lo`` or
below, 1 at ``hi`` or above) and ``Fuzzy(lo, hi) << x`` the falling ramp (1 at ``lo``, 0 at ``hi``).
``&`` and ``|`` are min and max, ``~`` the complement; ``float(f)`` is the truth, and ``bool(f)`` is
true above one half. Behaviors use them as rule truths: ``self.IF(Fuzzy(0.1, 1.0) << dist, 'translate', 0)``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Fuzzy"]


def _truth(other: Any) -> float:
    return float(other.Value) if isinstance(other, Fuzzy) else float(other)


class Fuzzy:
    """A truth value ``Value`` in 0..1 on the ramp from ``Min`` to ``Max``.

    ``Fuzzy()`` is 0.5 on 0..1; ``Fuzzy(x)`` is ``x`` climbed on 0..1; ``Fuzzy(lo, hi)`` is 0.5 on
    ``lo..hi``; ``Fuzzy(lo, hi, x)`` is ``x`` climbed on ``lo..hi``.
    """

    def __init__(self, *args: float) -> None:
        if len(args) > 3:
            raise TypeError(f"Fuzzy takes at most 3 arguments (min, max, value), not {len(args)}")
        self.Min, self.Max = (float(args[0]), float(args[1])) if len(args) >= 2 else (0.0, 1.0)
        self.Value = 0.5
        if len(args) in (1, 3):
            self.SetUp(args[-1])

    def __call__(self, *args: float) -> float:
        """No argument: the truth; ``f(x)``: climb ``x`` on the ramp; ``f(lo, hi, x)``: a new ramp."""
        if len(args) == 3:
            self.Min, self.Max = float(args[0]), float(args[1])
        if len(args) in (1, 3):
            self.SetUp(args[-1])
        elif args:
            raise TypeError("call a Fuzzy with no argument, a value, or min, max and a value")
        return self.Value

    # ----------------------------------------------------------------- ramps
    def Set(self, value: float) -> float:
        """Set the truth to ``value`` clipped to 0..1."""
        self.Value = min(1.0, max(0.0, float(value)))
        return self.Value

    def SetUp(self, value: float) -> float:
        """The truth of ``value`` on the rising ramp (1 for any value when ``Min == Max``)."""
        if self.Max == self.Min:
            return self.Set(1.0)
        return self.Set((float(value) - self.Min) / (self.Max - self.Min))

    def SetDown(self, value: float) -> float:
        """The truth of ``value`` on the falling ramp (0 for any value when ``Min == Max``)."""
        if self.Max == self.Min:
            return self.Set(0.0)
        return self.Set(1.0 - (float(value) - self.Min) / (self.Max - self.Min))

    def Up(self, value: float) -> Fuzzy:
        """A new Fuzzy on this ramp holding ``value``'s rising truth."""
        result = Fuzzy(self.Min, self.Max)
        result.SetUp(value)
        return result

    def Down(self, value: float) -> Fuzzy:
        """A new Fuzzy on this ramp holding ``value``'s falling truth."""
        result = Fuzzy(self.Min, self.Max)
        result.SetDown(value)
        return result

    def __rshift__(self, value: float) -> Fuzzy:
        return self.Up(value)

    def __lshift__(self, value: float) -> Fuzzy:
        return self.Down(value)

    # ----------------------------------------------------------------- logic
    def _with(self, truth: float) -> Fuzzy:
        result = Fuzzy(self.Min, self.Max)
        result.Set(truth)
        return result

    def __and__(self, other: Any) -> Fuzzy:
        return self._with(min(self.Value, _truth(other)))

    def __or__(self, other: Any) -> Fuzzy:
        return self._with(max(self.Value, _truth(other)))

    def __invert__(self) -> Fuzzy:
        return self._with(1.0 - self.Value)

    __rand__ = __and__
    __ror__ = __or__

    # ----------------------------------------------------------------- numbers
    def __float__(self) -> float:
        return float(self.Value)

    def __bool__(self) -> bool:
        return self.Value > 0.5

    def __neg__(self) -> float:
        return 1.0 - self.Value

    def __pos__(self) -> float:
        return self.Value

    def __abs__(self) -> float:
        return abs(self.Value)

    def __add__(self, other: Any) -> float:
        return self.Value + _truth(other)

    def __sub__(self, other: Any) -> float:
        return self.Value - _truth(other)

    def __rsub__(self, other: Any) -> float:
        return _truth(other) - self.Value

    def __mul__(self, other: Any) -> float:
        return self.Value * _truth(other)

    def __truediv__(self, other: Any) -> float:
        return self.Value / _truth(other)

    def __rtruediv__(self, other: Any) -> float:
        return _truth(other) / self.Value

    __radd__ = __add__
    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Fuzzy | int | float):
            return self.Value == _truth(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.Min, self.Max, self.Value))

    def __lt__(self, other: Any) -> bool:
        return self.Value < _truth(other)

    def __le__(self, other: Any) -> bool:
        return self.Value <= _truth(other)

    def __gt__(self, other: Any) -> bool:
        return self.Value > _truth(other)

    def __ge__(self, other: Any) -> bool:
        return self.Value >= _truth(other)

    def __repr__(self) -> str:
        return f"<Fuzzy instance value = {self.Value} min = {self.Min} max = {self.Max}>"

    __str__ = __repr__
