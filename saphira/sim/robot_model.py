"""The simulated robot's body and drive: limits from a parameter file, and the firmware's motion control.

:class:`RobotModel` is the static description built from :class:`~saphira.params.robot_params.RobotParams` (body
radius, velocity and acceleration limits, conversion factors, sonar poses). :class:`Drive` is the
motion controller a Pioneer runs on board: a **translation** and a **rotation** channel, each in
velocity or position mode, with the client commands of docs/protocol.md §4 as ``cmd_*`` methods.
It knows nothing about walls or sockets: :class:`saphira.sim.simulation.SimRobot` asks it for the
motion of each sub-step (:meth:`Drive.advance`) and tells it when a wall stopped the robot
(:meth:`Drive.blocked`).

Units: mm, mm/s, mm/s², degrees, deg/s, deg/s²; angles counter-clockwise positive. Headings are
in the robot's odometric frame, which is what HEAD, DHEAD and DCHEAD refer to (docs/architecture.md §4).

Decisions where the sources leave room (docstrings of each method say more):

* Accelerations of 0 in the parameter file mean "the firmware's value": translation uses
  ``MaxAcceleration`` if given, else 300 mm/s²; rotation 100 deg/s² (what AMRISim's CONFIG reports).
* DHEAD turns relative to the current heading and DCHEAD relative to the current heading setpoint
  (ARIA and AMRISim; Saphira's Table 7.8 has them the other way round, docs/protocol.md §11).
  The protocol server decides which command number maps to which method.
* ROTATE is RVEL (ArCommands, AMRISim). VEL2 sets both channels' velocity targets from the wheel
  speeds; a later HEAD, VEL, … takes over its channel again (the manual's Table 7.8).
* Position modes follow a trapezoidal profile that is re-planned every sub-step and lands exactly
  on the target without overshoot (unless a new command leaves too little room to brake).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.params.robot_params import RobotParams

FIRMWARE_TRANS_ACCEL = 300.0
"""mm/s²: translational acceleration and deceleration when the parameter file says 0."""
FIRMWARE_ROT_ACCEL = 100.0
"""deg/s²: rotational acceleration and deceleration when the parameter file says 0."""

POSITION_SUBSTEP = 0.02
"""Longest sub-step (s) while a MOVE or heading turn is under way: the profile is re-planned this often."""
RAMP_SUBSTEP = 0.05
"""Longest sub-step (s) while a velocity ramps (the ramp itself is integrated exactly)."""
STEADY_SUBSTEP = 0.1
"""Longest sub-step (s) at constant velocities, so the straight chords tested for collisions hug the arc."""

_SETTLED_DEG = 1e-9
_SETTLED_MM = 1e-9


def wrap_degrees(angle: float) -> float:
    """``angle`` folded into (-180, 180]."""
    folded = math.fmod(angle, 360.0)
    if folded > 180.0:
        folded -= 360.0
    elif folded <= -180.0:
        folded += 360.0
    return folded


@dataclass(frozen=True)
class RobotModel:
    """A robot's static description for the simulator, built from its parameter file.

    ``max_velocity`` / ``max_rvelocity`` are the absolute limits; ``trans_vel_max`` / ``rot_vel_max``
    the initial settable maxima (SETV, SETRV; also the MOVE and heading-turn cruise speeds). The
    conversion factors are the parameter file's, for the protocol server. ``sonar_poses`` is an
    ``(N, 3)`` array of ``x, y, th`` (mm, mm, deg) in the robot frame, row ``i`` being sonar ``i``.
    """

    params: RobotParams
    radius: float
    max_velocity: float
    max_rvelocity: float
    trans_vel_max: float
    rot_vel_max: float
    trans_accel: float
    trans_decel: float
    rot_accel: float
    rot_decel: float
    diff_conv_factor: float
    vel2_divisor: float
    dist_conv_factor: float
    angle_conv_factor: float
    vel_conv_factor: float
    range_conv_factor: float
    sonar_poses: FloatArray

    @classmethod
    def from_params(cls, params: RobotParams) -> RobotModel:
        """The model of the robot ``params`` describes (zeros replaced by firmware defaults)."""
        max_velocity = abs(params.max_velocity) or float(abs(params.trans_vel_max)) or 400.0
        max_rvelocity = abs(params.max_rvelocity) or float(abs(params.rot_vel_max)) or 100.0
        trans_default = abs(params.max_acceleration) or FIRMWARE_TRANS_ACCEL
        poses = np.array([(u.x, u.y, u.th) for u in params.sonar_units], dtype=np.float64).reshape(-1, 3)
        poses.setflags(write=False)
        return cls(
            params=params,
            radius=params.robot_radius,
            max_velocity=max_velocity,
            max_rvelocity=max_rvelocity,
            trans_vel_max=min(float(abs(params.trans_vel_max)) or max_velocity, max_velocity),
            rot_vel_max=min(float(abs(params.rot_vel_max)) or max_rvelocity, max_rvelocity),
            trans_accel=float(abs(params.trans_accel)) or trans_default,
            trans_decel=float(abs(params.trans_decel)) or trans_default,
            rot_accel=float(abs(params.rot_accel)) or FIRMWARE_ROT_ACCEL,
            rot_decel=float(abs(params.rot_decel)) or FIRMWARE_ROT_ACCEL,
            diff_conv_factor=params.diff_conv_factor,
            vel2_divisor=params.vel2_divisor,
            dist_conv_factor=params.dist_conv_factor,
            angle_conv_factor=params.angle_conv_factor,
            vel_conv_factor=params.vel_conv_factor,
            range_conv_factor=params.range_conv_factor,
            sonar_poses=poses,
        )

    @property
    def sonar_count(self) -> int:
        return int(self.sonar_poses.shape[0])


class TransMode(Enum):
    """What the translation channel is following: a velocity (VEL, VEL2, STOP) or a distance (MOVE)."""

    VELOCITY = "velocity"
    POSITION = "position"


class RotMode(Enum):
    """What the rotation channel is following: a velocity (RVEL, ROTATE, VEL2) or a heading (HEAD…)."""

    VELOCITY = "velocity"
    HEADING = "heading"


def ramp(v0: float, target: float, accel: float, decel: float, dt: float) -> tuple[float, float]:
    """Velocity after ``dt`` s of moving ``v0`` towards ``target``, and the distance covered on the way.

    Speed rises at ``accel`` and falls at ``decel`` (a sign change brakes to 0 first, then
    accelerates). Exact for a constant target: the result does not depend on how ``dt`` is split.
    """
    distance = 0.0
    if v0 != 0.0 and (target == 0.0 or (v0 > 0.0) != (target > 0.0)):
        stop_time = abs(v0) / decel
        if stop_time >= dt:
            v1 = v0 - math.copysign(decel * dt, v0)
            return v1, (v0 + v1) * 0.5 * dt
        distance = v0 * 0.5 * stop_time
        dt -= stop_time
        v0 = 0.0
    if v0 == target:
        return v0, distance + v0 * dt
    rate = accel if abs(target) > abs(v0) else decel
    reach_time = abs(target - v0) / rate
    if reach_time >= dt:
        v1 = v0 + math.copysign(rate * dt, target - v0)
        return v1, distance + (v0 + v1) * 0.5 * dt
    return target, distance + (v0 + target) * 0.5 * reach_time + target * (dt - reach_time)


def _stopping_speed(v0: float, remaining: float, decel: float, dt: float) -> float:
    """Largest speed at the end of a sub-step of ``dt`` from which ``decel`` still stops within
    ``remaining`` (> 0) mm or deg; ``v0`` is the current speed towards the target."""
    dh = decel * dt
    held = -dh + math.sqrt(dh * dh + 2.0 * decel * remaining)  # if that speed is reached at once
    if held >= v0:
        return held
    # Braking through the whole sub-step covers (v0 + v1) / 2 * dt on the way.
    root = dh * dh - 4.0 * (dh * v0 - 2.0 * decel * remaining)
    return max(0.0, (-dh + math.sqrt(max(root, 0.0))) * 0.5)


def _profile_step(
    v0: float, remaining: float, cruise: float, accel: float, decel: float, dt: float
) -> tuple[float, float, bool]:
    """One sub-step of a trapezoidal move of ``remaining`` (signed): (velocity, distance, arrived).

    The speed aimed at is the largest from which ``decel`` still stops on the target at the end of
    the sub-step; the move lands exactly on the target once a sub-step reaches it at a speed that
    can stop within a sub-step.
    """
    direction = 1.0 if remaining > 0.0 else -1.0
    limit = _stopping_speed(v0 * direction, abs(remaining), decel, dt)
    v1, distance = ramp(v0, direction * min(cruise, limit), accel, decel, dt)
    reaches = distance * remaining > 0.0 and abs(distance) >= abs(remaining)
    if reaches and abs(v1) <= 2.0 * decel * dt + 1e-9:
        return 0.0, remaining, True
    return v1, distance, False


class Drive:
    """The on-board motion controller: two channels, their commands, and their current velocities.

    ``odometric_heading`` returns the heading the robot's encoders report (deg): heading commands
    refer to it and the heading servo closes its loop on it, as on a real Pioneer.

    Read-only state for the protocol server: :attr:`vel` (mm/s) and :attr:`rvel` (deg/s) are the
    current velocities; :attr:`trans_mode`, :attr:`rot_mode`, :attr:`enabled`; the settable limits
    :attr:`trans_vel_max`, :attr:`rot_vel_max`, :attr:`trans_accel`, :attr:`trans_decel`,
    :attr:`rot_accel`, :attr:`rot_decel`. Motion commands are ignored while the motors are disabled
    (ENABLE 0); the limit commands (SET*) and STOP are always accepted.
    """

    def __init__(self, model: RobotModel, odometric_heading: Callable[[], float] = lambda: 0.0) -> None:
        self.model = model
        self.odometric_heading = odometric_heading
        self.trans_vel_max = model.trans_vel_max
        self.rot_vel_max = model.rot_vel_max
        self.trans_accel = model.trans_accel
        self.trans_decel = model.trans_decel
        self.rot_accel = model.rot_accel
        self.rot_decel = model.rot_decel
        self.enabled = True
        self.vel = 0.0
        self.rvel = 0.0
        self.trans_mode = TransMode.VELOCITY
        self.rot_mode = RotMode.VELOCITY
        self.vel_target = 0.0
        self.rvel_target = 0.0
        self.move_remaining = 0.0
        self.heading_target = 0.0

    # -- commands -----------------------------------------------------------------------------------

    def cmd_vel(self, mm_s: float) -> None:
        """VEL: translational velocity, clipped to ±:attr:`trans_vel_max`."""
        if self.enabled:
            self.trans_mode = TransMode.VELOCITY
            self.vel_target = _clip(mm_s, self.trans_vel_max)

    def cmd_rvel(self, deg_s: float) -> None:
        """RVEL: rotational velocity (+ = counter-clockwise), clipped to ±:attr:`rot_vel_max`."""
        if self.enabled:
            self.rot_mode = RotMode.VELOCITY
            self.rvel_target = _clip(deg_s, self.rot_vel_max)

    def cmd_rotate(self, deg_s: float) -> None:
        """ROTATE: the same as RVEL (ArCommands, AMRISim)."""
        self.cmd_rvel(deg_s)

    def cmd_vel2(self, left_mm_s: float, right_mm_s: float) -> None:
        """VEL2: wheel velocities in mm/s (the server multiplies the bytes by ``Vel2Divisor``).

        Translation is their mean; rotation is ``(right - left) / 2 × DiffConvFactor`` rad/s, each
        clipped to its channel's maximum. Both channels go to velocity mode.
        """
        if self.enabled:
            self.trans_mode = TransMode.VELOCITY
            self.rot_mode = RotMode.VELOCITY
            self.vel_target = _clip((left_mm_s + right_mm_s) / 2.0, self.trans_vel_max)
            rot = math.degrees((right_mm_s - left_mm_s) / 2.0 * self.model.diff_conv_factor)
            self.rvel_target = _clip(rot, self.rot_vel_max)

    def cmd_move(self, mm: float) -> None:
        """MOVE: travel ``mm`` (+ forward) from here, cruising at :attr:`trans_vel_max`, then stop."""
        if self.enabled:
            self.trans_mode = TransMode.POSITION
            self.move_remaining = float(mm)

    def cmd_head(self, deg: float) -> None:
        """HEAD: turn the shortest way to absolute heading ``deg`` of the odometric frame."""
        if self.enabled:
            self.rot_mode = RotMode.HEADING
            self.heading_target = wrap_degrees(deg)

    def cmd_dhead(self, deg: float) -> None:
        """DHEAD: turn to the current heading + ``deg`` (ARIA/AMRISim meaning)."""
        self.cmd_head(self.odometric_heading() + deg)

    def cmd_dchead(self, deg: float) -> None:
        """DCHEAD: change the heading setpoint by ``deg`` (the current heading if not in heading mode)."""
        self.cmd_head(self.heading_setpoint + deg)

    def cmd_setv(self, mm_s: float) -> None:
        """SETV: maximum translational velocity (and MOVE cruise speed), at most the absolute maximum."""
        self.trans_vel_max = min(abs(float(mm_s)), self.model.max_velocity)
        self.vel_target = _clip(self.vel_target, self.trans_vel_max)

    def cmd_setrv(self, deg_s: float) -> None:
        """SETRV: maximum rotational velocity (and heading-turn cruise speed)."""
        self.rot_vel_max = min(abs(float(deg_s)), self.model.max_rvelocity)
        self.rvel_target = _clip(self.rvel_target, self.rot_vel_max)

    def cmd_seta(self, mm_s2: float) -> None:
        """SETA: ``+a`` sets the translational acceleration, ``-a`` the deceleration; 0 is ignored."""
        if mm_s2 > 0:
            self.trans_accel = float(mm_s2)
        elif mm_s2 < 0:
            self.trans_decel = -float(mm_s2)

    def cmd_setra(self, deg_s2: float) -> None:
        """SETRA: ``+a`` sets the rotational acceleration, ``-a`` the deceleration; 0 is ignored."""
        if deg_s2 > 0:
            self.rot_accel = float(deg_s2)
        elif deg_s2 < 0:
            self.rot_decel = -float(deg_s2)

    def cmd_stop(self) -> None:
        """STOP: both channels to velocity 0, braking at the deceleration limits."""
        self.trans_mode = TransMode.VELOCITY
        self.rot_mode = RotMode.VELOCITY
        self.vel_target = 0.0
        self.rvel_target = 0.0

    def cmd_estop(self) -> None:
        """ESTOP: stop at once, ignoring the deceleration limits."""
        self.cmd_stop()
        self.vel = 0.0
        self.rvel = 0.0

    def cmd_enable(self, on: bool) -> None:
        """ENABLE 1/0: disabling stops the robot at once and makes it ignore motion commands."""
        if not on:
            self.cmd_estop()
        self.enabled = bool(on)

    def shift_heading_frame(self, heading_change: float) -> None:
        """The odometric heading jumped by ``heading_change`` (SETO): keep a heading turn's course."""
        self.heading_target = wrap_degrees(self.heading_target + heading_change)

    # -- state for the server -----------------------------------------------------------------------

    @property
    def heading_setpoint(self) -> float:
        """Heading the rotation servo holds (deg): the target in heading mode, else the current heading."""
        return self.heading_target if self.rot_mode is RotMode.HEADING else self.odometric_heading()

    @property
    def is_moving(self) -> bool:
        """Whether either wheel is turning."""
        return self.vel != 0.0 or self.rvel != 0.0

    def wheel_velocities(self) -> tuple[float, float]:
        """Current (left, right) wheel speeds in mm/s: ``vel ∓ radians(rvel) / DiffConvFactor``."""
        half_difference = math.radians(self.rvel) / self.model.diff_conv_factor
        return self.vel - half_difference, self.vel + half_difference

    # -- integration --------------------------------------------------------------------------------

    def substep_limit(self) -> float:
        """Longest sub-step (s) that :meth:`advance` integrates accurately from this state (may be inf)."""
        heading = self.odometric_heading()
        moving_to_target = (
            self.trans_mode is TransMode.POSITION and (abs(self.move_remaining) > _SETTLED_MM or self.vel != 0.0)
        ) or (
            self.rot_mode is RotMode.HEADING
            and (abs(wrap_degrees(self.heading_target - heading)) > _SETTLED_DEG or self.rvel != 0.0)
        )
        if moving_to_target:
            return POSITION_SUBSTEP
        if self.vel != self._vel_goal() or self.rvel != self._rvel_goal():
            return RAMP_SUBSTEP
        return STEADY_SUBSTEP if self.is_moving else math.inf

    def advance(self, dt: float) -> tuple[float, float]:
        """Run the controller for ``dt`` s: the (distance mm, turn deg) it drives the wheels through.

        Updates the current velocities and the MOVE progress as if the motion happens; call
        :meth:`blocked` when a wall stops part of it.
        """
        if self.trans_mode is TransMode.POSITION:
            self.vel, distance, arrived = _profile_step(
                self.vel, self.move_remaining, self.trans_vel_max, self.trans_accel, self.trans_decel, dt
            )
            self.move_remaining = 0.0 if arrived else self.move_remaining - distance
        else:
            self.vel, distance = ramp(self.vel, self.vel_target, self.trans_accel, self.trans_decel, dt)
        if self.rot_mode is RotMode.HEADING:
            error = wrap_degrees(self.heading_target - self.odometric_heading())
            self.rvel, turn, _ = _profile_step(self.rvel, error, self.rot_vel_max, self.rot_accel, self.rot_decel, dt)
        else:
            self.rvel, turn = ramp(self.rvel, self.rvel_target, self.rot_accel, self.rot_decel, dt)
        return distance, turn

    def blocked(self, distance_lost: float) -> None:
        """A wall stopped the translation ``distance_lost`` mm short of what :meth:`advance` planned."""
        self.vel = 0.0
        if self.trans_mode is TransMode.POSITION:
            self.move_remaining += distance_lost

    def _vel_goal(self) -> float:
        return self.vel_target if self.trans_mode is TransMode.VELOCITY else 0.0

    def _rvel_goal(self) -> float:
        return self.rvel_target if self.rot_mode is RotMode.VELOCITY else 0.0


def _clip(value: float, limit: float) -> float:
    return max(-limit, min(limit, float(value)))
