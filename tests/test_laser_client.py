"""The laser on the client side: the link asks for it, the reflector reassembles scans from the real
byte stream, the LPS ring moves with the robot, occupancy queries and the avoidance behaviors use it,
and Colbert reads the scan. Everything runs in lock-step through the real packet link.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from saphira.behavior.library import find_behavior
from saphira.client.sensors.sonar import NO_ECHO, Region
from saphira.client.transport import memory_pair
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import LockStepClock
from saphira.params.robot_params import params_for_file
from saphira.protocol.command_packet import encode_command
from saphira.protocol.commands import Command
from saphira.protocol.laser import laser_packets
from saphira.protocol.sip import Sip, encode_sip
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.world.world import World
from tests.scripted_server import ScriptedServer

DATA = Path(__file__).resolve().parent / "data"
LASER_P3DX = DATA / "laser-params" / "p3dx-laser.p"
ARIA_P3DX = DATA / "aria-params" / "p3dx.p"  # ARIA's own file: LaserAutoConnect true, lms2xx


def wall_world(x: float) -> World:
    """A wall across the robot's way ``x`` mm ahead of the origin, 10 m long."""
    walls = np.array([[x, -5000.0, x, 5000.0]], dtype=np.float64)
    return World(name="wall", source="<test>", segments=walls, bounds=(-6000.0, -6000.0, 6000.0, 6000.0))


def simulated(params_file: Path | str, world: World, **kw: object) -> tuple[Robot, EmbeddedSim]:
    params = params_for_file(params_file)
    robot = Robot(params=params)
    sent: list[bytes] = []
    robot.link.on_packet_out.connect(sent.append)
    robot.sent = sent  # type: ignore[attr-defined]
    sim = attach_simulator(robot, world, params, pose=(0.0, 0.0, 0.0), odometry_error=False, **kw)  # type: ignore[arg-type]
    return robot, sim


# ------------------------------------------------------------------------------------------ the link
def test_the_link_asks_the_simulator_for_the_laser_the_parameter_file_declares() -> None:
    robot, sim = simulated(ARIA_P3DX, wall_world(2018.0))
    robot.run(cycles=3)
    requests = [p for p in robot.sent if p[3] in (230, 231, 232, 233)]  # type: ignore[attr-defined]
    assert requests == [
        encode_command(Command.SIM_LRF_SET_FOV_START, -90),
        encode_command(Command.SIM_LRF_SET_FOV_END, 90),
        encode_command(Command.SIM_LRF_SET_RES, 100),
        encode_command(Command.SIM_LRF_ENABLE, 1),
    ]
    assert sim.server.stats.ignored_total == 0
    assert robot.reflector.laser.assembler.counters.scans >= 2


def test_no_laser_is_asked_for_when_the_file_declares_none() -> None:
    robot, sim = simulated("p3dx", wall_world(2018.0))
    robot.run(cycles=5)
    assert not [p for p in robot.sent if p[3] in (230, 231, 232, 233, 35, 36, 37, 38)]  # type: ignore[attr-defined]
    assert robot.reflector.laser.scan is None and sim.sim_robot.laser is not None
    assert not sim.sim_robot.laser.enabled


def test_a_wall_2_m_ahead_appears_at_2_m_plus_or_minus_noise_in_the_reflector() -> None:
    robot, _ = simulated(LASER_P3DX, wall_world(2018.0))  # the laser sits 18 mm ahead of the centre
    robot.run(cycles=3)
    scan = robot.reflector.laser.scan
    assert scan is not None and scan.count == 181
    assert scan.robot_pose == (0.0, 0.0, 0.0) and scan.reported_pose == (0, 0, 0)
    ahead = scan.angles == 0.0
    assert abs(float(scan.ranges[ahead][0]) - 2000.0) < 4 * 10.0  # LaserNoise 10 mm
    central = np.abs(scan.angles) <= 20.0
    expected = 2000.0 / np.cos(np.radians(scan.angles[central]))
    assert np.abs(scan.ranges[central] - expected).max() < 4 * 10.0
    assert robot.sonar.occ_plane(Region.FRONT, Region.ALL, 0.0, 100.0, 100.0) == pytest.approx(2018.0, abs=40.0)
    assert robot.sonar.occ_box(Region.FRONT, 2000.0, 0.0, 400.0, 200.0) == pytest.approx(2018.0, abs=40.0)
    assert robot.sonar.occ_plane(Region.BACK, Region.ALL, 0.0, 1000.0, 1000.0) == NO_ECHO


def test_the_laser_ring_moves_with_the_robot() -> None:
    robot, sim = simulated(LASER_P3DX, wall_world(2018.0))
    robot.run(cycles=3)
    robot.link.send_command(Command.SIM_LRF_ENABLE, 0)  # no new scans: what is left must move
    robot.run(cycles=2)
    before = robot.sonar.occ_plane(Region.FRONT, Region.ALL, 0.0, 100.0, 100.0)
    robot.motion.set_velocity(300.0)
    robot.run(cycles=20)
    robot.motion.set_velocity(0.0)
    robot.run(cycles=10)
    driven = sim.sim_robot.x
    assert driven > 300.0
    after = robot.sonar.occ_plane(Region.FRONT, Region.ALL, 0.0, 100.0, 100.0)
    assert after == pytest.approx(before - driven, abs=2.0)


# ------------------------------------------------------------------------------------------ real bytes
def scripted(params_file: Path) -> tuple[Robot, ScriptedServer]:
    robot = Robot(LockStepClock(), params=params_for_file(params_file))
    client, server_end = memory_pair("scripted")
    server = ScriptedServer(server_end)
    robot.clock.add_listener(server.tick)  # type: ignore[attr-defined]
    robot.link.connect(client)
    robot.wait_connected(5.0)
    return robot, server


def scan_bytes(base: float, drop: int | None = None, cut: int | None = None) -> bytes:
    """A SIP and one 181-reading scan (ranges ``base + i``) in its six 0x60 packets, as a server sends
    them; without packet ``drop``, or ending after ``cut`` packets (a scan the next one interrupts)."""
    packets = laser_packets(np.arange(181) + base, extended=False, pose=(0, 0, 0))
    if drop is not None:
        del packets[drop]
    return encode_sip(Sip(x=0, y=0, th=0, battery=130)) + b"".join(packets[:cut])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_scan_survives_the_real_link_byte_stream(seed: int) -> None:
    """Scans cut at random byte positions across cycles, one with a lost packet, one interrupted by the
    next scan's index 0: only whole scans come out, each exactly as sent, never a mix of two."""
    robot, server = scripted(LASER_P3DX)
    assert [p.command for p in server.log if p.command >= 230] == [231, 232, 233, 230]
    server.send_sips = False  # from here on the SIPs come in the stream, never inside a laser packet
    stream = scan_bytes(1000) + scan_bytes(2000, drop=3) + scan_bytes(3000, cut=4) + scan_bytes(4000)
    rng = random.Random(seed)
    seen: dict[int, float] = {}
    pos = 0
    while pos < len(stream):
        step = rng.randint(1, 300)
        server.transport.write(stream[pos : pos + step])
        pos += step
        robot.step()
        scan = robot.reflector.laser.scan
        if scan is not None:
            seen[scan.sequence] = float(scan.ranges[0])
            assert np.array_equal(scan.ranges, scan.ranges[0] + np.arange(181))
    robot.step()
    assert seen == {1: 1000.0, 2: 4000.0}
    counters = robot.reflector.laser.assembler.counters
    assert (counters.scans, counters.broken) == (2, 2)
    assert robot.link.counters.undecodable == 0


# ------------------------------------------------------------------------------------------ avoidance
@pytest.mark.parametrize("laser", [True, False], ids=["with the laser", "without"])
def test_avoid_collision_stops_for_what_only_the_laser_sees(laser: bool, tmp_path: Path) -> None:
    """The robot has no sonar: with its laser, avoid_collision (through the occupancy queries) keeps it
    off the wall; without, it drives into it."""
    path = tmp_path / "robot.p"
    path.write_text(LASER_P3DX.read_text().replace("LaserPossessed true", f"LaserPossessed {str(laser).lower()}"))
    robot, sim = simulated(path, wall_world(2500.0))
    robot.start_behavior(find_behavior("avoid_collision"), priority=0)
    robot.start_behavior(find_behavior("constant_velocity"), 400.0, priority=2)
    nearest = 0.0
    for _ in range(150):
        robot.step()
        nearest = max(nearest, sim.sim_robot.x)
    if laser:
        assert sim.wall_contacts == 0 and nearest > 1000.0
        assert robot.reflector.laser.assembler.counters.scans > 100
    else:
        assert sim.wall_contacts > 0


# ------------------------------------------------------------------------------------------ Colbert
def test_colbert_reads_the_latest_scan() -> None:
    robot, _ = simulated(LASER_P3DX, wall_world(2018.0))
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text("sfLaserCount()") and lines[-1] == "0 (int)"
    robot.run(cycles=3)
    for text in ("sfLaserCount()", "sfLaserAngle(90)", "sfLaserAngle(0)", "sfLaserScans() > 1"):
        assert ev.eval_text(text), lines
    assert lines[-4:] == ["181 (int)", "0.0 (float)", "-90.0 (float)", "1 (int)"]
    assert ev.eval_text("int r; float x, y; r = sfLaserRange(90); x = sfLaserXCoord(90); y = sfLaserYCoord(90);")
    assert abs(int(ev.value("r")) - 2000) < 40 and abs(float(ev.value("x")) - 2018.0) < 40
    assert abs(float(ev.value("y"))) < 1e-6
    assert not ev.eval_text("sfLaserRange(181)")
    assert any("there is no laser reading 181 (the scan has 181)" in line for line in lines[-3:])
