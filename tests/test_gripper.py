"""The Pioneer gripper and RC servo, end to end: the codec, the simulator's gripper in a world with
boxes, and the client's reflector and bindings, all through the real link in lock-step."""

from __future__ import annotations

import pytest

from saphira.client.sensors import accessories as acc
from saphira.colbert.evaluator import Evaluator
from saphira.params.robot_params import params_for_file
from saphira.protocol.args import byte_pair
from saphira.protocol.command_packet import command_payload, decode_command
from saphira.protocol.commands import Command
from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.gripper import (
    GripperIo,
    GripperPacket,
    GripperSwitches,
    GripState,
    break_beams,
    decode_gripper_packet,
    encode_gripper_packet,
    grip_state,
    ptu_arg,
    split_ptu_arg,
)
from saphira.protocol.sip import Sip, decode_sip
from saphira.robot import Robot
from saphira.sim.accessories import Accessories
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.sim.gripper import LIFT_TRAVEL_S, PADDLE_TRAVEL_S
from saphira.sim.server import PioneerServer
from saphira.sim.simulation import Simulation
from saphira.world.wld import parse_wld
from saphira.world.world import WorldError

ROOM = """width 6000
height 4000
0 0 6000 0
0 4000 6000 4000
0 0 0 4000
6000 0 6000 4000
box 2500 2000 150 150 red
position 1000 2000 0
"""


def connect(params: str = "p3dx", world: str = ROOM) -> tuple[Robot, EmbeddedSim]:
    robot = Robot()
    sim = attach_simulator(robot, parse_wld(world, "gripper.wld"), params, odometry_error=False)
    return robot, sim


# --------------------------------------------------------------------------- codec


def test_gripper_packet_bytes_round_trip() -> None:
    packet = GripperPacket(GripperIo.GENERAL_IO, 0x3C, 10)
    frame = encode_gripper_packet(packet)
    assert frame[:3] == bytes([0xFA, 0xFB, 6]) and frame[3:7] == bytes([0xE0, 2, 0x3C, 10])
    assert decode_gripper_packet(frame[3:-2]) == packet
    with pytest.raises(DecodeError, match="byte 2"):
        decode_gripper_packet(bytes([0xE0, 2]))
    with pytest.raises(EncodeError, match="switches=256"):
        encode_gripper_packet(GripperPacket(2, 256, 0))


def test_switch_byte_reads_as_aria_reads_it() -> None:
    free = GripperSwitches.LEFT_FREE | GripperSwitches.RIGHT_FREE
    assert grip_state(free) is GripState.OPEN
    assert grip_state(free | GripperSwitches.NOT_OPEN) is GripState.BETWEEN
    assert grip_state(GripperSwitches.NOT_OPEN) is GripState.CLOSED
    assert break_beams(GripperSwitches.INNER_BEAM) == 1 and break_beams(GripperSwitches.OUTER_BEAM) == 2
    assert ptu_arg(1, 150) == 0x0196 and split_ptu_arg(0x0196) == (1, 150)
    with pytest.raises(EncodeError, match="servo 5"):
        ptu_arg(5, 100)


def test_box_directive_in_a_world_file() -> None:
    world = parse_wld("push 1000 0 90\nbox 100 0 200 300 Red\nbox 0 0 50 50 45 blue\npop\n", "b.wld")
    first, second = world.objects
    assert (first.x, first.y, first.th, first.width, first.depth, first.colour) == (1000, 100, 90, 200, 300, "red")
    assert (second.th, second.colour, second.line) == (135, "blue", 3)
    with pytest.raises(WorldError, match=r"b\.wld:2:13: unknown colour 'mauve'"):
        parse_wld("width 10\nbox 1 2 3 4 mauve\n", "b.wld")
    with pytest.raises(WorldError, match=r"b\.wld:1:9: a box's size must be positive"):
        parse_wld("box 1 2 -3 4 red\n", "b.wld")


# --------------------------------------------------------------------------- simulator + client


def test_gripper_closes_on_a_box_and_its_break_beam_bit_flips() -> None:
    robot, sim = connect()
    state = robot.reflector.accessories.state
    box = sim.simulation.objects[0]
    robot.run(cycles=3)
    assert state.grip is GripState.OPEN and state.beams == 0 and state.lift_maxed
    robot.motion.set_velocity(150)
    assert robot.run_until(lambda: state.beams & 1 == 1, max_cycles=200)  # the inner beam breaks
    robot.motion.set_velocity(0)
    robot.run(cycles=10)
    assert state.beams == 1 and not robot.state.stalled  # the 150 mm box ends short of the outer beam
    assert state.gripper_switches is not None and state.gripper_switches & GripperSwitches.INNER_BEAM

    acc.gripper_close(robot)
    start = robot.clock.now()
    assert robot.run_until(lambda: state.grip is GripState.CLOSED, max_cycles=40)
    assert robot.clock.now() - start < PADDLE_TRAVEL_S  # stopped on the 150 mm box, not fully shut
    assert box.holder is sim.sim_robot.gripper and state.beams == 1

    acc.gripper_up(robot)
    robot.run(cycles=2)
    assert state.gripper_switches & GripperSwitches.LIFT_MOVING and not state.lift_maxed
    assert robot.run_until(lambda: state.lift_maxed, max_cycles=50)
    assert box.lifted and sim.sim_robot.gripper.lift == 1.0

    before = (box.x, box.y)
    robot.motion.set_position(-500)
    robot.run(cycles=60)
    assert box.x == pytest.approx(before[0] - 500, abs=15) and box.y == pytest.approx(before[1], abs=1)
    assert box.x - sim.true_pose.x == pytest.approx(250 + 75, abs=5)  # still in the throat

    acc.gripper_open(robot)
    assert robot.run_until(lambda: state.grip is GripState.OPEN, max_cycles=40)
    assert box.holder is None and not box.lifted
    robot.motion.set_position(-500)
    robot.run(cycles=60)
    assert state.beams == 0 and box.x == pytest.approx(before[0] - 500, abs=15)  # left behind


def test_paddles_and_lift_take_their_travel_time() -> None:
    robot, sim = connect()
    state = robot.reflector.accessories.state
    robot.run(cycles=2)
    acc.gripper_close(robot)
    robot.run(cycles=2)
    start = robot.clock.now()
    assert robot.run_until(lambda: state.grip is GripState.CLOSED, max_cycles=60)
    assert robot.clock.now() - start == pytest.approx(PADDLE_TRAVEL_S, abs=0.35)
    assert box_free(sim)
    acc.gripper_command(robot, 7)  # STORE: close (already) and lift up
    robot.run(cycles=2)
    start = robot.clock.now()
    assert robot.run_until(lambda: state.lift_maxed, max_cycles=60)
    assert robot.clock.now() - start == pytest.approx(LIFT_TRAVEL_S, abs=0.35)
    assert sim.sim_robot.gripper.lift == 1.0


def box_free(sim: EmbeddedSim) -> bool:
    return all(o.holder is None for o in sim.simulation.objects)


def test_arcos_sip_carries_the_switches_where_aria_reads_them() -> None:
    robot, sim = connect()
    sips: list[Sip] = []
    robot.link.on_packet_in.connect(lambda p: sips.append(decode_sip(p)) if p[0] in (0x32, 0x33) else None)
    acc.gripper_close(robot)
    robot.run(cycles=30)
    switches = sim.sim_robot.gripper.switches
    assert switches & GripperSwitches.NOT_OPEN and not switches & GripperSwitches.LEFT_FREE
    # low byte: the gripper state of ARIA's SIP log; high byte: what ArGripper's general-I/O type reads
    assert sips[-1].gripper_state == sips[-1].analog_port == switches


def test_gripper_packets_on_request_psos_robot_reports_on_digital_inputs() -> None:
    robot, sim = connect("pion1m")
    state = robot.reflector.accessories.state
    robot.run(cycles=3)
    assert state.gripper_switches == 0x30 and state.gripper_packets == 0  # from the SIP's digin
    acc.request_gripper_packets(robot, 1)
    robot.run(cycles=5)
    assert state.gripper_packets == 1 and state.gripper_io == GripperIo.USER_IO
    acc.request_gripper_packets(robot, 2)
    robot.run(cycles=10)
    assert state.gripper_packets >= 10
    acc.request_gripper_packets(robot, 0)
    robot.run(cycles=2)
    count = state.gripper_packets
    robot.run(cycles=5)
    assert state.gripper_packets == count
    robot.link.send_command(Command.GRIPPERPACREQUEST, 90)  # an old SRISim laser end angle, not a request
    robot.run(cycles=5)
    assert state.gripper_packets == count and sim.stats.handler_errors == 0


def test_ptu_position_round_trips_through_the_psos_sip() -> None:
    robot, sim = connect("pion1m")
    ev = Evaluator(robot, output=lambda line: None, read_init=False)
    assert ev.eval_text("sfRobotCom2Bytes(sfCOMPTUPOS, 2, 150);")
    robot.run(cycles=3)
    assert sim.server.accessories.ptu[2] == 150
    assert robot.reflector.accessories.state.ptu == 150
    lines: list[str] = []
    ev.output = lines.append
    assert ev.eval_text("sfRobot.ptu")
    assert lines == ["150 (int)"]
    acc.set_ptu(robot, 0, 60)
    robot.run(cycles=3)
    assert robot.reflector.accessories.state.ptu == 60 and sim.server.accessories.ptu == [60, 0, 150, 0, 0]
    # a pulse width given in microseconds (1500) is refused, not wrapped to 1500 & 255 = 220
    assert not ev.eval_text("sfRobotCom2Bytes(sfCOMPTUPOS, 2, 1500);")
    assert "the low byte 1500 is outside 0..255" in lines[-2]
    robot.run(cycles=3)
    assert sim.server.accessories.ptu[2] == 150


def test_arcos_robot_keeps_the_commanded_ptu_in_the_reflector() -> None:
    robot, sim = connect()
    robot.run(cycles=2)
    robot.link.send_command(Command.PTUPOS, byte_pair(1, 120))
    robot.run(cycles=3)
    assert sim.server.accessories.ptu[1] == 120
    assert robot.reflector.accessories.state.ptu == 120 and robot.reflector.accessories.state.ptu_servos[1] == 120


def test_colbert_gripper_bindings() -> None:
    robot, sim = connect()
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    robot.run(cycles=2)
    assert ev.eval_text("sfGripperState()") and lines[-1] == "1 (int)"
    assert ev.eval_text("sfGripperClose();")
    robot.run(cycles=30)
    assert ev.eval_text("sfGripperState()") and lines[-1] == "2 (int)"
    assert ev.eval_text("sfGripperUp();")
    robot.run(cycles=40)
    assert ev.eval_text("sfGripperLiftMaxed()") and lines[-1] == "1 (int)"
    assert sim.sim_robot.gripper.lift == 1.0
    assert ev.eval_text("sfGripperDown(); sfGripperOpen();")
    robot.run(cycles=5)
    assert ev.eval_text("sfGripperStop();")
    robot.run(cycles=3)
    gripper = sim.sim_robot.gripper
    assert 0.0 < gripper.lift < 1.0 and 0.0 < gripper.paddles < 1.0 and not gripper.lift_dir
    assert ev.eval_text("sfGripperBeams()") and lines[-1] == "0 (int)"


def test_numbers_36_and_37_shared_with_the_old_laser_reach_its_handler() -> None:
    """ARIA's simulated laser sends 36 (start), 37 (end), 38, 35; the gripper takes only its own values."""
    simulation = Simulation()
    sim_robot = simulation.add_robot(params_for_file("p3dx"), (0.0, 0.0, 0.0))
    laser: list[tuple[int, int]] = []
    previous = {n: (lambda c, n=n: laser.append((n, c.int_value))) for n in (36, 37)}
    accessories = PioneerServer(simulation, sim_robot).device("accessories", Accessories)
    handlers = accessories.handlers(previous)

    def send(number: int, value: int) -> None:
        handlers[number](decode_command(command_payload(number, value)))

    send(36, -90)
    send(37, 90)
    assert laser == [(36, -90), (37, 90)] and accessories.gripper_requests == 0
    send(37, 2)
    send(Command.GRIPPER, 16)  # grip pressure: the next 36 is its value
    send(36, 25)
    assert accessories.gripper_requests == 2 and sim_robot.gripper.grasp_time == 25 and len(laser) == 2
