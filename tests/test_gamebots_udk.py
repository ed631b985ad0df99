"""``usarsim://`` against a server speaking USARSim-UDK's forms (issue 26 item 2).

:class:`UdkStyleServer` is a small stand-in for USARSim-UDK written from its UnrealScript: it greets
with NFO, answers only ``GETGEO {Type Robot}``, and each step sends ``STA {Time t} {Battery b}`` (no
Location), one ``SEN {Type Sonar} {Name F4} {Range r}`` per sonar, Odometry's ``{Pose x,y,yaw}`` and,
unless told not to, GroundTruth. Its robot is a plain skid-steer integrator in Unreal's frame; a wall
stands across its x axis. It runs in lock-step: once at the end of every client cycle.
"""

from __future__ import annotations

import math
import re
import select
import socket
from collections.abc import Iterator

import pytest

from saphira.gamebots.client.link import GamebotsLink
from saphira.robot import Robot

PERIOD = 0.1
WHEEL_RADIUS = 0.1
SEPARATION = 0.5
WALL_X = 6.0
"""m: the wall across the robot's path, in Unreal's x."""
SONAR_AHEAD = ("F4", "F5")


class UdkStyleServer:
    """One client socket; the robot's true pose (m, Unreal's frame, yaw clockwise) and its spin speeds."""

    def __init__(self, *, ground_truth: bool = True, braces: bool = True) -> None:
        self.ground_truth = ground_truth
        self.braces = braces
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.client: socket.socket | None = None
        self.buffer = b""
        self.pose: tuple[float, float, float] | None = None
        self.start = (0.0, 0.0, 0.0)
        self.spin = (0.0, 0.0)
        self.time = 0.0
        self.received: list[str] = []
        self.sent: list[tuple[float, float, float]] = []
        """The poses sent, one a step: a client cycle sees the one sent at the end of the cycle before."""

    def send(self, kind: str, *pairs: tuple[str, str]) -> None:
        assert self.client is not None
        if self.braces:
            line = " ".join([kind, *(f"{{{name} {value}}}" for name, value in pairs)])
        else:
            line = " ".join([kind, *(f"{name} {value}" for name, value in pairs)])
        self.client.sendall(line.encode() + b"\r\n")

    def lines(self) -> list[str]:
        assert self.client is not None
        while select.select([self.client], [], [], 0)[0]:
            data = self.client.recv(1 << 16)
            if not data:
                break
            self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\r\n")
        return [line.decode() for line in complete]

    def cycle(self, now: float | None = None) -> None:
        if self.client is None:
            try:
                self.client, _ = self.listener.accept()
            except BlockingIOError:
                return
            self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.send("NFO", ("Gametype", "BotDeathMatch"), ("Level", "Udk-Test"), ("TimeLimit", "0"))
        for line in self.lines():
            self.received.append(line)
            self.handle(line)
        if self.pose is None:
            return
        self.step()

    def handle(self, line: str) -> None:
        def value(name: str) -> str:
            found = re.search(r"\{" + name + r" ([^}]*)\}", line)
            return found.group(1) if found else ""

        if line.startswith("INIT "):
            x, y, _ = (float(v) for v in re.split(r"[ ,]+", value("Location").strip()))
            self.pose = self.start = (x, y, 0.0)
        elif line.startswith("DRIVE "):
            self.spin = (float(value("Left")), float(value("Right")))
        elif line.startswith("GETGEO ") and value("Type") == "Robot":  # UDK answers Robot, not Sonar
            self.send(
                "GEO", ("Type", "GroundVehicle"), ("Name", "R1"), ("Dimensions", "0.5,0.4,0.3"),
                ("COG", "0,0,0"), ("WheelRadius", str(WHEEL_RADIUS)), ("WheelSeparation", str(SEPARATION)),
            )  # fmt: skip

    def step(self) -> None:
        assert self.pose is not None
        x, y, yaw = self.pose
        left, right = self.spin
        v = (left + right) / 2.0 * WHEEL_RADIUS
        yaw += (left - right) * WHEEL_RADIUS / SEPARATION * PERIOD  # left faster: clockwise, Unreal's +yaw
        x, y = x + v * math.cos(yaw) * PERIOD, y + v * math.sin(yaw) * PERIOD
        self.pose = (x, y, yaw)
        self.sent.append(self.saphira_pose())
        self.time += PERIOD
        t = f"{self.time:.2f}"
        self.send("STA", ("Time", t), ("Battery", "1190"))
        for k in range(1, 9):
            name = f"F{k}"
            metres = WALL_X - x - 0.2 if name in SONAR_AHEAD else 5.0
            self.send("SEN", ("Time", t), ("Type", "Sonar"), ("Name", name), ("Range", f"{metres:.4f}"))
        ox, oy = x - self.start[0], y - self.start[1]
        self.send(
            "SEN", ("Time", t), ("Type", "Odometry"), ("Name", "Odometry"), ("Pose", f"{ox:.4f},{oy:.4f},{yaw:.4f}")
        )
        if self.ground_truth:
            self.send(
                "SEN", ("Time", t), ("Type", "GroundTruth"), ("Name", "GroundTruth"),
                ("Location", f"{x:.4f},{y:.4f},0.0000"), ("Orientation", f"0.0000,0.0000,{yaw:.4f}"),
            )  # fmt: skip

    def saphira_pose(self) -> tuple[float, float, float]:
        """The true pose in Saphira's frame: mm, y left, degrees counter-clockwise."""
        assert self.pose is not None
        x, y, yaw = self.pose
        return x * 1000.0, -y * 1000.0, -math.degrees(yaw)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.listener.close()


@pytest.fixture(params=["udk", "odometry-only", "brace-less"])
def udk(request: pytest.FixtureRequest) -> Iterator[UdkStyleServer]:
    server = UdkStyleServer(ground_truth=request.param != "odometry-only", braces=request.param != "brace-less")
    yield server
    server.close()


def test_usarsim_url_drives_against_a_udk_style_server(udk: UdkStyleServer) -> None:
    robot = Robot()
    robot.clock.add_listener(udk.cycle)  # type: ignore[attr-defined]
    try:
        robot.connect(f"usarsim://127.0.0.1:{udk.port}?class=P3AT&location=1,-2,0&name=R1")
        assert isinstance(robot.link, GamebotsLink) and robot.connected
        assert udk.received[0] == "INIT {ClassName USARBot.P3AT} {Name R1} {Location 1.0000,-2.0000,0.0000}"
        assert robot.state.global_pose == pytest.approx((1000.0, 2000.0, 0.0), abs=1.0)
        assert robot.link.wheels is not None and robot.link.wheels.radius == WHEEL_RADIUS  # from UDK's GEO

        robot.motion.set_velocity(300.0)
        for _ in range(20):
            robot.step()
        x, y, th = udk.sent[-2]
        assert x > 1400.0  # it moved: 300 mm/s for ~2 s
        assert robot.state.global_pose == pytest.approx((x, y, th), abs=2.0)
        assert robot.state.vel == pytest.approx(300.0, abs=10.0)
        ahead = (WALL_X * 1000.0 - x) - 200.0
        assert robot.sonar.range(3) == pytest.approx(ahead, abs=40.0)  # F4: one SEN per sonar
        assert robot.sonar.range(4) == pytest.approx(ahead, abs=40.0)

        robot.motion.set_velocity(0.0)
        robot.motion.set_rvelocity(30.0)  # left: counter-clockwise, Unreal's negative yaw
        for _ in range(20):
            robot.step()
        x, y, th = udk.sent[-2]
        assert th > 20.0
        assert robot.state.global_pose == pytest.approx((x, y, th), abs=2.0)
        assert robot.link.counters.undecodable == 0  # every UDK line was read
    finally:
        if robot.connected:
            robot.disconnect()
