"""The Gamebots server's laser: a RangeScanner on every robot's front, cast against the world's walls."""

from __future__ import annotations

import math

import numpy as np

from saphira.gamebots.codec import RangeScannerMessage
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.raycast import cast_rays


class RangeScanner:
    """The server's laser, the same on every robot: a SICK LMS200-like RangeScanner on the robot's front.

    USARSim's own name for the sensor; it describes the simulated sensor in USARSim's units (metres,
    radians), not a robot's laser settings (those are :class:`saphira.params.laser.LaserConfig`).

    181 beams over 180°, 20 m range, mounted ``mount_x`` m ahead of the centre. It sees walls (not
    other robots: docs/gamebots.md).
    """

    def __init__(self, name: str = "Scanner1", beams: int = 181, fov: float = math.pi, max_range: float = 20.0,
                 mount_x: float = 0.16) -> None:  # fmt: skip
        self.name = name
        self.beams = beams
        self.fov = fov
        self.max_range = max_range
        self.mount_x = mount_x

    @property
    def resolution(self) -> float:
        return self.fov / max(1, self.beams - 1)

    def scan(self, robot: SimRobot, simulation: Simulation, time: float) -> RangeScannerMessage:
        th = math.radians(robot.th)
        origin = (robot.x + self.mount_x * 1000.0 * math.cos(th), robot.y + self.mount_x * 1000.0 * math.sin(th))
        angles = robot.th + np.degrees(np.linspace(-self.fov / 2.0, self.fov / 2.0, self.beams))
        hits = cast_rays(origin, angles, simulation.world.segments, self.max_range * 1000.0)
        ranges = np.minimum(hits.distances / 1000.0, self.max_range)
        return RangeScannerMessage(time, self.name, self.resolution, self.fov, tuple(float(r) for r in ranges))
