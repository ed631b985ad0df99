"""A scripted Flat4 controller for tests: a real TCP client that speaks the protocol through the codec."""

from __future__ import annotations

import math
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from saphira.flat.codec import Control, MapChanged, Reply, StepOutput, format_input, parse_reply
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.robot import Robot
from tests.realtime import WAIT


class Controller:
    """One connection to a Flat server: send lines, read forms; map changes seen are kept in order."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=WAIT)
        self.file = self.sock.makefile("rwb")
        self.changes: list[MapChanged] = []
        self.transcript: list[str] = []
        self.output = self._next_output()

    def _line(self) -> str:
        raw = self.file.readline()
        assert raw, "the server closed the connection"
        text = raw.decode("latin-1").rstrip("\n")
        self.transcript.append(text)
        return text

    def _next_output(self) -> StepOutput:
        while True:
            reply = parse_reply(self._line())
            if isinstance(reply, StepOutput):
                return reply
            assert isinstance(reply, MapChanged), reply
            self.changes.append(reply)

    def send(self, text: str) -> None:
        self.transcript.append("> " + text)
        self.file.write((text + "\n").encode("latin-1"))
        self.file.flush()

    def step(self, linear: float = 0.0, angular: float = 0.0, message: str = "") -> StepOutput:
        """Send one control line and read the next step output (map changes before it are kept)."""
        self.send(format_input(Control("c", linear, angular, 1.0, message)))
        self.output = self._next_output()
        return self.output

    def ask(self, text: str) -> Reply:
        """Send a query line and read its one-line answer."""
        self.send(text)
        return parse_reply(self._line())

    @property
    def pose(self) -> tuple[float, float, float]:
        return self.output.pose

    def drive_to(self, x: float, y: float, *, speed: float = 400.0, tolerance: float = 80.0, limit: int = 2000) -> None:
        """Turn towards (x, y) and drive there, then stop; steps counted against ``limit``."""
        for _ in range(limit):
            px, py, th = self.pose
            distance = math.hypot(x - px, y - py)
            if distance < tolerance:
                break
            error = (math.degrees(math.atan2(y - py, x - px)) - th + 180.0) % 360.0 - 180.0
            angular = max(-40.0, min(40.0, 1.5 * error))
            linear = min(speed, 1.2 * distance) if abs(error) < 8.0 else 0.0
            self.step(linear, angular)
        else:
            raise AssertionError(f"did not reach ({x}, {y}); at {self.pose}")
        self.halt()

    def turn_to(self, heading: float, limit: int = 400) -> None:
        for _ in range(limit):
            error = (heading - self.pose[2] + 180.0) % 360.0 - 180.0
            if abs(error) < 2.0:
                break
            self.step(0.0, max(-40.0, min(40.0, 1.5 * error)))
        self.halt()

    def halt(self) -> None:
        """Command zero until the robot stands still."""
        last = self.pose
        for _ in range(100):
            self.step(0.0, 0.0)
            if self.pose == last:
                return
            last = self.pose
        raise AssertionError("the robot did not stop")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@contextmanager
def served(server: FlatServer) -> Iterator[Controller]:
    """Serve ``server`` from a thread and connect a controller to it; everything closed afterwards."""
    thread = server.serve_in_thread()
    controller = Controller(*server.address)
    try:
        yield controller
    finally:
        controller.close()
        server.close()
        thread.join(timeout=WAIT)


@contextmanager
def robot_on_flat(flat: FlatSimulation) -> Iterator[Robot]:
    """Serve ``flat`` from a thread and connect a saphira :class:`Robot` to it over ``flat://``, the two
    threads handing the turn to each other every step; everything closed and restored afterwards."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    server = FlatServer(flat)
    thread = server.serve_in_thread()
    robot = Robot()
    try:
        robot.connect("flat://{}:{}".format(*server.address))
        yield robot
    finally:
        robot.disconnect()
        server.close()
        thread.join(timeout=WAIT)
        sys.setswitchinterval(previous)
