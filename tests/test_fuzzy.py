"""The fuzzy truth functions, pinned on hand-computed values (docs/architecture.md §5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saphira.behavior.fuzzy import (
    down_straight,
    f_and,
    f_eq,
    f_greater,
    f_not,
    f_or,
    f_smaller,
    straight_up,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(-5.0, 0.0), (10.0, 0.0), (15.0, 0.25), (20.0, 0.5), (27.5, 0.875), (30.0, 1.0), (1e9, 1.0)],
)
def test_straight_up_rises_from_a_to_b(x: float, expected: float) -> None:
    assert straight_up(x, 10.0, 30.0) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(-40.0, 1.0), (-30.0, 1.0), (-25.0, 0.75), (-20.0, 0.5), (-10.0, 0.0), (0.0, 0.0)],
)
def test_down_straight_falls_from_a_to_b(x: float, expected: float) -> None:
    assert down_straight(x, -30.0, -10.0) == pytest.approx(expected, abs=1e-12)


def test_equal_bounds_make_a_step_at_the_bound() -> None:
    assert [straight_up(x, 5.0, 5.0) for x in (4.9, 5.0, 5.1)] == [0.0, 0.0, 1.0]
    assert [down_straight(x, 5.0, 5.0) for x in (4.9, 5.0, 5.1)] == [1.0, 1.0, 0.0]


def test_reversed_bounds_are_a_step_at_the_lower_argument() -> None:
    assert [straight_up(x, 5.0, 3.0) for x in (2.0, 4.0, 5.0, 5.5)] == [0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.0, 0.0), (400.0, 0.0), (450.0, 0.25), (500.0, 0.5), (575.0, 0.875), (600.0, 1.0), (900.0, 1.0)],
)
def test_f_greater_is_a_band_of_width_delta_centred_on_c(x: float, expected: float) -> None:
    assert f_greater(x, 500.0, 200.0) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.0, 1.0), (400.0, 1.0), (450.0, 0.75), (500.0, 0.5), (575.0, 0.125), (600.0, 0.0), (900.0, 0.0)],
)
def test_f_smaller_mirrors_f_greater(x: float, expected: float) -> None:
    assert f_smaller(x, 500.0, 200.0) == pytest.approx(expected, abs=1e-12)


def test_zero_delta_gives_crisp_comparisons_that_stay_complements() -> None:
    assert [f_greater(x, 1.0, 0.0) for x in (0.5, 1.0, 1.5)] == [0.0, 0.0, 1.0]
    assert [f_smaller(x, 1.0, 0.0) for x in (0.5, 1.0, 1.5)] == [1.0, 1.0, 0.0]


def test_negative_delta_is_read_as_a_width() -> None:
    assert f_greater(550.0, 500.0, -200.0) == pytest.approx(0.75)
    assert f_eq(2.0, 0.0, -4.0) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(90.0, 1.0), (85.0, 0.5), (95.0, 0.5), (82.0, 0.2), (98.0, 0.2), (80.0, 0.0), (100.0, 0.0), (0.0, 0.0)],
)
def test_f_eq_is_a_triangle_of_half_width_delta(x: float, expected: float) -> None:
    assert f_eq(x, 90.0, 10.0) == pytest.approx(expected, abs=1e-12)


def test_f_eq_with_zero_delta_is_exact_equality() -> None:
    assert [f_eq(x, 3.0, 0.0) for x in (2.999, 3.0, 3.001)] == [0.0, 1.0, 0.0]


def test_connectives() -> None:
    assert f_and(0.3, 0.7) == 0.3
    assert f_and(0.7, 0.3) == 0.3
    assert f_or(0.3, 0.7) == 0.7
    assert f_or(0.7, 0.3) == 0.7
    assert f_not(0.25) == 0.75
    assert f_not(f_not(0.4)) == pytest.approx(0.4)


def test_listing_5_2_goal_behavior_variables() -> None:
    """The manual's myGoto update: goal 20° to the left, 750 mm away, radius 500."""
    too_right = straight_up(20.0, 10.0, 30.0)
    too_left = down_straight(20.0, -30.0, -10.0)
    near_goal = down_straight(750.0, 500.0, 1000.0)
    assert (too_right, too_left, near_goal) == (0.5, 0.0, 0.5)
    assert f_not(f_or(near_goal, f_or(too_left, too_right))) == 0.5


@given(finite, finite, st.floats(min_value=0.0, max_value=1e4, allow_nan=False))
def test_every_function_stays_in_the_unit_interval(x: float, c: float, delta: float) -> None:
    for value in (
        straight_up(x, c, c + delta),
        down_straight(x, c, c + delta),
        f_greater(x, c, delta),
        f_smaller(x, c, delta),
        f_eq(x, c, delta),
    ):
        assert 0.0 <= value <= 1.0
    assert f_smaller(x, c, delta) == pytest.approx(1.0 - f_greater(x, c, delta), abs=1e-9)


def test_results_are_plain_floats() -> None:
    assert type(straight_up(1, 0, 2)) is float
    assert type(f_eq(1, 1, 0)) is float
    assert type(f_greater(3, 0, 2)) is float
