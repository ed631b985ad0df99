"""Our simulator as Flat sees it: one robot with Flat's drive and sensors, its maps and their transitions.

:class:`FlatSimulation` has no sockets (that is :mod:`saphira.flat.server.listener`): it turns a controller's
:class:`~saphira.flat.codec.Control` into velocity setpoints, advances the shared simulator
(:class:`saphira.sim.simulation.Simulation`: the same world, drive, collisions and sonar as the Pioneer
server), and produces the step output and every query's answer from the simulator's truth.

Flat's robot (its constants and parameter set: :mod:`saphira.flat.robot`; choices where the seed is silent
are marked *):

* constant accelerations ±500 mm/s² and ±50 deg/s² (the seed); velocity limits* 1500 mm/s, 180 deg/s;
  a body of radius* 250 mm; angular velocity and the pose's theta counter-clockwise* (the map's frame);
* 12 sonars on a ring of radius* 200 mm, the first facing forward, then clockwise every 30 degrees, each
  a ±15-degree* cone so the ring leaves no gap, all fired every step (5000 mm: no echo);
* exact odometry: the pose sent is the true pose in the current map (Flat reports its own truth).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path

from saphira.core.errors import SaphiraError
from saphira.core.geometry import Pose
from saphira.flat.codec import (
    Control,
    DefaultQuery,
    LaserReading,
    MapChanged,
    MapQuery,
    Query,
    Reply,
    StepOutput,
    TransitionQuery,
)
from saphira.flat.robot import ROT_ACCEL, SONAR_COUNT, SONAR_HALF_ANGLE, TRANS_ACCEL, flat_params
from saphira.flat.server import queries
from saphira.flat.server.laser import LaserRig
from saphira.sim.sensors import SonarBeam
from saphira.sim.simulation import SimRobot, Simulation
from saphira.sim.world_requests import WorldAccess, WorldRefused
from saphira.world.flat_world import FlatWorld, Transition
from saphira.world.world import World, WorldNotFoundError

log = logging.getLogger("saphira.flat")

STEP_SECONDS = 0.1
"""Simulated time per step in standard mode."""


@dataclass(frozen=True)
class FlatOptions:
    """What the seed's Flat configuration file decides: lasers (0, 1, 2) and whether sonars are used."""

    lasers: int = 1
    sonar: bool = True


class FlatSimulation:
    """One Flat robot in a (possibly multi-map) world, stepped by the controller's inputs."""

    def __init__(
        self,
        world: World | None = None,
        *,
        flat_world: FlatWorld | None = None,
        options: FlatOptions | None = None,
        pose: Pose | None = None,
        seed: int = 0,
        access: WorldAccess | None = None,
    ) -> None:
        self.flat_world = flat_world
        self.options = options or FlatOptions()
        self._listed = _listed_maps(flat_world)
        self.access = dataclasses.replace(access or WorldAccess(), listed=self._listed)
        """Which files ``m FILE`` may load: those of ``access`` and the World file's maps."""
        if world is None:
            if flat_world is None:
                raise SaphiraError("a Flat simulation needs a map or a Flat World file")
            world = flat_world.load_map(flat_world.default_map)
            self.map_name = flat_world.default_map
        else:
            self.map_name = world.source
        self.rig = LaserRig.with_count(self.options.lasers)
        beam = SonarBeam(half_angle=SONAR_HALF_ANGLE, fire_interval=STEP_SECONDS / SONAR_COUNT)
        self.simulation = Simulation(world, seed, odometry_error=False, sonar_beam=beam)
        self.robot: SimRobot = self.simulation.add_robot(flat_params(), pose)
        for accel in (TRANS_ACCEL, -TRANS_ACCEL):
            self.robot.cmd_seta(accel)
        for accel in (ROT_ACCEL, -ROT_ACCEL):
            self.robot.cmd_setra(accel)
        self.message = ""
        self.wall_contacts = 0
        self._scans: tuple[LaserReading, ...] | None = None
        self._inside = self._covering()

    # ------------------------------------------------------------------ state
    @property
    def world(self) -> World:
        return self.simulation.world

    @property
    def time_ms(self) -> int:
        return round(self.simulation.time * 1000.0)

    @property
    def pose(self) -> Pose:
        return self.robot.pose

    def scans(self) -> tuple[LaserReading, ...]:
        """This step's laser scans (cast once per step)."""
        if self._scans is None:
            self._scans = self.rig.scan(self.world, self.pose)
        return self._scans

    def output(self) -> StepOutput:
        """The step output: sonar ranges, pose, time, laser scans."""
        sonar = tuple(float(r) for r in self.robot.sonar.ranges) if self.options.sonar else ()
        return StepOutput(sonar, self.pose, self.time_ms, self.scans())

    # ------------------------------------------------------------------ stepping
    def control(self, command: Control, dt: float = STEP_SECONDS) -> list[MapChanged]:
        """Take the velocities (the robot ramps to them), advance ``dt`` s; automatic map changes made."""
        self.robot.cmd_vel(command.linear)
        self.robot.cmd_rvel(command.angular)
        if command.message:
            self.message = command.message
        was_stalled = self.robot.stalled
        self.simulation.step(dt)
        self._scans = None
        if self.robot.stalled and not was_stalled:
            self.wall_contacts += 1
        return self._automatic()

    def _covering(self) -> set[int]:
        """Indexes of the current map's automatic transitions whose circle holds the robot."""
        return {k for k, t in enumerate(self._transitions()) if t.automatic and t.covers(self.robot.x, self.robot.y)}

    def _transitions(self) -> list[Transition]:
        return self.flat_world.transitions(self.map_name) if self.flat_world is not None else []

    def _automatic(self) -> list[MapChanged]:
        """Fire an automatic transition the robot has just entered (entering, not being inside: no loop)."""
        now = self._covering()
        entered = sorted(now - self._inside)
        self._inside = now
        if not entered:
            return []
        transition = self._transitions()[entered[0]]
        changed = self._change(transition.target, transition.new_pose)
        return [changed] if changed.map_file is not None else []

    def _change(self, map_name: str, pose: Pose | None) -> MapChanged:
        """Switch to ``map_name`` and, if given, put the robot at ``pose``; the answer to send.

        A map that is refused or cannot be loaded leaves the map as it is: the answer is then
        ``:NO-TRANSITION-MATCH`` and the log says why."""
        try:
            world = self.access.load(self._map_file(map_name))
        except WorldRefused as exc:
            log.warning("map %s: %s; the map stays %s", map_name, exc, self.map_name)
            return MapChanged(self.time_ms, None)
        self.simulation.set_world(world)
        self.map_name = map_name
        if pose is not None:
            self.robot.set_pose(pose.x, pose.y, pose.th)
        self._scans = None
        self._inside = self._covering()
        log.info("map changed to %s at (%.0f, %.0f, %.0f)", map_name, *self.pose)
        return MapChanged(self.time_ms, map_name)

    def _map_file(self, name: str) -> str:
        """The file a map name means: one of the World file's maps (found from its folder), else ``name``."""
        if self.flat_world is not None:
            try:
                path = self.flat_world.locate(name)
            except WorldNotFoundError:
                return name
            if path.resolve() in self._listed:
                return str(path)
        return name

    # ------------------------------------------------------------------ queries
    def query(self, query: Query) -> Reply:
        """The answer to a query (no time passes)."""
        if isinstance(query, DefaultQuery):
            return self.output()
        if isinstance(query, TransitionQuery):
            for transition in self._transitions():
                if transition.command == query.command and transition.covers(self.robot.x, self.robot.y):
                    return self._change(transition.target, transition.new_pose)
            return MapChanged(self.time_ms, None)
        if isinstance(query, MapQuery):
            return self._change(query.map_file, Pose(query.x, query.y, query.theta))
        return queries.answer(query, self.time_ms, self.rig, self.scans())


def _listed_maps(flat_world: FlatWorld | None) -> frozenset[Path]:
    """The files of the maps a World file lists (the operator named them): ``m`` may load these."""
    if flat_world is None:
        return frozenset()
    names = [flat_world.default_map, *(name for name, _ in flat_world.maps.values())]
    names += [t.target for _, transitions in flat_world.maps.values() for t in transitions]
    found = set()
    for name in names:
        try:
            found.add(flat_world.locate(name).resolve())
        except WorldNotFoundError:
            continue
    return frozenset(found)
