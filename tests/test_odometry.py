"""Odometry integration across 15- and 16-bit counter wrap, in both directions."""

from __future__ import annotations

import math

import pytest

from saphira.client.odometry import OdometryIntegrator


@pytest.mark.parametrize("bits", [15, 16])
@pytest.mark.parametrize("direction", [1, -1])
def test_straight_line_across_counter_wrap(bits: int, direction: int) -> None:
    """Drive 40 m along x in 50 mm steps with DistConvFactor 1: the counter wraps more than once."""
    odo = OdometryIntegrator(dist_conv_factor=1.0, angle_conv_factor=2 * math.pi / 4096)
    modulus = 1 << bits
    start = modulus - 1000 if direction > 0 else 1000
    counter = start
    odo.update(counter % modulus, 0, 0)
    for _ in range(800):
        counter += direction * 50
        odo.update(counter % modulus, 0, 0)
    assert odo.x == pytest.approx(direction * 40_000.0)
    assert odo.y == 0.0


def test_diagonal_motion_with_scale_and_negative_coordinates() -> None:
    """P3-DX factors: both counters wrap below zero; the integrated pose keeps its sign."""
    conv = 0.485
    odo = OdometryIntegrator(conv, 2 * math.pi / 4096)
    odo.update(0, 0, 0)
    x = y = 0.0
    for _ in range(2000):
        x -= 20.0
        y -= 10.0
        odo.update(round(x / conv) & 0xFFFF, round(y / conv) & 0xFFFF, 0)
    assert odo.x == pytest.approx(-40_000.0, abs=1.0)
    assert odo.y == pytest.approx(-20_000.0, abs=1.0)


def test_heading_wraps_and_motion_in_robot_frame() -> None:
    angle_conv = 2 * math.pi / 4096
    odo = OdometryIntegrator(1.0, angle_conv)
    odo.update(100, 100, 2048 - 10)  # facing ~180°
    m = odo.update(90, 100, -2048 + 10)  # moved 10 mm along −x and turned across ±180°
    assert odo.th == pytest.approx(-180 + math.degrees(10 * angle_conv), abs=1e-9)
    assert m.dth == pytest.approx(math.degrees(20 * angle_conv))
    assert m.forward == pytest.approx(10.0, abs=0.1)
    assert abs(m.left) < 0.2


def test_first_update_reports_no_motion() -> None:
    odo = OdometryIntegrator(1.0, 0.001534)
    m = odo.update(30000, 12000, 1024)
    assert (m.dx, m.dy, m.dth) == (0.0, 0.0, 0.0)
    assert (odo.x, odo.y) == (0.0, 0.0)
    assert odo.th == pytest.approx(math.degrees(1024 * 0.001534))
