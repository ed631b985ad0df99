"""What one cycle of a run produced, for the outputs that turn it into messages: the one place that decides.

A :class:`FrameSource` takes a :class:`Snapshot` of its robot every cycle: plain numbers (the poses and
velocities, the battery, the bumpers), and references to what is new since the last one (a laser scan,
the sonar points, the map's walls, the static frames, the behaviors' state) that are not changed after.
Taking it is the only part that runs on the cycle; the outputs render it: Foxglove's channels
(:mod:`saphira.record.mcap_export`: MCAP and the live server) and ROS 2's messages
(:mod:`saphira.ros2.frames`: DDS and ROS 2 bags).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from saphira.core.arrays import FloatArray

if TYPE_CHECKING:  # not imported at run time: ROS 2's DDS process reads snapshots without the sensor modules
    from saphira.client.sensors.laser import LaserScan
    from saphira.robot import Robot

__all__ = ["BEHAVIOR_CYCLES", "MAP_CHECK_CYCLES", "STATUS_CYCLES", "FrameSource", "Grid", "Snapshot"]

STATUS_CYCLES = 10
"""Cycles between two copies of the slow topics (battery, bumpers, motors): 1 s at 100 ms."""
MAP_CHECK_CYCLES = 50
"""Cycles between two looks at whether the map's walls changed (:data:`STATUS_CYCLES` while there are none)."""
BEHAVIOR_CYCLES = 5
"""Cycles between two looks at the running activities and behaviors."""


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
    odom: tuple[float, float, float]
    pose: tuple[float, float, float]
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
    clock: bool = False


class FrameSource:
    """Takes a robot's :class:`Snapshot` every cycle, keeping what it last sent to send only what is new.

    ``anchored`` says whether the global pose stands on a map; ``walls`` gives the map's walls (rows x1 y1
    x2 y2, mm) or None; ``behaviors`` the activities' and behaviors' state as a JSON-able value (an output
    that does not want the walls or the behaviors from here leaves them out).
    """

    def __init__(
        self,
        robot: Robot,
        *,
        anchored: Callable[[], bool] = lambda: False,
        walls: Callable[[], FloatArray | None] | None = None,
        grid: Callable[[], Grid | None] | None = None,
        behaviors: Callable[[], Any] | None = None,
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
        self.clock = clock
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

    def take(self) -> Snapshot:
        """This cycle's snapshot (the robot must be connected)."""
        robot, st = self.robot, self.robot.state
        cycle = robot.scheduler.cycle
        snap = Snapshot(robot.clock.now(), (st.odo_x, st.odo_y, st.odo_th), (st.ax, st.ay, st.ath), st.vel,
                        st.rvel, self.anchored(), clock=self.clock)  # fmt: skip
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
        if self.behaviors is not None and (first or cycle % BEHAVIOR_CYCLES == 0):
            text = json.dumps(self.behaviors(), separators=(",", ":"))
            if text != self._behaviors:
                self._behaviors = snap.behaviors = text
        return snap

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
