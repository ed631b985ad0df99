"""The laser, visible: a bundled parameter file with a laser, `saphira params` showing it, and `--plot`
drawing the last scans and the boxes where the run left them."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Polygon

from saphira.app.plot import draw_run
from saphira.app.trace import RunTrace
from saphira.params.laser import laser_config
from saphira.params.robot_params import params_for_file
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.objects import SimObject
from saphira.world.world import load_world

PROJECT = Path(__file__).resolve().parents[1]


def saphira(*args: str, cwd: Path = PROJECT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "saphira", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"},
    )


def test_the_bundled_p3dx_laser_is_a_p3dx_with_a_sick_lms200() -> None:
    params = params_for_file("p3dx-laser")
    p3dx = params_for_file("p3dx")
    assert (params.subclass, params.sonar_num, params.robot_radius) == ("p3dx", 16, p3dx.robot_radius)
    config = laser_config(params)  # declared: no assuming
    assert config is not None
    assert (config.laser_type, config.x, config.start, config.end, config.count) == ("lms2xx", 18, -90, 90, 181)
    assert config.max_range == 32000


def test_saphira_params_shows_the_laser() -> None:
    shown = saphira("params", "p3dx-laser")
    assert shown.returncode == 0, shown.stderr
    assert "Laser             lms2xx at x 18 y 0 mm, th 0 deg; -90..90 deg every 1 (181 readings)" in shown.stdout
    listing = saphira("params")
    assert any(line.startswith("p3dx-laser") and line.endswith("laser") for line in listing.stdout.splitlines())
    assert "p3dx-laser Pioneer  p3dx       16 sonars  radius 250 mm" in listing.stdout  # resolved through its model
    plain = saphira("params", "p3dx")
    assert (
        "Laser             not declared: a run uses no laser (sfLaserCount() stays 0); for one, --params "
        "p3dx-laser. The simulator still serves lms2xx" in plain.stdout
    )


def test_the_trace_keeps_the_last_scans_where_the_walls_are() -> None:
    robot = Robot(params=params_for_file("p3dx-laser"))  # the client knows its laser, as --params tells a run
    sim = attach_simulator(robot, "room", "p3dx-laser", pose=(1500.0, 4000.0, 0.0))
    trace = RunTrace(robot, truth=lambda: sim.true_pose, scans=3)
    robot.scheduler.add(trace)
    robot.motion.set_velocity(300)
    robot.run(seconds=5.0)
    assert len(trace.scans) == 3 and robot.reflector.laser.scans > 3
    world = load_world("room")
    for xs, ys in trace.scans:
        assert len(xs) > 150  # most of the 181 readings hit a wall in a 6 m room
        gaps = [world.clearance(x, y) for x, y in zip(xs, ys, strict=True)]
        assert np.median(gaps) < 30.0  # on the walls (5 mm noise; the box's corners)


def test_a_plot_draws_the_last_scans_and_the_boxes_where_they_ended() -> None:
    world = load_world("ftvs")
    box = SimObject(world.objects[0])
    box.x, box.y = box.x + 700.0, box.y - 300.0  # the run moved it
    scan = (np.array([1000.0, 1100.0, 1200.0]), np.array([500.0, 520.0, 540.0]))
    fig = draw_run([(0.0, 0.0, 0.0), (1000.0, 0.0, 0.0)], world=world, scans=[scan, scan], objects=[box])
    try:
        ax = fig.axes[0]
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "last laser scan" in labels and "earlier scans" in labels
        newest = next(c for c in ax.collections if c.get_label() == "last laser scan")
        assert np.allclose(newest.get_offsets(), np.column_stack(scan) / 1000.0)
        (patch,) = [p for p in ax.patches if isinstance(p, Polygon)]
        assert np.allclose(patch.get_xy()[:4].mean(axis=0) * 1000.0, (box.x, box.y))
    finally:
        plt.close(fig)


def test_saphira_run_plots_the_box_the_gripper_carried_where_it_left_it(tmp_path: Path) -> None:
    world = tmp_path / "fetch.wld"
    world.write_text("width 6000\nheight 4000\n0 0 6000 0\n0 4000 6000 4000\n0 0 0 4000\n6000 0 6000 4000\n"
                     "box 2500 2000 150 150 red\nposition 1000 2000 0\n")  # fmt: skip
    act = tmp_path / "fetch.act"
    act.write_text(
        textwrap.dedent("""
        act fetch {
          speed(150);
          waitfor (sfGripperBeams() == 1);
          speed(0);
          sfGripperClose();
          waitfor (sfGripperState() == 2);
          sfGripperUp();
          waitfor (sfGripperLiftMaxed());
          move(-1000);
        }
        start fetch;
        """)
    )
    done = saphira("run", str(act), "--world", str(world), "--params", "p3dx-laser",
                   "--duration", "40", "--plot", str(tmp_path / "fetch.svg"), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "activity fetch: SUCCESS" in done.stdout
    svg = (tmp_path / "fetch.svg").read_text()
    assert "last laser scan" in svg
    box_x = svg_data_x(svg, "fill: #ff0000", world_width=6.0)
    assert abs(box_x - 1.5) < 0.1  # carried 1 m back from where the file put it (2.5 m)


def svg_data_x(svg: str, style: str, world_width: float) -> float:
    """The data x (m) of the centre of the clipped path drawn with ``style``, from the walls' drawn span."""
    paths = re.findall(r'<path d="([^"]*)"\s+clip-path="[^"]*" style="([^"]*)"', svg)
    xs = lambda d: [float(x) for x in re.findall(r"[ML] ([-\d.]+) [-\d.]+", d)]  # noqa: E731
    walls = [x for d, st in paths if st.startswith("fill: none; stroke: #262626") for x in xs(d)]
    (box,) = [xs(d) for d, st in paths if st.startswith(style)]
    return (sum(box) / len(box) - min(walls)) / (max(walls) - min(walls)) * world_width


def test_p3dx_laser_keeps_every_value_of_p3dx_but_the_name_and_the_laser() -> None:
    laser, plain = params_for_file("p3dx-laser"), params_for_file("p3dx")
    differs = {
        name
        for name in vars(plain)
        if name not in ("origins", "layers", "warnings", "extra", "name", "source")
        and getattr(plain, name) != getattr(laser, name)
    }
    assert differs == set()
    assert laser.name == "P3DX-laser" and {k for k in laser.extra if k.lower().startswith("laser")} >= {"LaserType"}
