"""The embedded simulator through the real client: Robot → link → codec → in-process pipe → server.

Everything runs in lock-step on the robot's clock, so the checks are exact and fast. The robot is
driven with the client's own API (or raw commands through its link), and judged by the simulator's
true pose and by what the client reports.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from saphira.client.link.base import LinkState
from saphira.core.clock import RealTimeClock
from saphira.params.robot_params import find_params_file, load_params
from saphira.protocol.commands import Command
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.sim.session import ServerOptions, SessionState
from saphira.world.world import World


def open_world(*segments: tuple[float, float, float, float]) -> World:
    walls = np.array(segments, dtype=np.float64).reshape(-1, 4)
    return World(name="test", source="<test>", segments=walls, bounds=(-5000.0, -5000.0, 5000.0, 5000.0))


def travelled(sim: EmbeddedSim, start: tuple[float, float, float]) -> float:
    pose = sim.true_pose
    return math.hypot(pose.x - start[0], pose.y - start[1])


def connect(world: World | str = "simple", **kwargs: object) -> tuple[Robot, EmbeddedSim]:
    robot = Robot()
    sim = attach_simulator(robot, world, **kwargs)  # type: ignore[arg-type]
    return robot, sim


def test_connects_through_the_real_link_handshake() -> None:
    robot, sim = connect(odometry_error=False)
    assert robot.connected
    assert robot.link.identity is not None
    assert (robot.link.identity.name, robot.link.identity.subclass) == ("P3DX", "p3dx")
    assert robot.link.config is not None and robot.link.config.serial_number == "SIM"
    assert robot.params.subclass == "p3dx"
    assert sim.server.state is SessionState.OPEN
    robot.run(cycles=5)
    assert robot.state.motors_enabled and robot.state.sonar_enabled
    assert robot.state.battery == pytest.approx(13.0)
    assert sim.server.receiver.stats.dropped == 0
    assert robot.link.receiver.stats.dropped == 0
    assert sim.stats.handler_errors == 0


def test_vel_300_for_10_s_moves_3_m() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0), odometry_error=False)
    start = sim.true_pose
    robot.motion.set_velocity(300)
    robot.run(10.0)
    robot.motion.set_velocity(0)
    assert robot.run_until(lambda: robot.state.vel == 0.0 and sim.sim_robot.vel == 0.0, max_cycles=50)
    robot.run(cycles=2)
    assert travelled(sim, start) == pytest.approx(3000.0, rel=0.02)
    assert robot.state.odo_x == pytest.approx(3000.0, rel=0.02)
    assert abs(robot.state.odo_y) < 1.0


def test_head_90_turns_to_90_degrees() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0), odometry_error=False)
    robot.motion.set_heading(90)
    assert robot.run_until(lambda: robot.motion.done_heading(1.0) and robot.state.rvel == 0.0, max_cycles=100)
    robot.run(cycles=10)
    assert sim.true_pose.th == pytest.approx(90.0, abs=1.0)
    assert robot.state.odo_th == pytest.approx(90.0, abs=1.0)


def test_raw_move_1000_stops_within_20_mm() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0), odometry_error=False)
    start = sim.true_pose
    assert robot.link.send_command(Command.MOVE, 1000)
    robot.run(cycles=5)
    assert sim.sim_robot.vel > 0.0
    assert robot.run_until(lambda: robot.state.vel == 0.0 and not sim.sim_robot.is_moving, max_cycles=200)
    assert travelled(sim, start) == pytest.approx(1000.0, abs=20.0)
    robot.run(cycles=2)
    assert robot.state.odo_x == pytest.approx(1000.0, abs=20.0)


def test_driving_into_a_wall_stalls_against_it() -> None:
    robot, sim = connect(open_world((2000.0, -3000.0, 2000.0, 3000.0)), pose=(0.0, 0.0, 0.0), odometry_error=False)
    radius = sim.sim_robot.radius
    robot.motion.set_velocity(400)
    stalls_seen = 0
    for _ in range(100):
        robot.step()
        assert sim.true_pose.x + radius <= 2000.0 + 1e-6
        stalls_seen += robot.state.stall_left and robot.state.stall_right
    assert stalls_seen > 10
    assert sim.true_pose.x == pytest.approx(2000.0 - radius, abs=1.0)
    assert sim.wall_contacts >= 1
    assert sim.stats.stalled_steps >= stalls_seen
    # Backing off clears the stall.
    robot.motion.set_velocity(-200)
    robot.run(2.0)
    assert not robot.state.stall_left and not robot.state.stall_right
    assert sim.true_pose.x < 2000.0 - radius - 100.0


def test_sonar_facing_a_wall_at_1500_mm_reads_1500() -> None:
    params = load_params(find_params_file("p3dx"))
    unit = params.sonar_units[0]
    assert unit.th == 90.0
    wall_y = unit.y + 1500.0
    robot, _ = connect(open_world((-3000.0, wall_y, 3000.0, wall_y)), params=params, pose=(0.0, 0.0, 0.0))
    readings: list[int] = []
    for _ in range(60):
        robot.step()
        if robot.sonar.take_new(0):
            readings.append(robot.sonar.range(0))
    assert len(readings) >= 10
    assert all(abs(r - 1500) <= 100 for r in readings)
    assert float(np.mean(readings)) == pytest.approx(1500.0, abs=20.0)
    assert len(set(readings)) > 1  # there is noise
    # A sonar pointing away from every wall hears nothing.
    assert robot.sonar.range(7) == 5000


def test_watchdog_stops_a_silent_clients_robot_within_2_s_and_a_packet_revives_it() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0), odometry_error=False)
    sent: list[float] = []
    robot.link.on_packet_out.connect(lambda packet: sent.append(robot.clock.now()))
    robot.motion.set_velocity(300)
    robot.run(3.0)
    assert sim.sim_robot.vel == pytest.approx(300.0)
    last_packet = sent[-1]
    clock = robot.clock
    # The client process hangs: its cycles stop, the simulator's clock keeps going. Each entry is
    # (the time a world step starts, the pose and velocity it ends with).
    poses = []
    while clock.now() < last_packet + 3.0:
        t = clock.now()
        clock.wait_next()
        poses.append((t, sim.true_pose, sim.sim_robot.vel))
    stopped = [t for t, _, vel in poses if vel == 0.0]
    assert stopped, "the watchdog never stopped the robot"
    assert stopped[0] - last_packet <= 2.0 + 1e-9
    assert stopped[0] - last_packet >= 2.0 - clock.period - 1e-9
    after = [pose for t, pose, _ in poses if t >= stopped[0]]
    assert all(pose == after[0] for pose in after)
    assert sim.stats.watchdog_stops == 1
    # The client wakes up: its next packet revives the robot, which accelerates back to 300 mm/s.
    robot.run(2.0)
    assert sim.stats.revivals == 1
    assert sim.sim_robot.vel == pytest.approx(300.0)


def wander(seed: int, cycles: int = 150) -> list[tuple[float, ...]]:
    robot = Robot()
    sim = attach_simulator(robot, "simple", "p3dx", seed=seed)
    trajectory: list[tuple[float, ...]] = []
    for k in range(cycles):
        if k % 20 == 0:
            robot.motion.set_velocity(400 if (k // 20) % 2 else 250)
            robot.motion.set_rvelocity(15 if (k // 20) % 3 else -20)
        robot.step()
        pose = sim.true_pose
        state = robot.state
        sonar = tuple(robot.sonar.range(i) for i in range(16))
        trajectory.append((pose.x, pose.y, pose.th, state.odo_x, state.odo_y, state.odo_th, *sonar))
    return trajectory


def test_the_same_seed_reproduces_a_run_exactly() -> None:
    first = wander(7)
    assert first == wander(7)
    assert first != wander(8)
    xs = [row[0] for row in first]
    assert max(xs) - min(xs) > 500.0  # the robot really moved


def test_client_disconnect_ends_the_session_and_a_reconnect_starts_a_new_one() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0))
    robot.motion.set_velocity(300)
    robot.run(2.0)
    robot.disconnect()
    robot.run(cycles=2)
    assert not sim.sim_robot.is_moving
    assert not sim.sim_robot.drive.enabled
    assert sim.sim_robot.odometry.x == 0.0
    assert sim.server.state is SessionState.WAITING
    assert sim.stats.sessions_ended == 1
    sim.connect()
    assert robot.connected
    assert sim.stats.sessions == 2
    robot.motion.set_velocity(200)
    robot.run(2.0)
    assert robot.state.odo_x > 100.0
    sim.detach()
    robot.run(3.0)
    assert robot.link.state is LinkState.DISCONNECTED
    assert not sim.sim_robot.is_moving


def test_a_pioneer_1_robot_speaks_psos_to_the_client() -> None:
    robot, sim = connect(open_world(), params="psos41m", pose=(0.0, 0.0, 0.0), odometry_error=False)
    assert robot.link.identity is not None and robot.link.identity.subclass == "psos1m"
    assert robot.link.layout.value == "psos"
    robot.motion.set_velocity(200)
    robot.run(5.0)
    robot.motion.set_velocity(0)
    robot.run(3.0)
    distance = travelled(sim, (0.0, 0.0, 0.0))
    assert distance > 500.0
    assert robot.state.odo_x == pytest.approx(distance, abs=2.0)


def test_real_time_clock_uses_a_scheduler_task_in_the_same_order() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    robot = Robot(RealTimeClock(0.1, monotonic=lambda: now[0], sleep=sleep))
    sim = attach_simulator(robot, open_world(), pose=(0.0, 0.0, 0.0), odometry_error=False)
    assert robot.connected
    assert "simulator" in {task.name for task in robot.scheduler.tasks}
    robot.motion.set_velocity(300)
    robot.run(3.0)
    assert robot.state.odo_x > 500.0
    sim.detach()
    robot.run(cycles=2)
    assert "simulator" not in {task.name for task in robot.scheduler.tasks}


def test_watchdog_can_be_turned_off() -> None:
    robot, sim = connect(open_world(), pose=(0.0, 0.0, 0.0), options=ServerOptions(watchdog=None))
    robot.motion.set_velocity(300)
    robot.run(2.0)
    for _ in range(40):
        robot.clock.wait_next()
    assert sim.sim_robot.vel == pytest.approx(300.0)
    assert sim.stats.watchdog_stops == 0


def test_worlds_and_parameter_files_by_name_or_path_and_connecting_later() -> None:
    robot = Robot()
    path = str(find_params_file("p3at"))
    sim = attach_simulator(robot, "corridor", path, wait=False)
    assert not robot.connected
    assert robot.run_until(lambda: robot.connected, max_cycles=30)
    assert robot.link.identity is not None and robot.link.identity.subclass == "p3at"
    assert sim.simulation.world.name == "corridor"
    start = sim.simulation.world.start_pose
    assert start is not None and sim.true_pose == start
