"""The simulation: a world, the robots in it, one seeded random generator, and the step that moves them.

:class:`SimRobot` joins a robot's drive (:mod:`saphira.sim.robot_model`), its sensors
(:mod:`saphira.sim.sensors`) and its true pose in the world. :meth:`SimRobot.step` integrates the
drive in sub-steps, stops the body (a disc of ``RobotRadius``) at walls and other robots — it never
passes through one, whatever the speed — and then updates odometry error, sonar and compass.
:class:`Simulation` owns the one ``numpy`` generator every random number comes from, so the same seed
gives the same run. There is no protocol code here: the Pioneer server drives a :class:`SimRobot`
through its ``cmd_*`` methods and reads its state into packets.

Frames: the true pose is in the world frame (mm, mm, deg); odometry is the robot's own frame,
starting at 0, 0, 0 where the robot was added (docs/architecture.md §4). Decisions the sources leave open:

* A collision stops the translation where the body first touches (no sliding along the wall),
  zeroes the translational velocity and sets both stall flags for that step. Rotation goes on: a
  disc turning on the spot cannot hit anything.
* Sonar, laser and the body see other robots and free boxes (sonar and laser as octagons, the body as discs).
* Every robot has a laser (:mod:`saphira.sim.laser`) unless its parameter file says it has none; a
  file that says nothing gets the default SICK (MobileSim's Pioneers all carry one). It scans only
  while a client has it enabled.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.params.laser import laser_config
from saphira.params.robot_params import RobotParams
from saphira.sim.gripper import SimGripper
from saphira.sim.laser import SimLaser
from saphira.sim.robot_model import Drive, RobotModel, RotMode, TransMode, wrap_degrees
from saphira.sim.sensors import Odometry, SonarBeam, SonarRing, chord, compass_reading
from saphira.world.objects import SimObject, spawn_objects
from saphira.world.placement import OCCUPIED, nearest_free_place
from saphira.world.raycast import circle_sweep_fraction, point_segment_distances
from saphira.world.world import World

log = logging.getLogger("saphira.sim")

_ROBOT_GAP_MM = 100.0  # space left between robots placed side by side
_CACHE_MARGIN = 1000.0  # mm: how far a robot may move before its cached nearby walls are re-queried
_TOUCH_MM = 1e-6  # the body may end up this close to (or this far into) a wall through rounding
_OCTAGON = np.exp(1j * np.radians(np.arange(0.0, 360.0, 45.0) + 22.5))  # unit corners, counter-clockwise
_OCTAGON_NEXT = np.roll(_OCTAGON, -1)


def empty_world() -> World:
    """A world with no walls."""
    return World(name="empty", source="<empty>", segments=np.zeros((0, 4)))


class _NearbyWalls:
    """The world's walls near a moving point, re-queried from its spatial index only when needed.

    The cache holds every wall within ``radius`` of ``centre``, so it answers for any disc around
    a point ``p`` of reach ``r`` as long as ``|p - centre| + r <= radius``.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.centre = (math.inf, math.inf)
        self.radius = 0.0
        self.walls: FloatArray = np.zeros((0, 4))

    def near(self, x: float, y: float, reach: float) -> FloatArray:
        """A superset of the walls within ``reach`` of (x, y)."""
        if math.hypot(x - self.centre[0], y - self.centre[1]) + reach > self.radius:
            radius = reach + _CACHE_MARGIN
            ids = self.world.index.query_circle((x, y), radius)
            walls = self.world.segments[ids]
            self.walls = walls[point_segment_distances((x, y), walls) <= radius]
            self.centre, self.radius = (x, y), radius
        return self.walls

    def covered(self, x: float, y: float) -> float:
        """Distance from (x, y) within which every wall of the world is in the cache."""
        return self.radius - math.hypot(x - self.centre[0], y - self.centre[1])


@dataclass
class _Disc:
    """Another robot's body as this robot's step sees it."""

    x: float
    y: float
    radius: float


def _disc_sweep_fraction(x0: float, y0: float, x1: float, y1: float, radius: float, discs: list[_Disc]) -> float:
    """Fraction of the move (x0, y0) → (x1, y1) a disc of ``radius`` makes before touching ``discs``.

    A disc already touching another may move away from it or past it, not towards it.
    """
    mx, my = x1 - x0, y1 - y0
    a = mx * mx + my * my
    fraction = 1.0
    for disc in discs:
        fx, fy = disc.x - x0, disc.y - y0
        reach = radius + disc.radius
        gap2 = fx * fx + fy * fy - reach * reach
        towards = fx * mx + fy * my
        if gap2 <= 2.0 * reach * _TOUCH_MM:
            if towards > 0.0:
                return 0.0
            continue
        root = towards * towards - a * gap2
        if root >= 0.0 and towards > 0.0:
            fraction = min(fraction, (towards - math.sqrt(root)) / a)
    return max(0.0, fraction)


class SimRobot:
    """One simulated robot: drive, sensors, true pose and stall state.

    State for the protocol server (read after each :meth:`step`):

    * ``x``, ``y``, ``th`` — true world pose (mm, mm, deg in (-180, 180]); :attr:`pose`.
    * :attr:`odometry` — the reported pose (``.x``, ``.y``, ``.th``; ``.counters(dist, angle)``
      gives the SIP's raw X, Y, Th).
    * :attr:`vel`, :attr:`rvel`, :meth:`wheel_velocities`, :attr:`is_moving`,
      :attr:`heading_setpoint` (the SIP's "control"), ``drive.enabled`` (motors on).
    * ``stalled_left``, ``stalled_right`` — the body was stopped by a wall or robot in the last step.
    * ``compass`` — degrees 0..359 measured in the last step.
    * :attr:`sonar` — ``.enabled``, ``.ranges``; :meth:`take_new_readings`.
    * :attr:`gripper` — the gripper (:mod:`saphira.sim.gripper`), stepped by the simulation after
      the drive; :attr:`objects` the world's boxes, which the body and sonar meet unless held.

    Commands (the ``cmd_*`` methods) take effect at the next :meth:`step`.
    """

    def __init__(
        self,
        world: World,
        params: RobotParams,
        pose: Pose,
        name: str | None = None,
        odometry_error: bool = True,
        sonar_beam: SonarBeam | None = None,
    ) -> None:
        self.name = name or params.name
        self.model = RobotModel.from_params(params)
        self.odometry = Odometry(params, error=odometry_error)
        self.drive = Drive(self.model, lambda: self.odometry.th)
        self.sonar = SonarRing(self.model.sonar_poses, sonar_beam)
        laser = laser_config(params, assume=True)
        self.laser = SimLaser(laser) if laser is not None else None
        self.initial_pose = Pose(float(pose.x), float(pose.y), wrap_degrees(pose.th))
        self.x, self.y, self.th = self.initial_pose
        self.stalled_left = False
        self.stalled_right = False
        self.compass = round(self.th) % 360
        self.gripper = SimGripper(self.model.radius)
        self.objects: list[SimObject] = []
        """The world's movable boxes (the simulation's list): obstacles unless this robot holds one."""
        self.set_world(world)

    def set_world(self, world: World) -> None:
        """Drive in ``world`` from now on (the pose is kept)."""
        self.world = world
        self._body_walls = _NearbyWalls(world)
        self._sonar_walls = _NearbyWalls(world)
        self._forget_clearance()

    def _forget_clearance(self) -> None:
        self._free_x, self._free_y, self._free_radius = self.x, self.y, -1.0

    # -- state --------------------------------------------------------------------------------------

    @property
    def pose(self) -> Pose:
        """True world pose."""
        return Pose(self.x, self.y, self.th)

    @property
    def radius(self) -> float:
        return self.model.radius

    @property
    def vel(self) -> float:
        """Current translational velocity, mm/s."""
        return self.drive.vel

    @property
    def rvel(self) -> float:
        """Current rotational velocity, deg/s."""
        return self.drive.rvel

    @property
    def is_moving(self) -> bool:
        return self.drive.is_moving

    @property
    def heading_setpoint(self) -> float:
        """The rotation servo's heading (odometric deg): the SIP's "control" point."""
        return self.drive.heading_setpoint

    @property
    def stalled(self) -> bool:
        return self.stalled_left or self.stalled_right

    def wheel_velocities(self) -> tuple[float, float]:
        """Current (left, right) wheel speeds, mm/s."""
        return self.drive.wheel_velocities()

    def take_new_readings(self) -> list[tuple[int, float]]:
        """Sonar (number, range mm) fired since the last call; 5000 (``max_range``) means no echo."""
        return self.sonar.take_new_readings()

    def position_done(self) -> bool:
        """Whether a MOVE has finished (or none is running)."""
        return self.drive.trans_mode is TransMode.VELOCITY or self.drive.move_remaining == 0.0

    def heading_done(self, tolerance: float = 1.0) -> bool:
        """Whether a heading turn is within ``tolerance`` deg of its target and stopped (or none runs)."""
        drive = self.drive
        if drive.rot_mode is RotMode.VELOCITY:
            return True
        return drive.rvel == 0.0 and abs(wrap_degrees(drive.heading_target - self.odometry.th)) <= tolerance

    # -- commands (see Drive for their semantics) ---------------------------------------------------

    def cmd_vel(self, mm_s: float) -> None:
        self.drive.cmd_vel(mm_s)

    def cmd_rvel(self, deg_s: float) -> None:
        self.drive.cmd_rvel(deg_s)

    def cmd_rotate(self, deg_s: float) -> None:
        self.drive.cmd_rotate(deg_s)

    def cmd_vel2(self, left_mm_s: float, right_mm_s: float) -> None:
        self.drive.cmd_vel2(left_mm_s, right_mm_s)

    def cmd_move(self, mm: float) -> None:
        self.drive.cmd_move(mm)

    def cmd_head(self, deg: float) -> None:
        self.drive.cmd_head(deg)

    def cmd_dhead(self, deg: float) -> None:
        self.drive.cmd_dhead(deg)

    def cmd_dchead(self, deg: float) -> None:
        self.drive.cmd_dchead(deg)

    def cmd_setv(self, mm_s: float) -> None:
        self.drive.cmd_setv(mm_s)

    def cmd_setrv(self, deg_s: float) -> None:
        self.drive.cmd_setrv(deg_s)

    def cmd_seta(self, mm_s2: float) -> None:
        self.drive.cmd_seta(mm_s2)

    def cmd_setra(self, deg_s2: float) -> None:
        self.drive.cmd_setra(deg_s2)

    def cmd_stop(self) -> None:
        self.drive.cmd_stop()

    def cmd_estop(self) -> None:
        self.drive.cmd_estop()

    def cmd_enable(self, on: bool) -> None:
        self.drive.cmd_enable(on)

    def cmd_seto(self, x: float = 0.0, y: float = 0.0, th: float = 0.0) -> None:
        """SETO: odometry to 0, 0, 0 (or to x, y, th: AMRISim's extension). A heading turn under way
        keeps its course relative to the robot."""
        change = wrap_degrees(th - self.odometry.th)
        self.odometry.reset(x, y, th)
        self.drive.shift_heading_frame(change)

    def cmd_polling(self, sequence: Iterable[int]) -> None:
        """POLLING with 0-based sonar numbers (the wire's bytes minus 1); empty turns sonar off."""
        self.sonar.set_polling(sequence)

    def cmd_sonar(self, on: bool) -> None:
        """SONAR 1/0."""
        self.sonar.set_enabled(on)

    def laser_packets(self) -> bytes:
        """The latest laser scan as the packets its client asked for; empty without a laser or request."""
        return self.laser.packets() if self.laser is not None else b""

    def laser_off(self) -> None:
        """A session began or ended: the laser off, back to its parameter file's settings."""
        if self.laser is not None:
            self.laser.reset()

    def set_pose(self, x: float, y: float, th: float) -> None:
        """Put the robot at a true world pose (SIM_SET_POSE); odometry and commands are unchanged."""
        self.x, self.y, self.th = float(x), float(y), wrap_degrees(th)
        self._forget_clearance()
        if self.laser is not None:
            self.laser.moved = True

    def reset(self) -> None:
        """Back to the pose it was added at, odometry 0, 0, 0, drive and sonar as at power-on (SIM_RESET)."""
        self.drive = Drive(self.model, lambda: self.odometry.th)
        self.odometry.reset()
        self.sonar.reset()
        self.stalled_left = self.stalled_right = False
        self.set_pose(*self.initial_pose)
        self.compass = round(self.th) % 360
        self.gripper.reset()

    # -- stepping -----------------------------------------------------------------------------------

    def step(self, dt: float, rng: np.random.Generator, others: Iterable[SimRobot] = ()) -> None:
        """Advance ``dt`` s: drive, collisions, odometry error, sonar firing and compass.

        ``others`` are the robots the body and the sonar can meet (their poses are taken as fixed
        for this step). The random draws come from ``rng``.
        """
        if dt <= 0.0:
            return
        others = tuple(others)
        discs = self._discs_near(others, dt)
        distance, turned, stalled = self._drive(dt, discs)
        self.stalled_left = self.stalled_right = stalled
        due = self.sonar.due(dt)
        normals = rng.standard_normal(3 + len(due))
        self.odometry.add_error(distance, turned, dt, normals)
        self.compass = compass_reading(self.th, float(normals[2]))
        if due:
            reach = self.sonar.beam.max_range + self.sonar.reach
            walls = self._sonar_walls.near(self.x, self.y, reach)
            heard = [d for d in discs if math.hypot(d.x - self.x, d.y - self.y) < reach + d.radius]
            if heard:
                walls = np.concatenate([walls, _octagons(heard)])
            self.sonar.fire(due, self.pose, walls, normals[3:])
        if self.laser is not None and self.laser.due(dt):
            self._fire_laser(self.laser, rng, others)

    def _fire_laser(self, laser: SimLaser, rng: np.random.Generator, others: tuple[SimRobot, ...]) -> None:
        """A laser scan from the true pose; other robots and free boxes in range are octagons, as for sonar."""
        reach = laser.config.max_range + math.hypot(laser.config.x, laser.config.y)
        seen = self._discs_within(others, reach)
        odometry = Pose(self.odometry.x, self.odometry.y, self.odometry.th)
        laser.fire(self.pose, odometry, self.world.index, rng, _octagons(seen) if seen else None)

    def _discs_near(self, others: Iterable[SimRobot], dt: float) -> list[_Disc]:
        """Other robots and free boxes close enough to matter this step (for sonar, up to its range)."""
        return self._discs_within(others, self.sonar.beam.max_range + self.sonar.reach + self.model.max_velocity * dt)

    def _discs_within(self, others: Iterable[SimRobot], reach: float) -> list[_Disc]:
        """The bodies of other robots, and of the boxes no gripper holds, that come within ``reach`` of the centre."""
        bodies: list[SimRobot | SimObject] = [*others, *(o for o in self.objects if o.holder is None)]
        return [
            _Disc(o.x, o.y, o.radius)
            for o in bodies
            if o is not self and math.hypot(o.x - self.x, o.y - self.y) < reach + o.radius
        ]

    def _drive(self, dt: float, discs: list[_Disc]) -> tuple[float, float, bool]:
        """Integrate the drive over ``dt``; (signed distance, |turn| summed, stalled) actually made."""
        drive = self.drive
        distance = turned = 0.0
        stalled = False
        remaining = dt
        while remaining > 1e-12:
            h = min(remaining, drive.substep_limit())
            remaining -= h
            ds, turn = drive.advance(h)
            if ds == 0.0 and turn == 0.0:
                continue
            length, offset = chord(ds, turn)
            if length != 0.0:
                bearing = math.radians(self.th + offset)
                fraction = self._free_fraction(length * math.cos(bearing), length * math.sin(bearing), discs)
                if fraction < 1.0:
                    stalled = True
                    drive.blocked(ds * (1.0 - fraction))
                    ds *= fraction
                    length *= fraction
                self.x += length * math.cos(bearing)
                self.y += length * math.sin(bearing)
            self.th = wrap_degrees(self.th + turn)
            self.odometry.move(length, offset, turn)
            distance += ds
            turned += abs(turn)
        return distance, turned, stalled

    def _free_fraction(self, dx: float, dy: float, discs: list[_Disc]) -> float:
        """Fraction in [0, 1] of the straight move by (dx, dy) the body can make without touching anything."""
        x0, y0 = self.x, self.y
        x1, y1 = x0 + dx, y0 + dy
        radius = self.model.radius
        fraction = _disc_sweep_fraction(x0, y0, x1, y1, radius, discs) if discs else 1.0
        if math.hypot(x1 - self._free_x, y1 - self._free_y) < self._free_radius:
            return fraction
        move = math.hypot(dx, dy)
        walls = self._body_walls.near(x0, y0, move + radius + _CACHE_MARGIN)
        fraction = min(fraction, circle_sweep_fraction((x0, y0), (x1, y1), radius, walls))
        ex, ey = x0 + fraction * dx, y0 + fraction * dy
        gaps = point_segment_distances((ex, ey), walls)
        if gaps.size and gaps.min() < radius - _TOUCH_MM:
            # Rounding could only push the body into a wall it already overlapped: never go deeper.
            deeper = gaps < np.minimum(point_segment_distances((x0, y0), walls), radius) - _TOUCH_MM
            if deeper.any():
                return 0.0
        clearance = min(float(gaps.min()) if gaps.size else math.inf, self._body_walls.covered(ex, ey))
        self._free_x, self._free_y, self._free_radius = ex, ey, clearance - radius
        return fraction


def _octagons(discs: list[_Disc]) -> FloatArray:
    """Eight wall segments around each of the other robots' bodies, for sonar: ``(8 K, 4)``."""
    centres = np.array([complex(d.x, d.y) for d in discs])[:, None]
    radii = np.array([d.radius for d in discs])[:, None]
    starts = (centres + radii * _OCTAGON).ravel()
    ends = (centres + radii * _OCTAGON_NEXT).ravel()
    return np.stack([starts.real, starts.imag, ends.real, ends.imag], axis=1)


class Simulation:
    """A world, its robots and one random generator; :meth:`step` advances them all.

    ``seed`` (an int; ``None`` draws one, kept in :attr:`seed`) seeds the generator every random
    number comes from: the same seed and the same commands give the same run. ``odometry_error``
    is the default for robots added later (``False`` makes odometry the exact true motion).
    """

    def __init__(
        self,
        world: World | None = None,
        seed: int | None = 0,
        *,
        odometry_error: bool = True,
        sonar_beam: SonarBeam | None = None,
    ) -> None:
        self.world = world or empty_world()
        self.seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)  # type: ignore[arg-type]
        self.rng = np.random.default_rng(self.seed)
        self.odometry_error = odometry_error
        self.sonar_beam = sonar_beam
        self.robots: list[SimRobot] = []
        self.objects = spawn_objects(self.world.objects)
        """The world's boxes as they are now (moved by grippers)."""
        self.time = 0.0

    @property
    def start_pose(self) -> Pose:
        """Where robots go by default: the world's start pose, else the origin facing +x (as MobileSim)."""
        return self.world.start_pose or Pose(0.0, 0.0, 0.0)

    def _wanted_pose(self) -> Pose:
        """The next robot's wish: the next of the map's homes while any is left, else the start pose."""
        homes = self.world.homes
        return homes[len(self.robots)] if len(self.robots) < len(homes) else self.start_pose

    def add_robot(
        self,
        params: RobotParams,
        pose: Pose | None = None,
        *,
        name: str | None = None,
        odometry_error: bool | None = None,
    ) -> SimRobot:
        """Add a robot built from ``params`` at ``pose`` (x, y, th in the world frame).

        Without a pose the first robot goes to :attr:`start_pose` and each further one to the map's
        next home (or to the start pose when the homes run out); when that place is taken, in a
        wall, or (for the default origin) outside the map, to the nearest free place, and the log
        says so.
        """
        place = Pose(*pose) if pose is not None else self._free_place(params.robot_radius)
        error = self.odometry_error if odometry_error is None else odometry_error
        robot = SimRobot(self.world, params, place, name, error, self.sonar_beam)
        robot.objects = self.objects
        self.robots.append(robot)
        return robot

    def remove_robot(self, robot: SimRobot) -> None:
        self.robots.remove(robot)

    def replace_robot(self, robot: SimRobot, params: RobotParams, name: str | None = None) -> SimRobot:
        """A robot built from ``params`` in ``robot``'s place, at its true pose (the simulator's Load Params)."""
        new = SimRobot(self.world, params, robot.pose, name, robot.odometry.error, self.sonar_beam)
        new.objects = self.objects
        self.robots[self.robots.index(robot)] = new
        return new

    def set_pose(self, robot: SimRobot, x: float, y: float, th: float) -> None:
        """SIM_SET_POSE: move ``robot`` to a true pose; its odometry is unchanged."""
        robot.set_pose(x, y, th)

    def reset_robot(self, robot: SimRobot) -> None:
        """SIM_RESET: ``robot`` back to where it was added, odometry 0, 0, 0."""
        robot.reset()

    def reset(self, seed: int | None = None) -> None:
        """Every robot back to where it was added, time 0, the generator reseeded (by default, same seed)."""
        if seed is not None:
            self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.time = 0.0
        for robot in self.robots:
            robot.reset()
        for box in self.objects:
            box.reset()

    def set_world(self, world: World) -> None:
        """Replace the world (a map load); robots keep their poses."""
        self.world = world
        self.objects[:] = spawn_objects(world.objects)
        for robot in self.robots:
            robot.set_world(world)
            robot.gripper.reset()

    def step(self, dt: float) -> None:
        """Advance every robot by ``dt`` seconds, in the order they were added."""
        others = self.robots if len(self.robots) > 1 else ()
        for robot in self.robots:
            robot.step(dt, self.rng, others)
        for robot in self.robots:
            robot.gripper.step(dt, robot.pose, self.objects)
        self.time += dt

    def _free_place(self, radius: float) -> Pose:
        """The wished-for pose when it is free, else the nearest free place (logged); the heading is kept.

        Free means clear of walls and of other robots (with a 100 mm gap); the default origin of a
        world that names no start must also lie inside the map (:mod:`saphira.world.placement`).
        """
        wanted = self._wanted_pose()
        place = nearest_free_place(
            self.world,
            wanted.x,
            wanted.y,
            radius,
            lambda x, y: self._occupied(x, y, radius),
            inside=self.world.start_pose is None,
        )
        if place is None:
            log.warning(
                "world %s: no free place for a robot of radius %.0f mm; starting at (%.0f, %.0f) anyway",
                self.world.name,
                radius,
                wanted.x,
                wanted.y,
            )
            return wanted
        if place.reason:
            level = logging.INFO if place.reason == OCCUPIED else logging.WARNING
            log.log(
                level,
                "world %s: start (%.0f, %.0f) is %s; starting at the nearest free place (%.0f, %.0f)",
                self.world.name,
                wanted.x,
                wanted.y,
                place.reason,
                place.x,
                place.y,
            )
        return Pose(place.x, place.y, wanted.th)

    def _occupied(self, x: float, y: float, radius: float) -> bool:
        return any(math.hypot(r.x - x, r.y - y) < r.radius + radius + _ROBOT_GAP_MM for r in self.robots)
