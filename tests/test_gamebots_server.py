"""The Gamebots server over real loopback TCP: INIT spawns, GETGEO/GETCONF answer, DRIVE drives, robots collide."""

from __future__ import annotations

import logging
import math
import select
import signal
import socket
from collections.abc import Iterator

import pytest

from saphira.gamebots.codec import Configuration, Geometry, LineReader, Message, SonarScan, Sta, parse
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import GamebotsServer
from saphira.sim.simulation import Simulation
from saphira.world.wld import parse_wld
from tests.realtime import WAIT
from tests.sim_process import Program

OPEN_ROOM = """width 10000
height 8000
0 0 10000 0
10000 0 10000 8000
10000 8000 0 8000
0 8000 0 0
"""


class Client:
    """A scripted Gamebots client: one socket, lines in and out."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each line goes out as it is sent
        self.reader = LineReader()
        self.inbox: list[Message] = []

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def read(self) -> list[Message]:
        """Everything that has arrived (loopback delivers a write before it returns)."""
        while select.select([self.sock], [], [], 0)[0]:
            data = self.sock.recv(65536)
            if not data:
                break
            self.inbox += [parse(line) for line in self.reader.feed(data)]
        out, self.inbox = self.inbox, []
        return out

    def wait_for(self, kind: str, sensor: str | None = None) -> Message:
        """The first message of ``kind`` (and Type ``sensor``), waiting on the socket for it."""
        while True:
            for k, message in enumerate(self.inbox):
                if message.kind == kind and (sensor is None or message.get("Type") == sensor):
                    del self.inbox[: k + 1]
                    return message
            assert select.select([self.sock], [], [], WAIT)[0], f"no {kind} {sensor or ''} arrived"
            data = self.sock.recv(65536)
            assert data, f"the server closed the socket before {kind}"
            self.inbox += [parse(line) for line in self.reader.feed(data)]

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server() -> Iterator[GamebotsServer]:
    simulation = Simulation(parse_wld(OPEN_ROOM, "<room>"), 0, odometry_error=False)
    gamebots = GamebotsServer(simulation, port=0)
    yield gamebots
    gamebots.close()


def last_sta(messages: list[Message]) -> Sta:
    stas = [Sta.read(m) for m in messages if m.kind == "STA"]
    assert stas, messages
    return stas[-1]


def test_a_p2at_spawns_reports_its_geometry_and_drives_the_expected_distance(server: GamebotsServer) -> None:
    client = Client(server.port)
    client.send("INIT {ClassName USARBot.P2AT} {Name Scout} {Location 2.0,-4.0,0.0}")
    server.cycle()
    start = Sta.read(client.wait_for("STA"))
    assert start.location == (2.0, -4.0, 0.0) and start.attitude == (0.0, 0.0, 0.0)

    client.send("GETGEO {Type Robot}")
    client.send("GETCONF {Type Robot}")
    client.send("GETGEO {Type Sonar}")
    client.send("GETCONF {Type Sonar}")
    server.receive()
    geo = client.wait_for("GEO", "GroundVehicle")
    assert geo.get("Name") == "Scout"
    radius, separation = geo.number("WheelRadius"), geo.number("WheelSeparation")
    assert radius == 0.11 and separation == pytest.approx(2.0 / 0.0034 / 1000.0, abs=1e-4)
    conf = Configuration.read(client.wait_for("CONF", "GroundVehicle"))
    assert dict(conf.values)["SteeringType"] == "SkidSteered"
    assert conf.number("MaxSpeed", 0.0) == pytest.approx(1200.0 / 110.0, abs=1e-4)  # p2at MaxVelocity / wheel
    sonars = Geometry.read(client.wait_for("GEO", "Sonar"))
    assert [s.name for s in sonars.sensors] == [*(f"F{k}" for k in range(1, 9)), *(f"R{k}" for k in range(1, 9))]
    assert sonars.sensors[0].location == (0.147, -0.136, 0.0)  # p2at sonar 0: x 147, y 136 mm (left)
    assert sonars.sensors[0].orientation[2] == pytest.approx(-math.pi / 2, abs=1e-4)  # pointing left
    assert client.wait_for("CONF", "Sonar").get("MaxRange") == "5.0000"

    spin = 0.3 / radius  # 300 mm/s
    client.send(f"DRIVE {{Left {spin:.6f}}} {{Right {spin:.6f}}}")
    for _ in range(30):
        server.cycle()
    messages = client.read()
    sta = last_sta(messages)
    accel = server.simulation.robots[0].model.trans_accel
    expected = (300.0 * 3.0 - 300.0**2 / (2.0 * accel)) / 1000.0  # ramp up at the model's acceleration
    assert sta.location[0] - start.location[0] == pytest.approx(expected, abs=0.0015)
    assert sta.location[1] == pytest.approx(-4.0, abs=1e-4)
    assert sta.velocity[0] == pytest.approx(0.3, abs=1e-3)
    assert sta.time == pytest.approx(3.1)
    truth = [m for m in messages if m.get("Type") == "GroundTruth"][-1]  # USARSim 3.x's pose sensors (us_bot)
    assert truth.vector("Location") == sta.location and truth.vector("Orientation") == (0.0, 0.0, 0.0)
    pose = [m for m in messages if m.get("Type") == "Odometry"][-1].vector("Pose")
    assert pose is not None and pose[0] == pytest.approx(expected, abs=0.0015)  # odometry counts from the spawn

    client.send(f"DRIVE {{Left {-spin:.6f}}} {{Right {spin:.6f}}}")  # turn left on the spot
    for _ in range(20):
        server.cycle()
    turned = last_sta(client.read())
    assert turned.attitude[1] < -0.5  # Unreal's yaw: counter-clockwise is negative
    client.close()


def test_two_robots_on_two_sockets_block_each_other(server: GamebotsServer) -> None:
    a, b = Client(server.port), Client(server.port)
    a.send("INIT {ClassName USARBot.P2DX} {Location 2.0,-4.0,0.0}")
    b.send("INIT {ClassName USARBot.P2DX} {Location 4.0,-4.0,0.0}")
    server.cycle()
    assert len(server.simulation.robots) == 2
    a.send("DRIVE {Left 50} {Right 50} {Normalized true}")
    sonar: list[float] = []
    for _ in range(100):
        server.cycle()
        for message in a.read():
            if message.kind == "STA":
                sta = Sta.read(message)
            elif message.kind == "SEN" and message.get("Type") == "Sonar":
                sonar += [r for name, r in SonarScan.read(message).ranges if name in ("F4", "F5")]
    assert sta.stalled
    gap = 4.0 - sta.location[0]
    assert 0.5 - 1e-3 <= gap < 0.52  # stopped with the two 250 mm bodies touching, not through
    assert last_sta(b.read()).location == (4.0, -4.0, 0.0)  # the other robot stayed put
    assert server.contacts == 1
    assert min(sonar) < 0.4  # and its sonar heard the other robot ahead
    a.close()
    server.cycle()
    assert len(server.simulation.robots) == 1  # a client that goes takes its robot along
    b.close()


def test_bad_commands_are_logged_and_the_session_goes_on(
    server: GamebotsServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = Client(server.port)
    with caplog.at_level(logging.WARNING, logger="saphira.gamebots"):
        client.send("DRIVE {Left 1} {Right 1}")
        client.send("INIT {ClassName USARBot.Hummer} {Location 1,1,0}")
        client.send("INIT {ClassName USARBot.P2DX} {Location 1,-1}")
        client.send("FLY {Up 1}")
        client.send("INIT {ClassName USARBot.P2DX} {Location {1.0,-1.0,0.0}")
        server.cycle()
    messages = [r.getMessage() for r in caplog.records]
    assert any("DRIVE before INIT" in m for m in messages)
    assert any("unknown robot class 'USARBot.Hummer'" in m for m in messages)
    assert any("Location must be a vector x,y,z, not '1,-1'" in m for m in messages)
    assert any("unknown command FLY" in m for m in messages)
    assert any("unclosed '{' at column 31" in m for m in messages)
    client.send("INIT {ClassName USARBot.P2DX} {Location 1.0,-1.0,0.0}")
    client.send("CAMERA {Rotation 1820,0,0} {Order 0}")
    client.send("DRIVE {Name LeftFWheel} {Order 1} {Value 2000}")
    server.cycle()
    assert Sta.read(client.wait_for("STA")).location == (1.0, -1.0, 0.0)
    client.close()


def test_an_init_whose_last_brace_is_left_open_spawns_the_robot_as_usarsim_did(server: GamebotsServer) -> None:
    """Pyro's USARSim robot sends its INIT with the final segment's brace open; USARSim took it."""
    client = Client(server.port)
    client.send("INIT {ClassName USARBot.P2DX} {Name utbot} {Location 1.0,-1.0,0.0")
    server.cycle()
    assert Sta.read(client.wait_for("STA")).location == (1.0, -1.0, 0.0)
    client.close()


def test_a_configured_laser_scans_the_walls(server: GamebotsServer) -> None:
    server.laser = RangeScanner()
    client = Client(server.port)
    client.send("INIT {ClassName USARBot.P2DX} {Location 2.0,-4.0,0.0}")
    server.cycle()
    client.send("GETGEO {Type RangeScanner}")
    server.receive()
    laser = client.wait_for("SEN", "RangeScanner")
    ranges = [float(r) for r in (laser.get("Range") or "").split(",")]
    assert len(ranges) == 181
    assert ranges[90] == pytest.approx(10.0 - 2.0 - 0.16, abs=1e-3)  # straight ahead to the east wall
    assert ranges[0] == pytest.approx(4.0, abs=1e-3)  # first beam: to the right, the south wall (y = 0)
    geo = Geometry.read(client.wait_for("GEO", "RangeScanner"))
    assert geo.sensors[0].name == "Scanner1"
    client.close()


def test_saphira_sim_gamebots_serves_a_second_process_until_sigterm() -> None:
    sim = Program("--gamebots", "0", "--world", "room")
    try:
        host, port = sim.addresses[0].rsplit(":", 1)
        assert host == "127.0.0.1"
        client = Client(int(port))
        client.send("INIT {ClassName USARBot.P2DX} {Location 1.0,-1.0,0.0}")
        client.send("GETCONF {Type Robot}")
        assert client.wait_for("CONF").get("SteeringType") == "SkidSteered"
        assert Sta.read(client.wait_for("STA")).location == (1.0, -1.0, 0.0)
        client.close()
    finally:
        status, output = sim.stop()
    assert status == 128 + signal.SIGTERM and b"simulator stopped" in output


def test_init_refuses_a_place_in_a_wall_or_on_another_robot(
    server: GamebotsServer, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = Client(server.port), Client(server.port)
    with caplog.at_level(logging.WARNING, logger="saphira.gamebots"):
        a.send("INIT {ClassName USARBot.P2DX} {Location 0.1,-4.0,0}")
        b.send("INIT {ClassName USARBot.P2DX} {Location 2.0,-4.0,0}")
        server.cycle()
        a.send("INIT {ClassName USARBot.P2DX} {Name Twin} {Location 2.3,-4.0,0}")
        server.cycle()
    messages = [r.getMessage() for r in caplog.records]
    assert any("INIT: a robot at (100, 4000) mm would stand in a wall" in m for m in messages)
    assert any("INIT: a robot at (2300, 4000) mm would stand on P2DX-1" in m for m in messages)
    assert len(server.simulation.robots) == 1
    a.close()
    b.close()


def test_a_session_that_faults_is_closed_and_the_server_goes_on(
    server: GamebotsServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = Client(server.port), Client(server.port)
    a.send("INIT {ClassName USARBot.P2DX} {Location 2.0,-2.0,0}")
    b.send("INIT {ClassName USARBot.P2DX} {Location 2.0,-6.0,0}")
    server.cycle()
    broken = server.sessions[0]

    def explode(time: float) -> list[Message]:
        raise RuntimeError("bug")

    monkeypatch.setattr(broken, "step_messages", explode)
    with caplog.at_level(logging.ERROR, logger="saphira.gamebots"):
        server.cycle()
    assert any("internal error; closing this session" in r.getMessage() for r in caplog.records)
    assert len(server.simulation.robots) == 1 and len(server.sessions) == 1
    server.cycle()
    assert Sta.read(b.wait_for("STA")).location == (2.0, -6.0, 0.0)
    a.close()
    b.close()
