"""Setpoints and the direct motion API: reflection on change and on refresh, completion checks, precedence."""

from __future__ import annotations

import pytest

from saphira.client.motion import BRAKING_MARGIN, REACTION_TIME, Channel, MotionControl, RotMode, TransMode
from saphira.protocol.commands import Command


def test_commands_sent_on_change_and_refresh() -> None:
    m = MotionControl(refresh_period=0.5)
    assert m.commands(0.0) == []  # no setpoint yet: nothing to send
    m.set_velocity(300)
    assert m.commands(0.0) == [(Command.VEL, 300)]
    assert m.commands(0.1) == []
    assert m.commands(0.5) == [(Command.VEL, 300)]  # refresh
    m.set_rvelocity(-20)
    assert m.commands(0.6) == [(Command.RVEL, -20)]
    m.set_velocity(5000)
    assert m.commands(0.7) == [(Command.VEL, 2200)]  # clamped to the robot's limit


def test_heading_setpoints_are_absolute_in_the_odometric_frame() -> None:
    m = MotionControl()
    m.pose.th = 30.0
    m.set_dheading(-45)
    assert m.rot_mode == RotMode.HEADING and m.heading == pytest.approx(-15.0)
    m.set_dheading(-45)  # relative to the setpoint, not the current heading
    assert m.heading == pytest.approx(-60.0)
    assert m.commands(0.0) == [(Command.DHEAD, -90)]  # the manual's default: the change, sent once
    assert m.commands(1.0) == []
    m.turn_command = Command.HEAD
    assert m.commands(1.1) == [(Command.HEAD, 300)]  # absolute in the odometric frame, resent
    assert m.commands(1.6) == [(Command.HEAD, 300)]
    assert not m.done_heading(10)
    m.pose.th = -55.0
    assert m.done_heading(10) and not m.done_heading(2)
    assert m.target_head() == pytest.approx(-60.0)


def test_position_move_profile_and_completion() -> None:
    m = MotionControl(deceleration=300)
    m.pose.x, m.pose.y, m.pose.th = 100.0, 100.0, 90.0
    m.set_max_velocity(400)
    m.set_position(1000)
    assert m.trans_mode == TransMode.POSITION
    assert m.target_vel() == pytest.approx(400.0)
    m.pose.y = 100.0 + 900.0
    m.pose.vel = 200.0  # brakes early by the distance covered in the reaction time
    assert m.target_vel() == pytest.approx((2 * BRAKING_MARGIN * 300 * (100 - 200 * REACTION_TIME)) ** 0.5)
    assert m.done_position(100) and not m.done_position(50)
    m.pose.y = 100.0 + 1002.0
    assert m.target_vel() == 0.0
    m.set_position(-500)
    assert m.target_vel() < 0


def test_behavior_output_yields_to_direct_motion_and_behavior_control() -> None:
    m = MotionControl()
    m.behavior_speed(200)
    assert m.velocity == 200
    m.set_velocity(50)
    m.behavior_speed(300)
    assert m.velocity == 50  # direct motion owns the channel
    m.behavior_turn(10)
    assert m.rot_mode == RotMode.HEADING and m.heading == pytest.approx(10.0)
    m.release(Channel.TRANSLATION)
    m.behavior_speed(300)
    assert m.velocity == 300
    m.behavior_control = False
    m.behavior_speed(100)
    assert m.velocity == 300


def test_reset_forgets_everything() -> None:
    m = MotionControl()
    m.set_velocity(100)
    m.commands(0.0)
    m.reset()
    assert m.commands(10.0) == []
    m.set_velocity(100)
    assert m.commands(10.0) == [(Command.VEL, 100)]
