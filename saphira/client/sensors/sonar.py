"""Sonar in the state reflector: current readings (buckets) and the LPS ring buffers (docs/colbert.md §7).

* A **bucket** per sonar holds the latest reading: range (mm; 5000 = no echo), the reading point in
  robot coordinates, the odometric robot pose when it was read, and the ``new`` flag.
* **Ring buffers** accumulate readings in the LPS (robot frame, +x forward, +y left) and are moved with
  the robot so they stay registered. The front buffer gets an entry for *every* firing of a front
  sonar, a miss being stored as invalid, so it clears itself when nothing is ahead; a front reading
  beyond :attr:`Sonar.front_max_range` counts as a miss. Side buffers keep only real echoes, so they
  persist for wall finding.

Which sonars are "front" or "side" the manual leaves open (its Pioneer 1 has five forward-facing and
two side-facing units). Decided here by bearing: within ±60° of ahead is front, within 60°..120° either
side is left/right, and the rest (the P2/P3 rear ring) goes to a **back** buffer with the front buffer's
semantics and size, so rear obstacles do not crowd front ones out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from saphira.core.arrays import BoolArray, FloatArray
from saphira.core.geometry import Pose
from saphira.core.jit import kernel

if TYPE_CHECKING:
    from saphira.client.sensors.device import LpsSource

NO_ECHO = 5000
"""Range reported for a sonar that heard no echo; also what occupancy queries return for 'nothing'."""

CBUF_LEN = 200
"""Capacity of each ring buffer (the manual's ``CBUF_LEN``)."""

DEFAULT_FRONT_MAX_RANGE = 2500.0

T = TypeVar("T")


class Region(IntEnum):
    """Directions and buffer selections for occupancy queries (the manual's sfFRONT, sfSIDES, …)."""

    FRONT = 1
    SIDES = 2
    ALL = 3
    BACK = 4
    LEFT = 5
    RIGHT = 6


_SOURCES = {
    Region.FRONT: (Region.FRONT,),
    Region.BACK: (Region.BACK,),
    Region.LEFT: (Region.LEFT,),
    Region.RIGHT: (Region.RIGHT,),
    Region.SIDES: (Region.LEFT, Region.RIGHT),
    Region.ALL: (Region.FRONT, Region.BACK, Region.LEFT, Region.RIGHT),
}
"""The ring buffers each occupancy-query source pools."""


@dataclass(frozen=True)
class SonarPose:
    """Where a transducer sits on the body: mm, mm, bearing in degrees."""

    x: float
    y: float
    th: float


@dataclass
class SonarBucket:
    """The latest reading of one sonar (``sdata`` in the manual)."""

    index: int
    pose: SonarPose
    range: int = NO_ECHO
    x: float = 0.0
    """Reading point in robot coordinates: on the sonar axis at the measured range."""
    y: float = 0.0
    robot_x: float = 0.0
    """Odometric robot pose when the reading was taken."""
    robot_y: float = 0.0
    robot_th: float = 0.0
    global_x: float = 0.0
    """Global robot pose when the reading was taken."""
    global_y: float = 0.0
    global_th: float = 0.0
    new: bool = False
    count: int = 0


class RingBuffer:
    """A fixed-capacity ring of LPS points with validity flags (the manual's ``cbuf``)."""

    def __init__(
        self,
        limit: int,
        storage: tuple[FloatArray, FloatArray, BoolArray] | None = None,
    ) -> None:
        """``storage``: the (xs, ys, valid) arrays of :data:`CBUF_LEN` entries to use, when the owner
        keeps several buffers in one array to move them together (:meth:`Sonar.move`)."""
        if storage is None:
            storage = np.zeros(CBUF_LEN), np.zeros(CBUF_LEN), np.zeros(CBUF_LEN, dtype=bool)
        self.xs, self.ys, self.valid = storage
        self.limit = 0
        self._head = 0
        self.added = 0
        """Entries added since the last clear (interpretation uses it to tell new entries from old)."""
        self.version = 0
        """Bumped by every change to the entries, so :meth:`Sonar.points` can cache what it pools."""
        self.set_limit(limit)

    def set_limit(self, limit: int) -> None:
        """Resize to ``limit`` entries (0 only clears). Resizing clears, as in the manual."""
        if limit < 0 or limit > CBUF_LEN:
            raise ValueError(f"buffer size must be 0..{CBUF_LEN}, got {limit}")
        if limit > 0:
            self.limit = limit
        self.clear()

    def clear(self) -> None:
        self.valid[:] = False
        self._head = 0
        self.added = 0
        self.version += 1

    def add(self, x: float, y: float, valid: bool) -> None:
        if self.limit == 0:
            return
        i = self._head
        self.xs[i] = x
        self.ys[i] = y
        self.valid[i] = valid
        self._head = (i + 1) % self.limit
        self.added += 1
        self.version += 1

    def recent(self, n: int) -> tuple[FloatArray, FloatArray]:
        """The valid entries among the newest ``n``, oldest first."""
        return _ring_recent(
            self.xs, self.ys, self.valid, self._head, max(0, min(n, self.limit, self.added)), self.limit
        )

    def points(self) -> tuple[FloatArray, FloatArray]:
        """The valid entries' x and y arrays."""
        mask = self.valid[: self.limit]
        return self.xs[: self.limit][mask], self.ys[: self.limit][mask]


@kernel(lambda: (np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.bool_), 0, 0, 1))
def _ring_recent(
    xs: FloatArray, ys: FloatArray, valid: BoolArray, head: int, n: int, limit: int
) -> tuple[FloatArray, FloatArray]:
    """:meth:`RingBuffer.recent`, compiled: the valid entries among the ``n`` before ``head``, oldest first."""
    out_x, out_y = np.empty(n), np.empty(n)
    count = 0
    for back in range(n, 0, -1):
        i = (head - back) % limit
        if valid[i]:
            out_x[count], out_y[count] = xs[i], ys[i]
            count += 1
    return out_x[:count], out_y[:count]


@kernel(lambda: (np.zeros(1), np.zeros(1), 1.0, 0.0, 0.0, 0.0))
def move_points(xs: FloatArray, ys: FloatArray, cos_t: float, sin_t: float, dx: float, dy: float) -> None:
    """Re-express LPS points, in place, after the robot moved by (dx, dy) and turned (cos_t, sin_t)."""
    for i in range(xs.size):
        px, py = xs[i] - dx, ys[i] - dy
        xs[i], ys[i] = cos_t * px + sin_t * py, -sin_t * px + cos_t * py


def _region_of(bearing: float) -> Region:
    b = math.remainder(bearing, 360.0)
    if abs(b) <= 60.0:
        return Region.FRONT
    if 60.0 < b < 120.0:
        return Region.LEFT
    if -120.0 < b < -60.0:
        return Region.RIGHT
    return Region.BACK


def region_mask(xs: FloatArray, ys: FloatArray, source: Region) -> BoolArray:
    """Which LPS points lie in ``source``'s region by their bearing from the robot's centre (as
    :func:`_region_of` sorts the sonars); ``ALL`` takes every point."""
    if source == Region.ALL:
        return np.ones(xs.shape, dtype=bool)
    bearing = np.degrees(np.arctan2(ys, xs))
    chosen = {
        Region.FRONT: np.abs(bearing) <= 60.0,
        Region.LEFT: (bearing > 60.0) & (bearing < 120.0),
        Region.RIGHT: (bearing < -60.0) & (bearing > -120.0),
        Region.SIDES: (np.abs(bearing) > 60.0) & (np.abs(bearing) < 120.0),
        Region.BACK: np.abs(bearing) >= 120.0,
    }
    return chosen[source]


class Sonar:
    """Buckets, ring buffers and occupancy queries for one robot's sonar ring."""

    def __init__(
        self,
        poses: Sequence[SonarPose],
        *,
        front_buffer: int = 20,
        side_buffer: int = 40,
        front_max_range: float = DEFAULT_FRONT_MAX_RANGE,
    ) -> None:
        self.buckets = [SonarBucket(i, pose) for i, pose in enumerate(poses)]
        self.regions = [_region_of(pose.th) for pose in poses]
        self._axis_offsets: dict[Region, float] = {}
        for pose, region in zip(poses, self.regions, strict=True):
            self._axis_offsets[region] = min(abs(pose.y), self._axis_offsets.get(region, math.inf))
        self.front_max_range = front_max_range
        # The four buffers' entries are rows of one array, so a move is one pass over it (move_points).
        self._xs = np.zeros((4, CBUF_LEN))
        self._ys = np.zeros((4, CBUF_LEN))
        self._valid = np.zeros((4, CBUF_LEN), dtype=bool)
        self.buffers: dict[Region, RingBuffer] = {
            region: RingBuffer(limit, (self._xs[row], self._ys[row], self._valid[row]))
            for row, (region, limit) in enumerate(
                ((Region.FRONT, front_buffer), (Region.BACK, front_buffer),
                 (Region.LEFT, side_buffer), (Region.RIGHT, side_buffer))
            )
        }  # fmt: skip
        self.joined: list[LpsSource] = []
        """Other range sensors' LPS points (the laser's, :meth:`join`): every occupancy query pools them with
        the sonar's, and :meth:`move` keeps them registered."""
        self._buffer_list = list(self.buffers.values())
        self._cache: dict[Hashable, object] = {}
        self._cache_state: tuple[object, ...] = ()

    def join(self, source: LpsSource) -> None:
        """Pool ``source``'s points (a range sensor's, :mod:`saphira.client.sensors.device`) with the sonar's."""
        self.joined.append(source)

    # -------------------------------------------------------------- readings
    def add_reading(
        self,
        index: int,
        range_mm: int,
        robot_pose: Pose,
        global_pose: Pose | None = None,
    ) -> bool:
        """Record one new reading; returns False (and ignores it) for a sonar the robot does not have.

        ``robot_pose`` is the odometric pose, ``global_pose`` the global one (default: the same).
        """
        if not 0 <= index < len(self.buckets):
            return False
        bucket = self.buckets[index]
        pose = bucket.pose
        rad = math.radians(pose.th)
        x = pose.x + range_mm * math.cos(rad)
        y = pose.y + range_mm * math.sin(rad)
        bucket.range = range_mm
        bucket.x, bucket.y = x, y
        bucket.robot_x, bucket.robot_y, bucket.robot_th = robot_pose
        bucket.global_x, bucket.global_y, bucket.global_th = robot_pose if global_pose is None else global_pose
        bucket.new = True
        bucket.count += 1
        region = self.regions[index]
        if region in (Region.FRONT, Region.BACK):
            self.buffers[region].add(x, y, range_mm < NO_ECHO and range_mm <= self.front_max_range)
        elif range_mm < NO_ECHO:
            self.buffers[region].add(x, y, True)
        return True

    def move(self, dx: float, dy: float, dth: float) -> None:
        """The robot moved (dx, dy) in its previous frame and turned dth degrees: keep the LPS registered."""
        if dx == 0.0 and dy == 0.0 and dth == 0.0:
            return
        rad = math.radians(dth)
        c, s = math.cos(rad), math.sin(rad)
        # All four buffers' rows at once (entries past a buffer's limit are never read: resizing clears).
        move_points(self._xs.reshape(-1), self._ys.reshape(-1), c, s, dx, dy)
        for buffer in self._buffer_list:
            buffer.version += 1
        for joined in self.joined:
            if joined.size:
                joined.move(c, s, dx, dy)

    def axis_offset(self, region: Region) -> float:
        """How far the nearest transducer of ``region`` sits from the robot's long axis (mm; 0: none)."""
        return self._axis_offsets.get(region, 0.0)

    def range(self, index: int) -> int:
        return self.buckets[index].range if 0 <= index < len(self.buckets) else NO_ECHO

    def take_new(self, index: int) -> bool:
        """True once per new reading of sonar ``index`` (``sfSonarNew`` clears the flag)."""
        if not 0 <= index < len(self.buckets):
            return False
        bucket = self.buckets[index]
        was_new, bucket.new = bucket.new, False
        return was_new

    def set_front_buffer(self, n: int) -> None:
        """n > 0 resizes the front (and back) buffer; 0 clears it."""
        self.buffers[Region.FRONT].set_limit(n)
        self.buffers[Region.BACK].set_limit(n)

    def set_side_buffer(self, n: int) -> None:
        self.buffers[Region.LEFT].set_limit(n)
        self.buffers[Region.RIGHT].set_limit(n)

    def clear(self) -> None:
        for buffer in self.buffers.values():
            buffer.clear()

    def _state(self) -> tuple[object, ...]:
        """Changes whenever a buffer's entries or a joined sensor's points do: the key of :meth:`cached`."""
        return (*[b.version for b in self._buffer_list], *[(j, j.version) for j in self.joined])

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per state of the buffers and the joined sensors' points.

        Behaviors share what they derive from the same readings this way (avoid_collision and keep_off
        both need the path clearance), and repeated occupancy queries in a cycle pool the points once.
        ``key`` must name everything besides the readings that the result depends on.
        """
        state = self._state()
        if state != self._cache_state:
            self._cache.clear()
            self._cache_state = state
        try:
            return cast(T, self._cache[key])
        except KeyError:
            value = self._cache[key] = compute()
            return value

    def points(self, source: Region = Region.ALL) -> tuple[FloatArray, FloatArray]:
        """Valid LPS points of the buffers ``source`` selects (FRONT, BACK, SIDES, LEFT, RIGHT or ALL),
        and the joined sensors' (the laser's) points in that region when there are any. The arrays are
        read-only: they are shared until the readings change."""
        return self.cached(("points", source), lambda: self._pool(source))

    def _pool(self, source: Region) -> tuple[FloatArray, FloatArray]:
        if source == Region.ALL:  # no entry past a buffer's limit is valid (resizing clears them all)
            parts = [(self._xs[self._valid], self._ys[self._valid])]
        else:
            parts = [self.buffers[r].points() for r in _SOURCES[source]]
        parts.extend(joined.points(source) for joined in self.joined if joined.size)
        if len(parts) == 1:
            xs, ys = parts[0]
        else:
            xs, ys = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        xs.flags.writeable = False
        ys.flags.writeable = False
        return xs, ys

    # -------------------------------------------------------------- occupancy (docs/colbert.md §7)
    def occ_box_ret(
        self, xy: Region, cx: float, cy: float, h: float, w: float, source: Region = Region.ALL
    ) -> tuple[int, float, float]:
        """Nearest reading in the box centred on (cx, cy), ``h`` long in x and ``w`` wide in y.

        Returns (distance, x, y): the distance is |x| for ``FRONT`` and |y| for ``SIDES``, always
        positive; ``(5000, 0, 0)`` when the box is empty.
        """
        xs, ys = self.points(source)
        mask = (np.abs(xs - cx) <= h / 2) & (np.abs(ys - cy) <= w / 2)
        if not mask.any():
            return NO_ECHO, 0.0, 0.0
        along = np.abs(xs[mask]) if xy in (Region.FRONT, Region.BACK) else np.abs(ys[mask])
        i = int(np.argmin(along))
        return round(float(along[i])), float(xs[mask][i]), float(ys[mask][i])

    def occ_box(self, xy: Region, cx: float, cy: float, h: float, w: float, source: Region = Region.ALL) -> int:
        return self.occ_box_ret(xy, cx, cy, h, w, source)[0]

    def occ_plane_ret(
        self, direction: Region, source: Region, d: float, s1: float, s2: float
    ) -> tuple[int, float, float]:
        """Nearest reading beyond a baseline at distance ``d`` in ``direction``, between side limits.

        ``s1`` is the limit on the left and ``s2`` on the right *as seen looking in that direction*;
        all three are positive. Returns (distance along the direction, x, y), or (5000, 0, 0).
        """
        xs, ys = self.points(source)
        # Rotate into a frame whose +x is the query direction and +y its left.
        if direction == Region.FRONT:
            along, left = xs, ys
        elif direction == Region.BACK:
            along, left = -xs, -ys
        elif direction == Region.LEFT:
            along, left = ys, -xs
        elif direction == Region.RIGHT:
            along, left = -ys, xs
        else:
            raise ValueError(f"occ_plane direction must be FRONT, BACK, LEFT or RIGHT, not {direction.name}")
        mask = (along > d) & (left <= s1) & (left >= -s2)
        if not mask.any():
            return NO_ECHO, 0.0, 0.0
        i = int(np.argmin(np.where(mask, along, np.inf)))
        return round(float(along[i])), float(xs[i]), float(ys[i])

    def occ_plane(self, direction: Region, source: Region, d: float, s1: float, s2: float) -> int:
        return self.occ_plane_ret(direction, source, d, s1, s2)[0]
