"""``saphira sim --flat``: a scripted controller over loopback TCP against our Flat4 server.

The server object runs in a thread on a free loopback port (one test starts the real program); the
controller is a plain socket speaking the protocol through the codec. Every check is against the
simulator's truth: poses for the accelerations, world geometry for the query answers.
"""

from __future__ import annotations

import itertools
import math
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from flat_controller import Controller, served

from saphira.core.geometry import Pose
from saphira.flat.codec import (
    BlobReply,
    Control,
    DoorwaysReply,
    JumpsReply,
    LaserReply,
    MapChanged,
    OpenSpaceReply,
    SegmentsReply,
    StepOutput,
    parse_reply,
)
from saphira.flat.robot import MAX_RANGE
from saphira.flat.server.laser import to_robot, to_world
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.world.flat_world import load_world_file
from saphira.world.raycast import point_segment_distances
from saphira.world.wld import parse_wld
from saphira.world.world import World
from tests.realtime import WAIT

PROJECT = Path(__file__).resolve().parents[1]
HALL = "width 30000\nheight 6000\n0 0 30000 0\n30000 0 30000 6000\n30000 6000 0 6000\n0 6000 0 0\n"


def hall(extra: str = "") -> World:
    return parse_wld(HALL + extra, "<hall>")


def server_for(
    world: World,
    pose: tuple[float, float, float],
    lasers: int = 1,
    *,
    realtime: bool = False,
    running: bool = True,
    monotonic: Callable[[], float] = time.monotonic,
) -> FlatServer:
    flat = FlatSimulation(world, options=FlatOptions(lasers=lasers), pose=pose)
    return FlatServer(flat, realtime=realtime, running=running, monotonic=monotonic)


# ============================================================================ motion and timing
def test_linear_velocity_ramps_at_500_mm_s2_both_ways() -> None:
    with served(server_for(hall(), (2000.0, 3000.0, 0.0))) as flat:
        x0 = flat.pose[0]
        xs = [flat.step(1000.0).pose[0] - x0 for _ in range(25)]
        # Speeding up: x = a t² / 2 until 1000 mm/s is reached at t = 2 s, then 1000 mm/s.
        for n in (1, 5, 10, 20):
            assert xs[n - 1] == pytest.approx(0.5 * 500.0 * (0.1 * n) ** 2, abs=0.1)  # printed to 0.1 mm
        assert xs[24] - xs[19] == pytest.approx(500.0, abs=0.1)
        start = flat.pose[0]
        stops = [flat.step(0.0).pose[0] - start for _ in range(25)]
        # Braking from 1000 mm/s at 500 mm/s²: 2 s and 1000 mm to a stop.
        assert stops[9] == pytest.approx(1000.0 * 1.0 - 0.5 * 500.0 * 1.0, abs=0.1)
        assert stops[19] == pytest.approx(1000.0, abs=0.1) and stops[24] == stops[19]


def test_angular_velocity_ramps_at_50_deg_s2_both_ways() -> None:
    with served(server_for(hall(), (2000.0, 3000.0, 0.0))) as flat:
        ths = [flat.step(0.0, 90.0).pose[2] for _ in range(10)]
        assert ths[9] == pytest.approx(0.5 * 50.0 * 1.0, abs=0.1)  # 1 s at 50 deg/s²: 25 degrees
        assert ths[4] == pytest.approx(0.5 * 50.0 * 0.25, abs=0.1)
        # Now at 50 deg/s, asked for -40: braking and reversing at 50 deg/s² takes 1.8 s and turns
        # 50²/(2·50) - 40²/(2·50) = 25 - 16 = 9 degrees on balance.
        start = flat.pose[2]
        turned = [flat.step(0.0, -40.0).pose[2] - start for _ in range(30)]
        assert turned[17] == pytest.approx(9.0, abs=0.1)
        assert turned[29] - turned[17] == pytest.approx(-40.0 * 1.2, abs=0.1)
        assert flat.pose[0] == pytest.approx(2000.0) and flat.pose[1] == pytest.approx(3000.0)


def _transcript(monotonic_steps: list[float], realtime: bool = False) -> tuple[list[str], FlatServer]:
    times = iter(np.cumsum(monotonic_steps))
    server = server_for(
        hall("push 8000 3000 0\n-300 -300 300 -300\n300 -300 300 300\n300 300 -300 300\n-300 300 -300 -300\npop\n"),
        (2000.0, 3000.0, 0.0),
        realtime=realtime,
        monotonic=lambda: float(next(times)),
    )
    with served(server) as flat:
        for k in range(60):
            flat.step(600.0 if k < 40 else 0.0, 20.0 * math.sin(k / 7.0))
        flat.ask("j 300")
        flat.ask("b 300 100 5000 3 60")
        return flat.transcript, server


def test_standard_mode_gives_identical_runs_for_identical_inputs_whatever_the_controller_takes() -> None:
    quick, _ = _transcript([0.001] * 200)
    slow, _ = _transcript([0.7, 0.001, 3.0] * 67)  # the controller's think time varies wildly
    assert quick == slow
    assert "(6000 :JUMPS" in "\n".join(quick)  # 60 steps of exactly 100 ms


def test_real_time_mode_steps_by_the_wall_clock() -> None:
    lines, _ = _transcript([0.25] * 200, realtime=True)
    outputs = [parse_reply(line) for line in lines if line.startswith("((")]
    times = [out.time for out in outputs if isinstance(out, StepOutput)]
    assert len(times) == 61 and times[0] == 0
    assert all(b - a == 250 for a, b in itertools.pairwise(times))  # the fake wall clock's 250 ms per step


def test_stopped_server_holds_the_step_until_start_or_step() -> None:
    server = server_for(hall(), (2000.0, 3000.0, 0.0), running=False)
    server.step(2)
    with served(server) as flat:
        assert [flat.step(100.0).time for _ in range(2)] == [100, 200]
        flat.send("c 100 0 1")
        assert server.held.wait(timeout=WAIT)
        assert server.steps == 2
        server.start()
        assert flat._next_output().time == 300


def test_twelve_sonars_face_forward_then_clockwise() -> None:
    # Walls 1 m ahead (east) and 2 m to the right (south) of a robot facing east.
    world = hall("3000 0 3000 6000\n")
    with served(server_for(world, (2000.0, 2000.0, 0.0), lasers=0)) as flat:
        out = flat.step()
        assert len(out.sonar) == 12 and out.lasers == ()
        assert out.sonar[0] == pytest.approx(1000.0 - 200.0, abs=40.0)  # forward, from the 200 mm ring
        assert out.sonar[3] == pytest.approx(2000.0 - 200.0, abs=40.0)  # sonar 3 faces right (clockwise)
        assert out.sonar[9] == pytest.approx(4000.0 - 200.0, abs=150.0)  # left: the north wall (σ 43 mm)
        assert out.sonar[6] == pytest.approx(2000.0 - 200.0, abs=100.0)  # backwards: the west wall


# ============================================================================ queries against the geometry
def _on_a_wall(world: World, x: float, y: float) -> float:
    return float(point_segment_distances((x, y), world.segments).min())


@pytest.mark.parametrize("lasers", [1, 2])
def test_laser_readings_lie_on_the_walls(lasers: int) -> None:
    world = hall("push 5000 3500 30\n-400 -400 400 -400\n400 -400 400 400\n400 400 -400 400\n-400 400 -400 -400\npop\n")
    pose = (2500.0, 2500.0, 20.0)
    with served(server_for(world, pose, lasers=lasers)) as flat:
        out = flat.step()
        assert [s.name for s in out.lasers] == (["TOP"] if lasers == 1 else ["LEFT", "RIGHT"])
        assert [s.angle for s in out.lasers] == ([0] if lasers == 1 else [-45, 45])
        reply = flat.ask("l")
        assert isinstance(reply, LaserReply) and len(reply.lasers) == lasers
        robot = out.pose
        for _, readings in reply.lasers:
            assert len(readings) == 180
            for reading in readings:
                assert reading.r == pytest.approx(math.hypot(reading.x, reading.y), abs=0.2)
                if reading.r >= MAX_RANGE - 0.1:
                    continue  # nothing within reach (the lasers sit on the centre: r is the laser's range)
                wx, wy = to_world(_pose(robot), reading.x, reading.y)
                assert _on_a_wall(world, wx, wy) < 1.0
        if lasers == 1:  # the TOP laser sweeps right to left: bearings 0.5 … 179.5
            thetas = [r.theta for r in reply.lasers[0][1]]
            assert thetas[0] == pytest.approx(0.5, abs=0.06) and thetas[-1] == pytest.approx(179.5, abs=0.06)


def _pose(p: tuple[float, float, float]) -> Pose:
    return Pose(*p)


PILLAR = "push 5000 3000 0\n-150 -150 150 -150\n150 -150 150 150\n150 150 -150 150\n-150 150 -150 -150\npop\n"


def test_jumps_and_blob_find_a_pillar_where_it_stands() -> None:
    pose = (2000.0, 3000.0, 0.0)
    with served(server_for(hall(PILLAR), pose)) as flat:
        jumps = flat.ask("j 1000")
        assert isinstance(jumps, JumpsReply) and len(jumps.jumps) == 2
        # The pillar's 300 mm face 2850 mm ahead spans bearings 90 ± atan(150 / 2850).
        edge = math.degrees(math.atan2(150.0, 2850.0))
        rise, fall = sorted(jumps.jumps, key=lambda j: j.angle1)
        assert rise.size < 0 and fall.size > 0  # right to left: onto the pillar, then off it
        assert rise.angle2 == pytest.approx(90.0 - edge, abs=1.0) and fall.angle1 == pytest.approx(90.0 + edge, abs=1.0)
        assert rise.value2 == pytest.approx(2850.0, abs=5.0)
        blobs = flat.ask("b 500 100 5000 3 40")
        assert isinstance(blobs, BlobReply) and len(blobs.blobs) == 1
        blob = blobs.blobs[0]
        centre = to_robot(_pose(pose), 5000.0, 3000.0)
        assert math.hypot(blob.x - centre[0], blob.y - (centre[1] - 150.0)) < 20.0  # the visible face
        seen = sum(1 for k in range(180) if abs(k + 0.5 - 90.0) <= edge)  # readings on the face
        assert blob.r <= 160.0 and blob.points == seen == 6
        assert flat.ask("b 500 100 2000 3 40") == BlobReply(0, ())  # farther than max-blob-distance
        assert flat.ask("b 500 100 5000 7 40") == BlobReply(0, ())  # fewer points than min-blob-size


DOOR_WALL = "4000 0 4000 2600\n4000 3600 4000 6000\n"  # a wall 2 m ahead with a 1 m doorway, centred 300 mm left


def test_doorway_and_open_space_match_the_gap_in_the_wall() -> None:
    pose = (2000.0, 2800.0, 0.0)
    with served(server_for(hall(DOOR_WALL), pose)) as flat:
        doors = flat.ask("d 45 135 1000")
        assert isinstance(doors, DoorwaysReply) and len(doors.doorways) == 1
        door = doors.doorways[0]
        gap = to_robot(_pose(pose), 4000.0, 3100.0)
        assert door.theta == pytest.approx(math.degrees(math.atan2(gap[1], gap[0])), abs=2.0)
        # Through the door nothing is within the laser's reach; the smaller jump is at the far jamb.
        assert door.jump == pytest.approx(MAX_RANGE - math.hypot(2000.0, 800.0), abs=50.0)
        assert flat.ask("d 0 60 1000") == DoorwaysReply(0, ())
        assert flat.ask("o 60 120 4000 800") == OpenSpaceReply(0, True)  # through the 1 m doorway
        assert flat.ask("o 60 120 4000 1200") == OpenSpaceReply(0, False)  # too narrow
        assert flat.ask("o 60 120 1500 1200") == OpenSpaceReply(0, True)  # the wall is 2 m away
        assert flat.ask("o 0 30 4000 800") == OpenSpaceReply(0, False)  # the door is not to the right


def test_segments_lie_on_the_walls_in_the_y_ahead_frame() -> None:
    pose = (2000.0, 2800.0, 0.0)
    world = hall(DOOR_WALL)
    with served(server_for(world, pose)) as flat:
        reply = flat.ask("s 0 180 8000 300 5 1 30 5 200 300 0 3")
        assert isinstance(reply, SegmentsReply) and len(reply.segments) >= 3
        for seg in reply.segments:
            for x, y in ((seg.x1, seg.y1), (seg.x2, seg.y2)):
                assert _on_a_wall(world, *to_world(_pose(pose), x, y)) < 20.0
        # The wall ahead (y = 2000 in the robot's frame) both sides of the door.
        ahead = [s for s in reply.segments if abs(s.y1 - 2000.0) < 20.0 and abs(s.y2 - 2000.0) < 20.0]
        assert len(ahead) == 2
        left, right = sorted(ahead, key=lambda s: s.x1 + s.x2)
        # The doorway's jambs: world y 3600 and 2600 are 800 mm left and 200 mm right of the robot.
        assert max(left.x1, left.x2) == pytest.approx(-800.0, abs=40.0)
        assert min(right.x1, right.x2) == pytest.approx(200.0, abs=40.0)
        filtered = flat.ask("s 0 180 8000 300 5 1 30 5 200 300 1 5")
        assert isinstance(filtered, SegmentsReply) and len(filtered.segments) >= 3
        assert flat.ask("s 0 180 1000 300 5 1 30 5 200 300 0 3") == SegmentsReply(0, ())  # nothing that near


def test_default_data_is_the_step_output_and_no_laser_means_full_range() -> None:
    with served(server_for(hall(), (2000.0, 3000.0, 0.0))) as flat:
        out = flat.step(100.0)
        assert flat.ask("x") == out
        assert max(out.lasers[0].ranges) == MAX_RANGE  # down the 30 m hall: nothing within 8 m


# ============================================================================ the sample world
def test_a_trip_through_the_sample_building_changes_maps_every_way(maps_dir: Path) -> None:
    building = load_world_file(maps_dir / "flat" / "building.world")
    assert building.warnings == []
    assert sorted({t.kind for _, ts in building.maps.values() for t in ts}) == [1, 2, 3, 4]
    server = FlatServer(FlatSimulation(flat_world=building, options=FlatOptions(lasers=1)))
    with served(server) as flat:
        assert flat.pose == (4000, 2000, 180)
        # Automatic (type 3): into the lobby, and out again at its other end.
        flat.drive_to(1500.0, 2000.0)
        assert [c.map_file for c in flat.changes] == ["lobby.wld"]
        flat.drive_to(3400.0, 2000.0)
        assert [c.map_file for c in flat.changes] == ["lobby.wld", "floor1.wld"]
        # To the elevator; a command that no transition there has.
        flat.drive_to(11100.0, 2000.0, tolerance=60.0)
        assert flat.ask("t GOTO-3") == MapChanged(flat.output.time, None)
        assert flat.ask("t GOTO-2") == MapChanged(flat.output.time, None)  # only from inside the car
        # Commands (type 2): close the door, ride up.
        assert flat.ask("t CLOSE-DOOR") == MapChanged(flat.output.time, "elevator.wld")
        assert server.flat.map_name == "elevator.wld"
        assert flat.ask("t GOTO-2") == MapChanged(flat.output.time, "floor2.wld")
        assert flat.step().pose[:2] == pytest.approx((11100.0, 2000.0), abs=60.0)  # overlaid maps: same place
        # Command with a new location (type 1): down the stairs (along the hall, clear of the offices).
        flat.drive_to(2000.0, 2000.0)
        flat.drive_to(1000.0, 1000.0)
        assert flat.ask("t TAKE-STAIRS") == MapChanged(flat.output.time, "floor1.wld")
        assert flat.step().pose == pytest.approx((1000.0, 2800.0, 0.0), abs=1e-6)
        # Relocation by 'm', then automatic with a new location (type 4): the chute.
        assert flat.ask("m floor2.wld 6000 2400 90") == MapChanged(flat.output.time, "floor2.wld")
        assert flat.step().pose == pytest.approx((6000.0, 2400.0, 90.0), abs=1e-6)
        flat.changes.clear()
        for _ in range(60):
            if flat.changes:
                break
            flat.step(300.0)
        assert [c.map_file for c in flat.changes] == ["floor1.wld"]
        assert flat.pose[:2] == pytest.approx((6000.0, 700.0), abs=40.0)
        assert server.flat.wall_contacts == 0


def test_two_automatic_transitions_at_one_place_are_warned_about(tmp_path: Path) -> None:
    for name in ("a.wld", "b.wld"):
        (tmp_path / name).write_text(HALL)
    world_file = tmp_path / "loop.world"
    world_file.write_text(
        "WORLD Loop a.wld\nMAP a.wld\nTRANSITION (1000 1000 500) b.wld\nMAP b.wld\nTRANSITION (1000 1000 500) a.wld\n"
    )
    world = load_world_file(world_file)
    assert len(world.warnings) == 2
    assert "lines 3 and 5 at one place: the map would switch back and forth" in world.warnings[0]
    # Our server fires an automatic transition when the robot enters its circle, not while it is in it:
    # Flat would switch at every step while the robot stands where the circles overlap; ours once.
    flat = FlatSimulation(flat_world=world, pose=(300.0, 1000.0, 0.0))
    changes = [c for _ in range(10) for c in flat.control(_control(500.0))]
    changes += [c for _ in range(40) for c in flat.control(_control(0.0))]
    assert 600.0 < flat.pose.x < 1500.0  # standing in both circles
    assert [c.map_file for c in changes] == ["b.wld"] and flat.map_name == "b.wld"


def _control(v: float) -> Control:
    return Control("c", v, 0.0)


# ============================================================================ the real program
def test_saphira_sim_flat_serves_a_controller_until_it_ends_the_program() -> None:
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "saphira.app.sim",
            "-q",
            "--flat",
            "0",
            "--world",
            "room",
            "--flat-lasers",
            "2",
            "--flat-steps",
            "3",
        ],
        cwd=PROJECT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        banner = proc.stdout.readline().decode()
        assert "Flat4 controller" in banner and "2 laser(s)" in banner and "stopped" in banner
        host, port = banner.split()[2].rsplit(":", 1)
        flat = Controller(host, int(port))
        assert isinstance(flat.output, StepOutput) and len(flat.output.lasers) == 2
        assert [flat.step(200.0).time for _ in range(3)] == [100, 200, 300]  # --flat-steps 3
        flat.send("c 200 0 1")
        proc.stdin.write(b"START\n")  # the panel's START button
        proc.stdin.flush()
        assert flat._next_output().time == 400
        flat.send("q 1 2 3")  # garbage is logged and skipped: the server still answers
        assert isinstance(flat.ask("l"), LaserReply)
        flat.send("e")
        out, err = proc.communicate(timeout=WAIT)
        flat.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert b"simulator stopped after 4 steps" in out
    assert b"unknown command 'q'" in err


def test_a_bad_flat_world_file_is_reported_with_its_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.world"
    bad.write_text("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2 x) b.wld\n")
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    result = subprocess.run(
        [sys.executable, "-m", "saphira.app.sim", "--flat", "0", "--flat-world", str(bad)],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert f"{bad}:3:13: bad number 'x' in (x y radius [command])" in result.stderr


def test_the_server_binds_loopback_by_default() -> None:
    server = FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0)))
    try:
        assert server.address[0] == "127.0.0.1"
        with socket.create_connection(server.address, timeout=WAIT):
            pass
    finally:
        server.close()
