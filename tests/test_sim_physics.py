"""The simulator's physics: drive commands, collisions, odometry, sonar, compass, reproducibility.

Everything runs lock-step: a test steps the simulation by 100 ms (the SIP period) and looks at the
robot between steps. Robots are built from the real parameter files in ``params/``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from saphira.params.robot_params import RobotParams, find_params_file, load_params
from saphira.sim.robot_model import Drive, RobotModel, ramp, wrap_degrees
from saphira.sim.sensors import NO_ECHO_MM, SonarBeam, SonarRing
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.raycast import cast_rays, point_segment_distances, segment_crosses
from saphira.world.world import World, load_world

DT = 0.1


@pytest.fixture(scope="module")
def p3dx() -> RobotParams:
    return load_params(find_params_file("p3dx"))


@pytest.fixture(scope="module")
def pioneer1() -> RobotParams:
    return load_params(find_params_file("psos41m"))


@pytest.fixture(scope="module")
def office(maps_dir: Path) -> World:
    return load_world(maps_dir / "AMROffice.map")


def walls(*segments: tuple[float, float, float, float]) -> World:
    return World(name="test", source="<test>", segments=np.array(segments, dtype=float))


def run(sim: Simulation, seconds: float) -> None:
    for _ in range(round(seconds / DT)):
        sim.step(DT)


def one_robot(
    params: RobotParams, world: World | None = None, pose: tuple[float, float, float] = (0.0, 0.0, 0.0)
) -> tuple[Simulation, SimRobot]:
    sim = Simulation(world, seed=7, odometry_error=False)
    return sim, sim.add_robot(params, pose)


def odometry_in_world(robot: SimRobot) -> tuple[float, float, float]:
    """The odometric pose mapped into the world through the pose the robot started at."""
    x0, y0, th0 = robot.initial_pose
    c, s = math.cos(math.radians(th0)), math.sin(math.radians(th0))
    odo = robot.odometry
    return x0 + c * odo.x - s * odo.y, y0 + s * odo.x + c * odo.y, wrap_degrees(th0 + odo.th)


# -- model ------------------------------------------------------------------------------------------


def test_model_takes_limits_from_the_parameter_file_and_firmware_defaults_for_zeros(
    p3dx: RobotParams, pioneer1: RobotParams
) -> None:
    model = RobotModel.from_params(p3dx)
    assert model.radius == 250
    assert (model.max_velocity, model.max_rvelocity) == (2200, 500)
    assert (model.trans_vel_max, model.rot_vel_max) == (2200, 500)  # TransVelMax 0 → absolute maxima
    assert (model.trans_accel, model.trans_decel) == (300, 300)  # TransAccel 0 → MaxAcceleration 300
    assert (model.rot_accel, model.rot_decel) == (100, 100)  # RotAccel 0 → firmware 100 deg/s²
    assert model.sonar_count == 16
    assert tuple(model.sonar_poses[3]) == (166, 27, 10)
    assert model.dist_conv_factor == 0.485 and model.angle_conv_factor == 0.001534
    old = RobotModel.from_params(pioneer1)
    assert (old.trans_vel_max, old.rot_vel_max, old.sonar_count, old.radius) == (400, 100, 7, 220)


def test_ramp_is_exact_whatever_the_step_split() -> None:
    whole = ramp(100.0, -200.0, 300.0, 500.0, 1.0)
    v, total = 100.0, 0.0
    for _ in range(7):
        v, d = ramp(v, -200.0, 300.0, 500.0, 1.0 / 7)
        total += d
    assert whole[0] == -200.0
    assert v == pytest.approx(whole[0]) and total == pytest.approx(whole[1])
    # brake 0.2 s from 100 to 0 (10 mm), then 2/3 s to -200 (-66.7 mm), then cruise 0.1333 s (-26.7 mm)
    assert whole[1] == pytest.approx(10.0 - 200.0 / 3.0 - 200.0 * (1.0 - 0.2 - 2.0 / 3.0))


# -- translation ------------------------------------------------------------------------------------


def test_vel_300_for_10_s_covers_the_ramp_and_cruise_distance_and_odometry_matches(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx, pose=(1000.0, -500.0, 30.0))
    robot.cmd_vel(300)
    run(sim, 10.0)
    travelled = math.hypot(robot.x - 1000.0, robot.y + 500.0)
    # 1 s ramp at 300 mm/s² (150 mm) then 9 s at 300 mm/s: 2850 mm.
    assert travelled == pytest.approx(2850.0, rel=1e-3)
    assert robot.th == pytest.approx(30.0) and robot.vel == 300.0
    start = robot.pose
    run(sim, 10.0)  # at cruise speed, 10 s is 3 m
    assert math.hypot(robot.x - start.x, robot.y - start.y) == pytest.approx(3000.0, rel=0.02)
    assert odometry_in_world(robot) == pytest.approx(tuple(robot.pose), abs=1e-6)


def test_acceleration_and_deceleration_limits_shape_the_velocity_ramps(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_seta(200)
    robot.cmd_seta(-400)
    robot.cmd_vel(600)
    speeds = []
    for _ in range(40):
        sim.step(DT)
        speeds.append(robot.vel)
    rises = np.diff([0.0, *speeds])
    assert rises.max() <= 200 * DT + 1e-9
    assert speeds[29] == pytest.approx(600.0) and speeds[28] < 600.0  # 3 s at 200 mm/s²
    robot.cmd_vel(0)
    sim.step(DT)
    assert robot.vel == pytest.approx(560.0)  # braking at 400 mm/s²
    run(sim, 1.5)
    assert robot.vel == 0.0


def test_setv_caps_vel_and_stop_brakes_while_estop_stops_at_once(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_setv(250)
    robot.cmd_vel(1000)
    run(sim, 3.0)
    assert robot.vel == 250.0
    robot.cmd_rvel(30)
    run(sim, 1.0)
    robot.cmd_stop()
    sim.step(DT)
    assert 0.0 < robot.vel < 250.0 and 0.0 < robot.rvel < 30.0
    run(sim, 1.0)
    assert (robot.vel, robot.rvel) == (0.0, 0.0) and not robot.is_moving
    robot.cmd_vel(200)
    robot.cmd_rvel(-20)
    run(sim, 2.0)
    robot.cmd_estop()
    assert (robot.vel, robot.rvel) == (0.0, 0.0)
    at = robot.pose
    sim.step(DT)
    assert robot.pose == at


def test_move_accelerates_cruises_at_setv_and_stops_on_the_target(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx, pose=(0.0, 0.0, 90.0))
    robot.cmd_setv(400)
    robot.cmd_move(1000)
    top = 0.0
    for _ in range(60):
        sim.step(DT)
        top = max(top, robot.vel)
    assert robot.y == pytest.approx(1000.0, abs=20.0) and abs(robot.x) < 1e-6
    assert robot.vel == 0.0 and robot.position_done()
    assert top == pytest.approx(400.0)
    robot.cmd_move(-500)
    run(sim, 6.0)
    assert robot.y == pytest.approx(500.0, abs=20.0) and robot.vel == 0.0


# -- rotation ---------------------------------------------------------------------------------------


def test_head_90_turns_the_shortest_way_and_settles_without_overshoot(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_head(90)
    headings = []
    for _ in range(40):
        sim.step(DT)
        headings.append(robot.th)
        assert abs(robot.rvel) <= robot.drive.rot_vel_max
    assert robot.th == pytest.approx(90.0, abs=1.0) and robot.rvel == 0.0
    assert max(headings) <= 91.0 and min(headings) >= 0.0
    assert robot.heading_done(1.0)
    robot.cmd_head(300)  # = -60: the short way is clockwise through 0 (150°, not 210°)
    headings = []
    for _ in range(60):
        sim.step(DT)
        headings.append(robot.th)
    assert robot.th == pytest.approx(-60.0, abs=1.0)
    assert all(-61.0 <= h <= 90.0 for h in headings)


def test_head_turn_follows_the_acceleration_limit(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_setra(50)
    robot.cmd_head(-120)
    rates = [0.0]
    for _ in range(50):
        sim.step(DT)
        rates.append(robot.rvel)
    assert np.abs(np.diff(rates)).max() <= 100 * DT + 1e-9  # decel stays 100
    assert -rates[1] <= 50 * DT + 1e-9 and min(rates) < -40.0
    assert robot.th == pytest.approx(-120.0, abs=1.0)


def test_dhead_is_relative_to_the_heading_and_dchead_to_the_setpoint(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_head(60)
    run(sim, 3.0)
    robot.cmd_dhead(45)
    run(sim, 3.0)
    assert robot.th == pytest.approx(105.0, abs=1.0)
    robot.cmd_dchead(-30)
    run(sim, 3.0)
    assert robot.th == pytest.approx(75.0, abs=1.0)

    robot.cmd_head(175)
    run(sim, 0.5)  # under way, well short of 175
    midway = robot.odometry.th
    robot.cmd_dchead(20)  # setpoint 175 + 20 = 195 = -165
    assert robot.heading_setpoint == pytest.approx(-165.0)
    run(sim, 4.0)
    assert robot.th == pytest.approx(-165.0, abs=1.0)

    robot.cmd_head(0)
    run(sim, 0.6)
    midway = robot.odometry.th
    robot.cmd_dhead(-20)  # from where it is now, not from the setpoint 0
    run(sim, 4.0)
    assert robot.th == pytest.approx(wrap_degrees(midway - 20.0), abs=1.0)


def test_rvel_rotate_and_setrv(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_rotate(40)
    run(sim, 1.0)
    assert robot.rvel == 40.0
    robot.cmd_setrv(25)
    assert robot.drive.rvel_target == 25.0
    robot.cmd_rvel(-90)
    run(sim, 2.0)
    assert robot.rvel == -25.0
    before = robot.th
    run(sim, 1.0)
    assert wrap_degrees(robot.th - before) == pytest.approx(-25.0)


def test_vel2_drives_both_channels_from_the_wheel_speeds(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_vel2(100, 300)
    run(sim, 3.0)
    assert robot.vel == pytest.approx(200.0)
    assert robot.rvel == pytest.approx(math.degrees(100.0 * 0.0056))
    assert robot.wheel_velocities() == pytest.approx((100.0, 300.0))
    robot.cmd_head(0)  # a heading command takes the rotation channel back; translation keeps 200
    run(sim, 6.0)
    assert robot.th == pytest.approx(0.0, abs=1.0) and robot.vel == pytest.approx(200.0)


def test_disabled_motors_stop_and_ignore_motion_commands(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_vel(300)
    run(sim, 2.0)
    robot.cmd_enable(False)
    assert robot.vel == 0.0
    at = robot.pose
    for command in (lambda: robot.cmd_vel(300), lambda: robot.cmd_rvel(20), lambda: robot.cmd_head(90)):
        command()
        run(sim, 1.0)
    robot.cmd_move(500)
    robot.cmd_vel2(100, 100)
    run(sim, 1.0)
    assert robot.pose == at and not robot.is_moving
    robot.cmd_enable(True)
    robot.cmd_vel(300)
    run(sim, 1.0)
    assert robot.x > at.x + 100.0


# -- collisions -------------------------------------------------------------------------------------


def clearance(robot: SimRobot, world: World) -> float:
    return float(point_segment_distances((robot.x, robot.y), world.segments).min())


def test_driving_into_a_wall_at_full_speed_stalls_against_it(p3dx: RobotParams) -> None:
    world = walls((3000.0, -2000.0, 3000.0, 2000.0))
    sim, robot = one_robot(p3dx, world)
    robot.cmd_seta(10000)
    robot.cmd_vel(2200)
    previous = robot.pose
    stalls = 0
    for _ in range(30):
        sim.step(DT)
        assert robot.x <= 3000.0 - robot.radius + 1e-6
        assert not segment_crosses(previous[:2], (robot.x, robot.y), world.segments)
        previous = robot.pose
        stalls += robot.stalled
    assert robot.x == pytest.approx(2750.0, abs=1e-6)
    assert robot.stalled_left and robot.stalled_right and stalls >= 15
    assert robot.vel == 0.0
    assert robot.odometry.x == pytest.approx(robot.x)  # the wheels stalled: odometry stopped too
    robot.cmd_vel(-300)  # backing away is free
    run(sim, 1.0)
    assert robot.x < 2750.0 and not robot.stalled


def test_spinning_and_arcing_against_walls_never_tunnels(p3dx: RobotParams) -> None:
    # A narrow corner: the robot starts touching both walls and is driven hard in every direction.
    world = walls((0.0, 0.0, 4000.0, 0.0), (0.0, 0.0, 0.0, 4000.0), (900.0, 600.0, 900.0, 1200.0))
    sim, robot = one_robot(p3dx, world, pose=(250.0, 250.0, 225.0))
    robot.cmd_seta(10000)
    robot.cmd_setra(10000)
    rng = np.random.default_rng(3)
    previous = robot.pose
    for i in range(600):
        if i % 5 == 0:
            robot.cmd_vel(float(rng.uniform(-2200, 2200)))
            robot.cmd_rvel(float(rng.uniform(-500, 500)))
        sim.step(DT)
        assert clearance(robot, world) >= robot.radius - 1e-6
        assert not segment_crosses(previous[:2], (robot.x, robot.y), world.segments)
        assert robot.x > 0.0 and robot.y > 0.0
        previous = robot.pose


def test_random_driving_in_the_office_map_never_passes_a_wall(p3dx: RobotParams, office: World) -> None:
    sim = Simulation(office, seed=11)
    robot = sim.add_robot(p3dx)
    assert robot.pose == office.start_pose
    robot.cmd_seta(2000)
    rng = np.random.default_rng(5)
    previous = robot.pose
    stalled_steps = 0
    for i in range(1500):
        if i % 20 == 0:
            robot.cmd_vel(float(rng.uniform(-400, 1500)))
            robot.cmd_rvel(float(rng.uniform(-60, 60)))
        sim.step(DT)
        stalled_steps += robot.stalled
        assert office.clearance(robot.x, robot.y) >= robot.radius - 1e-6
        assert not segment_crosses(previous[:2], (robot.x, robot.y), office.segments)
        previous = robot.pose
    assert stalled_steps > 0  # it did meet walls


def test_a_robot_placed_into_a_wall_can_back_out_but_not_go_deeper(p3dx: RobotParams) -> None:
    world = walls((1000.0, -2000.0, 1000.0, 2000.0))
    sim, robot = one_robot(p3dx, world)
    sim.set_pose(robot, 850.0, 0.0, 0.0)  # 100 mm into the wall
    robot.cmd_vel(500)
    run(sim, 1.0)
    assert robot.x == 850.0 and robot.stalled
    robot.cmd_vel(-500)
    run(sim, 2.0)
    assert robot.x < 700.0 and not robot.stalled


def test_a_new_world_takes_effect_at_once(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_vel(400)
    run(sim, 2.0)
    sim.set_world(walls((robot.x + 600.0, -1000.0, robot.x + 600.0, 1000.0)))
    run(sim, 3.0)
    assert robot.stalled and robot.x == pytest.approx(sim.world.segments[0, 0] - robot.radius)


def test_the_drive_does_not_depend_on_the_step_length(p3dx: RobotParams) -> None:
    poses = []
    for dt, steps in ((0.1, 80), (0.025, 320), (0.4, 20)):
        sim, robot = one_robot(p3dx)
        robot.cmd_vel(350)
        robot.cmd_rvel(-20)
        for _ in range(steps):
            sim.step(dt)
        poses.append(robot.pose)
    for pose in poses[1:]:
        assert pose == pytest.approx(poses[0], abs=0.5)


def test_robots_do_not_drive_through_each_other(p3dx: RobotParams) -> None:
    sim = Simulation(seed=2, odometry_error=False)
    left = sim.add_robot(p3dx, (0.0, 0.0, 0.0))
    right = sim.add_robot(p3dx, (2000.0, 0.0, 180.0))
    for robot in (left, right):
        robot.cmd_vel(800)
    for _ in range(40):
        sim.step(DT)
        assert math.hypot(left.x - right.x, left.y - right.y) >= 500.0 - 1e-6
    assert left.stalled and right.stalled
    readings = dict(left.take_new_readings())
    assert readings[3] < 500.0  # the front sonar hears the other robot


def test_added_robots_find_free_places(p3dx: RobotParams, office: World) -> None:
    sim = Simulation(office, seed=1)
    robots = [sim.add_robot(p3dx) for _ in range(4)]
    for i, a in enumerate(robots):
        assert office.clearance(a.x, a.y) >= a.radius
        for b in robots[i + 1 :]:
            assert math.hypot(a.x - b.x, a.y - b.y) >= a.radius + b.radius


# -- odometry ---------------------------------------------------------------------------------------


def test_seto_zeroes_odometry_and_set_pose_leaves_it(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    robot.cmd_vel(300)
    robot.cmd_rvel(10)
    run(sim, 3.0)
    robot.cmd_estop()
    robot.cmd_seto()
    assert (robot.odometry.x, robot.odometry.y, robot.odometry.th) == (0.0, 0.0, 0.0)
    robot.cmd_head(90)  # in the new frame: 90° from where it faces now
    start = robot.th
    run(sim, 3.0)
    assert wrap_degrees(robot.th - start) == pytest.approx(90.0, abs=1.0)
    odometry = (robot.odometry.x, robot.odometry.y, robot.odometry.th)
    sim.set_pose(robot, 5000.0, 5000.0, 45.0)
    assert robot.pose == (5000.0, 5000.0, 45.0)
    assert (robot.odometry.x, robot.odometry.y, robot.odometry.th) == odometry
    sim.reset_robot(robot)
    assert robot.pose == (0.0, 0.0, 0.0) and robot.odometry.x == 0.0 and not robot.is_moving


def test_raw_odometry_counters_wrap_at_16_bits(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx, pose=(0.0, 0.0, 180.0))
    robot.cmd_move(1000)
    run(sim, 6.0)
    x, y, th = robot.odometry.counters(0.485, 0.001534)
    assert robot.odometry.x == pytest.approx(1000.0)
    assert x == round(1000.0 / 0.485) and y == 0 and th == 0
    robot.cmd_seto(0.0, 0.0, 0.0)
    robot.cmd_head(180)
    run(sim, 4.0)
    robot.cmd_move(1000)
    run(sim, 6.0)
    x, y, th = robot.odometry.counters(0.485, 0.001534)
    assert x == 65536 - round(1000.0 / 0.485)
    assert th == round(math.pi / 0.001534)


def test_odometry_error_drifts_plausibly(p3dx: RobotParams) -> None:
    sim = Simulation(seed=4)
    robot = sim.add_robot(p3dx, (0.0, 0.0, 0.0))
    robot.cmd_vel(500)
    run(sim, 11.0)  # 5.25 m
    distance = robot.x
    drift = wrap_degrees(robot.odometry.th - robot.th)
    # AngleDrift 0.001 deg/mm: about 5° of systematic drift, plus a little jitter.
    assert drift == pytest.approx(0.001 * distance, rel=0.1)
    error = math.hypot(robot.odometry.x - robot.x, robot.odometry.y - robot.y)
    assert 50.0 < error < 0.1 * distance

    # Turning on the spot accumulates jitter only: small, random, different per seed.
    errors = []
    for seed in (1, 2, 3):
        sim = Simulation(seed=seed)
        robot = sim.add_robot(p3dx, (0.0, 0.0, 0.0))
        robot.cmd_rvel(90)
        run(sim, 8.0)
        errors.append(wrap_degrees(robot.odometry.th - robot.th))
    assert len(set(errors)) == 3 and all(0.0 < abs(e) < 3.0 for e in errors)


def test_heading_servo_follows_odometry_not_truth(pioneer1: RobotParams) -> None:
    sim = Simulation(seed=9)
    robot = sim.add_robot(pioneer1, (0.0, 0.0, 0.0))
    robot.cmd_head(0)
    robot.cmd_vel(300)
    run(sim, 10.0)
    assert robot.odometry.th == pytest.approx(0.0, abs=0.5)
    assert robot.th < -3.0  # the drift bends the true path the other way (AngleDrift 0.003 deg/mm)


# -- sonar ------------------------------------------------------------------------------------------


def facing_wall(params: RobotParams, sonar: int, distance: float, beam: SonarBeam | None = None) -> SimRobot:
    """A robot turned so ``sonar`` looks straight at a long wall ``distance`` mm from the transducer."""
    ux, uy, uth = RobotModel.from_params(params).sonar_poses[sonar]
    th = -uth
    c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
    wall_x = c * ux - s * uy + distance
    sim = Simulation(walls((wall_x, -20000.0, wall_x, 20000.0)), seed=3, sonar_beam=beam)
    return sim.add_robot(params, (0.0, 0.0, th))


def test_sonar_facing_a_wall_at_1500_mm_reads_1500(p3dx: RobotParams) -> None:
    robot = facing_wall(p3dx, 3, 1500.0)
    sim_step = robot.step
    rng = np.random.default_rng(0)
    readings: list[float] = []
    while len(readings) < 200:
        sim_step(DT, rng)
        readings += [r for n, r in robot.take_new_readings() if n == 3]
    sigma = 5.0 + 0.01 * 1500.0
    assert np.mean(readings) == pytest.approx(1500.0, abs=3.0)
    assert np.std(readings) == pytest.approx(sigma, rel=0.2)
    assert max(abs(r - 1500.0) for r in readings) < 5 * sigma


def test_sonar_without_noise_reads_the_perpendicular_distance(p3dx: RobotParams) -> None:
    beam = SonarBeam(sigma_mm=0.0, sigma_fraction=0.0)
    robot = facing_wall(p3dx, 0, 1234.0, beam)
    robot.cmd_polling([0])
    robot.step(DT, np.random.default_rng(0))
    assert robot.take_new_readings()[0] == (0, pytest.approx(1234.0))


def test_sonar_reports_no_echo_beyond_range_and_from_grazing_walls(p3dx: RobotParams) -> None:
    robot = facing_wall(p3dx, 3, 6000.0)
    robot.step(1.0, np.random.default_rng(0))
    assert {r for _, r in robot.take_new_readings()} == {NO_ECHO_MM}
    # A wall crossing sonar 3's axis 2 m ahead, but at 80° from its normal: the beam glances off.
    sim = Simulation(walls((-5878.5, -1389.2, 9878.5, 1389.2)), seed=1)
    robot = sim.add_robot(p3dx, (0.0, 0.0, -10.0))  # sonar 3 looks along +x
    robot.cmd_polling([3])
    sim.step(DT)
    assert robot.take_new_readings()[0] == (3, NO_ECHO_MM)
    robot.cmd_polling([7])  # sonar 7 faces it 20° off its normal, 195.8 mm away; its best ray is 7.5° off
    sim.step(DT)
    assert robot.take_new_readings()[0][1] == pytest.approx(195.8 / math.cos(math.radians(7.5)), abs=30.0)


def _beam_by_rays(ring: SonarRing, pose: tuple[float, float, float], walls: np.ndarray) -> list[float]:
    """Each transducer's noiseless reading by the beam's rules, ray by ray through cast_rays (every
    wall tried, no culling): the nearest ray echo within the maximum incidence, or a wall end in the cone."""
    beam, (x, y, th) = ring.beam, pose
    readings = []
    for ux, uy, uth in ring.poses:
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        ox, oy, axis = x + c * ux - s * uy, y + s * ux + c * uy, th + uth
        best = math.inf
        for offset in beam.ray_offsets:
            hit = cast_rays((ox, oy), [axis + offset], walls, beam.max_range)
            wall = int(hit.segments[0])
            if wall >= 0:
                ex, ey = walls[wall, 2] - walls[wall, 0], walls[wall, 3] - walls[wall, 1]
                rad = math.radians(axis + offset)
                facing = abs(math.cos(rad) * ey - math.sin(rad) * ex) / math.hypot(ex, ey)
                if facing >= math.cos(math.radians(beam.max_incidence)):
                    best = min(best, float(hit.distances[0]))
        for ex, ey in walls.reshape(-1, 2):
            dist = math.hypot(ex - ox, ey - oy)
            off = (math.degrees(math.atan2(ey - oy, ex - ox)) - axis + 180.0) % 360.0 - 180.0
            if abs(off) <= beam.half_angle and dist <= beam.max_range:
                best = min(best, dist)
        readings.append(min(best, beam.max_range))
    return readings


def test_a_firing_reads_what_the_beam_rules_give_ray_by_ray_among_random_walls(p3dx: RobotParams) -> None:
    # The firing kernel only tries the walls inside each transducer's fan; none that could echo is missed.
    ring = SonarRing(RobotModel.from_params(p3dx).sonar_poses, SonarBeam(sigma_mm=0.0, sigma_fraction=0.0))
    rng = np.random.default_rng(7)
    for _ in range(40):
        starts = rng.uniform(-4000.0, 4000.0, (30, 2))
        ends = starts + rng.uniform(-1500.0, 1500.0, (30, 2))
        walls = np.hstack([starts, ends])
        pose = (float(rng.uniform(-500, 500)), float(rng.uniform(-500, 500)), float(rng.uniform(-180, 180)))
        readings = ring.fire(list(range(ring.count)), pose, walls, np.zeros(ring.count))
        assert readings.tolist() == pytest.approx(_beam_by_rays(ring, pose, walls), abs=1e-6)


def test_sonar_polling_rate_sequence_and_switch(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx)
    fired: list[int] = []
    counts = []
    for _ in range(8):
        sim.step(DT)
        batch = robot.take_new_readings()
        counts.append(len(batch))
        fired += [n for n, _ in batch]
    assert counts == [5] * 8  # one firing per 20 ms
    assert fired == [i % 16 for i in range(40)]
    assert robot.take_new_readings() == []
    robot.cmd_polling([0, 1, 0, 5, 99])  # 99 names no sonar
    assert robot.sonar.sequence == (0, 1, 0, 5)
    sim.step(DT)
    assert [n for n, _ in robot.take_new_readings()] == [0, 1, 0, 5, 0]
    robot.cmd_sonar(False)
    run(sim, 1.0)
    assert robot.take_new_readings() == []
    robot.cmd_sonar(True)
    robot.cmd_polling([])
    run(sim, 1.0)
    assert robot.take_new_readings() == []


# -- compass and reproducibility --------------------------------------------------------------------


def test_compass_reads_the_true_heading_with_3_degree_noise(p3dx: RobotParams) -> None:
    sim, robot = one_robot(p3dx, pose=(0.0, 0.0, 1.0))  # near north, so readings wrap around 0
    errors = []
    for _ in range(3000):
        sim.step(DT)
        assert 0 <= robot.compass <= 359
        errors.append(wrap_degrees(robot.compass - robot.th))
    assert np.mean(errors) == pytest.approx(0.0, abs=0.2)
    assert np.std(errors) == pytest.approx(math.sqrt(3.0**2 + 1.0 / 12.0), rel=0.06)  # 3° plus rounding


def trajectory(params: RobotParams, world: World, seed: int) -> list[tuple[float, ...]]:
    sim = Simulation(world, seed=seed)
    robot = sim.add_robot(params)
    robot.cmd_vel(400)
    robot.cmd_rvel(15)
    states = []
    for _ in range(100):
        sim.step(DT)
        odometry = (robot.odometry.x, robot.odometry.y, robot.odometry.th)
        states.append((*robot.pose, *odometry, robot.compass, *(r for _, r in robot.take_new_readings())))
    return states


def test_same_seed_same_run_different_seed_different_run(p3dx: RobotParams, office: World) -> None:
    first = trajectory(p3dx, office, 21)
    assert trajectory(p3dx, office, 21) == first
    assert trajectory(p3dx, office, 22) != first


def test_reset_restarts_the_same_run(p3dx: RobotParams) -> None:
    sim = Simulation(seed=5)
    robot = sim.add_robot(p3dx, (100.0, 200.0, 30.0))

    def go() -> list[tuple[float, float, float, int]]:
        robot.cmd_vel(300)
        robot.cmd_rvel(5)
        states = []
        for _ in range(30):
            sim.step(DT)
            states.append((robot.odometry.x, robot.odometry.y, robot.odometry.th, robot.compass))
        return states

    first = go()
    sim.reset()
    assert robot.pose == (100.0, 200.0, 30.0) and sim.time == 0.0
    assert go() == first


def test_drive_without_simulation_reports_wheel_speeds(p3dx: RobotParams) -> None:
    drive = Drive(RobotModel.from_params(p3dx))
    drive.cmd_vel(200)
    drive.cmd_rvel(10)
    for _ in range(20):
        drive.advance(DT)
    left, right = drive.wheel_velocities()
    assert (left + right) / 2 == pytest.approx(200.0)
    assert math.degrees((right - left) / 2 * 0.0056) == pytest.approx(10.0)
