"""FTVS blob vision end to end: the vision packet codec, the simulated camera's packets every 100 ms
(counted by VPac), the three modes, and the manual's sample finding the red box in lock-step."""

from __future__ import annotations

import math

import pytest

from saphira.client.sensors import accessories as acc
from saphira.colbert.evaluator import Evaluator
from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.vision import (
    VisionInfo,
    VisionMode,
    VisionPacket,
    VisionSetting,
    decode_vision_packet,
    encode_vision_packet,
    parse_vision_command,
)
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.world.wld import parse_wld

WALLED = """width 6000
height 6000
box 3000 1000 250 250 red
box 3000 5000 250 250 green
2000 4000 4000 4000
position 3000 3000 -90
"""


def connect(world: str = "ftvs", params: str = "p3dx") -> tuple[Robot, EmbeddedSim]:
    robot = Robot()
    the_world = parse_wld(world, "walled.wld") if "\n" in world else world
    sim = attach_simulator(robot, the_world, params, odometry_error=False)
    return robot, sim


def test_vision_packet_round_trip_and_errors() -> None:
    packet = VisionPacket((VisionInfo(2, -12, -30, 400, 20, 20), VisionInfo(1, 5, 0, 0, 0, 0, 3, 4), VisionInfo()))
    frame = encode_vision_packet(packet)
    assert frame[3] == 0x50 and frame[2] == len(frame) - 3
    assert decode_vision_packet(frame[3:-2]) == packet
    with pytest.raises(DecodeError, match="byte 10"):
        decode_vision_packet(frame[3:13])
    with pytest.raises(EncodeError, match="channel A"):
        encode_vision_packet(VisionPacket((VisionInfo(x=40000), VisionInfo(), VisionInfo())))


def test_vision_command_strings() -> None:
    assert parse_vision_command("pioneer_b_mode 2") == VisionSetting("mode", 1, 2)
    assert parse_vision_command("line_min_mass 12") == VisionSetting("line_min_mass", None, 12)
    assert parse_vision_command("pioneer_c_color Yellow") == VisionSetting("color", 2, "yellow")
    for bad, why in (("pioneer_d_mode 1", "unknown setting"), ("pioneer_a_mode 3", "0, 1 or 2"),
                     ("line_bottom_row x", "not an integer"), ("pioneer_a_mode", "expected")):  # fmt: skip
        with pytest.raises(ValueError, match=why):
            parse_vision_command(bad)


def test_vision_packets_come_every_100_ms_and_vpac_counts_them() -> None:
    robot, sim = connect()
    robot.run(cycles=10)
    state = robot.reflector.accessories.state
    assert state.vision_packets == 0 and robot.link.counters.other_packets == 0  # silent until asked
    acc.set_vision_mode(robot, 0, VisionMode.BLOB_BB)
    robot.run(3.0)
    assert state.vision_packet_count in (9, 10, 11)
    ev = Evaluator(robot, output=(lines := []).append, read_init=False)
    assert ev.eval_text("sfRobot.vision_packet_count")
    assert lines == [f"{state.vision_packet_count} (int)"]
    assert sim.server.accessories.vision_packets_sent - state.vision_packets == 1  # one still in the pipe
    assert robot.link.counters.other_packets == 0 and robot.link.counters.undecodable == 0


def test_the_manuals_ftvs_on_a_pioneer_1_streams_blob_packets_from_start_up() -> None:
    """A PSOS robot's FTVS sends a packet every 100 ms in BLOB mode before any VISION_COM, and again
    to the next client after a disconnect; an ARCOS robot stays as AMRISim until asked (above)."""
    robot, sim = connect(WALLED, "psos41m")
    sim.simulation.set_pose(sim.sim_robot, 3500, 1000, 180)  # the red box 500 mm ahead
    robot.run(3.0)
    state = robot.reflector.accessories.state
    assert sim.server.accessories.vision_commands == 0
    assert state.vision_packet_count in (9, 10, 11) and robot.link.counters.other_packets == 0
    assert state.vision[0].type == VisionMode.BLOB and state.vision[0].area > 0 and state.vision[0].h == 0
    robot.disconnect()
    sent = sim.server.accessories.vision_packets_sent
    sim.connect()
    robot.run(1.0)
    assert sim.server.accessories.vision_packets_sent - sent >= 9


def test_channel_modes_report_what_the_manual_says() -> None:
    robot, sim = connect()
    sim.simulation.set_pose(sim.sim_robot, 3500, 3000, 90)  # the red box 2.5 m straight ahead
    acc.set_vision_mode(robot, 0, VisionMode.BLOB)
    robot.run(cycles=3)
    a = robot.reflector.accessories.state.vision[0]
    assert a.type == VisionMode.BLOB and a.area > 0 and abs(a.x) <= 1 and a.y < 0 and (a.h, a.w) == (0, 0)
    acc.set_vision_mode(robot, 0, VisionMode.BLOB_BB)
    robot.run(cycles=3)
    a = robot.reflector.accessories.state.vision[0]
    # 250 mm at 2.25 m (its near face) is about 6.4 degrees: some 19 pixels wide
    assert a.type == VisionMode.BLOB_BB and a.w == pytest.approx(19, abs=2)
    assert a.area == pytest.approx(a.w * a.h, rel=0.1)
    acc.set_vision_mode(robot, 0, VisionMode.LINE)
    robot.run(cycles=3)
    a = robot.reflector.accessories.state.vision[0]
    assert a.type == VisionMode.LINE and a.area == 0 and a.num > 0 and abs(a.x) <= 1
    b, c = robot.reflector.accessories.state.vision[1:]
    assert b.area == 0 and c.area == 0  # the green and blue boxes are out of view
    acc.vision_command(robot, "pioneer_b_color red")  # retrain B on red: it sees the red box too
    robot.run(cycles=3)
    assert robot.reflector.accessories.state.vision[1].area > 0


def test_walls_hide_boxes_and_turning_moves_the_blob() -> None:
    robot, sim = connect(WALLED)
    acc.set_vision_mode(robot, 0, VisionMode.BLOB_BB)
    acc.set_vision_mode(robot, 1, VisionMode.BLOB_BB)
    robot.run(cycles=3)
    state = robot.reflector.accessories.state
    assert state.vision[0].area > 0 and abs(state.vision[0].x) <= 1
    sim.simulation.set_pose(sim.sim_robot, 3000, 3000, 90)  # the green box is behind the wall at y = 4000
    robot.run(cycles=3)
    assert state.vision[1].area == 0
    sim.simulation.set_pose(sim.sim_robot, 3000, 3000, -80)  # red box 10 degrees to the right
    robot.run(cycles=3)
    assert state.vision[0].x == pytest.approx(30, abs=3)


def test_the_ftvs_sample_turns_to_the_red_box_and_stops_within_300_mm() -> None:
    robot, sim = connect()
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.load("colbert/ftvs.act"), lines
    assert robot.run_until(lambda: any("at the blob" in line for line in lines), max_cycles=600), lines
    red = sim.simulation.objects[0]
    pose = sim.true_pose
    gap = math.hypot(red.x - pose.x, red.y - pose.y) - red.radius - sim.sim_robot.radius
    assert 0.0 < gap < 300.0
    bearing = math.degrees(math.atan2(red.y - pose.y, red.x - pose.x))
    assert abs((bearing - pose.th + 180.0) % 360.0 - 180.0) < 10.0  # it faces the box
    assert sim.stats.wall_contacts == 0 and red.holder is None
    assert robot.reflector.accessories.state.vision[0].type == VisionMode.BLOB_BB
    task = robot.scheduler.find("search_and_go_blob")
    assert task is not None and task.state.name == "SUCCESS"
