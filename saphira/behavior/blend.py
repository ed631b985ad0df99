"""Context-dependent blending of fuzzy behavior outputs (pinned in docs/architecture.md §5).

Each cycle every running behavior hands in a :class:`BehaviorOutput`: its priority, its activity on
the two channels (turn, speed) and its fired rules, each a truth value and a :class:`Consequent`
(a channel and a value). Per channel, over a discretised universe:

1. behavior b's desirability ``D_b(c) = max_i min(A_i, T_i(c))``, ``T_i`` a triangle of height 1
   centred on the rule's value (the consequent clipped at the rule's truth);
2. priority level p: ``D_p(c) = max_b min(a_b, D_b(c))`` with ``a_b`` the behavior's activity on the
   channel, and the level's strength ``S_p = max_b min(a_b, height(D_b))``;
3. levels in increasing priority number (0 first): the remaining weight starts at ``w = 1``, level p
   enters as ``w * D_p(c)``, then ``w <- w * (1 - S_p)``;
4. the union (max) of the weighted level sets is defuzzified (centroid by default, or one of
   ``skfuzzy.defuzz``'s 'bisector', 'mom', 'som', 'lom'). An empty union gives ``None``: the channel
   expresses no preference and the executive leaves its setpoint alone (a set so faint that its area
   underflows to zero counts as empty too).

Choices the specification leaves open, made here:

- Universes (:class:`Universe`): turn is a heading change in degrees, left positive, over
  [-180, 180] in 0.5° steps with triangles of half-width 5°; speed is mm/s over [-400, 1500] in 5 mm/s
  steps with triangles of half-width 100 mm/s. Both are configurable per :class:`Blender`.
- The grid extends one half-width beyond [low, high] and rule values are clamped into [low, high], so
  a triangle is never truncated and a lone rule defuzzifies to exactly its (clamped) value.
- ``height(D_b)`` is taken analytically as the largest rule truth (the clipped triangles' true
  height), not from the samples, so an off-grid centre cannot make a full-strength level leak.
- Truths and activities are clamped to [0, 1]; a non-finite one is an error naming the behavior.
- Centroid and bisector treat the samples as piecewise linear, as ``skfuzzy.defuzz`` does; the
  centroid agrees with it to rounding, the bisector too except where skfuzzy's own loses the running
  area after an empty stretch (two separate sets), which this one does not.
- A behavior's preferred value on a channel (recorded, not used for control) is its own ``D_b``
  defuzzified with the same method; ``None`` when it has no firing rule there.

Steps 1-3 are one compiled kernel (:mod:`saphira.core.jit`) that evaluates each clipped triangle only over
its support (21 turn or 41 speed samples, not the whole grid); level weights are folded into each
behavior's set, since ``w · max_b x_b = max_b w · x_b`` for ``w >= 0``. Defuzzification is two dot
products per set with precomputed piecewise-linear area and moment weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import pairwise
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from saphira.core.arrays import FloatArray
from saphira.core.errors import SaphiraError
from saphira.core.jit import kernel

__all__ = [
    "DEFAULT_SPEED_UNIVERSE",
    "DEFAULT_TURN_UNIVERSE",
    "METHODS",
    "BehaviorOutput",
    "BehaviorRecord",
    "BlendError",
    "BlendResult",
    "Blender",
    "Channel",
    "Consequent",
    "FiredRule",
    "LevelRecord",
    "TurnModifier",
    "Universe",
    "blend",
    "speed",
    "turn_left",
    "turn_right",
]


METHODS = ("centroid", "bisector", "mom", "som", "lom")


class BlendError(SaphiraError, ValueError):
    """A behavior handed the blender a value it cannot use (a non-finite truth or activity)."""


class Channel(Enum):
    """The two control channels a rule can act on."""

    TURN = "turn"
    SPEED = "speed"


class TurnModifier(float, Enum):
    """Turn magnitudes in degrees of heading change, for ``Turn Left/Right <modifier>``.

    Very Slowly (3.0) and Slowly (4.0) are the manual's ``sfVSLOWLY`` / ``sfSLOWLY``. The other three
    are lost from the manual; they continue the scale up to 10°, the top of sfAvoidCollision's
    "turning gain" range (4.0 slow .. 10.0 fast). A rule without a modifier means Moderately.
    """

    VERY_SLOWLY = 3.0
    SLOWLY = 4.0
    MODERATELY = 6.0
    SHARPLY = 8.0
    VERY_SHARPLY = 10.0


@dataclass(frozen=True, slots=True)
class Universe:
    """The discretised domain of one channel: values in [low, high], sampled every ``step``.

    ``half_width`` is the half-width of every rule's triangle; the sampled grid runs from
    ``low - half_width`` to ``high + half_width`` so that no triangle is cut off.
    """

    low: float
    high: float
    step: float
    half_width: float

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.low, self.high, self.step, self.half_width)):
            raise ValueError(f"universe bounds must be finite: {self}")
        if not self.low < self.high:
            raise ValueError(f"universe needs low < high, got {self.low} .. {self.high}")
        if self.step <= 0.0:
            raise ValueError(f"universe step must be positive, got {self.step}")
        if self.half_width < self.step:
            raise ValueError(
                f"triangle half-width {self.half_width} is below the grid step {self.step}: "
                "every triangle would be a single sample"
            )

    def grid(self) -> FloatArray:
        """The sample points, ``low - half_width`` to ``high + half_width`` in steps of ``step``."""
        origin = self.low - self.half_width
        n = math.ceil((self.high + self.half_width - origin) / self.step - 1e-9) + 1
        return origin + self.step * np.arange(n, dtype=np.float64)


DEFAULT_TURN_UNIVERSE = Universe(low=-180.0, high=180.0, step=0.5, half_width=5.0)
DEFAULT_SPEED_UNIVERSE = Universe(low=-400.0, high=1500.0, step=5.0, half_width=100.0)


@dataclass(frozen=True, slots=True)
class Consequent:
    """A rule's action: recommend ``value`` on ``channel`` (turn: degrees, left positive; speed: mm/s)."""

    channel: Channel
    value: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.value):
            raise ValueError(f"{self.channel.value} consequent value must be finite, got {self.value}")


def turn_left(magnitude: float = TurnModifier.MODERATELY) -> Consequent:
    """``Turn Left <modifier>``: a heading change of +magnitude degrees."""
    return Consequent(Channel.TURN, float(magnitude))


def turn_right(magnitude: float = TurnModifier.MODERATELY) -> Consequent:
    """``Turn Right <modifier>``: a heading change of -magnitude degrees."""
    return Consequent(Channel.TURN, -float(magnitude))


def speed(value: float) -> Consequent:
    """``Speed <value>``: a velocity of ``value`` mm/s."""
    return Consequent(Channel.SPEED, float(value))


class FiredRule(NamedTuple):
    """One rule's outcome this cycle: the antecedent's truth and the action it recommends."""

    truth: float
    consequent: Consequent
    name: str = ""


@dataclass(frozen=True, slots=True)
class BehaviorOutput:
    """What one behavior hands the blender each cycle. Priority 0 is the highest."""

    name: str
    priority: int
    activity_turn: float
    activity_speed: float
    rules: Sequence[FiredRule]


@dataclass(frozen=True, slots=True)
class BehaviorRecord:
    """One behavior's part in a cycle, as used (truths and activities clamped to [0, 1])."""

    name: str
    priority: int
    activity_turn: float
    activity_speed: float
    rule_names: tuple[str, ...]
    rule_truths: tuple[float, ...]
    preferred_turn: float | None
    preferred_speed: float | None


@dataclass(frozen=True, slots=True)
class LevelRecord:
    """One priority level: the weight ``w`` it entered with and its strength ``S_p``, per channel."""

    priority: int
    weight_turn: float
    weight_speed: float
    strength_turn: float
    strength_speed: float


@dataclass(frozen=True, slots=True)
class BlendResult:
    """The outcome of one cycle's blend and the record of why.

    ``turn`` / ``speed`` are the blended values, ``None`` where no behavior expressed a preference.
    ``behaviors`` follows the order the outputs were given in; ``levels`` runs from the highest
    priority down. ``turn_set`` / ``speed_set`` are the weighted unions on :meth:`Blender.grid`.
    """

    turn: float | None
    speed: float | None
    method: str
    behaviors: tuple[BehaviorRecord, ...]
    levels: tuple[LevelRecord, ...]
    turn_set: FloatArray = field(repr=False)
    speed_set: FloatArray = field(repr=False)


class _Defuzzifier:
    """Defuzzification on one fixed grid, with the piecewise-linear integrals precomputed."""

    def __init__(self, grid: FloatArray) -> None:
        self.grid = grid
        dx = np.diff(grid)
        area = np.zeros_like(grid)
        area[:-1] += 0.5 * dx
        area[1:] += 0.5 * dx
        moment = np.zeros_like(grid)
        moment[:-1] += dx / 6.0 * (2.0 * grid[:-1] + grid[1:])
        moment[1:] += dx / 6.0 * (grid[:-1] + 2.0 * grid[1:])
        self.area = area
        self.moment = moment
        self.dx = dx

    def rows(self, sets: FloatArray, method: str) -> list[float | None]:
        """Defuzzify every row of a 2-D array of fuzzy sets."""
        if method == "centroid":
            den = sets @ self.area
            num = sets @ self.moment
            return [n / d if d > 0.0 else None for n, d in zip(num.tolist(), den.tolist(), strict=True)]
        return [self.one(row, method) for row in sets]

    def one(self, mfx: FloatArray, method: str) -> float | None:
        """Defuzzify one fuzzy set; ``None`` when it is empty."""
        if method == "centroid":
            den = float(mfx @ self.area)
            return float(mfx @ self.moment) / den if den > 0.0 else None
        if method == "bisector":
            return self._bisector(mfx)
        top = float(mfx.max())
        if top <= 0.0:
            return None
        at_top = self.grid[mfx == top]
        if method == "mom":
            return float(at_top.mean())
        return float(at_top[0] if method == "som" else at_top[-1])

    def _bisector(self, mfx: FloatArray) -> float | None:
        """The abscissa splitting the piecewise-linear area in two (skfuzzy's arithmetic)."""
        cum = np.cumsum(0.5 * self.dx * (mfx[:-1] + mfx[1:]))
        total = float(cum[-1])
        if total <= 0.0:
            return None
        half = 0.5 * total
        k = int(np.searchsorted(cum, half, side="left"))
        sub = half - (float(cum[k - 1]) if k > 0 else 0.0)
        x1, x2 = float(self.grid[k]), float(self.grid[k + 1])
        y1, y2 = float(mfx[k]), float(mfx[k + 1])
        width = x2 - x1
        if y1 == y2:
            return sub / y1 + x1
        if y1 == 0.0:
            return x1 + math.sqrt(2.0 * sub * width / y2)
        if y2 == 0.0:
            return x2 - math.sqrt(max(width * width - 2.0 * sub * width / y1, 0.0))
        slope = (y2 - y1) / width
        return x1 - (y1 - math.sqrt(max(y1 * y1 + 2.0 * slope * sub, 0.0))) / slope


class _ChannelSpace:
    """One channel's universe, grid and defuzzifier."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.grid = universe.grid()
        self.defuzz = _Defuzzifier(self.grid)

    def triangles(self, values: Sequence[float]) -> FloatArray:
        """Height-1 triangles centred on each value clamped into [low, high], one row per value."""
        u = self.universe
        centres = np.clip(np.asarray(values, dtype=np.float64), u.low, u.high)
        rows = 1.0 - np.abs(self.grid[None, :] - centres[:, None]) / u.half_width
        return np.maximum(rows, 0.0, out=rows)


class _Gathered:
    """One channel's rules for a cycle, grouped by behavior (each group contiguous)."""

    __slots__ = ("activities", "counts", "owners", "priorities", "truths", "values")

    def __init__(self) -> None:
        self.values: list[float] = []
        self.truths: list[float] = []
        self.counts: list[int] = []
        self.owners: list[int] = []
        self.activities: list[float] = []
        self.priorities: list[int] = []


def _unit(value: float, behavior: str, what: str) -> float:
    """Clamp a truth or activity into [0, 1]; reject NaN and infinities."""
    if not math.isfinite(value):
        raise BlendError(f"behavior {behavior!r}: {what} is {value}, not a finite truth value")
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else float(value)


class Blender:
    """Blends behavior outputs over configurable universes.

    One instance per executive; :func:`blend` uses a shared default instance.
    """

    def __init__(
        self,
        turn: Universe = DEFAULT_TURN_UNIVERSE,
        speed: Universe = DEFAULT_SPEED_UNIVERSE,
        method: str = "centroid",
    ) -> None:
        self.method = _check_method(method)
        self._spaces = {Channel.TURN: _ChannelSpace(turn), Channel.SPEED: _ChannelSpace(speed)}

    def universe(self, channel: Channel) -> Universe:
        """The universe a channel is discretised over."""
        return self._spaces[channel].universe

    def grid(self, channel: Channel) -> FloatArray:
        """The sample points of a channel's fuzzy sets (a copy)."""
        return self._spaces[channel].grid.copy()

    def membership(self, consequent: Consequent) -> FloatArray:
        """A consequent's unclipped triangle sampled on its channel's grid."""
        row: FloatArray = self._spaces[consequent.channel].triangles([consequent.value])[0]
        return row

    def defuzzify(self, channel: Channel, mfx: FloatArray, method: str | None = None) -> float | None:
        """Defuzzify a fuzzy set sampled on ``channel``'s grid; ``None`` when it is all zero."""
        return self._spaces[channel].defuzz.one(np.asarray(mfx, dtype=np.float64), _check_method(method or self.method))

    def blend(self, outputs: Sequence[BehaviorOutput], method: str | None = None) -> BlendResult:
        """Blend one cycle's behavior outputs into a turn and a speed (``None`` = no preference)."""
        how = _check_method(method or self.method)
        turn, spd = _Gathered(), _Gathered()
        names: list[tuple[str, ...]] = [()] * len(outputs)
        truths: list[tuple[float, ...]] = [()] * len(outputs)
        activities: list[tuple[float, float]] = [(0.0, 0.0)] * len(outputs)
        for k, out in enumerate(outputs):
            a_turn = _unit(out.activity_turn, out.name, "turn activity")
            a_speed = _unit(out.activity_speed, out.name, "speed activity")
            activities[k] = (a_turn, a_speed)
            n_turn, n_speed = len(turn.values), len(spd.values)
            used: list[float] = []
            for rule in out.rules:
                t = rule.truth
                if not 0.0 <= t <= 1.0:  # NaN too
                    t = _unit(t, out.name, f"truth of rule {rule.name or len(used)!r}")
                used.append(t)
                consequent = rule.consequent
                into = turn if consequent.channel is Channel.TURN else spd
                into.values.append(consequent.value)
                into.truths.append(t)
            truths[k] = tuple(used)
            names[k] = tuple([rule.name for rule in out.rules])
            for into, before, act in ((turn, n_turn, a_turn), (spd, n_speed, a_speed)):
                if len(into.values) > before:
                    into.counts.append(len(into.values) - before)
                    into.owners.append(k)
                    into.activities.append(act)
                    into.priorities.append(out.priority)

        priorities = sorted({out.priority for out in outputs})
        turn_value, turn_set, turn_pref, turn_levels = self._channel(Channel.TURN, turn, priorities, how)
        spd_value, spd_set, spd_pref, spd_levels = self._channel(Channel.SPEED, spd, priorities, how)

        behaviors = tuple(
            BehaviorRecord(
                name=out.name,
                priority=out.priority,
                activity_turn=activities[k][0],
                activity_speed=activities[k][1],
                rule_names=names[k],
                rule_truths=truths[k],
                preferred_turn=turn_pref.get(k),
                preferred_speed=spd_pref.get(k),
            )
            for k, out in enumerate(outputs)
        )
        levels = tuple(
            LevelRecord(p, wt, ws, st, ss)
            for p, (wt, st), (ws, ss) in zip(priorities, turn_levels, spd_levels, strict=True)
        )
        return BlendResult(turn_value, spd_value, how, behaviors, levels, turn_set, spd_set)

    def _channel(
        self, channel: Channel, g: _Gathered, priorities: list[int], method: str
    ) -> tuple[float | None, FloatArray, dict[int, float | None], list[tuple[float, float]]]:
        """Blend one channel: value, weighted union, preferred value per behavior, (w, S_p) per level."""
        space = self._spaces[channel]
        if not g.values:
            return None, np.zeros_like(space.grid), {}, [(1.0, 0.0)] * len(priorities)
        starts = [0]
        for n in g.counts:
            starts.append(starts[-1] + n)
        strength = [min(a, max(g.truths[s:e])) for a, (s, e) in zip(g.activities, pairwise(starts), strict=True)]

        # Level strengths and the weight each level enters with, highest priority first.
        level_strength: dict[int, float] = {}
        for p, s in zip(g.priorities, strength, strict=True):
            level_strength[p] = max(level_strength.get(p, 0.0), s)
        w = 1.0
        levels: list[tuple[float, float]] = []
        weight_of: dict[int, float] = {}
        for p in priorities:
            s_p = level_strength.get(p, 0.0)
            levels.append((w, s_p))
            weight_of[p] = w
            w *= 1.0 - s_p
        u, defuzz = space.universe, space.defuzz
        desire = np.empty((len(g.counts), space.grid.size))
        union = np.empty(space.grid.size)
        centroids = np.empty(len(g.counts) + 1)
        _desirability(
            space.grid, float(u.low), float(u.high), float(u.half_width), np.array(g.values, dtype=np.float64),
            np.array(g.truths, dtype=np.float64), np.array(starts, dtype=np.intp),
            np.array(g.activities, dtype=np.float64), np.array([weight_of[p] for p in g.priorities], dtype=np.float64),
            defuzz.area, defuzz.moment, desire, union, centroids,
        )  # fmt: skip
        if method == "centroid":
            found = [None if math.isnan(c) else c for c in centroids.tolist()]
            return found[-1], union, dict(zip(g.owners, found[:-1], strict=True)), levels
        return defuzz.one(union, method), union, dict(zip(g.owners, defuzz.rows(desire, method), strict=True)), levels


def _desirability_example() -> tuple[object, ...]:
    grid, one = np.arange(3.0), np.ones(1)
    return (grid, 0.0, 2.0, 1.0, one, one, np.array([0, 1], dtype=np.intp), one, one, grid, grid,
            np.empty((1, 3)), np.empty(3), np.empty(2))  # fmt: skip


@kernel(_desirability_example)
def _desirability(
    grid: FloatArray,
    low: float,
    high: float,
    half_width: float,
    values: FloatArray,
    truths: FloatArray,
    starts: npt.NDArray[np.intp],
    activities: FloatArray,
    weights: FloatArray,
    area: FloatArray,
    moment: FloatArray,
    desire: FloatArray,
    union: FloatArray,
    centroids: FloatArray,
) -> None:
    """Steps 1-3 of the blend for one channel, compiled, into ``desire`` and ``union``, and the
    centroids of each ``desire[b]`` and of ``union`` (last) into ``centroids`` (NaN: an empty set).

    Behavior b's rules are ``values[starts[b]:starts[b + 1]]`` with their truths; ``desire[b]`` is its
    ``D_b``, and ``union`` the union of every ``min(a_b, D_b)`` scaled by its level's weight
    (``w * max_b(x_b) == max_b(w * x_b)`` for ``w >= 0``). A triangle is evaluated only over its
    support, not the whole grid. The centroids weigh the samples by the precomputed piecewise-linear
    ``area`` and ``moment`` (:class:`_Defuzzifier`).
    """
    desire[:] = 0.0
    union[:] = 0.0
    origin, step, size = grid[0], grid[1] - grid[0], grid.size
    for b in range(starts.size - 1):
        lo, hi = size, 0
        for r in range(starts[b], starts[b + 1]):
            centre, truth = min(max(values[r], low), high), truths[r]
            first = max(math.floor((centre - half_width - origin) / step), 0)
            last = min(math.ceil((centre + half_width - origin) / step), size - 1)
            lo, hi = min(lo, first), max(hi, last)
            for k in range(first, last + 1):
                member = min(1.0 - abs(grid[k] - centre) / half_width, truth)
                if member > desire[b, k]:
                    desire[b, k] = member
        activity, weight = activities[b], weights[b]
        num = den = 0.0
        for k in range(lo, hi + 1):
            num += desire[b, k] * moment[k]
            den += desire[b, k] * area[k]
            weighted = min(desire[b, k], activity) * weight
            if weighted > union[k]:
                union[k] = weighted
        centroids[b] = num / den if den > 0.0 else math.nan
    num = den = 0.0
    for k in range(size):
        num += union[k] * moment[k]
        den += union[k] * area[k]
    centroids[-1] = num / den if den > 0.0 else math.nan


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"unknown defuzzification method {method!r}; expected one of {', '.join(METHODS)}")
    return method


_DEFAULT = Blender()


def blend(outputs: Sequence[BehaviorOutput], method: str = "centroid") -> BlendResult:
    """Blend with the default universes (see :class:`Blender` to configure them)."""
    return _DEFAULT.blend(outputs, method)
