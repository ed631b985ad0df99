"""Our client over ``flat://`` against our Flat4 server: the reflector, Colbert and the behaviors unchanged.

The server runs in a thread on a loopback port; the client is a :class:`~saphira.robot.Robot` on a
lock-step clock, whose every cycle waits for the server's step output, so the pair runs in lock-step
(standard mode) as fast as both go. The GIL's switch interval is shortened for these tests: two threads
handing the turn back and forth every step would otherwise wait out the default 5 ms each time.
"""

from __future__ import annotations

import math
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from saphira.behavior.library import find_behavior
from saphira.client.link.base import ConnectError, LinkState
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import RealTimeClock
from saphira.core.geometry import norm2_angle
from saphira.flat.client.link import FlatLink, heading_velocity
from saphira.flat.codec import LaserQuery, LaserReply, MapChanged, TransitionQuery
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.perception import perception_for
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.flat_world import load_world_file
from saphira.world.wld import parse_wld
from saphira.world.world import World, load_world
from tests.realtime import WAIT

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def quick_thread_switches() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    yield
    sys.setswitchinterval(previous)


class Served:
    """A Flat server in a thread and a robot connected to it over ``flat://``."""

    def __init__(self, flat: FlatSimulation) -> None:
        self.flat = flat
        self.server = FlatServer(flat)
        self.thread = self.server.serve_in_thread()
        self.robot = Robot()
        self.messages: list[str] = []
        self.evaluator = Evaluator(self.robot, output=self.messages.append, read_init=False)
        self.url = "flat://{}:{}".format(*self.server.address)
        self.robot.connect(self.url)

    def close(self) -> None:
        self.robot.disconnect()
        self.server.close()
        self.thread.join(timeout=WAIT)


def served(world: World, pose: tuple[float, float, float] | None = None, lasers: int = 0) -> Served:
    return Served(FlatSimulation(world, options=FlatOptions(lasers=lasers), pose=pose))


def test_the_link_feeds_pose_sonar_and_lasers_and_sends_setpoints(maps_dir: Path) -> None:
    room = load_world(maps_dir / "room.wld")
    run = served(room, (5000.0, 1000.0, 0.0), lasers=1)
    try:
        robot, flat = run.robot, run.flat
        assert isinstance(robot.link, FlatLink) and robot.connected
        assert robot.link.identity is not None and robot.link.identity.subclass == "flat4"
        headings = [0, -30, -60, -90, -120, -150, 180, 150, 120, 90, 60, 30]
        assert [round(b.pose.th) for b in robot.sonar.buckets] == headings
        robot.run(cycles=2)
        # Sonar 0 faces the east wall, 1000 mm ahead (less the 200 mm ring); sonar 3 the south wall.
        assert robot.sonar.range(0) == pytest.approx(800, abs=60)
        assert robot.sonar.range(3) == pytest.approx(800, abs=60)
        assert (robot.state.ax, robot.state.ay, robot.state.ath) == (5000.0, 1000.0, 0.0)
        # The laser scan is the reflector's, in the robot frame, and reads as the server's own 'l' answer
        # (Flat's "y ahead" frame: x to the right, y ahead).
        scan = robot.reflector.laser.scan
        assert scan is not None and scan.count == 180 and robot.reflector.laser.scans == robot.state.sips
        assert scan.angles[0] == pytest.approx(-89.5) and scan.angles[-1] == pytest.approx(89.5)
        answer = robot.link.query(LaserQuery())
        assert isinstance(answer, LaserReply)
        theirs = answer.lasers[0][1]
        rad = np.radians(scan.angles)
        ahead, left = scan.ranges * np.cos(rad), scan.ranges * np.sin(rad)
        assert len(theirs) == 180
        assert all(math.hypot(a - t.y, lf + t.x) < 0.5 for a, lf, t in zip(ahead, left, theirs, strict=True))
        # A rotation setpoint turns the robot at Flat's 50 deg/s² up to the asked rate.
        robot.motion.set_rvelocity(20.0)
        robot.run(cycles=12)
        assert flat.robot.rvel == pytest.approx(20.0)
        assert robot.state.rvel == pytest.approx(20.0, abs=0.5)  # measured from the pose's change
        # The client holds the pose of the last step output; the server thread may already have taken
        # the step of the control line that answered it (one 100 ms step, 2 degrees, ahead) or not yet.
        assert robot.state.ath == pytest.approx(robot.link.last_output.pose[2])
        assert 0.0 <= norm2_angle(flat.pose.th - robot.state.ath) <= 20.0 * 0.1 + 0.01
        # sfSMessage goes to Flat's message field.
        assert run.evaluator.eval_text('sfSMessage("turning at %d", 20);')
        robot.run(cycles=2)
        assert run.messages[-1] == "turning at 20" and flat.message == "turning_at_20"
    finally:
        run.close()


@pytest.mark.parametrize("lasers", [1, 2])
def test_colbert_reads_the_walls_from_flats_lasers(maps_dir: Path, lasers: int) -> None:
    """One laser gives 180 readings (-89.5 .. 89.5 degrees), two are merged into 270 (-134.5 .. 134.5)."""
    run = served(load_world(maps_dir / "room.wld"), (5000.0, 2000.0, 0.0), lasers=lasers)
    try:
        run.robot.run(cycles=2)
        ev = run.evaluator
        count = 180 if lasers == 1 else 270
        ahead, last = count // 2, count - 1
        assert ev.eval_text(
            f"int n, r, l, k; float a, b; n = sfLaserCount(); k = sfLaserScans(); "
            f"r = sfLaserRange({ahead}); a = sfLaserAngle({ahead}); "
            f"l = sfLaserRange({last}); b = sfLaserAngle({last});"
        ), run.messages
        assert int(ev.value("n")) == count and int(ev.value("k")) == run.robot.state.sips >= 2
        # The east wall is 1000 mm ahead: reading 'ahead' looks 0.5 degrees left of straight ahead.
        assert float(ev.value("a")) == pytest.approx(0.5)
        assert int(ev.value("r")) == pytest.approx(1000.0 / math.cos(math.radians(0.5)), abs=1.0)
        # The last reading looks 89.5 degrees left (one laser) at the north wall 4000 mm away, or
        # 134.5 degrees left (two) at the west wall 5000 mm behind: beyond the 5 m the ring keeps.
        if lasers == 1:
            assert float(ev.value("b")) == pytest.approx(89.5)
            assert int(ev.value("l")) == pytest.approx(4000.0 / math.cos(math.radians(0.5)), abs=1.0)
        else:
            assert float(ev.value("b")) == pytest.approx(134.5)
            assert int(ev.value("l")) == pytest.approx(4000.0 / math.sin(math.radians(45.5)), abs=1.0)
    finally:
        run.close()


@pytest.mark.parametrize("lasers", [1, 0], ids=["with a laser", "without"])
def test_avoid_collision_over_flat_stops_for_what_only_the_laser_sees(maps_dir: Path, lasers: int) -> None:
    """Flat's robot with its sonar off: with a laser, avoid_collision keeps it off the east wall (the
    laser's points reach the occupancy queries through the reflector); without, it drives into it."""
    flat = FlatSimulation(
        load_world(maps_dir / "room.wld"), options=FlatOptions(lasers=lasers, sonar=False), pose=(3000.0, 2000.0, 0.0)
    )
    run = Served(flat)
    try:
        robot = run.robot
        robot.start_behavior(find_behavior("avoid_collision"), priority=0)
        robot.start_behavior(find_behavior("constant_velocity"), 400.0, priority=2)
        farthest = 0.0
        for _ in range(150):
            robot.step()
            farthest = max(farthest, flat.pose.x)
        assert all(buffer.points()[0].size == 0 for buffer in robot.sonar.buffers.values())  # no sonar at all
        if lasers:
            assert flat.wall_contacts == 0 and farthest > 4500.0
            assert robot.reflector.laser.scans > 100
        else:
            assert flat.wall_contacts > 0
    finally:
        run.close()


def test_perception_fits_the_side_wall_to_flats_laser(maps_dir: Path) -> None:
    """Sonar off, one TOP laser: the interpretation's right wall hypothesis is the south wall, 1 m away."""
    flat = FlatSimulation(
        load_world(maps_dir / "room.wld"), options=FlatOptions(lasers=1, sonar=False), pose=(1000.0, 1000.0, 0.0)
    )
    run = Served(flat)
    try:
        robot = run.robot
        perception = perception_for(robot.reflector, robot.scheduler)
        perception.start_interpretation()
        robot.motion.set_velocity(300.0)
        robot.run(cycles=30)
        wall = perception.right_wall
        assert wall.viewable and perception.interpretation.right.laser
        th = math.radians(wall.th)
        assert -math.sin(th) * wall.x + math.cos(th) * wall.y == pytest.approx(-1000.0, abs=5.0)
        assert abs(norm2_angle(wall.th)) < 0.5 and wall.length > 1000.0
    finally:
        run.close()


def test_a_wall_stalls_the_robot_as_the_behaviors_expect(maps_dir: Path) -> None:
    run = served(load_world(maps_dir / "room.wld"), (5500.0, 1000.0, 0.0))
    try:
        run.robot.motion.set_velocity(200.0)
        run.robot.run_until(lambda: run.robot.state.stalled, max_cycles=60)
        assert run.robot.state.stalled and run.flat.robot.stalled
        assert run.flat.pose.x == pytest.approx(6000.0 - 250.0, abs=1.0)  # the body against the east wall
        run.robot.motion.set_velocity(-200.0)
        run.robot.run(cycles=10)
        assert not run.robot.state.stalled
    finally:
        run.close()


def test_map_changes_arrive_as_events(maps_dir: Path) -> None:
    building = load_world_file(maps_dir / "flat" / "building.world")
    run = Served(FlatSimulation(flat_world=building))
    changes: list[str] = []
    try:
        robot = run.robot
        assert isinstance(robot.link, FlatLink)
        robot.link.on_map_changed.connect(changes.append)
        robot.motion.set_velocity(400.0)  # the start faces west, down the hall to the lobby at x = 1500
        robot.run_until(lambda: bool(changes), max_cycles=200)
        assert changes == ["lobby.wld"] and robot.link.map_name == "lobby.wld"
        # The server thread may already have taken its next step (0.1 s at 400 mm/s) when this reads it.
        assert robot.state.ax == pytest.approx(run.flat.pose.x, abs=1.0 + 0.1 * 400.0)
        robot.motion.set_velocity(0.0)
        robot.run(cycles=20)
        answer = robot.link.query(TransitionQuery("GOTO-3"))
        assert isinstance(answer, MapChanged) and answer.map_file is None  # :NO-TRANSITION-MATCH: no event
        robot.run(cycles=2)  # the step output that came in before the answer is taken in order
        assert changes == ["lobby.wld"] and run.flat.map_name == "lobby.wld"
    finally:
        run.close()


def test_colbert_sees_map_changes(maps_dir: Path) -> None:
    """sfFlatMap / sfFlatMapChanges: an activity waits for the automatic change into the lobby."""
    building = load_world_file(maps_dir / "flat" / "building.world")
    run = Served(FlatSimulation(flat_world=building))
    try:
        robot, ev = run.robot, run.evaluator
        assert ev.eval_text("string m; int n; m = sfFlatMap(); n = sfFlatMapChanges();")
        assert (ev.value("m"), int(ev.value("n"))) == ("", 0)
        assert ev.eval_text(
            "act watch() { int seen; seen = sfFlatMapChanges(); waitfor sfFlatMapChanges() > seen; "
            'sfSMessage("map %s after %d change", sfFlatMap(), sfFlatMapChanges()); } start watch();'
        ), run.messages
        robot.motion.set_velocity(400.0)  # west, down the hall to the lobby's automatic transition
        robot.run_until(lambda: any(m.startswith("map ") for m in run.messages), max_cycles=200)
        assert "map lobby.wld after 1 change" in run.messages
        assert run.flat.map_name == "lobby.wld"
        answer = robot.link.query(TransitionQuery("GOTO-3"))  # no such transition: no change
        assert isinstance(answer, MapChanged) and answer.map_file is None
        assert ev.eval_text("m = sfFlatMap(); n = sfFlatMapChanges();")
        assert (ev.value("m"), int(ev.value("n"))) == ("lobby.wld", 1)
    finally:
        run.close()


def test_sf_flat_map_is_empty_on_a_pioneer_link() -> None:
    lines: list[str] = []
    ev = Evaluator(Robot(), output=lines.append, read_init=False)
    assert ev.eval_text("string m; int n; m = sfFlatMap(); n = sfFlatMapChanges();")
    assert (ev.value("m"), int(ev.value("n"))) == ("", 0)


def test_on_a_real_time_clock_the_link_answers_each_step_output_once(maps_dir: Path) -> None:
    flat = FlatSimulation(load_world(maps_dir / "room.wld"), options=FlatOptions(lasers=0), pose=(3000.0, 1000.0, 0.0))
    server = FlatServer(flat)
    thread = server.serve_in_thread()
    robot = Robot(RealTimeClock())
    try:
        robot.connect("flat://{}:{}".format(*server.address))
        robot.motion.set_velocity(100.0)
        robot.run(cycles=10)
        link = robot.link
        assert link.connected and link.counters.sips >= 5
        # The server sends a step output only for a control line (and one at the start): never two
        # lines for one output, so the server never steps ahead of what the client has seen.
        assert link.counters.sips - link.counters.packets_sent in (0, 1)
        assert flat.pose.x > 3000.0 and robot.state.ax == pytest.approx(flat.pose.x, abs=50.0)
    finally:
        robot.disconnect()
        server.close()
        thread.join(timeout=WAIT)


@pytest.fixture
def refused() -> Iterator[str]:
    """``127.0.0.1:port`` of a socket bound and not listening: a connection there is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{sock.getsockname()[1]}"


def test_a_pioneer_url_gives_the_pioneer_link_back(refused: str) -> None:
    """The robot swaps links by URL scheme: the Flat link shares the Pioneer link's events, and a Pioneer URL
    brings the Pioneer link itself back."""
    robot = Robot()
    pioneer = robot.link
    failures: list[str] = []
    robot.on_connect_failed.connect(failures.append)
    with pytest.raises(ConnectError):
        robot.connect(f"flat://{refused}")
    flat = robot.link
    assert isinstance(flat, FlatLink) and flat.reflector is robot.reflector and flat.on_connect is pioneer.on_connect
    assert flat.state is LinkState.FAILED and len(failures) == 1  # heard through the events the robot gave it
    with pytest.raises(ConnectError):
        robot.connect(f"tcp://{refused}")
    assert robot.link is pioneer and len(failures) == 2


def test_heading_setpoints_brake_for_flats_angular_acceleration() -> None:
    assert heading_velocity(0.1, 0.0, 180.0) == 0.0
    assert heading_velocity(90.0, 0.0, 180.0) == pytest.approx(math.sqrt(2 * 0.8 * 50.0 * 90.0))
    assert heading_velocity(-2.0, 0.0, 180.0) == pytest.approx(-6.0)  # the gain near the target
    assert heading_velocity(10.0, 60.0, 180.0) == 0.0  # turning fast this close: brake now


WANDER_START = (-2822.0, -2937.0, -91.9)  # AMROffice's RobotHome


@pytest.mark.slow
def test_the_demo_stack_wanders_the_office_for_10_minutes_over_flat_without_touching_a_wall(maps_dir: Path) -> None:
    run = served(load_world(maps_dir / "AMROffice.map"), WANDER_START)
    try:
        assert run.evaluator.load(PROJECT / "colbert" / "demo.act")
        flat = run.flat
        cycles = run.robot.clock.cycles_for(10 * 60.0)
        travelled = 0.0
        stalled = 0
        last = flat.pose
        for _ in range(cycles):
            run.robot.step()
            travelled += math.hypot(flat.pose.x - last.x, flat.pose.y - last.y)
            last = flat.pose
            stalled += flat.robot.stalled
        assert flat.time_ms >= 600_000
        assert flat.wall_contacts == 0 and stalled == 0
        assert travelled / 600.0 > 120.0  # mm/s: it wanders, it does not cower
        assert not any("bumped" in m for m in run.messages)
    finally:
        run.close()


def test_direct_act_square_closes_over_flat_as_over_the_pioneer_protocol(maps_dir: Path) -> None:
    flat = FlatSimulation(
        parse_wld((maps_dir / "room.wld").read_text(), "room.wld"),
        options=FlatOptions(lasers=0),
        pose=(1500.0, 4000.0, 0.0),
    )
    server = FlatServer(flat)
    thread = server.serve_in_thread()
    try:
        url = "flat://{}:{}".format(*server.address)
        result = subprocess.run(
            [sys.executable, "-m", "saphira", "run", "colbert/direct.act", "--robot", url],
            cwd=PROJECT,
            env=dict(os.environ, PYTHONPATH=str(PROJECT)),
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    finally:
        server.close()
        thread.join(timeout=WAIT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "activity square: SUCCESS" in result.stdout
    assert "connected to flat (Flat flat4)" in result.stdout
    pose = re.search(r"final pose \((-?\d+), (-?\d+), (-?[\d.]+)\)", result.stdout)
    assert pose is not None
    x, y, th = (float(v) for v in pose.groups())
    # The same tolerance as tests/test_cli.py over the Pioneer protocol: back within 60 mm and 4 degrees.
    assert abs(x - 1500.0) < 60 and abs(y - 4000.0) < 60
    assert abs(((th + 180) % 360) - 180) < 4
    travelled = float(re.search(r"travelled ([\d.]+) m", result.stdout)[1])  # type: ignore[index]
    assert 3.9 < travelled < 4.2
    assert flat.wall_contacts == 0
    cycles = int(re.search(r"--- done: (\d+) cycles", result.stdout)[1])  # type: ignore[index]
    outputs = int(re.search(r"link: (\d+) Flat step outputs", result.stdout)[1])  # type: ignore[index]
    assert cycles - 5 <= outputs <= cycles  # one step output per cycle, named as Flat names it


def test_a_transport_after_a_flat_url_gets_the_pioneer_link_back(refused: str) -> None:
    """The embedded simulator's in-process line (``connect local`` in the shell) after a ``flat://`` link."""
    robot = Robot()
    pioneer = robot.link
    with pytest.raises(ConnectError):
        robot.connect(f"flat://{refused}")
    assert isinstance(robot.link, FlatLink)
    attach_simulator(robot, "simple", "p3dx")
    assert robot.link is pioneer and robot.connected
