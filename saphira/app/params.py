"""``saphira params [FILE]``: list the bundled parameter files, or show what one file resolves to.

With a FILE (a path or a bundled name), the file is resolved the way the simulator and the client
resolve it (:func:`saphira.params.robot_params.params_for_file`): its model's built-in parameters, the model's own
file, then FILE. Each value is printed with where it came from, so a user can see at once whether
their file changed the conversion factors or left them to the model.
"""

from __future__ import annotations

import argparse

from saphira.app.commands import Command
from saphira.params.laser import laser_config, laser_declared
from saphira.params.robot_params import RobotParams, bundled_params, params_for_file

SHOWN: tuple[tuple[str, str, str], ...] = (
    ("robot_class", "Class", ""),
    ("subclass", "Subclass", ""),
    ("angle_conv_factor", "AngleConvFactor", "rad per unit"),
    ("dist_conv_factor", "DistConvFactor", "mm per unit"),
    ("vel_conv_factor", "VelConvFactor", "mm/s per unit"),
    ("range_conv_factor", "RangeConvFactor", "mm per unit"),
    ("diff_conv_factor", "DiffConvFactor", ""),
    ("vel2_divisor", "Vel2Divisor", ""),
    ("robot_radius", "RobotRadius", "mm"),
    ("robot_width", "RobotWidth", "mm"),
    ("robot_length", "RobotLength", "mm"),
    ("robot_length_front", "RobotLengthFront", "mm"),
    ("robot_length_rear", "RobotLengthRear", "mm"),
    ("max_velocity", "MaxVelocity", "mm/s"),
    ("max_rvelocity", "MaxRVelocity", "deg/s"),
    ("trans_vel_max", "TransVelMax", "mm/s (0: the robot's own)"),
    ("rot_vel_max", "RotVelMax", "deg/s (0: the robot's own)"),
    ("trans_accel", "TransAccel", "mm/s2 (0: the robot's own)"),
    ("trans_decel", "TransDecel", "mm/s2 (0: the robot's own)"),
    ("has_move_command", "HasMoveCommand", ""),
    ("sonar_units", "SonarNum", "sonars"),
)
"""(field, the file's key, unit) of each line the report shows, in order."""

DEFAULT_ORIGIN = "Saphira default"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``params`` argument."""
    parser.add_argument("file", nargs="?", metavar="FILE", help="a .p file or a bundled name")


def run_params(args: argparse.Namespace) -> int:
    """The ``saphira params`` command; errors (ParamsError, not found) propagate to ``saphira``'s handler."""
    if getattr(args, "file", None):
        print(describe(params_for_file(args.file)))
        return 0
    for name in bundled_params():
        p = params_for_file(name)  # resolved as a run resolves it: a file that names its model gets the model's values
        laser = "  laser" if laser_declared(p) else ""
        model = f"{p.robot_class:8s} {p.subclass:10s}"
        print(f"{name:10s} {model} {p.sonar_num:2d} sonars  radius {p.robot_radius:.0f} mm{laser}")
    return 0


COMMAND = Command(
    "params",
    help="list bundled parameter files, or show what one resolves to",
    arguments="[FILE]",
    summary="list the bundled robot parameter files, or show what FILE resolves to",
    description="Without FILE, list the bundled robot parameter files (use the name with --params; "
    "SAPHIRA_PARAMS adds directories searched first). With FILE (a path or a bundled name), show the "
    "robot it describes: model, conversion factors, sizes, speeds, sonar count, and where each value "
    "came from (built-in default of the model, the model's own file, or FILE).",
    epilog="exit status: 0, or 2 for a file that cannot be found, read or parsed.",
    add_arguments=add_arguments,
    run=run_params,
)


def _value(params: RobotParams, name: str) -> str:
    value = getattr(params, name)
    if name == "sonar_units":
        return str(len(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def describe(params: RobotParams) -> str:
    """A person's view of resolved parameters: model, layers, then one line per value with its origin."""
    lines = [f"model: {params.subclass or '(none)'} ({params.robot_class})"]
    lines += [f"  layer {i}: {layer}" for i, layer in enumerate(params.layers, 1)]
    width = max(len(key) for _, key, _ in SHOWN)
    for name, key, unit in SHOWN:
        value = _value(params, name)
        shown = f"{value} {unit}".strip()
        lines.append(f"{key:<{width}}  {shown:<34} from {params.origins.get(name, DEFAULT_ORIGIN)}")
    lines.append(f"{'Laser':<{width}}  {_laser(params)}")
    lines += [f"warning: {warning}" for warning in params.warnings]
    return "\n".join(lines)


def _laser(params: RobotParams) -> str:
    """The laser the file declares, as the simulator and the client build it (saphira.params.laser)."""
    declared = laser_declared(params)
    config = laser_config(params, assume=True)
    if config is None:
        return "none (the file says the robot has no laser)"
    fitted = (
        f"{config.laser_type} at x {config.x:g} y {config.y:g} mm, th {config.th:g} deg; "
        f"{config.start:g}..{config.end:g} deg every {config.increment:g} ({config.count} readings); "
        f"range {config.max_range:g} mm, noise {config.noise:g} mm"
    )
    if declared:
        return fitted
    # MobileSim's Pioneers all carry a laser, which an ARIA client uses only when told (ARIA's own p3dx.p
    # says LaserAutoConnect true): saphira's client likewise uses none the file does not declare.
    use = "--params p3dx-laser" if params.subclass == "p3dx" else "a --params file saying LaserAutoConnect true"
    return (f"not declared: a run uses no laser (sfLaserCount() stays 0); for one, {use}. The simulator "
            f"still serves {fitted} to an ARIA client that connects it, as MobileSim does")  # fmt: skip
