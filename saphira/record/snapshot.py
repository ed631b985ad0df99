"""What one cycle of a run produced, for the outputs that turn it into messages: the one place that decides.

A :class:`FrameSource` takes a :class:`Snapshot` of its robot every cycle: plain numbers (the poses and
velocities, the battery, the bumpers), and references to what is new since the last one (a laser scan,
the sonar points, the map's walls, the world to draw, the artifacts, the static frames, the behaviors'
state, the lines logged) that are not changed after. Taking it is the only part that runs on the cycle;
the outputs render it: Foxglove's channels (:mod:`saphira.record.foxglove_messages`, written to MCAP and
served live by :mod:`saphira.record.mcap_export`) and ROS 2's messages (:mod:`saphira.ros2.frames`: DDS
and ROS 2 bags). Each output has its own source, told what it wants: a part it is not given a getter
for is never looked at.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose

if TYPE_CHECKING:  # not imported at run time: ROS 2's DDS process reads snapshots without the sensor modules
    from saphira.client.sensors.laser import LaserScan
    from saphira.robot import Robot
    from saphira.world.world import World

__all__ = [
    "BEHAVIOR_CYCLES", "MAP_CHECK_CYCLES", "MAX_PENDING", "STATUS_CYCLES", "FrameSource", "Grid", "Line", "Snapshot",
]  # fmt: skip

STATUS_CYCLES = 10
"""Cycles between two copies of the slow topics (battery, bumpers, motors): 1 s at 100 ms."""
MAP_CHECK_CYCLES = 50
"""Cycles between two looks at whether the map's walls changed (:data:`STATUS_CYCLES` while there are none)."""
BEHAVIOR_CYCLES = 5
"""Cycles between two looks at the running activities and behaviors."""
MAX_PENDING = 1000
"""Lines (:meth:`FrameSource.message`) held between two snapshots at most; beyond, the oldest are dropped."""

Line = tuple[float, str, str, str]
"""A line logged: the run's time it was logged at (s), its level (Python's names), its name, its text."""


@dataclass(frozen=True)
class Grid:
    """An evidence grid as an output draws it: occupancy probabilities (rows along y), which cells have
    evidence, the global mm of cell [0, 0]'s lower-left corner and the cells' size."""

    probabilities: FloatArray
    seen: npt.NDArray[np.bool_]
    origin: tuple[float, float]
    resolution: float


@dataclass
class Snapshot:
    """What one cycle saw, for the messages (mm, degrees as saphira holds them; None: nothing new)."""

    time: float
    odom: Pose
    pose: Pose
    vel: float
    rvel: float
    anchored: bool
    scan: LaserScan | None = None
    sonar: list[tuple[float, float]] | None = None
    walls: FloatArray | None = None
    grid: Grid | None = None
    """An evidence grid (when there are no walls) that changed, copied."""
    static: list[tuple[str, float, float, float]] | None = None
    """The static frames (name, x, y, th on ``base_link``) when they changed."""
    battery: float | None = None
    bumpers: tuple[int, int] | None = None
    motors: bool | None = None
    behaviors: str | None = None
    """The behaviors' state as compact JSON, when it changed."""
    world: World | None = None
    """The world whose walls and boxes are drawn, when it is first known (and again every ``repeat`` cycles)."""
    artifacts: list[list[float]] | None = None
    """The map's artifacts (:func:`~saphira.record.extras.artifact_rows`) when they changed (or again)."""
    lines: tuple[Line, ...] = ()
    """The lines logged since the last snapshot, oldest first."""
    clock: bool = False


class FrameSource:
    """Takes a robot's :class:`Snapshot` every cycle, keeping what it last sent to send only what is new.

    ``anchored`` says whether the global pose stands on a map; ``walls`` gives the map's walls (rows x1 y1
    x2 y2, mm) or None; ``grid`` the evidence grid; ``behaviors`` the activities' and behaviors' state as a
    JSON-able value (an empty one says nothing), looked at every ``behavior_cycles``; ``world`` the world
    to draw, or None while unknown; ``artifacts`` the map's artifacts; ``lines`` a replay's lines for the
    cycle (a live run's come through :meth:`message`). ``repeat`` (cycles, 0: never) sends the world and
    the artifacts again, for a viewer that comes later.
    """

    def __init__(
        self,
        robot: Robot,
        *,
        anchored: Callable[[], bool] = lambda: False,
        walls: Callable[[], FloatArray | None] | None = None,
        grid: Callable[[], Grid | None] | None = None,
        behaviors: Callable[[], Any] | None = None,
        behavior_cycles: int = BEHAVIOR_CYCLES,
        world: Callable[[], World | None] | None = None,
        artifacts: Callable[[], list[list[float]]] | None = None,
        lines: Callable[[], list[list[str]]] | None = None,
        repeat: int = 0,
        clock: bool = False,
    ) -> None:
        from saphira.client.sensors.sonar import NO_ECHO

        self.no_echo = NO_ECHO
        self.robot = robot
        self.anchored = anchored
        self.walls = walls
        self.grid = grid
        self._grid_key: tuple[int, float] | None = None
        self.behaviors = behaviors
        self.behavior_cycles = behavior_cycles
        self.world = world
        self.artifacts = artifacts
        self.lines = lines
        self.repeat = repeat
        self.clock = clock
        self._world_sent = False
        self._artifacts: list[list[float]] | None = []  # None: send them whatever they are
        self._pending: deque[Line] = deque(maxlen=MAX_PENDING)
        self._scans = -1
        self._sonar_seen: dict[int, int] = {}
        self._walls_key: tuple[int, float] | None = None
        self._static: list[tuple[str, float, float, float]] | None = None
        self._behaviors = ""
        self._first = True

    def forget(self) -> None:
        """What was last sent may not have gone out (a dropped snapshot): send the one-off parts again."""
        self._static = None
        self._walls_key = None
        self._grid_key = None
        self._behaviors = ""
        self._world_sent = False
        self._artifacts = None

    def message(self, level: str, name: str, text: str) -> None:
        """A line logged now (from any thread): it goes with the next snapshot, or :meth:`pending`."""
        self._pending.append((self.robot.clock.now(), level, name, text))

    def pending(self) -> tuple[Line, ...]:
        """The lines logged since they were last taken (a snapshot takes them too), oldest first."""
        return tuple(self._pending.popleft() for _ in range(len(self._pending)))

    def take(self) -> Snapshot:
        """This cycle's snapshot (the robot must be connected)."""
        robot, st = self.robot, self.robot.state
        cycle = robot.scheduler.cycle
        snap = Snapshot(robot.clock.now(), st.odo_pose, st.global_pose, st.vel, st.rvel, self.anchored(),
                        clock=self.clock)  # fmt: skip
        laser = robot.reflector.laser
        if laser.scan is not None and laser.scans != self._scans and laser.scan.count >= 2:
            self._scans = laser.scans
            snap.scan = laser.scan
        buckets = robot.sonar.buckets
        if any(b.count != self._sonar_seen.get(b.index, 0) for b in buckets):
            self._sonar_seen = {b.index: b.count for b in buckets}
            snap.sonar = [(b.x, b.y) for b in buckets if b.range < self.no_echo and b.count > 0]
        static = self._static_frames(snap.scan)
        if static != self._static:
            self._static = snap.static = static
        first, self._first = self._first, False
        every = STATUS_CYCLES if self._walls_key in (None, (0, 0.0)) else MAP_CHECK_CYCLES  # none yet: look soon
        if self.walls is not None and (first or cycle % every == 0):
            walls = self.walls()
            key = (0, 0.0) if walls is None else (len(walls), round(float(walls.sum()), 3))
            if key != self._walls_key:
                self._walls_key = key
                snap.walls = walls.copy() if walls is not None and len(walls) else None
        if self.grid is not None and self._walls_key == (0, 0.0) and (first or cycle % MAP_CHECK_CYCLES == 0):
            self._take_grid(snap, self.grid())  # no map: the evidence grid, if one is kept
        if first or cycle % STATUS_CYCLES == 0:
            snap.battery, snap.motors = st.battery, st.motors_enabled
            snap.bumpers = (st.front_bumpers, st.rear_bumpers)
        if self.behaviors is not None and (first or cycle % self.behavior_cycles == 0):
            value = self.behaviors()
            text = json.dumps(value, separators=(",", ":"))
            if value and text != self._behaviors:
                self._behaviors = snap.behaviors = text
        self._take_scene(snap, cycle)
        return snap

    def _take_scene(self, snap: Snapshot, cycle: int) -> None:
        """The world once it is known, the artifacts when they change, the lines logged; with :attr:`repeat`
        the world and the artifacts again every so many cycles."""
        if self.repeat > 0 and cycle % self.repeat == 0:
            self._world_sent, self._artifacts = False, None
        if not self._world_sent and self.world is not None:
            snap.world = self.world()
            self._world_sent = snap.world is not None
        if self.artifacts is not None:
            rows = self.artifacts()
            if rows != self._artifacts:
                self._artifacts = snap.artifacts = rows
        snap.lines = self.pending()
        if self.lines is not None:
            snap.lines += tuple((snap.time, level, name, text) for level, name, text in self.lines())

    def _take_grid(self, snap: Snapshot, grid: Grid | None) -> None:
        key = None if grid is None else (int(grid.seen.sum()), round(float(grid.probabilities.sum()), 3))
        if grid is not None and key != self._grid_key:
            self._grid_key = key
            snap.grid = grid

    def _static_frames(self, scan: LaserScan | None) -> list[tuple[str, float, float, float]]:
        frames = self._static or [("sonar", 0.0, 0.0, 0.0)] + [
            (f"sonar_{u.index}", u.x, u.y, u.th) for u in self.robot.params.sonar_units
        ]
        if scan is not None and not any(name == "laser" for name, *_ in frames):
            frames = [*frames, ("laser", scan.mount_x, scan.mount_y, 0.0)]
        return frames
