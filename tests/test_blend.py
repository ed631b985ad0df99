"""Context-dependent blending (docs/architecture.md §5), pinned on cases computed by hand.

The universes here are set explicitly, so the expected values do not depend on the defaults. Every
rule value sits on the grid and every clip corner too, so the piecewise-linear areas are exact:
a triangle of half-width h clipped at truth t has area h·t·(2 − t); scaled by w it has area w·h.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import skfuzzy
from hypothesis import given, settings
from hypothesis import strategies as st

from saphira.behavior.blend import (
    DEFAULT_SPEED_UNIVERSE,
    DEFAULT_TURN_UNIVERSE,
    METHODS,
    BehaviorOutput,
    Blender,
    BlendError,
    Channel,
    Consequent,
    FiredRule,
    TurnModifier,
    Universe,
    blend,
    speed,
    turn_left,
    turn_right,
)

TURN = Universe(low=-60.0, high=60.0, step=0.5, half_width=5.0)
SPEED = Universe(low=-200.0, high=600.0, step=5.0, half_width=100.0)
HW_TURN = 5.0
HW_SPEED = 100.0


def clipped_area(h: float, t: float) -> float:
    """Area of a height-1 triangle of half-width h clipped at t."""
    return h * t * (2.0 - t)


@pytest.fixture
def blender() -> Blender:
    return Blender(turn=TURN, speed=SPEED)


def out(name: str, priority: int, rules: list[FiredRule], a_turn: float = 1.0, a_speed: float = 1.0) -> BehaviorOutput:
    return BehaviorOutput(name, priority, a_turn, a_speed, rules)


def test_one_behavior_one_rule_per_channel_gives_the_rule_values(blender: Blender) -> None:
    r = blender.blend([out("goto", 2, [FiredRule(0.7, turn_left(20.0)), FiredRule(0.4, speed(300.0))])])
    assert r.turn == pytest.approx(20.0, abs=1e-12)
    assert r.speed == pytest.approx(300.0, abs=1e-12)
    (rec,) = r.behaviors
    assert (rec.preferred_turn, rec.preferred_speed) == pytest.approx((20.0, 300.0), abs=1e-9)
    assert rec.rule_truths == (0.7, 0.4)
    (level,) = r.levels
    assert (level.priority, level.weight_turn, level.strength_turn, level.strength_speed) == (
        2,
        1.0,
        0.7,
        0.4,
    )


def test_two_rules_of_one_behavior_blend_by_area(blender: Blender) -> None:
    r = blender.blend([out("cv", 0, [FiredRule(0.5, speed(0.0)), FiredRule(1.0, speed(300.0))])])
    a0, a1 = clipped_area(HW_SPEED, 0.5), HW_SPEED  # 75 and 100
    assert r.speed == pytest.approx((0.0 * a0 + 300.0 * a1) / (a0 + a1), abs=1e-9)
    assert r.speed == pytest.approx(1200.0 / 7.0, abs=1e-9)
    assert r.turn is None


def test_two_behaviors_at_one_priority_are_clipped_at_their_activities(blender: Blender) -> None:
    left = out("left", 1, [FiredRule(1.0, turn_left(20.0))], a_turn=1.0)
    right = out("right", 1, [FiredRule(1.0, turn_right(20.0))], a_turn=0.5)
    r = blender.blend([left, right])
    a_left, a_right = HW_TURN, clipped_area(HW_TURN, 0.5)  # 5 and 3.75
    assert r.turn == pytest.approx((20.0 * a_left - 20.0 * a_right) / (a_left + a_right), abs=1e-9)
    assert r.turn == pytest.approx(20.0 / 7.0, abs=1e-9)
    assert [b.preferred_turn for b in r.behaviors] == [pytest.approx(20.0), pytest.approx(-20.0)]
    (level,) = r.levels
    assert level.strength_turn == 1.0


def test_a_full_strength_level_masks_everything_below(blender: Blender) -> None:
    avoid = out("avoid", 0, [FiredRule(1.0, turn_right(TurnModifier.SHARPLY))])
    keep_off = out("keep off", 1, [FiredRule(1.0, turn_left(30.0)), FiredRule(0.9, speed(300.0))])
    stop = out("stop", 5, [FiredRule(1.0, speed(0.0))])
    r = blender.blend([stop, keep_off, avoid])
    assert r.turn == pytest.approx(-8.0, abs=1e-12)
    # The avoid level says nothing about speed, so it masks nothing there; keep off (0.9) leaves 0.1.
    a_keep, a_stop = clipped_area(HW_SPEED, 0.9), 0.1 * HW_SPEED
    assert r.speed == pytest.approx((300.0 * a_keep + 0.0 * a_stop) / (a_keep + a_stop), abs=1e-9)
    assert [lv.priority for lv in r.levels] == [0, 1, 5]
    assert [lv.weight_turn for lv in r.levels] == [1.0, 0.0, 0.0]
    assert [lv.weight_speed for lv in r.levels] == [1.0, 1.0, pytest.approx(0.1)]
    assert [lv.strength_turn for lv in r.levels] == [1.0, 1.0, 0.0]


def test_a_level_at_strength_0_6_lets_0_4_of_the_lower_level_through(blender: Blender) -> None:
    high = out("high", 0, [FiredRule(0.6, turn_left(30.0))])
    low = out("low", 1, [FiredRule(1.0, turn_right(30.0))])
    r = blender.blend([high, low])
    a_high = clipped_area(HW_TURN, 0.6)  # 4.2: the trapezoid under 0.6
    a_low = 0.4 * HW_TURN  # 2.0: the full triangle scaled by w = 1 - 0.6
    expected = (30.0 * a_high - 30.0 * a_low) / (a_high + a_low)
    assert expected == pytest.approx(66.0 / 6.2)
    assert r.turn == pytest.approx(expected, abs=1e-9)
    assert r.levels[1].weight_turn == pytest.approx(0.4)
    assert r.levels[0].strength_turn == 0.6
    grid = blender.grid(Channel.TURN)
    assert r.turn_set[grid == -30.0] == pytest.approx(0.4)  # scaled, not clipped
    assert r.turn_set[grid == 30.0] == pytest.approx(0.6)


def test_activity_caps_the_level_strength(blender: Blender) -> None:
    half = out("half", 0, [FiredRule(0.8, turn_left(10.0))], a_turn=0.5)
    low = out("low", 1, [FiredRule(1.0, turn_right(10.0))])
    r = blender.blend([half, low])
    assert r.levels[0].strength_turn == 0.5
    a_high, a_low = clipped_area(HW_TURN, 0.5), 0.5 * HW_TURN
    assert r.turn == pytest.approx((10.0 * a_high - 10.0 * a_low) / (a_high + a_low), abs=1e-9)


def test_empty_channels_express_no_preference(blender: Blender) -> None:
    r = blender.blend([out("speeder", 0, [FiredRule(1.0, speed(200.0))])])
    assert r.turn is None
    assert not r.turn_set.any()
    assert blender.blend([out("idle", 0, [FiredRule(0.0, turn_left(10.0))])]).turn is None
    assert blender.blend([out("off", 0, [FiredRule(1.0, turn_left(10.0))], a_turn=0.0)]).turn is None
    nothing = blender.blend([])
    assert (nothing.turn, nothing.speed, nothing.behaviors, nothing.levels) == (None, None, (), ())
    assert all(blender.blend([out("idle", 0, [FiredRule(0.0, speed(1.0))])], method=m).speed is None for m in METHODS)


def test_overlapping_rules_combine_by_max_not_sum(blender: Blender) -> None:
    twice = blender.blend([out("b", 0, [FiredRule(0.3, turn_left(4.0)), FiredRule(0.7, turn_left(4.0))])])
    once = blender.blend([out("b", 0, [FiredRule(0.7, turn_left(4.0))])])
    assert np.array_equal(twice.turn_set, once.turn_set)
    assert twice.turn_set.max() == 0.7


def test_centroid_and_other_methods_agree_with_skfuzzy_defuzz(blender: Blender) -> None:
    rng = random.Random(3)
    outputs = [
        out(
            f"b{k}",
            rng.randint(0, 2),
            [
                FiredRule(
                    rng.random(),
                    Consequent(Channel.TURN, rng.uniform(-50, 50)) if i % 2 else speed(rng.uniform(-150, 550)),
                )
                for i in range(6)
            ],
            a_turn=rng.random(),
            a_speed=rng.random(),
        )
        for k in range(6)
    ]
    grid_turn, grid_speed = blender.grid(Channel.TURN), blender.grid(Channel.SPEED)
    for method in ("centroid", "mom", "som", "lom"):
        r = blender.blend(outputs, method=method)
        assert r.method == method
        assert r.turn == pytest.approx(skfuzzy.defuzz(grid_turn, r.turn_set, method), abs=1e-9)
        assert r.speed == pytest.approx(skfuzzy.defuzz(grid_speed, r.speed_set, method), abs=1e-9)
    # skfuzzy's bisector is right only for sets without an empty stretch: one connected set here.
    connected = [
        out(
            "b",
            0,
            [FiredRule(0.35, speed(100.0)), FiredRule(0.9, speed(180.0)), FiredRule(0.6, speed(250.0))],
        )
    ]
    r = blender.blend(connected, method="bisector")
    assert r.speed == pytest.approx(skfuzzy.defuzz(grid_speed, r.speed_set, "bisector"), abs=1e-9)


def test_bisector_halves_the_area_even_across_gaps(blender: Blender) -> None:
    """skfuzzy's own bisector loses the running area after an empty stretch; ours must not."""
    rng = random.Random(8)
    grid = blender.grid(Channel.TURN)
    for _ in range(40):
        outputs = [
            out(
                f"b{k}",
                rng.randint(0, 2),
                [FiredRule(rng.random(), turn_left(rng.uniform(-55, 55))) for _ in range(3)],
            )
            for k in range(3)
        ]
        r = blender.blend(outputs, method="bisector")
        assert r.turn is not None
        fine = np.sort(np.concatenate([grid, [r.turn]]))
        mfx = np.interp(fine, grid, r.turn_set)
        left = fine <= r.turn
        assert np.trapezoid(mfx[left], fine[left]) == pytest.approx(0.5 * np.trapezoid(mfx, fine), rel=1e-9)


def test_mean_smallest_largest_of_maximum_on_a_clipped_triangle(blender: Blender) -> None:
    rules = [FiredRule(0.6, turn_left(30.0))]
    got = {m: blender.blend([out("b", 0, rules)], method=m).turn for m in METHODS}
    assert got == {
        "centroid": pytest.approx(30.0),
        "bisector": pytest.approx(30.0),
        "mom": 30.0,
        "som": 28.0,
        "lom": 32.0,
    }


def test_triangle_rows_are_skfuzzy_trimf(blender: Blender) -> None:
    for consequent in (turn_left(7.25), turn_right(TurnModifier.VERY_SHARPLY), speed(333.0)):
        hw = blender.universe(consequent.channel).half_width
        grid = blender.grid(consequent.channel)
        v = consequent.value
        expected = skfuzzy.trimf(grid, [v - hw, v, v + hw])
        assert np.allclose(blender.membership(consequent), expected, atol=1e-12)


def test_values_outside_the_universe_are_clamped_to_its_edge(blender: Blender) -> None:
    r = blender.blend([out("b", 0, [FiredRule(1.0, turn_left(170.0)), FiredRule(1.0, speed(-900.0))])])
    assert r.turn == pytest.approx(60.0)
    assert r.speed == pytest.approx(-200.0)


def test_input_order_does_not_matter_and_records_keep_it(blender: Blender) -> None:
    outputs = [
        out("a", 2, [FiredRule(0.9, turn_left(12.0)), FiredRule(0.5, speed(250.0))]),
        out("b", 0, [FiredRule(0.4, turn_right(6.0))]),
        out("c", 1, [FiredRule(0.8, speed(50.0)), FiredRule(0.2, turn_left(40.0))], a_speed=0.7),
    ]
    forward = blender.blend(outputs)
    backward = blender.blend(outputs[::-1])
    assert forward.turn == pytest.approx(backward.turn, abs=1e-12)
    assert forward.speed == pytest.approx(backward.speed, abs=1e-12)
    assert [b.name for b in forward.behaviors] == ["a", "b", "c"]
    assert [b.name for b in backward.behaviors] == ["c", "b", "a"]
    assert [lv.priority for lv in forward.levels] == [0, 1, 2]


def test_truths_and_activities_are_clamped_and_recorded(blender: Blender) -> None:
    r = blender.blend(
        [out("b", 0, [FiredRule(1.5, turn_left(10.0), "too much"), FiredRule(-0.2, speed(100.0))], 2.0, -1.0)]
    )
    (rec,) = r.behaviors
    assert rec.rule_truths == (1.0, 0.0)
    assert rec.rule_names == ("too much", "")
    assert (rec.activity_turn, rec.activity_speed) == (1.0, 0.0)
    assert r.speed is None


def test_non_finite_truths_name_the_behavior_and_rule(blender: Blender) -> None:
    with pytest.raises(BlendError, match=r"'wander'.*'obstacle left'"):
        blender.blend([out("wander", 0, [FiredRule(math.nan, turn_left(), "obstacle left")])])
    with pytest.raises(BlendError, match=r"'wander'.*speed activity"):
        blender.blend([out("wander", 0, [], a_speed=math.inf)])


def test_bad_configuration_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown defuzzification method 'median'"):
        Blender(method="median")
    with pytest.raises(ValueError, match="low < high"):
        Universe(10.0, -10.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="below the grid step"):
        Universe(-10.0, 10.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="finite"):
        speed(math.nan)


def test_defaults_and_modifiers() -> None:
    magnitudes = [m.value for m in TurnModifier]
    assert magnitudes == sorted(magnitudes)
    assert (TurnModifier.VERY_SLOWLY, TurnModifier.SLOWLY) == (3.0, 4.0)  # the manual's sfVSLOWLY, sfSLOWLY
    assert turn_left() == Consequent(Channel.TURN, TurnModifier.MODERATELY)
    assert turn_right(TurnModifier.SHARPLY) == Consequent(Channel.TURN, -8.0)
    assert (DEFAULT_TURN_UNIVERSE.low, DEFAULT_TURN_UNIVERSE.high) == (-180.0, 180.0)
    assert (DEFAULT_SPEED_UNIVERSE.low, DEFAULT_SPEED_UNIVERSE.high) == (-400.0, 1500.0)
    grid = DEFAULT_TURN_UNIVERSE.grid()
    assert (grid[0], grid[-1], grid[1] - grid[0]) == (-185.0, 185.0, 0.5)
    r = blend([out("b", 3, [FiredRule(1.0, turn_right(TurnModifier.VERY_SHARPLY)), FiredRule(0.3, speed(1500.0))])])
    assert (r.turn, r.speed) == pytest.approx((-10.0, 1500.0), abs=1e-9)


# An independent transcription of §5 with loops and skfuzzy primitives, for random cases.


def reference(outputs: list[BehaviorOutput], channel: Channel, universe: Universe) -> tuple[np.ndarray, float | None]:
    grid = universe.grid()
    hw = universe.half_width
    levels: dict[int, list[tuple[float, np.ndarray, float]]] = {}
    for o in outputs:
        a = o.activity_turn if channel is Channel.TURN else o.activity_speed
        desire = np.zeros_like(grid)
        height = 0.0
        for rule in o.rules:
            if rule.consequent.channel is channel:
                v = min(max(rule.consequent.value, universe.low), universe.high)
                desire = np.fmax(desire, np.fmin(rule.truth, skfuzzy.trimf(grid, [v - hw, v, v + hw])))
                height = max(height, rule.truth)
        levels.setdefault(o.priority, []).append((a, desire, height))
    union = np.zeros_like(grid)
    w = 1.0
    for p in sorted(levels):
        d_p = np.zeros_like(grid)
        s_p = 0.0
        for a, desire, height in levels[p]:
            d_p = np.fmax(d_p, np.fmin(a, desire))
            s_p = max(s_p, min(a, height))
        union = np.fmax(union, w * d_p)
        w *= 1.0 - s_p
    value = None if union.sum() == 0 else float(skfuzzy.defuzz(grid, union, "centroid"))
    return union, value


# skfuzzy's centroid divides by max(area, machine epsilon), so keep areas well above that.
unit = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=1.0))
rule_st = st.builds(
    FiredRule,
    unit,
    st.one_of(
        st.builds(Consequent, st.just(Channel.TURN), st.floats(-70.0, 70.0)),
        st.builds(Consequent, st.just(Channel.SPEED), st.floats(-300.0, 700.0)),
    ),
)
output_st = st.builds(
    BehaviorOutput, st.sampled_from("abcdef"), st.integers(0, 3), unit, unit, st.lists(rule_st, max_size=5)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(output_st, max_size=6))
def test_blend_matches_a_literal_transcription_of_the_spec(outputs: list[BehaviorOutput]) -> None:
    blender = Blender(turn=TURN, speed=SPEED)
    r = blender.blend(outputs)
    for channel, universe, value, union in (
        (Channel.TURN, TURN, r.turn, r.turn_set),
        (Channel.SPEED, SPEED, r.speed, r.speed_set),
    ):
        want_union, want_value = reference(outputs, channel, universe)
        assert np.allclose(union, want_union, atol=1e-12)
        if want_value is None:
            assert value is None
        else:
            assert value == pytest.approx(want_value, abs=1e-6)


def test_many_distinct_values_across_cycles_keep_results_correct() -> None:
    blender = Blender(turn=TURN, speed=SPEED)
    rng = random.Random(5)
    for _ in range(30):
        outputs = [
            out(f"b{k}", k % 3, [FiredRule(rng.random(), turn_left(rng.uniform(-55, 55))) for _ in range(3)])
            for k in range(4)
        ]
        union, value = reference(outputs, Channel.TURN, TURN)
        r = blender.blend(outputs)
        assert np.allclose(r.turn_set, union, atol=1e-12)
        assert r.turn == pytest.approx(value, abs=1e-6)
