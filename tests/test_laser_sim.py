"""The simulated laser: its packets byte for byte, its scans against ray-cast truth, and the server's
laser commands in both numberings (AMRISim's 230–233 and SRISim's 35–38, which ARIA sends).

The server runs on an in-process pipe stepped by hand, as in test_sim_server.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saphira.client.transport import memory_pair
from saphira.core.geometry import Pose
from saphira.params.laser import laser_config
from saphira.params.robot_params import RobotParams, load_params, params_for_file
from saphira.protocol import Command, PacketId, decode_frame
from saphira.protocol.errors import DecodeError
from saphira.protocol.laser import FLAG_MOVED, LaserPacket, decode_laser, laser_packets
from saphira.sim.laser import cast_scan
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.simulation import Simulation
from saphira.world.objects import WorldObject
from saphira.world.raycast import FanWalls, cast_even_fan, cast_fan, cast_rays
from saphira.world.world import World, load_world
from tests.test_sim_server import frames

DATA = Path(__file__).resolve().parent / "data"
LASER_P3DX = DATA / "laser-params" / "p3dx-laser.p"
ROOM = (-2000.0, -1500.0, 4000.0, 3000.0)  # xmin, ymin, xmax, ymax of a closed rectangular room


def room() -> World:
    x0, y0, x1, y1 = ROOM
    walls = np.array([[x0, y0, x1, y0], [x1, y0, x1, y1], [x1, y1, x0, y1], [x0, y1, x0, y0]], dtype=np.float64)
    return World(name="room", source="<test>", segments=walls, bounds=ROOM)


def params_with(path: Path, text: str, tmp_path: Path) -> RobotParams:
    """The robot of ``path`` with each ``Key value`` line of ``text`` replacing the file's line for that key."""
    lines = path.read_text().splitlines()
    for line in text.splitlines():
        key = line.split()[0]
        found = [i for i, old in enumerate(lines) if old.split()[:1] == [key]]
        if found:
            lines[found[0]] = line
        else:
            lines.append(line)
    copy = tmp_path / "robot.p"
    copy.write_text("\n".join(lines) + "\n")
    return params_for_file(copy)


def box_truth(ox: float, oy: float, angles_deg: np.ndarray) -> np.ndarray:
    """Distance from (ox, oy) inside :data:`ROOM` to its wall along each ray, by the box's own equations."""
    x0, y0, x1, y1 = ROOM
    c, s = np.cos(np.radians(angles_deg)), np.sin(np.radians(angles_deg))
    with np.errstate(divide="ignore"):
        tx = np.where(c > 0, (x1 - ox) / c, np.where(c < 0, (x0 - ox) / c, np.inf))
        ty = np.where(s > 0, (y1 - oy) / s, np.where(s < 0, (y0 - oy) / s, np.inf))
    return np.minimum(tx, ty)


# ------------------------------------------------------------------------------------------ packets
def test_a_scan_is_split_into_packets_of_at_most_32_readings_in_amrisims_layout() -> None:
    ranges = np.arange(181) * 10.0 + 500.0
    packets = laser_packets(ranges, extended=False, pose=(1000, -2000, 45))
    assert len(packets) == 6
    first = packets[0]
    # FA FB, count, 0x60, x=1000, y=-2000, th=45, total=181, first=0, count=32, then 500 mm...
    assert first[:18].hex(" ") == "fa fb 4e 60 e8 03 30 f8 2d 00 b5 00 00 00 20 f4 01 fe"
    decoded = [decode_laser(decode_frame(p)) for p in packets]
    assert [(d.first, d.count, d.total) for d in decoded] == [
        (i, 32 if i < 160 else 21, 181) for i in range(0, 181, 32)
    ]
    assert [r for d in decoded for r in d.ranges] == ranges.astype(int).tolist()
    assert {d.pose for d in decoded} == {(1000, -2000, 45)}


def test_extended_packets_carry_reflectance_laser_index_and_the_moved_flag() -> None:
    ranges = [1000.0] * 40
    packets = laser_packets(ranges, extended=True, reflectance=[3] * 40, flags=FLAG_MOVED)
    payload = decode_frame(packets[1])
    # 0x61, total 40, first 32, count 8, 8 × (range, reflectance, 0, 0), laser index 0, flags 1
    assert payload[:6] == bytes([0x61, 40, 0, 32, 0, 8])
    assert payload[6:11] == bytes([0xE8, 0x03, 3, 0, 0]) and payload[-2:] == b"\x00\x01"
    decoded = decode_laser(payload)
    assert decoded == LaserPacket(True, 40, 32, (1000,) * 8, (3,) * 8, None, 0, 1) and decoded.moved


@given(st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=400), st.booleans())
@settings(max_examples=50, deadline=None)
def test_any_scan_round_trips_through_its_packets(ranges: list[int], extended: bool) -> None:
    decoded = [decode_laser(decode_frame(p)) for p in laser_packets(ranges, extended=extended)]
    assert all(d.count <= 32 and d.total == len(ranges) for d in decoded)
    assert [r for d in decoded for r in d.ranges] == ranges


@pytest.mark.parametrize(
    ("payload", "offset"),
    [
        (b"\x60\x00\x00\x00", 4),
        (b"\x61\xb5\x00\x00\x00\x20\x01\x02", 8),
        (b"\x61\x05\x00\x04\x00\x02", 1),
        (b"\x32", 0),
    ],
    ids=["no pose", "readings cut", "beyond the total", "not a laser packet"],
)
def test_a_malformed_laser_packet_is_refused_naming_the_byte(payload: bytes, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        decode_laser(payload)
    assert info.value.offset == offset


# ------------------------------------------------------------------------------------------ scans
def test_the_parameter_file_sets_the_lasers_mount_field_of_view_range_and_noise() -> None:
    config = laser_config(params_for_file(LASER_P3DX))
    assert config is not None
    assert (config.x, config.y, config.th, config.start, config.end, config.increment) == (18, 0, 0, -90, 90, 1)
    assert (config.count, config.max_range, config.noise) == (181, 32000, 10)
    aria = laser_config(params_for_file(DATA / "aria-params" / "p3dx-sh-lms500.p"))  # ARIA ≥ 2.7 keys
    assert aria is not None and (aria.laser_type, aria.x, aria.count) == ("lms5xx", 21, 381)
    assert laser_config(load_params(DATA / "aria-params" / "p3dx-sh.p")) is not None
    assert laser_config(params_for_file("p3dx")) is None  # says nothing: the client assumes none


def test_scans_match_ray_cast_truth_within_the_noise_model(tmp_path: Path) -> None:
    params = params_with(LASER_P3DX, "LaserNoise 20\n", tmp_path)
    sim = Simulation(room(), seed=3, odometry_error=False)
    robot = sim.add_robot(params, (500.0, 700.0, 30.0))
    assert robot.laser is not None
    robot.laser.set_mode(1)
    residuals = []
    for _ in range(20):
        sim.step(0.1)
        scan = robot.laser.scan
        assert scan is not None
        c, s = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
        truth = box_truth(500.0 + 18.0 * c, 700.0 + 18.0 * s, 30.0 + robot.laser.angles())
        residuals.append(scan.ranges - truth)
    errors = np.concatenate(residuals)
    assert errors.size == 20 * 181
    assert abs(errors.mean()) < 3 * 20.0 / math.sqrt(errors.size)
    assert 0.9 * 20.0 < errors.std() < 1.1 * 20.0
    assert np.abs(errors).max() < 6 * 20.0


def test_a_noiseless_scan_is_exact_and_reports_max_range_for_no_return(tmp_path: Path) -> None:
    params = params_with(LASER_P3DX, "LaserNoise 0\nLaserMaxRange 3000\n", tmp_path)
    sim = Simulation(room(), seed=0, odometry_error=False)
    robot = sim.add_robot(params, (0.0, 0.0, 0.0))
    assert robot.laser is not None
    robot.laser.set_mode(2)
    sim.step(0.1)
    scan = robot.laser.scan
    assert scan is not None
    truth = box_truth(18.0, 0.0, robot.laser.angles())
    expected = np.where(truth <= 3000.0, truth, 3000.0)
    assert np.allclose(scan.ranges, expected, atol=1e-6)
    assert (scan.ranges == 3000.0).any()  # the far corners are beyond its range


def test_a_scan_finds_the_same_walls_as_the_sonars_cast_against_the_whole_map() -> None:
    world = load_world("AMROffice")
    rng = np.random.default_rng(5)
    angles = np.arange(-180.0, 180.0, 0.7)
    x0, y0, x1, y1 = world.bounds
    for _ in range(12):
        origin = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
        fan = cast_scan(world.index, origin, -180.0, 0.7, angles.size, 32000.0)
        dense = cast_rays(origin, angles, world.segments, 32000.0).distances
        assert np.array_equal(np.isfinite(fan), np.isfinite(dense))
        assert np.allclose(fan[np.isfinite(fan)], dense[np.isfinite(dense)])


def test_a_fan_agrees_with_cast_rays_among_random_walls() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        walls = rng.integers(-3000, 3000, size=(int(rng.integers(1, 30)), 4)).astype(np.float64)
        origin = (float(rng.integers(-3000, 3000)), float(rng.integers(-3000, 3000)))
        angles = np.sort(rng.uniform(-180.0, 180.0, int(rng.integers(1, 200))))
        fan, rays = cast_fan(origin, angles, walls, 4000.0), cast_rays(origin, angles, walls, 4000.0).distances
        assert np.array_equal(np.isfinite(fan), np.isfinite(rays))
        assert np.allclose(fan[np.isfinite(fan)], rays[np.isfinite(rays)], rtol=1e-9, atol=1e-6)


def test_an_even_fan_agrees_with_cast_rays_among_random_walls() -> None:
    rng = np.random.default_rng(12)
    for _ in range(200):
        walls = rng.integers(-3000, 3000, size=(int(rng.integers(1, 30)), 4)).astype(np.float64)
        origin = (float(rng.integers(-3000, 3000)), float(rng.integers(-3000, 3000)))
        first, increment = float(rng.uniform(-360.0, 360.0)), float(rng.choice([0.25, 0.5, 1.0, 2.0, 7.0]))
        count = int(rng.integers(1, 400))  # up to more than a full turn, which takes the general way
        fan = cast_even_fan(origin, first, increment, count, FanWalls(walls), 4000.0)
        rays = cast_rays(origin, first + increment * np.arange(count), walls, 4000.0).distances
        assert np.array_equal(np.isfinite(fan), np.isfinite(rays))
        assert np.allclose(fan[np.isfinite(fan)], rays[np.isfinite(rays)], rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize(
    "origin", [(0.0, 0.0), (500.0, 0.0), (1000.0, 1000.0), (500.0, 500.0), (0.0, 500.0), (500.0, 0.5), (-300.0, 0.0)]
)
def test_a_fan_agrees_with_cast_rays_at_corners_and_on_walls(origin: tuple[float, float]) -> None:
    square = np.array([[0, 0, 1000, 0], [1000, 0, 1000, 1000], [1000, 1000, 0, 1000], [0, 1000, 0, 0]], float)
    angles = np.arange(0.0, 360.0, 7.5)
    fan, rays = cast_fan(origin, angles, square), cast_rays(origin, angles, square).distances
    assert np.array_equal(np.isfinite(fan), np.isfinite(rays))
    assert np.allclose(fan, rays, rtol=1e-12, atol=1e-9)  # the same distances, up to rounding
    for first in (-90.0, 0.0, 45.0, 90.0, 180.0):  # half turns, as a SICK scans, from on and beside walls
        even = cast_even_fan(origin, first, 7.5, 25, FanWalls(square))
        truth = cast_rays(origin, first + 7.5 * np.arange(25), square).distances
        assert np.array_equal(np.isfinite(even), np.isfinite(truth))
        assert np.allclose(even, truth, rtol=1e-12, atol=1e-9)


def test_other_robots_block_the_laser(tmp_path: Path) -> None:
    params = params_with(LASER_P3DX, "LaserNoise 0\n", tmp_path)
    sim = Simulation(room(), seed=0, odometry_error=False)
    robot = sim.add_robot(params, (0.0, 0.0, 0.0))
    other = sim.add_robot(params, (1500.0, 0.0, 0.0))
    assert robot.laser is not None
    robot.laser.set_mode(1)
    sim.step(0.1)
    assert robot.laser.scan is not None
    ahead = robot.laser.scan.ranges[90]
    face = other.radius * math.cos(math.radians(22.5))  # its body is an octagon for the laser, as for sonar
    assert ahead == pytest.approx(1500.0 - 18.0 - face)


def test_the_laser_sees_a_free_box_as_the_sonar_does_and_not_one_a_gripper_holds(tmp_path: Path) -> None:
    params = params_with(LASER_P3DX, "LaserNoise 0\n", tmp_path)
    box = WorldObject(1500.0, 0.0, 0.0, 300.0, 300.0, "red")
    walls = room()
    world = World(walls.name, walls.source, walls.segments, walls.bounds, objects=(box,))
    sim = Simulation(world, 0, odometry_error=False)
    robot = sim.add_robot(params, (0.0, 0.0, 0.0))
    assert robot.laser is not None
    robot.laser.set_mode(1)
    sim.step(0.1)
    assert robot.laser.scan is not None
    face = box.radius * math.cos(math.radians(22.5))  # the box's disc, an octagon for laser and sonar alike
    assert robot.laser.scan.ranges[90] == pytest.approx(1500.0 - 18.0 - face)
    assert robot.laser.scan.ranges[0] == pytest.approx(1500.0)  # the wall to the right is no nearer
    sim.objects[0].holder = robot.gripper  # held: it is part of the robot, not an obstacle
    sim.step(0.1)
    assert robot.laser.scan.ranges[90] == pytest.approx(4000.0 - 18.0)


# ------------------------------------------------------------------------------------------ the server
class LaserRig:
    """A server with one laser robot on an in-process line and a raw client end, stepped by hand."""

    def __init__(self, params: RobotParams, pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        self.simulation = Simulation(room(), 0, odometry_error=False)
        self.robot = self.simulation.add_robot(params, pose)
        self.server = PioneerServer(self.simulation, self.robot)
        self.host = ServedSimulation(self.simulation, [self.server])
        self.client, end = memory_pair("laser")
        self.server.attach(end, 0.0)
        self.now = 0.0
        for n in range(3):
            self.send(n)
            self.cycle()
        self.send(Command.OPEN, 1)
        self.cycle()

    def send(self, command: int, arg: int | None = None) -> None:
        from saphira.protocol import encode_command

        self.client.write(encode_command(command, arg))

    def cycle(self, n: int = 1) -> list[bytes]:
        for _ in range(n):
            self.host.cycle(self.now)
            self.now += 0.1
        return frames(self.client.read())


def laser_of(payloads: list[bytes]) -> list[LaserPacket]:
    return [decode_laser(p) for p in payloads if p[0] in (PacketId.LASER, PacketId.LASER_EXTENDED)]


def test_both_numberings_configure_the_same_scan() -> None:
    params = params_for_file(LASER_P3DX)
    streams = []
    for enable, start, end, res in ((230, 231, 232, 233), (35, 36, 37, 38)):
        rig = LaserRig(params, (500.0, 0.0, 0.0))
        rig.send(start, -45)
        rig.send(end, 45)
        rig.send(res, 50)  # 1/100 degree: a reading every half degree
        rig.send(enable, 2)
        packets = laser_of(rig.cycle())
        assert {p.total for p in packets} == {181} and all(p.extended for p in packets)
        streams.append([p.ranges for p in packets])
        assert rig.server.stats.ignored_total == 0 and rig.server.stats.handler_errors == 0
    assert streams[0] == streams[1]


def test_a_full_scan_follows_every_sip_in_the_packets_asked_for() -> None:
    rig = LaserRig(params_for_file(LASER_P3DX))
    assert laser_of(rig.cycle(3)) == []  # nothing until a client asks
    rig.send(Command.SIM_LRF_ENABLE, 1)
    payloads = rig.cycle(5)
    kinds = [p[0] for p in payloads]
    assert kinds == [0x32, *[0x60] * 6] * 5
    assert [p.first for p in laser_of(payloads)] == [0, 32, 64, 96, 128, 160] * 5
    rig.send(Command.SIM_LRF_ENABLE, 0)
    assert laser_of(rig.cycle(3)) == []


def test_sim_set_pose_is_flagged_in_the_next_extended_scan() -> None:
    rig = LaserRig(params_for_file(LASER_P3DX))
    rig.send(Command.OLD_SIM_LRF_ENABLE, 2)
    assert not any(p.moved for p in laser_of(rig.cycle(2)))
    from saphira.protocol import pose_arg

    rig.send(Command.SIM_SET_POSE, pose_arg(1000, 0, 0))
    flagged = laser_of(rig.cycle())
    assert flagged and all(p.moved for p in flagged)
    assert not any(p.moved for p in laser_of(rig.cycle()))


def test_the_session_end_turns_the_laser_off() -> None:
    rig = LaserRig(params_for_file(LASER_P3DX))
    rig.send(Command.SIM_LRF_ENABLE, 1)
    assert laser_of(rig.cycle())
    rig.send(Command.CLOSE, 1)
    rig.host.cycle(rig.now)
    assert rig.server.stats.sessions_ended == 1
    assert rig.robot.laser is not None and not rig.robot.laser.enabled


def test_a_robot_whose_file_says_it_has_no_laser_ignores_laser_commands(tmp_path: Path) -> None:
    rig = LaserRig(params_with(LASER_P3DX, "LaserPossessed false\n", tmp_path))
    assert rig.robot.laser is None
    rig.send(Command.SIM_LRF_ENABLE, 1)
    rig.send(Command.OLD_SIM_LRF_ENABLE, 2)
    assert laser_of(rig.cycle(2)) == []
    assert rig.server.stats.ignored[230] == 1 and rig.server.stats.ignored[35] == 1


def test_a_robot_whose_file_says_nothing_gets_the_default_sick_in_the_simulator() -> None:
    rig = LaserRig(params_for_file("p3dx"))
    rig.send(Command.OLD_SIM_LRF_START, -90)
    rig.send(Command.OLD_SIM_LRF_END, 90)
    rig.send(Command.OLD_SIM_LRF_INCREMENT, 100)
    rig.send(Command.OLD_SIM_LRF_ENABLE, 2)
    packets = laser_of(rig.cycle())
    assert [p.first for p in packets] == [0, 32, 64, 96, 128, 160] and packets[0].total == 181
    assert Pose(*rig.robot.pose) == Pose(0.0, 0.0, 0.0)
    assert abs(packets[2].ranges[90 - 64] - (4000.0 - 18.0)) < 30.0  # the wall ahead, 5 mm noise
