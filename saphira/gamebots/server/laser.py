"""The Gamebots server's laser: a RangeScanner on every robot's front, cast against the world's walls."""

from __future__ import annotations

import math

import numpy as np

from saphira.gamebots.codec import RangeScannerMessage
from saphira.params.laser import LaserConfig
from saphira.sim.laser import cast_scan
from saphira.sim.simulation import SimRobot, Simulation

USARSIM_SICK = LaserConfig(x=160.0, start=-90.0, end=90.0, increment=1.0, max_range=20000.0, noise=0.0)
"""USARSim's SICK LMS200: 181 beams over 180°, 20 m range, 0.16 m ahead of the centre, exact ranges."""


class RangeScanner:
    """The server's laser, the same on every robot: USARSim's name for the sensor, a laser
    configured by a :class:`~saphira.params.laser.LaserConfig` (:data:`USARSIM_SICK` by default).

    The configuration is in saphira's units (mm, degrees); the properties give it in USARSim's (metres,
    radians), as GEO, CONF and SEN report it. Rays are cast by :func:`saphira.sim.laser.cast_scan`, as
    the other simulators' lasers are. It sees walls (not other robots: docs/gamebots.md).
    """

    def __init__(self, name: str = "Scanner1", config: LaserConfig = USARSIM_SICK) -> None:
        self.name = name
        self.config = config

    @property
    def beams(self) -> int:
        return self.config.count

    @property
    def fov(self) -> float:
        """Field of view, radians."""
        return math.radians(self.config.end - self.config.start)

    @property
    def max_range(self) -> float:
        """Metres."""
        return self.config.max_range / 1000.0

    @property
    def mount_x(self) -> float:
        """Metres ahead of the robot's centre."""
        return self.config.x / 1000.0

    @property
    def resolution(self) -> float:
        return self.fov / max(1, self.beams - 1)

    def scan(self, robot: SimRobot, simulation: Simulation, time: float) -> RangeScannerMessage:
        config = self.config
        c, s = math.cos(math.radians(robot.th)), math.sin(math.radians(robot.th))
        origin = (robot.x + c * config.x - s * config.y, robot.y + s * config.x + c * config.y)
        first = robot.th + config.th + config.start
        distances = cast_scan(simulation.world.index, origin, first, config.increment, config.count, config.max_range)
        ranges = np.minimum(distances / 1000.0, self.max_range)
        return RangeScannerMessage(time, self.name, self.resolution, self.fov, tuple(float(r) for r in ranges))
