"""USARSim's robot classes as Saphira robots: parameter file, wheel geometry and sensor names.

``USARBot.P2DX`` and ``USARBot.P2AT`` are the two Pioneers of the USARSim tutorial; ``USARBot.P3DX``
and ``USARBot.P3AT`` are USARSim's later ones (P3AT is the default of NIST's Iridium). Each is simulated
with the parameters of the same model (``p2dx``, ``p2at``, ``p3dx``, ``p3at``): body, speeds,
accelerations and sonar poses are the Pioneer's. What USARSim adds is the wheel: DRIVE takes *spin speeds* (rad/s), so
a wheel radius turns them into the mm/s the robot model takes. The track (wheel separation) is the one
the parameter file's ``DiffConvFactor`` implies, ``2 / DiffConvFactor`` mm, so a DRIVE turns the robot
exactly as a VEL2 of the same wheel speeds does.

Sonar names follow USARSim's Pioneers: the front ring ``F1``…``F8`` (sonar 0…7), the rear ring
``R1``…``R8`` (sonar 8…15), numbered as the Pioneer numbers them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from saphira.gamebots.codec import GamebotsError
from saphira.params.robot_params import RobotParams, params_for_file, params_for_robot

CLASS_PREFIX = "USARBot."


@dataclass(frozen=True)
class UsarModel:
    """One USARSim robot class: its parameter file and its wheel radius (m)."""

    class_name: str
    params_name: str
    wheel_radius: float
    mass: float

    def params(self, user_file: str | Path | None = None) -> RobotParams:
        """The model's parameters, with ``user_file`` (``--params``) laid over them as ARIA lays a file."""
        if user_file is None:
            return params_for_file(self.params_name)
        return params_for_robot(self.class_name, "Pioneer", self.params_name, user_file=user_file)


MODELS = {
    "P2DX": UsarModel("USARBot.P2DX", "p2dx", 0.0825, 9.0),
    "P2AT": UsarModel("USARBot.P2AT", "p2at", 0.1100, 14.0),
    "P3DX": UsarModel("USARBot.P3DX", "p3dx", 0.0975, 9.0),
    "P3AT": UsarModel("USARBot.P3AT", "p3at", 0.1075, 12.0),
}
"""Wheel radii: the P2DX's 16.5 cm and the P2AT's 22 cm wheels (Pioneer 2 operations manual), the
P3DX's 19.5 cm and the P3AT's 21.5 cm wheels (Pioneer 3 operations manual)."""


def known_classes() -> str:
    """The classes INIT spawns, for messages: ``USARBot.P2DX, USARBot.P2AT, …``."""
    return ", ".join(m.class_name for m in MODELS.values())


def model_for(class_name: str) -> UsarModel:
    """The model for ``USARBot.P2AT`` (or a bare ``P2AT``, any case); a clear error for any other class."""
    key = class_name.removeprefix(CLASS_PREFIX).upper()
    model = MODELS.get(key)
    if model is None:
        raise GamebotsError(f"unknown robot class {class_name!r} (this simulator has {known_classes()})")
    return model


@dataclass(frozen=True)
class WheelGeometry:
    """Wheel radius and separation (m): the link between spin speeds and the robot's velocities."""

    radius: float
    separation: float

    @classmethod
    def of(cls, model: UsarModel, params: RobotParams) -> WheelGeometry:
        return cls(model.wheel_radius, separation_for(params))

    def spin_speeds(self, vel_mm_s: float, rvel_deg_s: float) -> tuple[float, float]:
        """(left, right) spin speeds (rad/s) for a velocity (mm/s) and a turn rate (deg/s, + = left)."""
        half = math.radians(rvel_deg_s) * self.separation * 1000.0 / 2.0
        scale = 1.0 / (self.radius * 1000.0)
        return (vel_mm_s - half) * scale, (vel_mm_s + half) * scale

    def wheel_speeds(self, left: float, right: float) -> tuple[float, float]:
        """(left, right) wheel surface speeds (mm/s) for spin speeds (rad/s)."""
        return left * self.radius * 1000.0, right * self.radius * 1000.0


def separation_for(params: RobotParams) -> float:
    """The track (m) the parameter file's ``DiffConvFactor`` implies (see the module docstring)."""
    factor = params.diff_conv_factor or 0.0056
    return 2.0 / factor / 1000.0


def sonar_name(number: int) -> str:
    """USARSim's name of Pioneer sonar ``number`` (0-based): F1…F8, then R1…R8, then S17…"""
    if number < 8:
        return f"F{number + 1}"
    if number < 16:
        return f"R{number - 7}"
    return f"S{number + 1}"


def sonar_number(name: str) -> int | None:
    """The Pioneer sonar number a USARSim sonar name stands for, or None for a name of no Pioneer sonar."""
    if len(name) < 2 or not name[1:].isdigit():
        return None
    k = int(name[1:])
    if name[0] == "F" and 1 <= k <= 8:
        return k - 1
    if name[0] == "R" and 1 <= k <= 8:
        return k + 7
    if name[0] == "S" and k > 16:
        return k - 1
    return None
