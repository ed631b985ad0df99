"""Every protocol's link stops the robot on the wire when the client disconnects and when the robot is lost.

One :meth:`~saphira.client.link.base.Link.stop_robot` per protocol, used by both paths: the Pioneer link sends
VEL 0 and RVEL 0 (a disconnect also ENABLE 0) before CLOSE, Flat's a control line of zero velocities, Gamebots'
DRIVE 0 0. Each robot drives at 300 mm/s on a real server of its protocol (the embedded Pioneer simulator,
Flat's and Gamebots' servers on loopback sockets), its line tapped; what reaches the server's side is decoded
with the protocol's own codec. The loss is a ``mute`` line (the server still hears the client, the client
hears nothing), found after the link timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from saphira.client.transport import Transport
from saphira.core.clock import LockStepClock
from saphira.flat.codec import Control, parse_input
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.gamebots.codec import parse
from saphira.protocol.command_packet import decode_command
from saphira.protocol.framing import MAX_COUNT_SERVER
from saphira.protocol.receiver import PacketReceiver
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.world import load_world
from tests.fault_link import FaultyTransport
from tests.gamebots_support import connect_usarsim
from tests.realtime import WAIT

Stop = tuple[str, float, float]
"""A decoded command as (what, first value, second value): ``("VEL", 0, 0)``, ``("c", 0, 0)``, ``("DRIVE", 0, 0)``."""


def pioneer_commands(written: bytes) -> list[Stop]:
    receiver = PacketReceiver(MAX_COUNT_SERVER)
    return [(packet.name, float(packet.int_arg or 0), 0.0) for packet in map(decode_command, receiver.feed(written))]


def flat_controls(written: bytes) -> list[Stop]:
    controls = [parse_input(line) for line in written.decode("latin-1").splitlines() if line]
    return [(c.command, c.linear, c.angular) for c in controls if isinstance(c, Control)]


def gamebots_messages(written: bytes) -> list[Stop]:
    messages = [parse(line) for line in written.decode("latin-1").splitlines() if line.strip()]
    return [(m.kind, m.number("Left", -1.0), m.number("Right", -1.0)) for m in messages]


@dataclass
class Tapped:
    """A robot driving on ``protocol``'s server, its line tapped, and how to read what the server got."""

    robot: Robot
    tap: FaultyTransport
    decode: Callable[[bytes], list[Stop]]

    def drive(self) -> None:
        self.robot.motion.set_velocity(300.0)
        self.robot.run(cycles=5)
        assert self.robot.connected and self.robot.state.vel > 0.0

    def since(self, mark: int) -> list[Stop]:
        return self.decode(b"".join(self.tap.written[mark:]))


def tap(robot: Robot) -> FaultyTransport:
    transport = robot.link.transport
    assert isinstance(transport, Transport)
    robot.link.transport = tapped = FaultyTransport(transport)
    return tapped


@pytest.fixture(params=["pioneer", "flat", "gamebots"])
def tapped(request: pytest.FixtureRequest, maps_dir: Path) -> Iterator[Tapped]:
    world = maps_dir / "room.wld"
    if request.param == "pioneer":
        robot = Robot(LockStepClock())
        attach_simulator(robot, "simple")
        yield Tapped(robot, tap(robot), pioneer_commands)
        robot.disconnect()
    elif request.param == "flat":
        server = FlatServer(FlatSimulation(load_world(world), pose=(3000.0, 3000.0, 0.0)))
        thread = server.serve_in_thread()
        robot = Robot()
        try:
            robot.connect("flat://{}:{}".format(*server.address))
            yield Tapped(robot, tap(robot), flat_controls)
        finally:
            robot.disconnect()
            server.close()
            thread.join(timeout=WAIT)
    else:
        pair = connect_usarsim(world, (1000.0, 1000.0, 0.0))
        try:
            yield Tapped(pair.robot, tap(pair.robot), gamebots_messages)
        finally:
            pair.close()


STOPS = {
    pioneer_commands: [("VEL", 0.0, 0.0), ("RVEL", 0.0, 0.0), ("ENABLE", 0.0, 0.0), ("CLOSE", 1.0, 0.0)],
    flat_controls: [("c", 0.0, 0.0)],
    gamebots_messages: [("DRIVE", 0.0, 0.0)],
}
"""What each protocol's server gets when the client disconnects."""


def test_a_disconnect_stops_the_robot_on_the_wire(tapped: Tapped) -> None:
    tapped.drive()
    mark = len(tapped.tap.written)
    tapped.robot.disconnect()
    assert not tapped.robot.connected
    assert tapped.since(mark) == STOPS[tapped.decode]


def test_a_lost_robot_that_still_hears_is_stopped_on_the_wire(tapped: Tapped) -> None:
    robot = tapped.robot
    tapped.drive()
    lost: list[str] = []
    robot.on_lost.connect(lost.append)
    robot.link.options.loss_timeout = 0.3  # s of clock time (Pioneer) or of wall time waited for a step (the others)
    tapped.tap.fault = "mute"
    mark = len(tapped.tap.written)
    robot.run_until(lambda: not robot.connected, max_cycles=20)
    assert len(lost) == 1 and lost[0].startswith("no ")
    sent = tapped.since(mark)
    if tapped.decode is pioneer_commands:  # the motors stay enabled; CLOSE after the stop
        assert sent[-3:] == [("VEL", 0.0, 0.0), ("RVEL", 0.0, 0.0), ("CLOSE", 1.0, 0.0)]
    else:
        assert sent[-1:] == STOPS[tapped.decode]
