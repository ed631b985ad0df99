"""Our client over ``usarsim://`` against our Gamebots server: Colbert and the behaviors run unchanged."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from saphira.client.link.base import ConnectError
from saphira.client.link.pioneer import PioneerLink
from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.gamebots.client.link import GamebotsLink
from saphira.gamebots.server.listener import GamebotsServer
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.sim.simulation import Simulation
from saphira.world.world import load_world
from tests.gamebots_support import connect_usarsim
from tests.sim_process import Program
from tests.test_cli import saphira

PROJECT = Path(__file__).resolve().parents[1]


def test_the_link_spawns_the_robot_and_takes_its_geometry_from_geo() -> None:
    run = connect_usarsim("room", (1500.0, 1500.0, 0.0))
    try:
        robot = run.robot
        assert isinstance(robot.link, GamebotsLink) and robot.connected
        assert robot.link.identity is not None and robot.link.identity.subclass == "USARBot.P2DX"
        assert robot.state.global_pose == pytest.approx((1500.0, 1500.0, 0.0))
        assert robot.link.wheels is not None and robot.link.wheels.radius == 0.0825
        assert len(robot.sonar.buckets) == 16 and robot.link.sonar_names["F1"] == 0
        assert robot.sonar.buckets[0].pose.th == pytest.approx(90.0, abs=0.01)  # from GEO, 4 decimals of a radian
        robot.motion.set_velocity(200.0)
        for _ in range(30):
            run.step()
        assert run.sim_robot.x - 1500.0 == pytest.approx(robot.state.ax - 1500.0, abs=25.0)
        assert robot.state.vel == pytest.approx(200.0, abs=5.0)
        assert any(bucket.count for bucket in robot.sonar.buckets)
    finally:
        run.close()
    assert isinstance(robot.link, GamebotsLink) and not robot.connected


@pytest.mark.slow
def test_the_demo_stack_wanders_amroffice_for_10_minutes_over_gamebots_without_contact() -> None:
    run = connect_usarsim(PROJECT / "maps" / "AMROffice.map", (-8176.0, -3151.0, 0.0))
    try:
        evaluator = Evaluator(run.robot, output=lambda line: None, read_init=False)
        assert evaluator.load(PROJECT / "colbert" / "demo.act")
        for _ in range(run.robot.clock.cycles_for(600.0)):
            run.step()
        assert run.server.contacts == 0 and run.stalled_steps == 0
        assert run.travelled / 600.0 > 150.0  # mm/s on average: it really wandered
    finally:
        run.close()


def test_direct_act_square_closes_over_gamebots() -> None:
    run = connect_usarsim("room", (2000.0, 2000.0, 0.0))
    try:
        evaluator = Evaluator(run.robot, output=lambda line: None, read_init=False)
        assert evaluator.load(PROJECT / "colbert" / "direct.act")
        square = evaluator.activity("square")
        assert square is not None
        for _ in range(600):
            run.step()
            if square.finished:
                break
        assert square.state == TaskState.SUCCESS
        state = run.robot.state
        assert abs(state.ax - 2000.0) < 60 and abs(state.ay - 2000.0) < 60  # the same tolerance as over TCP
        assert abs(((state.ath + 180) % 360) - 180) < 4
        assert 3900 < run.travelled < 4200
        assert math.hypot(run.sim_robot.x - 2000.0, run.sim_robot.y - 2000.0) < 60
    finally:
        run.close()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("usarsim://127.0.0.1:1?class=Hummer", "unknown robot class 'Hummer'"),
        ("usarsim://127.0.0.1:1?class=P2DX&speed=3", "unknown option 'speed'"),
        ("usarsim://127.0.0.1:1?location=1,2", "location must be a vector x,y,z"),
        ("usarsim://:3000", "a usarsim URL needs a host"),
        ("usarsim://127.0.0.1:1", "cannot connect to usarsim://127.0.0.1:1"),
    ],
)
def test_bad_usarsim_urls_say_what_is_wrong(url: str, expected: str) -> None:
    robot = Robot()
    with pytest.raises(ConnectError, match=expected):
        robot.connect(url)


def test_a_tcp_url_after_usarsim_gets_the_pioneer_link_back() -> None:
    robot = Robot()
    pioneer = robot.link
    with pytest.raises(ConnectError):
        robot.connect("usarsim://127.0.0.1:1")
    assert isinstance(robot.link, GamebotsLink)
    with pytest.raises(ConnectError):
        robot.connect("tcp://127.0.0.1:1")
    assert robot.link is pioneer and type(robot.link) is PioneerLink


def test_saphira_run_drives_a_brain_over_usarsim_on_a_second_process_server() -> None:
    sim = Program("--gamebots", "0", "--world", "room")
    try:
        url = f"usarsim://{sim.addresses[0]}?class=P2DX&location=1.5,-4.0,0"
        result = saphira("run", "brains/avoid.py", "--robot", url, "--duration", "3", timeout=60)
    finally:
        sim.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "connected to USARBot.P2DX (USARSim USARBot.P2DX)" in result.stdout
    assert "brain Avoid destroyed after" in result.stdout
    travelled = float(re.search(r"travelled ([\d.]+) m", result.stdout)[1])  # type: ignore[index]
    assert travelled > 0.3  # it drove: about 340 mm/s once the brain runs
    reports = int(re.search(r"link: (\d+) STA messages", result.stdout)[1])  # type: ignore[index]
    assert 20 <= reports <= 40  # the server's state at 10 Hz for 3 s, named as Gamebots names it


def test_the_embedded_simulator_after_usarsim_gets_the_pioneer_link_back() -> None:
    run = connect_usarsim("room", (1500.0, 1500.0, 0.0))
    try:
        robot = run.robot
        robot.disconnect()
        sim = attach_simulator(robot, "room", "p3dx")
        assert type(robot.link) is PioneerLink and robot.connected
        sim.detach()
    finally:
        run.close()


def test_saphira_sim_gamebots_refuses_a_bad_port() -> None:
    result = saphira("sim", "--gamebots", "70000")
    assert result.returncode == 2 and "argument --gamebots: 70000 is not a port number (0-65535" in result.stderr


def test_params_lays_a_file_over_the_usarsim_model(tmp_path: Path) -> None:
    slow = tmp_path / "slow.p"
    slow.write_text("TransVelMax 300\nRotVelMax 40\n")
    server = GamebotsServer(Simulation(load_world("room"), 0), port=0)
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    robot.link.user_params = str(slow)
    try:
        robot.connect(f"usarsim://127.0.0.1:{server.port}?class=P2DX&location=1.5,-1.5,0")
        assert robot.params.trans_vel_max == 300 and robot.params.rot_vel_max == 40
        assert robot.params.robot_radius == 250.0  # the rest is the P2DX's
    finally:
        robot.disconnect()
        server.close()
