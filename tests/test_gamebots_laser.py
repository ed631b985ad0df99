"""A laser over ``usarsim://``: the server's RangeScanner feeds the client's reflector, as Flat's does."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import norm2_angle
from saphira.gamebots.client.link import GamebotsLink
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import GamebotsServer
from saphira.perception import perception_for
from saphira.robot import Robot
from saphira.sim.simulation import Simulation
from saphira.world.world import load_world
from tests.sim_process import Program
from tests.test_cli import saphira


def served(laser: RangeScanner | None) -> tuple[Robot, GamebotsServer]:
    """A P2DX at (1500, 1500) facing the east wall of the 6 m room (x = 6000), stepped in lock-step."""
    server = GamebotsServer(Simulation(load_world("room"), 0), port=0, laser=laser)
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    robot.connect(f"usarsim://127.0.0.1:{server.port}?class=P2DX&location=1.5,-1.5,0")
    return robot, server


def test_sflaserrange_reads_the_wall_ahead_over_usarsim() -> None:
    robot, server = served(RangeScanner())
    try:
        assert isinstance(robot.link, GamebotsLink)
        robot.run(cycles=3)
        # GEO and CONF {Type RangeScanner} gave the laser's mount (0.16 m ahead) and its 20 m range.
        assert robot.link.laser_mount == pytest.approx((160.0, 0.0))
        assert robot.link.laser_range == pytest.approx(20000.0)
        messages: list[str] = []
        ev = Evaluator(robot, output=messages.append, read_init=False)
        assert ev.eval_text("int n, k, r, s; float a, x, b; n = sfLaserCount(); k = sfLaserScans(); "
                            "r = sfLaserRange(90); a = sfLaserAngle(90); x = sfLaserXCoord(90); "
                            "s = sfLaserRange(180); b = sfLaserAngle(180);"), messages  # fmt: skip
        # 181 beams over 180 degrees, one scan per STA; beam 90 looks straight ahead from the mount at
        # the east wall 4500 mm from the centre, beam 180 looks left at the north wall 4500 mm away.
        assert int(ev.value("n")) == 181 and int(ev.value("k")) == robot.state.sips >= 2
        assert float(ev.value("a")) == pytest.approx(0.0)
        assert int(ev.value("r")) == pytest.approx(6000.0 - 1500.0 - 160.0, abs=2.0)
        assert float(ev.value("x")) == pytest.approx(6000.0 - 1500.0, abs=2.0)
        assert float(ev.value("b")) == pytest.approx(90.0, abs=0.01)  # the FOV goes over the wire in 4 decimals
        assert int(ev.value("s")) == pytest.approx(6000.0 - 1500.0, abs=2.0)
        # The scan was taken at the step's pose (applied after that step's STA), and the LPS holds its
        # points: the wall ahead is 4500 mm in front of the robot's centre.
        scan = robot.reflector.laser.scan
        assert scan is not None and tuple(scan.global_pose) == pytest.approx(tuple(robot.state.global_pose))
        xs, ys = robot.reflector.laser.ring.points()
        ahead = (abs(ys) < 50.0) & (xs > 0.0)
        assert ahead.any() and xs[ahead] == pytest.approx(4500.0, abs=2.0)
    finally:
        robot.disconnect()
        server.close()


def test_without_a_laser_the_reflector_has_no_scan() -> None:
    robot, server = served(None)
    try:
        robot.run(cycles=3)
        assert robot.connected and robot.reflector.laser.scan is None and robot.reflector.laser.scans == 0
        assert robot.link.laser_mount == (0.0, 0.0)  # type: ignore[attr-defined]
    finally:
        robot.disconnect()
        server.close()


def test_saphira_run_reads_the_laser_of_saphira_sim_gamebots_laser(tmp_path: Path) -> None:
    """Two processes: ``saphira sim --gamebots 0 --laser`` and a ``saphira run`` whose activity reads the wall."""
    act = tmp_path / "look.act"
    act.write_text('act look { waitfor (sfLaserCount() > 0); sfSMessage("ahead %d mm", sfLaserRange(90)); }\n'
                   "start look;\n")  # fmt: skip
    sim = Program("--gamebots", "0", "--world", "room", "--laser")
    try:
        url = f"usarsim://{sim.addresses[0]}?class=P2DX&location=1.5,-1.5,0"
        result = saphira("run", str(act), "--robot", url, "--duration", "5", timeout=60)
    finally:
        sim.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    ahead = re.search(r"ahead (\d+) mm", result.stdout)
    assert ahead is not None, result.stdout
    assert int(ahead[1]) == pytest.approx(6000 - 1500 - 160, abs=2)


def test_perception_fits_the_side_wall_to_the_usarsim_laser() -> None:
    """Driving along the south wall 1 m away: the interpretation's right wall comes from the laser."""
    server = GamebotsServer(Simulation(load_world("room"), 0), port=0, laser=RangeScanner())
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    robot.connect(f"usarsim://127.0.0.1:{server.port}?class=P2DX&location=1.0,-1.0,0")
    try:
        perception = perception_for(robot.reflector, robot.scheduler)
        perception.start_interpretation()
        robot.motion.set_velocity(300.0)
        robot.run(cycles=30)
        wall = perception.right_wall
        assert wall.viewable and perception.interpretation.right.laser
        th = math.radians(wall.th)
        assert -math.sin(th) * wall.x + math.cos(th) * wall.y == pytest.approx(-1000.0, abs=10.0)
        assert abs(norm2_angle(wall.th)) < 1.0 and wall.length > 1000.0
    finally:
        robot.disconnect()
        server.close()
