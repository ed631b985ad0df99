"""A client :class:`~saphira.robot.Robot` on ``usarsim://`` and our Gamebots server, stepped in lock-step."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from saphira.gamebots.server.listener import GamebotsServer
from saphira.robot import Robot
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.world import World, load_world


@dataclass
class LockStepGamebots:
    """The server runs once at the end of every client cycle, as the embedded simulator does."""

    robot: Robot
    server: GamebotsServer
    travelled: float = 0.0
    stalled_steps: int = 0
    _last: tuple[float, float] | None = field(default=None, repr=False)

    @property
    def sim_robot(self) -> SimRobot:
        return self.server.simulation.robots[0]

    def step(self) -> None:
        self.robot.step()
        if self.server.simulation.robots:
            body = self.sim_robot
            if self._last is not None:
                self.travelled += math.hypot(body.x - self._last[0], body.y - self._last[1])
            self._last = (body.x, body.y)
            self.stalled_steps += body.stalled

    def close(self) -> None:
        if self.robot.connected:
            self.robot.disconnect()
        self.server.close()


def connect_usarsim(
    world: str | Path | World, pose: tuple[float, float, float], model: str = "P2DX"
) -> LockStepGamebots:
    """A server on a free loopback port with ``world``, and a robot spawned at ``pose`` (mm, mm, deg)."""
    the_world = world if isinstance(world, World) else load_world(world)
    server = GamebotsServer(Simulation(the_world, 0), port=0)
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    x, y, th = pose
    assert th == 0.0, "INIT places robots facing +x here"
    robot.connect(f"usarsim://127.0.0.1:{server.port}?class={model}&location={x / 1000:g},{-y / 1000:g},0")
    return LockStepGamebots(robot, server)
