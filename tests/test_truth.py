"""Truth beside belief: the robot's global pose against the embedded simulator's true pose, in Python
and in ``saphira run``'s summary."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

from saphira.core.geometry import Pose
from saphira.perception.truth import pose_error, pose_error_line
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from tests.sim_process import PROJECT


def test_pose_error_is_distance_and_wrapped_heading_difference() -> None:
    assert pose_error(Pose(100.0, 0.0, 179.0), Pose(100.0, 0.0, -179.0)) == (0.0, 2.0)
    distance, heading = pose_error(Pose(0.0, 0.0, 10.0), Pose(300.0, 400.0, 0.0))
    assert (distance, heading) == (500.0, 10.0)
    assert pose_error_line(Pose(0.0, 0.0, 10.0), Pose(300.0, 400.0, 0.0)).startswith("    pose error 500 mm, 10.0 deg")


def test_dead_reckoning_drifts_from_the_simulators_truth() -> None:
    robot = Robot()
    sim = attach_simulator(robot, "corridor", "p3dx", seed=2)  # odometry error on
    start = pose_error(robot.state.global_pose, sim.true_pose)
    assert start == (0.0, 0.0)  # the client starts at the true pose
    robot.motion.set_velocity(400)
    robot.motion.set_rvelocity(8)
    robot.run(seconds=30.0)
    robot.motion.halt()
    robot.run(cycles=20)  # standing: the last SIP and the truth agree in time
    distance, heading = pose_error(robot.state.global_pose, sim.true_pose)
    truth, belief = sim.true_pose, robot.state.global_pose
    assert distance == math.hypot(truth.x - belief.x, truth.y - belief.y)
    assert distance > 20.0 or heading > 0.5  # it drifted
    again = Robot()
    exact = attach_simulator(again, "corridor", "p3dx", seed=2, odometry_error=False)
    again.motion.set_velocity(400)
    again.motion.set_rvelocity(8)
    again.run(seconds=30.0)
    again.motion.halt()
    again.run(cycles=20)
    assert pose_error(again.state.global_pose, exact.true_pose)[0] < 1.0  # without error the two agree


def test_saphira_run_summary_prints_the_pose_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "saphira", "run", "colbert/direct.act", "--world", "room"],
        cwd=PROJECT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    m = re.search(r"^    pose error (\d+) mm, ([\d.]+) deg \(global pose against the simulator's true pose\)$",
                  result.stdout, re.M)  # fmt: skip
    assert m, result.stdout
    assert 0 < int(m[1]) < 500 and float(m[2]) < 10.0  # a 4 m square with odometry error: drifted, not lost


def test_saphira_run_plot_draws_the_true_path_beside_the_global_one(tmp_path: Path) -> None:
    svg = tmp_path / "square.svg"  # matplotlib's SVG keeps each text as a comment beside its glyphs
    result = subprocess.run(
        [sys.executable, "-m", "saphira", "run", "colbert/direct.act", "--world", "room", "--plot", str(svg)],
        cwd=PROJECT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    labels = re.findall(r"<!-- (.*?) -->", svg.read_text())
    assert "true path (simulator)" in labels and "global pose (belief)" in labels
    assert "robot path" not in labels


def test_saphira_run_with_registration_and_the_map_keeps_the_pose_error_small(tmp_path: Path) -> None:
    """demo.act in the corridor world with its map loaded and FindAndFollow resumed (the README's run)."""
    go = tmp_path / "go.act"
    go.write_text('sfLoadMapFile("corridor");\nresume FindAndFollow;\n')
    result = subprocess.run(
        [sys.executable, "-m", "saphira", "run", "colbert/demo.act", str(go), "--world", "corridor",
         "--duration", "120"],
        cwd=PROJECT, capture_output=True, text=True, timeout=400, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    m = re.search(r"^    pose error (\d+) mm, ([\d.]+) deg", result.stdout, re.M)
    travelled = re.search(r"^    travelled ([\d.]+) m", result.stdout, re.M)
    assert m and travelled, result.stdout
    print(m[0].strip(), "after", travelled[1], "m")
    assert float(travelled[1]) >= 15.0
    assert int(m[1]) <= 150 and float(m[2]) <= 6.0  # measured 21 mm, 4.5 deg: circling at the corridor end
