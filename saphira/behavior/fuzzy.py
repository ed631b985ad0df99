"""Fuzzy truth functions for behavior update functions (manual §5.7, pinned in docs/architecture.md §5).

Every function takes and returns plain Python floats: they run for every rule of every behavior on
every cycle, so they avoid numpy and allocation. Truth values range over [0, 1].

Degenerate widths are steps, never divisions by zero:

- ``straight_up(x, a, b)`` with ``a >= b`` is 0 for ``x <= a`` and 1 above (a crisp ``x > a``);
- ``f_greater(x, c, 0)`` is the crisp ``x > c`` and ``f_smaller(x, c, 0)`` the crisp ``x <= c``,
  so the two stay complements of each other (``f_smaller = f_not(f_greater)`` for every width);
- ``f_eq(x, c, 0)`` is 1 exactly at ``c`` and 0 elsewhere.

A negative ``delta`` is read as its magnitude: it is a width.
"""

from __future__ import annotations

__all__ = [
    "down_straight",
    "f_and",
    "f_eq",
    "f_greater",
    "f_not",
    "f_or",
    "f_smaller",
    "straight_up",
]


def straight_up(x: float, a: float, b: float) -> float:
    """Rise linearly from 0 at ``a`` to 1 at ``b``: 0 for ``x <= a``, 1 for ``x >= b``."""
    if x <= a:
        return 0.0
    if x >= b:
        return 1.0
    return (x - a) / (b - a)


def down_straight(x: float, a: float, b: float) -> float:
    """Fall linearly from 1 at ``a`` to 0 at ``b``: 1 for ``x <= a``, 0 for ``x >= b``."""
    if x <= a:
        return 1.0
    if x >= b:
        return 0.0
    return (b - x) / (b - a)


def f_greater(x: float, c: float, delta: float) -> float:
    """Fuzzy ``x > c``: ``straight_up`` over a band of width ``delta`` centred on ``c``."""
    half = abs(delta) * 0.5
    return straight_up(x, c - half, c + half)


def f_smaller(x: float, c: float, delta: float) -> float:
    """Fuzzy ``x < c``: the mirror of :func:`f_greater`, falling over the band centred on ``c``."""
    half = abs(delta) * 0.5
    return down_straight(x, c - half, c + half)


def f_eq(x: float, c: float, delta: float) -> float:
    """Fuzzy ``x == c``: a triangle of height 1 at ``c`` and half-width ``delta``."""
    d = x - c if x >= c else c - x
    width = abs(delta)
    if d >= width:
        return 1.0 if d == 0.0 else 0.0
    return 1.0 - d / width


def f_and(x: float, y: float) -> float:
    """Fuzzy conjunction: the minimum."""
    return x if x < y else y


def f_or(x: float, y: float) -> float:
    """Fuzzy disjunction: the maximum."""
    return x if x > y else y


def f_not(x: float) -> float:
    """Fuzzy negation: ``1 - x``."""
    return 1.0 - x
