"""Robots in one lock-step world: what every learning environment steps (one robot or several).

A :class:`Fleet` is one :class:`~saphira.sim.simulation.Simulation` with a robot per agent, each with its own
:class:`~saphira.sim.server.PioneerServer` and its own client :class:`~saphira.robot.Robot`, joined by
in-process byte pipes as :func:`~saphira.sim.embedded.attach_simulator` joins one: every command and SIP
goes through the packet codec and the link, as over TCP. One :meth:`Fleet.step` is one 100 ms cycle of
every client, then one world step of the simulator, so the run depends on nothing but the seed and the
actions: the same seed and the same actions give the same run, bit for bit.

The observation helpers here read what a robot's client knows (its sonar buckets, its laser scan, its
velocities and its own idea of its global pose); the rewards read the simulator's truth (true pose,
contacts), which only a simulator can give.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from saphira.client.link.base import ConnectError
from saphira.client.transport import memory_pair
from saphira.core.clock import LockStepClock
from saphira.core.geometry import Pose
from saphira.params.laser import LaserConfig, laser_config
from saphira.params.robot_params import RobotParams, params_for_file
from saphira.robot import Robot
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.session import ServerOptions
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.world import World, load_world

SONAR_MAX_M = 5.0
"""The sonar's reach in metres: a bucket without an echo reads this (the client's ``NO_ECHO``, 5,000 mm)."""
Float32Array = npt.NDArray[np.float32]
"""What the observations are made of (Gymnasium's ``Box`` default dtype)."""
CONNECT_CYCLES = 300
"""The handshake's limit in cycles (30 s of simulated time): a fleet that cannot connect raises."""


@dataclass
class Agent:
    """One robot of a fleet: the client, the simulated body and its server, and its laser (or None)."""

    robot: Robot
    body: SimRobot
    server: PioneerServer
    laser: LaserConfig | None

    @property
    def contacts(self) -> int:
        """Times the body came up against a wall or another robot (the server's count)."""
        return self.server.stats.wall_contacts

    @property
    def true_pose(self) -> Pose:
        return self.body.pose

    def sonar_m(self) -> Float32Array:
        """The latest range of every sonar, in metres (``SONAR_MAX_M`` without an echo)."""
        ranges = [bucket.range for bucket in self.robot.sonar.buckets]
        metres: Float32Array = np.asarray(ranges, dtype=np.float32) / np.float32(1000.0)
        return np.minimum(metres, np.float32(SONAR_MAX_M))

    def laser_m(self) -> Float32Array:
        """The latest laser scan in metres, its maximum range before the first scan arrives."""
        assert self.laser is not None
        reach = self.laser.max_range / 1000.0
        scan = self.robot.reflector.laser.scan
        if scan is None or len(scan.ranges) != self.laser.count:
            return np.full(self.laser.count, reach, dtype=np.float32)
        metres: Float32Array = np.asarray(scan.ranges, dtype=np.float32) / np.float32(1000.0)
        return np.clip(metres, np.float32(0.0), np.float32(reach))

    def velocities(self) -> Float32Array:
        """Translational (m/s) and rotational (rad/s) velocity as the robot reports them."""
        state = self.robot.state
        return np.array([state.vel / 1000.0, math.radians(state.rvel)], dtype=np.float32)

    def believed_pose(self) -> Pose:
        """Where the robot thinks it is in the world frame (odometry, with its error)."""
        return self.robot.state.global_pose


class Fleet:
    """``len(poses)`` robots of ``params`` in ``world``, connected and stepped in lock-step.

    ``seed`` seeds every random draw of the simulation (sonar noise, odometry error, laser noise);
    ``odometry_error`` switches the odometry's drift on or off.
    """

    def __init__(
        self,
        world: World,
        params: RobotParams,
        poses: Sequence[Pose],
        *,
        seed: int,
        odometry_error: bool = True,
    ) -> None:
        self.world = world
        self.simulation = Simulation(world, seed, odometry_error=odometry_error)
        period = LockStepClock().period
        self.host = ServedSimulation(self.simulation, period=period)
        laser = laser_config(params)
        self.agents: list[Agent] = []
        for pose in poses:
            body = self.simulation.add_robot(params, pose)
            server = self.host.add(PioneerServer(self.simulation, body, options=ServerOptions(), period=period))
            self.agents.append(Agent(Robot(params=params), body, server, laser))  # the file, as the body has it
        self._connect()

    def _connect(self) -> None:
        """Connect every client through its own pipe, cycling the whole fleet until all are connected."""
        for agent in self.agents:
            client_end, server_end = memory_pair("sim")
            agent.server.attach(server_end, agent.robot.clock.now())
            agent.robot.connect(client_end, wait=False)
        for _ in range(CONNECT_CYCLES):
            if not any(agent.robot.link.connecting for agent in self.agents):
                break
            self.step()
        for agent in self.agents:
            if not agent.robot.connected:
                raise ConnectError(agent.robot.link.error or "the simulated robot did not connect")
            pose = agent.body.pose  # the world frame is the global frame: the client starts at the truth
            agent.robot.reflector.set_global_pose(pose.x, pose.y, pose.th)

    @property
    def time(self) -> float:
        return self.agents[0].robot.clock.now()

    def step(self) -> None:
        """One cycle: every client's six phases, then the world and its servers (commands in, SIPs out)."""
        for agent in self.agents:
            agent.robot.scheduler.step()
        self.host.cycle(self.time)

    def close(self) -> None:
        for agent in self.agents:
            agent.server.hang_up("environment closed")


def resolve_world(world: str | Path | World) -> World:
    """A world given as a :class:`World`, a path or a bundled name (``simple``, ``corridor``, ``AMROffice``…)."""
    return world if isinstance(world, World) else load_world(world)


def resolve_params(params: str | Path | RobotParams) -> RobotParams:
    """Robot parameters given as :class:`RobotParams`, a ``.p`` path or a bundled name (``p3dx``, ``p3dx-laser``…)."""
    return params if isinstance(params, RobotParams) else params_for_file(params)


def free_pose(world: World, radius: float, rng: np.random.Generator, *, tries: int = 1000) -> tuple[float, float]:
    """A uniformly drawn point of ``world`` where a disc of ``radius`` (mm) touches no wall.

    Raises ValueError when ``tries`` draws find none (a world with no room for the robot).
    """
    x0, y0, x1, y1 = world.bounds
    for _ in range(tries):
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if world.is_free(x, y, radius):
            return x, y
    raise ValueError(f"no free place for a robot of radius {radius:g} mm in world {world.name!r}")
