"""One concept, one type (issue 36): guards read the package's source, as tests/test_layers.py does.

* **Pose.** A position and heading is :class:`saphira.core.geometry.Pose` in every signature: no bare
  ``tuple[float, float, float]`` annotation, and no alias of it named as a pose. A triple that is not a
  pose is a module-level alias saying what its three numbers are (with a docstring).
* **Setpoint stop.** A channel is stopped (velocity 0, given back to the behaviors) by
  :meth:`saphira.client.motion.MotionControl.stop_channels`, both held at 0 by its ``halt``; nobody
  else writes those setpoints.
* **Laser.** Every simulator's laser is a :class:`saphira.params.laser.LaserConfig` and casts its rays
  through :func:`saphira.sim.laser.cast_scan`.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from saphira.flat.server.laser import LaserRig
from saphira.gamebots.server.laser import RangeScanner
from saphira.params.laser import LaserConfig

PACKAGE = Path(__file__).resolve().parents[1] / "saphira"
SETPOINTS = {"set_velocity", "set_rvelocity"}


def _modules(mentioning: str) -> list[tuple[str, ast.Module]]:
    """The package's modules whose text matches the regular expression ``mentioning`` (only they are parsed)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if re.search(mentioning, text):
            found.append((str(path.relative_to(PACKAGE)), ast.parse(text, str(path))))
    return found


def _is_float_triple(node: ast.AST) -> bool:
    """``tuple[float, float, float]`` (or ``Tuple[...]``), however it is spaced."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return False
    head = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
    items = node.slice.elts
    return (
        head in ("tuple", "Tuple")
        and len(items) == 3
        and all(isinstance(item, ast.Name) and item.id == "float" for item in items)
    )


def _named_triples(tree: ast.Module) -> dict[int, str]:
    """Module-level aliases of the triple followed by a docstring: the triple's node id → the alias name."""
    named = {}
    body = tree.body
    for statement, after in itertools.zip_longest(body, body[1:]):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        documented = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        if isinstance(target, ast.Name) and _is_float_triple(value) and documented:
            named[id(value)] = target.id
    return named


def bare_pose_triples(modules: list[tuple[str, ast.Module]]) -> list[str]:
    """Every float triple that is not a documented, non-pose alias: ``file:line``."""
    found = []
    for name, tree in modules:
        named = _named_triples(tree)
        for node in ast.walk(tree):
            if not _is_float_triple(node):
                continue
            alias = named.get(id(node))
            if alias is None or "pose" in alias.lower():
                found.append(f"{name}:{node.lineno}" + (f" ({alias})" if alias else ""))
    return found


def test_a_pose_is_a_pose_in_every_signature() -> None:
    assert bare_pose_triples(_modules(r"float\s*,\s*float\s*,\s*float")) == []
    # and ``Pose`` is core.geometry's everywhere: no module defines its own (a wire type keeps its protocol's
    # name, as the laser scans do: ROS 2's geometry_msgs/Pose is its IDL struct)
    shadows = [name for name, _ in _modules(r"(?m)^(class\s+Pose\b|Pose\s*[:=])")]
    assert shadows == ["core/geometry.py", "ros2/messages.py"]


def test_the_pose_guard_refuses_the_bare_triple_and_pose_aliases() -> None:
    source = '''
Pose3 = tuple[float, float, float]
"""x, y, th"""
Span = tuple[float, float, float]
"""x, y, length"""
Undocumented = tuple[float, float, float]
def f(p: tuple[float,float,float]) -> list[Tuple[float, float, float]]: ...
'''
    found = bare_pose_triples([("m.py", ast.parse(source))])
    assert found == ["m.py:2 (Pose3)", "m.py:6", "m.py:7", "m.py:7"]


def _zero_setpoint_writers(modules: list[tuple[str, ast.Module]]) -> list[str]:
    """Functions outside client/motion.py that stop the robot's setpoints themselves: set a velocity to 0 and
    release the channel (:meth:`MotionControl.stop_channels`), or set both to 0 (:meth:`MotionControl.halt`)."""
    found = []
    for name, tree in modules:
        if name == "client/motion.py":
            continue
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            calls = [node for node in ast.walk(function) if isinstance(node, ast.Call)]
            names = {getattr(call.func, "attr", "") for call in calls}
            zeros = [call for call in calls if call.args and isinstance(call.args[0], ast.Constant)]
            zeroed = {getattr(call.func, "attr", "") for call in zeros if call.args[0].value == 0} & SETPOINTS
            if (zeroed and "release" in names) or len(zeroed) == 2:
                found.append(f"{name}:{function.lineno} {function.name}")
    return found


def test_one_setpoint_stop() -> None:
    """Colbert's runtime stops a channel through MotionControl.stop_channels, as its evaluator does; a
    multi-robot environment stops a robot that is done with MotionControl.halt."""
    assert _zero_setpoint_writers(_modules(r"set_r?velocity\(0")) == []


def test_every_simulators_laser_is_a_laser_config_cast_by_cast_scan() -> None:
    scanner = RangeScanner()
    assert isinstance(scanner.config, LaserConfig)
    # USARSim's units, from the configuration: 181 beams over pi, 20 m, 0.16 m ahead
    assert (scanner.beams, scanner.fov, scanner.max_range, scanner.mount_x) == (
        181,
        pytest.approx(3.14159265),
        20.0,
        0.16,
    )
    for count in (1, 2):
        mounts = LaserRig.with_count(count).mounts
        assert [m.config.count for m in mounts] == [180] * count
        assert all(isinstance(m.config, LaserConfig) and m.config.noise == 0.0 for m in mounts)
    assert [m.angle for m in LaserRig.with_count(2).mounts] == [-45.0, 45.0]  # Flat's clockwise angle, on the wire
    casts = []
    for name in ("sim/laser.py", "flat/server/laser.py", "gamebots/server/laser.py"):
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        called = {getattr(n.func, "id", getattr(n.func, "attr", "")) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        casts.append((name, sorted(called & {"cast_scan", "cast_rays", "cast_fan", "cast_even_fan"})))
    assert casts == [("sim/laser.py", ["cast_even_fan", "cast_scan"]), ("flat/server/laser.py", ["cast_scan"]),
                     ("gamebots/server/laser.py", ["cast_scan"])]  # fmt: skip
