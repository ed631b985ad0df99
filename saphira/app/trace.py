"""What a run leaves behind: the robot's path and the sonar hits in the global frame, and a status line.

:class:`RunTrace` is an *observe*-phase task. Every cycle it takes the robot's global pose and, when a
plot wants them, turns each new sonar echo into a global point, so a plot (:mod:`saphira.app.plot`) can
draw the run over the world.

With a simulator, ``truth`` gives the robot's true pose: :attr:`RunTrace.true_path` records it, and
the sonar hits are placed with it, so a plot shows where the robot really went and what it really
heard, beside its own (odometric) estimate in :attr:`RunTrace.path`.

A robot may run all day, so nothing here grows with the run's length. The path keeps at most
``max_points`` poses in a buffer allocated once: when full, every other one is dropped and from then
on only every second kept pose, so a long run's plot is the same path drawn with fewer vertices (at
100 ms cycles and the default 16384 points, an hour is one pose every 0.4 s, four hours one every
1.6 s). The sonar hits are kept only when asked for (for a plot), binned into 25 mm cells, each cell
once; past ``max_hits`` occupied cells the cells double in size. The last ``scans`` laser scans are
kept (for a plot) as global points, placed with the pose of the cycle they arrived in. The distance
travelled is summed every cycle, so it stays exact.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from saphira.client.sensors.sonar import NO_ECHO
from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.core.tasks import Phase, Task, TaskState
from saphira.robot import Robot

PLOT_SCANS = 3
"""Laser scans a run keeps for its plot: the last few, enough to show what the laser saw at the end."""

_KEY_OFFSET = 1 << 30  # cell indices are offset to pack (i, j) into one non-negative int64 below 2**62
_KEY_SHIFT = 1 << 31


class DecimatedPath:
    """Up to ``capacity`` samples of a few floats each, evenly thinned out as more arrive.

    Sample ``n`` (counting from 0) is kept while ``n`` is a multiple of the current stride; the stride
    doubles whenever the buffer fills, which halves what is kept. :attr:`last` is always the newest
    sample, so the path ends where the robot is.
    """

    def __init__(self, width: int, capacity: int) -> None:
        if capacity < 2:
            raise ValueError("a decimated path needs room for at least 2 samples")
        self.capacity = capacity
        self.stride = 1
        self._data: FloatArray = np.zeros((capacity, width))
        self._kept = 0
        self._offered = 0
        self.last: tuple[float, ...] | None = None

    def __len__(self) -> int:
        """The number of samples :meth:`samples` returns."""
        return self._kept + (1 if self._offered and (self._offered - 1) % self.stride != 0 else 0)

    def append(self, sample: tuple[float, ...]) -> None:
        if self._offered % self.stride == 0:
            if self._kept == self.capacity:
                half = self._data[: self._kept : 2]
                self._kept = len(half)
                self._data[: self._kept] = half
                self.stride *= 2
            if self._offered % self.stride == 0:
                self._data[self._kept] = sample
                self._kept += 1
        self._offered += 1
        self.last = sample

    def samples(self) -> list[tuple[float, ...]]:
        """The kept samples, oldest first, ending with the newest one."""
        out = [tuple(row) for row in self._data[: self._kept].tolist()]
        if self.last is not None and (self._offered - 1) % self.stride != 0:
            out.append(self.last)
        return out


class HitCloud:
    """Global sonar hits binned into square cells; each occupied cell is kept once, as its centre.

    New hits wait in a short list and are merged into a sorted array of packed cell keys, so memory
    is ``max_hits`` int64s whatever the run's length; past ``max_hits`` cells the cells double in size.
    """

    _BATCH = 4096

    def __init__(self, cell: float = 25.0, max_hits: int = 60_000) -> None:
        self.cell = cell
        self.max_hits = max_hits
        self._keys: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._pending: list[int] = []

    def add(self, x: float, y: float) -> None:
        i = math.floor(x / self.cell) + _KEY_OFFSET
        j = math.floor(y / self.cell) + _KEY_OFFSET
        self._pending.append(i * _KEY_SHIFT + j)
        if len(self._pending) >= self._BATCH:
            self._merge()

    def _merge(self) -> None:
        if self._pending:
            keys = np.array(self._pending, dtype=np.int64)
            self._pending.clear()
            self._keys = np.unique(np.concatenate([self._keys, keys]))
        while len(self._keys) > self.max_hits:
            i, j = np.divmod(self._keys, _KEY_SHIFT)
            i = (i - _KEY_OFFSET) // 2 + _KEY_OFFSET
            j = (j - _KEY_OFFSET) // 2 + _KEY_OFFSET
            self._keys = np.unique(i * _KEY_SHIFT + j)
            self.cell *= 2

    def __len__(self) -> int:
        self._merge()
        return len(self._keys)

    def points(self) -> list[tuple[float, float]]:
        """The centre of every occupied cell, in mm."""
        self._merge()
        i, j = np.divmod(self._keys, _KEY_SHIFT)
        xs = (i - _KEY_OFFSET + 0.5) * self.cell
        ys = (j - _KEY_OFFSET + 0.5) * self.cell
        return list(zip(xs.tolist(), ys.tolist(), strict=True))


class RunTrace(Task):
    """Records the global path and (with ``hits``) the global sonar hits of one robot, once per cycle."""

    def __init__(
        self,
        robot: Robot,
        *,
        every: int = 1,
        truth: Callable[[], Pose] | None = None,
        hits: bool = False,
        scans: int = 0,
        max_points: int = 16384,
        max_hits: int = 60_000,
    ) -> None:
        super().__init__("trace", phase=Phase.OBSERVE)
        self.robot = robot
        self.every = every
        self.truth = truth
        self.hit_cloud = HitCloud(max_hits=max_hits) if hits else None
        self._path = DecimatedPath(6, max_points)  # odometric x, y, th; true x, y, th (NaN when unknown)
        self._seen: dict[int, int] = {}
        self._scans: deque[tuple[FloatArray, FloatArray]] = deque(maxlen=scans)
        self._scan_seen = robot.reflector.laser.scans
        self._odometric_mm = 0.0
        self._true_mm = 0.0

    def step(self, state: int) -> int:
        robot = self.robot
        if robot.connected and robot.scheduler.cycle % self.every == 0:
            st = robot.state
            x, y, th = st.ax, st.ay, st.ath
            true = self.truth() if self.truth is not None else (math.nan, math.nan, math.nan)
            sample = (x, y, th, *true)
            previous = self._path.last
            if previous is not None:
                self._odometric_mm += math.hypot(x - previous[0], y - previous[1])
                if not math.isnan(true[0]) and not math.isnan(previous[3]):
                    self._true_mm += math.hypot(true[0] - previous[3], true[1] - previous[4])
            self._path.append(sample)
            if self.truth is not None:
                x, y, th = true
            if self.hit_cloud is not None:
                self._add_hits(x, y, th)
            if self._scans.maxlen:
                self._add_scan(x, y, th)
        return TaskState.RESUME if state == TaskState.INIT else state

    def _add_scan(self, x: float, y: float, th: float) -> None:
        laser = self.robot.reflector.laser
        if laser.scan is None or laser.scans == self._scan_seen:
            return
        self._scan_seen = laser.scans
        lx, ly = laser.scan.points()
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        self._scans.append((x + c * lx - s * ly, y + s * lx + c * ly))

    def _add_hits(self, x: float, y: float, th: float) -> None:
        assert self.hit_cloud is not None
        rad = math.radians(th)
        c, s = math.cos(rad), math.sin(rad)
        for bucket in self.robot.sonar.buckets:
            if bucket.count != self._seen.get(bucket.index, 0):
                self._seen[bucket.index] = bucket.count
                if bucket.range < NO_ECHO:
                    self.hit_cloud.add(x + c * bucket.x - s * bucket.y, y + s * bucket.x + c * bucket.y)

    @property
    def path(self) -> list[Pose]:
        """The robot's odometric global poses (x, y mm, th deg), decimated on a long run."""
        return [Pose(p[0], p[1], p[2]) for p in self._path.samples()]

    @property
    def true_path(self) -> list[Pose]:
        """The simulator's true poses at the same instants as :attr:`path`; empty without ``truth``."""
        return [Pose(p[3], p[4], p[5]) for p in self._path.samples() if not math.isnan(p[3])]

    @property
    def hits(self) -> list[tuple[float, float]]:
        """Where the sonar heard something, in global mm (cell centres); empty unless ``hits`` was asked."""
        return self.hit_cloud.points() if self.hit_cloud is not None else []

    @property
    def scans(self) -> list[tuple[FloatArray, FloatArray]]:
        """The last laser scans' points in global mm (x array, y array), oldest first."""
        return list(self._scans)

    @property
    def stride(self) -> int:
        """Traced cycles between two kept poses of :attr:`path` (1 until the path first fills)."""
        return self._path.stride

    @property
    def distance(self) -> float:
        """Length of the path in mm (the true one when known), summed every traced cycle."""
        return self._true_mm if self.truth is not None else self._odometric_mm


def status_line(robot: Robot, activities: str = "") -> str:
    """One line: cycle, global pose, velocities, link rates and what is running.

    The link rates keep the manual's names with their units: MPac is SIPs per second (10 on a
    Pioneer), SPac sonar *readings* per second (one per transducer firing: ~50 here, 25 on a
    Pioneer 1), not packets — several readings ride in one SIP.
    """
    st = robot.state
    return (
        f"cycle {robot.scheduler.cycle:6d}  pose ({st.ax:7.0f}, {st.ay:7.0f}, {st.ath:6.1f})  "
        f"v {st.vel:5.0f} mm/s  rv {st.rvel:5.1f} deg/s  MPac {st.motor_packet_count:2d} SIPs/s  "
        f"SPac {st.sonar_packet_count:3d} sonar/s  {activities}"
    )
