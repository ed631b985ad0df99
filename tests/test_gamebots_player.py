"""Player's USARSim driver's exact lines against ``saphira sim --gamebots`` over real loopback TCP.

The client below talks as Player's ``us_bot``/``us_parser`` do: it waits for the NFO greeting, writes
INIT with blank-separated vectors, and reads replies by searching the raw line for ``{Name``, ``{Fov``,
``{Pose`` … rather than with our codec, so it sees what a real Player would see.
"""

from __future__ import annotations

import math
import re
import select
import socket
from collections.abc import Iterator

import pytest

from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import GamebotsServer
from saphira.params.robot_params import params_for_file
from saphira.sim.simulation import Simulation
from saphira.world.wld import parse_wld
from tests.realtime import WAIT

ROOM = """width 10000
height 8000
0 0 10000 0
10000 0 10000 8000
10000 8000 0 8000
0 8000 0 0
position 2000 3000 90
"""
SPAWN_BOT = "INIT {ClassName %s} {Name %s} {Location %f %f %f} {Rotation %f %f %f}\r\n"
"""``us_bot.cc``'s SpawnBot format: blanks, not commas, between the vectors' components."""


class PlayerStyleClient:
    """One socket; raw lines in, Player's sprintf'd commands out."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.lines: list[str] = []

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode("ascii"))

    def _fill(self, wait: float) -> bool:
        if not select.select([self.sock], [], [], wait)[0]:
            return False
        data = self.sock.recv(1 << 16)
        assert data, "the server closed the socket"
        self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\r\n")
        self.lines += [line.decode("ascii") for line in complete]
        return True

    def drain(self) -> list[str]:
        while self._fill(0.0):
            pass
        out, self.lines = self.lines, []
        return out

    def wait_for(self, head: str) -> str:
        """The first line of ``head``'s type holding the rest of ``head`` (``"SEN {Type Sonar}"``), waiting for it."""
        kind, _, part = head.partition(" ")
        while True:
            for k, line in enumerate(self.lines):
                if line.split(" ", 1)[0] == kind and part in line:
                    del self.lines[: k + 1]
                    return line
            assert self._fill(WAIT), f"no {head!r} within {WAIT} s"

    def close(self) -> None:
        self.sock.close()


def value_after(line: str, name: str) -> str:
    """Player's ``us_get_value2``: the word after ``{name `` (a closing brace dropped)."""
    at = line.find("{" + name + " ")
    assert at >= 0, f"no {{{name} in {line!r}"
    return line[at + len(name) + 2 :].split()[0].rstrip("}")


def sonar_ranges(line: str) -> list[float]:
    """Player's ``us_get_sonar``: every ``{Name X Range r`` of the message, in order."""
    return [float(r) for r in re.findall(r"\{Name \S+ Range ([-0-9.]+)", line)]


@pytest.fixture
def server() -> Iterator[GamebotsServer]:
    simulation = Simulation(parse_wld(ROOM, "<room>", name="room"), 0, odometry_error=False)
    gamebots = GamebotsServer(simulation, port=0, laser=RangeScanner())
    yield gamebots
    gamebots.close()


def test_a_player_client_gets_a_robot_whole_rings_fov_start_poses_and_a_reset(server: GamebotsServer) -> None:
    client = PlayerStyleClient(server.port)
    server.receive()
    greeting = client.wait_for("NFO")
    assert value_after(greeting, "Gametype") and value_after(greeting, "Level") == "room"
    assert value_after(greeting, "TimeLimit") == "0"

    client.send("GETSTARTPOSES\r\n")
    server.receive()
    poses = client.wait_for("NFO {StartPoses")
    assert value_after(poses, "StartPoses") == "1"
    name, location, rotation = re.findall(r"\{(\S+) (\S+) (\S+)\}", poses)[-1]
    x, y, z = (float(v) for v in location.split(","))
    yaw = float(rotation.split(",")[2])
    assert (name, x, y, z) == ("Start1", 2.0, -3.0, 0.0) and yaw == pytest.approx(-math.pi / 2, abs=1e-4)

    # us_bot.cc's SpawnBot, byte for byte: %f and blanks between the components.
    client.send(SPAWN_BOT % ("USARBot.P3AT", "R1", x, y, z, 0.0, 0.0, yaw))
    client.send("GETGEO {Type Robot}\r\nGETCONF {Type Robot}\r\nGETCONF {Type RangeScanner}\r\n")
    server.cycle()
    assert [r.name for r in server.simulation.robots] == ["R1"]
    body = server.simulation.robots[0]
    assert (body.x, body.y, body.th) == pytest.approx((2000.0, 3000.0, 90.0), abs=0.01)
    assert body.radius == params_for_file("p3at").robot_radius
    assert float(value_after(client.wait_for("GEO {Type GroundVehicle}"), "WheelRadius")) == 0.1075
    assert value_after(client.wait_for("CONF {Type GroundVehicle}"), "SteeringType") == "SkidSteered"
    laser = client.wait_for("CONF {Type RangeScanner}")
    assert float(value_after(laser, "Fov")) == pytest.approx(math.pi, abs=1e-4)  # us_get_laser_config_all
    assert float(value_after(laser, "MaxRange")) == 20.0 and float(value_after(laser, "Resolution")) > 0

    for _ in range(5):
        server.cycle()
    rings = [line for line in client.drain() if line.startswith("SEN {Time") and "{Type Sonar}" in line]
    assert len(rings) == 6  # one per step
    assert all(len(sonar_ranges(ring)) == 16 for ring in rings)  # the whole ring, F1..F8 R1..R8, each time
    names = re.findall(r"\{Name (\S+) Range", rings[-1])
    assert names == [*(f"F{k}" for k in range(1, 9)), *(f"R{k}" for k in range(1, 9))]
    front = sonar_ranges(rings[-1])[3]  # F4, facing +y: the wall at y = 8 m
    assert front == pytest.approx((8000.0 - 3000.0) / 1000.0 - 0.2, abs=0.25)

    spin = 0.3 / 0.1075
    client.send(f"DRIVE {{Left {spin:f}}} {{Right {spin:f}}}\r\n")
    for _ in range(20):
        server.cycle()
    lines = client.drain()
    odometry = [line for line in lines if "{Type Odometry}" in line][-1]
    ox, oy, _ = (float(v) for v in value_after(odometry, "Pose").split(","))
    assert ox > 0.3 and abs(oy) < 0.01  # odometry counts from the spawn, in the robot's frame

    client.send("DRIVE {Left 0} {Right 0}\r\n")
    client.send("SET {Type Odometry} {Name Odometry} {Opcode RESET}\r\n")
    server.cycle()
    lines = client.drain()
    assert not [line for line in lines if line.startswith("ERR")], lines
    odometry = [line for line in lines if "{Type Odometry}" in line][-1]
    ox, oy, oth = (float(v) for v in value_after(odometry, "Pose").split(","))
    assert max(abs(ox), abs(oy), abs(oth)) < 0.05  # reset; the truth has not moved back
    truth = [line for line in lines if "{Type GroundTruth}" in line][-1]
    assert float(value_after(truth, "Location").split(",")[1]) < -3.3
    client.close()


@pytest.mark.parametrize("model", ["P2AT", "P2DX", "P3DX", "P3AT"])
def test_usarsims_pioneer_classes_spawn_with_their_parameters(server: GamebotsServer, model: str) -> None:
    client = PlayerStyleClient(server.port)
    client.send(f"INIT {{ClassName USARBot.{model}}} {{Location 5, -4, 0}}\r\n")
    server.cycle()
    client.wait_for("STA")
    params = params_for_file(model.lower())
    body = server.simulation.robots[0]
    assert body.model.params.robot_radius == params.robot_radius
    assert len(body.model.sonar_poses) == len(params.sonar_units)
    assert (body.x, body.y) == pytest.approx((5000.0, 4000.0))  # Unreal y -4 m is 4 m to the left
    client.close()


def test_a_set_before_init_and_an_unknown_class_are_answered_with_err(server: GamebotsServer) -> None:
    client = PlayerStyleClient(server.port)
    client.send(
        "SET {Type Odometry} {Name Odometry} {Opcode RESET}\r\nINIT {ClassName USARBot.Talon} {Location 1 1 0}\r\n"
    )
    server.receive()
    errors = [line for line in client.drain() if line.startswith("ERR")]
    assert len(errors) == 2 and "SET_before_INIT" in errors[0] and "USARBot.P3AT" in errors[1]
    assert server.simulation.robots == []
    client.close()


def test_init_at_a_named_start_pose_as_usarsim_allows(server: GamebotsServer) -> None:
    client = PlayerStyleClient(server.port)
    client.send("INIT {ClassName USARBot.P3DX} {Name S} {Start Start1}\r\nINIT {ClassName P3DX} {Start Start1}\r\n")
    server.cycle()
    body = server.simulation.robots[0]
    assert body.name == "S" and (body.x, body.y, body.th) == pytest.approx((2000.0, 3000.0, 90.0), abs=0.01)
    errors = [line for line in client.drain() if line.startswith("ERR")]
    assert len(errors) == 1 and "one_robot_per_socket" in errors[0]
    other = PlayerStyleClient(server.port)
    other.send("INIT {ClassName P3DX} {Start Dock}\r\n")
    server.receive()
    assert "no_start_pose_'Dock'_in_this_world_(it_has_Start1)" in other.wait_for("ERR")
    other.close()
    client.close()
