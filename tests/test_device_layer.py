"""One laser scan type, and device packets decoded by the links, not the reflector (issue 25).

* One class named ``LaserScan`` in the package: the Pioneer protocol's packets, Flat's and Gamebots'
  wire messages and the Pioneer simulator's laser all come as it.
* The laser, gripper and vision packets of the real byte stream are dispatched by the link's device layer
  (``robot.link.devices``) to the devices' ``apply``, the only place a sensor module decodes; the
  reflector decodes nothing.
* The Flat and Gamebots links write no attribute of the reflector's state: every write during a run
  comes from the reflector's own methods.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import LaserScan
from saphira.client.transport import memory_pair
from saphira.core.clock import LockStepClock
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import GamebotsServer
from saphira.params.robot_params import params_for_file
from saphira.protocol.gripper import GripperIo, GripperPacket, encode_gripper_packet
from saphira.protocol.laser import laser_packets
from saphira.protocol.sip import Sip, encode_sip
from saphira.protocol.vision import VisionInfo, VisionPacket, encode_vision_packet
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.sim.simulation import Simulation
from saphira.world.world import World, load_world
from tests.flat_controller import robot_on_flat
from tests.scripted_server import ScriptedServer

PACKAGE = Path(__file__).resolve().parents[1] / "saphira"
LASER_P3DX = Path(__file__).resolve().parent / "data" / "laser-params" / "p3dx-laser.p"


def _classes_named(name: str) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [str(path.relative_to(PACKAGE)) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                  and node.name == name]  # fmt: skip
    return found


def test_the_package_has_one_laser_scan_class() -> None:
    # the wire types keep their protocol's names: ROS 2's sensor_msgs/LaserScan is its IDL struct
    assert _classes_named("LaserScan") == ["client/sensors/laser.py", "ros2/messages.py"]
    assert _classes_named("LaserReading") == ["flat/codec.py"]
    assert _classes_named("RangeScannerMessage") == ["gamebots/codec.py"]


def test_the_package_has_one_laser_config_class() -> None:
    """A robot's laser settings are one type; the Gamebots server's simulated sensor is its RangeScanner."""
    assert _classes_named("LaserConfig") == ["params/laser.py"]
    assert _classes_named("RangeScanner") == ["gamebots/server/laser.py"]


def _decoder_calls(tree: ast.AST) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name.startswith("decode"):
                calls.append(node)
    return calls


def test_packets_are_decoded_only_by_the_devices_apply() -> None:
    """The reflector holds state only; a sensor module calls a ``decode_*`` only in its device's ``apply``
    (the device seam, :mod:`saphira.client.sensors.device`), which the link's device layer calls."""
    reflector = ast.parse((PACKAGE / "client" / "reflector.py").read_text(encoding="utf-8"))
    assert _decoder_calls(reflector) == []
    stray = []
    for path in sorted((PACKAGE / "client" / "sensors").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside_apply = {
            id(call)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name == "apply"
            for call in _decoder_calls(node)
        }
        stray += [f"{path.name}:{call.lineno}" for call in _decoder_calls(tree) if id(call) not in inside_apply]
    assert stray == []


def test_the_simulators_laser_takes_the_clients_scan_type() -> None:
    """The simulator's scan and the scan the client reassembles from its packets are one type, alike in
    angles, range and mount; the simulator's carries its true pose as the global pose."""
    walls = np.array([[2018.0, -5000.0, 2018.0, 5000.0]], dtype=np.float64)
    world = World(name="wall", source="<test>", segments=walls, bounds=(-6000.0, -6000.0, 6000.0, 6000.0))
    params = params_for_file(LASER_P3DX)
    robot = Robot(params=params)
    sim = attach_simulator(robot, world, params, pose=(0.0, 0.0, 0.0), odometry_error=False)
    robot.run(cycles=3)
    laser = sim.sim_robot.laser
    assert laser is not None
    theirs, ours = laser.scan, robot.reflector.laser.scan
    assert isinstance(theirs, LaserScan) and isinstance(ours, LaserScan)
    assert np.array_equal(theirs.angles, ours.angles) and theirs.count == ours.count == 181
    assert (theirs.max_range, theirs.mount_x, theirs.mount_y) == (ours.max_range, ours.mount_x, ours.mount_y)
    assert theirs.global_pose == sim.true_pose and theirs.robot_pose == (0.0, 0.0, 0.0)
    for scan in (theirs, ours):  # the wall 2000 mm ahead of the laser, within four sigma of its noise
        assert abs(float(scan.ranges[scan.angles == 0.0][0]) - 2000.0) < 4 * 10.0


def test_the_links_device_layer_decodes_laser_gripper_and_vision_packets() -> None:
    """A server's byte stream: a SIP, a scan in its six 0x60 packets, a gripper and a vision packet.
    The link's device layer decodes them into the reflector's state."""
    robot = Robot(LockStepClock(), params=params_for_file(LASER_P3DX))
    client, server_end = memory_pair("scripted")
    server = ScriptedServer(server_end)
    robot.clock.add_listener(server.tick)  # type: ignore[attr-defined]
    robot.link.connect(client)
    robot.wait_connected(5.0)
    server.send_sips = False
    blob = VisionInfo(x=40, y=30, area=120, h=10, w=12)
    stream = (
        encode_sip(Sip(x=0, y=0, th=0, battery=130))
        + b"".join(laser_packets(np.arange(181) + 1000.0, extended=False, pose=(0, 0, 0)))
        + encode_gripper_packet(GripperPacket(GripperIo.USER_IO, 0x05, 7))
        + encode_vision_packet(VisionPacket((blob, VisionInfo(), VisionInfo())))
    )
    server.transport.write(stream)
    robot.step()
    robot.step()
    counters = robot.reflector.laser.assembler.counters
    assert (counters.packets, counters.scans, counters.broken) == (6, 1, 0)
    scan = robot.reflector.laser.scan
    assert scan is not None and scan.sequence == 1 and np.array_equal(scan.ranges, np.arange(181) + 1000.0)
    accessories = robot.reflector.accessories.state
    assert (accessories.gripper_io, accessories.gripper_switches, accessories.grasp_time) == (1, 0x05, 7)
    assert accessories.gripper_packets == 1 and accessories.vision_packets == 1
    assert accessories.vision[0] == blob
    assert robot.link.counters.undecodable == 0 and robot.link.counters.other_packets == 0


# ------------------------------------------------------------------------------------------ writes
OWNERS = frozenset({"saphira.client.reflector", "saphira.client.motion"})
"""The modules allowed to write the reflector's state and the motion's pose feedback."""


@contextmanager
def watched(reflector: Reflector) -> Iterator[set[str]]:
    """The modules (and attributes) that write ``reflector.state`` or ``reflector.motion.pose`` meanwhile."""
    writers: set[str] = set()

    def watching(cls: type) -> type:
        def setattr_(self: object, name: str, value: object) -> None:
            module = sys._getframe(1).f_globals.get("__name__", "?")
            if module not in OWNERS:
                writers.add(f"{module}: {cls.__name__}.{name}")
            object.__setattr__(self, name, value)

        return type(f"Watched{cls.__name__}", (cls,), {"__setattr__": setattr_})

    watched_objects = (reflector.state, reflector.motion.pose)
    originals = [type(obj) for obj in watched_objects]
    for obj, cls in zip(watched_objects, originals, strict=True):
        obj.__class__ = watching(cls)
    try:
        yield writers
    finally:
        for obj, cls in zip(watched_objects, originals, strict=True):
            object.__setattr__(obj, "__class__", cls)


def test_the_flat_link_writes_the_reflector_only_through_its_methods(maps_dir: Path) -> None:
    flat = FlatSimulation(load_world(maps_dir / "room.wld"), options=FlatOptions(lasers=1), pose=(5000, 1000, 0))
    with robot_on_flat(flat) as robot, watched(robot.reflector) as writers:
        robot.motion.set_velocity(200.0)
        robot.motion.set_rvelocity(10.0)
        robot.run(cycles=8)
        assert robot.state.sips >= 8 and robot.reflector.laser.scans == robot.state.sips
        assert robot.state.vel > 0.0 and robot.state.sonar_enabled
    assert writers == set()


def test_the_gamebots_link_writes_the_reflector_only_through_its_methods() -> None:
    server = GamebotsServer(Simulation(load_world("room"), 0), port=0, laser=RangeScanner())
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    try:
        with watched(robot.reflector) as writers:
            robot.connect(f"usarsim://127.0.0.1:{server.port}?class=P2DX&location=1.5,-1.5,0")
            robot.motion.set_velocity(200.0)
            robot.run(cycles=8)
            assert robot.connected and robot.state.sips >= 5 and robot.reflector.laser.scans >= 5
            assert robot.state.vel > 0.0 and robot.state.battery > 0.0
        assert writers == set()
    finally:
        robot.disconnect()
        server.close()
