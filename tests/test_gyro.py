"""The analog gyro (ARIA's ArAnalogGyro, ARCOS packet 0x98), added through the device seam alone (issue 36).

The simulator sends the packets once GYRO 1 asked for them, the link's device layer hands them to the
gyro device, and Python and Colbert read its heading; a malformed packet is counted and dropped. The
gyro's modules are named by no other module: the seam (two entry points) is all that wires it in.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from saphira.client.sensors.gyro import AnalogGyro, gyro_of, start_gyro, stop_gyro
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import norm2_angle
from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.gyro import GyroPacket, GyroReading, decode_gyro_packet, encode_gyro_packet
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.sim.gyro import SimGyro

PROJECT = Path(__file__).resolve().parents[1]


def connect() -> tuple[Robot, EmbeddedSim]:
    robot = Robot()  # lock-step clock
    return robot, attach_simulator(robot, "room", "p3dx", odometry_error=False)


def test_the_packet_has_arias_layout_and_bad_ones_are_refused() -> None:
    packet = GyroPacket((GyroReading(530, 25), GyroReading(-3, 255)))
    frame = encode_gyro_packet(packet)
    # count byte 2, then per reading int16 little-endian and a temperature byte (ArAnalogGyro::handleGyroPacket)
    assert frame[3:-2] == bytes([0x98, 2, 0x12, 0x02, 25, 0xFD, 0xFF, 255])
    assert decode_gyro_packet(frame[3:-2]) == packet
    with pytest.raises(DecodeError, match="byte 7"):
        decode_gyro_packet(frame[3:-3])  # the second reading cut short
    with pytest.raises(EncodeError, match="reading 0"):
        encode_gyro_packet(GyroPacket((GyroReading(40000, 0),)))


def test_the_simulated_gyro_turns_with_the_robot_and_python_reads_its_heading() -> None:
    robot, sim = connect()
    gyro = gyro_of(robot)
    robot.run(cycles=5)
    assert gyro.readings == 0 and sim.server.device("gyro", SimGyro).packets_sent == 0  # silent until asked
    assert start_gyro(robot)
    robot.run(cycles=15)  # standing still: the zero level is learnt, the heading holds
    assert gyro.readings >= 50 and gyro.temperature == 25 and gyro.heading == 0.0
    start_th = sim.true_pose.th
    robot.motion.set_heading(90.0)
    assert robot.run_until(lambda: abs(norm2_angle(sim.true_pose.th - start_th - 90.0)) < 0.5, max_cycles=200)
    robot.run(cycles=10)
    turned = norm2_angle(sim.true_pose.th - start_th)
    assert abs(gyro.heading - turned) < 2.0, (gyro.heading, turned)  # four 25 ms readings a cycle, 0.59 deg/s steps
    assert robot.link.counters.undecodable == 0 and robot.link.counters.other_packets == 0
    assert stop_gyro(robot)
    robot.run(cycles=3)
    readings = gyro.readings
    robot.run(cycles=5)
    assert gyro.readings == readings


def test_colbert_reads_the_gyro() -> None:
    robot, sim = connect()
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert not ev.eval_text("sfGyroTemperature();")
    assert any("no gyro reading has arrived" in line for line in lines), lines
    assert ev.eval_text("sfGyroStart();")
    robot.run(cycles=15)
    assert ev.eval_text("sfGyroReadings() > 40;") and lines[-1] == "1 (int)"
    assert ev.eval_text("sfSetHeading(-45);")
    assert robot.run_until(lambda: abs(norm2_angle(sim.true_pose.th + 45.0)) < 0.5, max_cycles=200)
    robot.run(cycles=10)
    assert ev.eval_text("sfGyroHeading();")
    value = float(lines[-1].split()[0])
    assert abs(value - norm2_angle(sim.true_pose.th)) < 2.0, lines[-1]


def test_a_malformed_gyro_packet_is_counted_and_the_link_runs_on() -> None:
    robot, sim = connect()
    gyro = robot.reflector.device("gyro", AnalogGyro)
    start_gyro(robot)
    robot.run(cycles=3)
    transport = sim.server.transport
    assert transport is not None
    transport.write(encode_packet(bytes([0x98, 3, 0x00])))  # says 3 readings, holds none
    robot.run(cycles=3)
    assert robot.link.counters.undecodable >= 1 and robot.connected
    readings = gyro.readings
    robot.run(cycles=2)
    assert gyro.readings > readings


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_gyro_is_wired_in_by_its_entry_points_alone() -> None:
    """No module besides the gyro's own three imports them: the device seam is all that registers it."""
    gyro_modules = {"saphira.protocol.gyro", "saphira.client.sensors.gyro", "saphira.sim.gyro"}
    package = PROJECT / "saphira"
    importers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "gyro" in path.read_text(encoding="utf-8") and _imports(path) & gyro_modules  # parse only candidates
    )
    assert importers == ["client/sensors/gyro.py", "sim/gyro.py"]  # the two halves import the codec
    pyproject = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'gyro = "saphira.client.sensors.gyro:AnalogGyro"' in pyproject
    assert 'gyro = "saphira.sim.gyro:SimGyro"' in pyproject
