"""A global sonar occupancy grid in the spirit of MURIEL (Saphira manual: Display→Occ Grid; Konolige 1997).

Saphira's Display→Occ Grid drew an evidence grid built with Konolige's MURIEL ("MUltiple Representation
Independent Evidence Log"). Plain Elfes-style grids break on sonar: a smooth wall met at a high angle
reflects the ping away (specular reflection), the reading comes back long or not at all, and the beam
"clears" the very wall it passed. MURIEL keeps the log-odds form of evidence but does not trust every
reading alike. This grid does the same, in numpy, with the choices below.

**Cells.** A square grid (:attr:`OccupancyGrid.resolution`, default 100 mm) in the *global* frame,
growing as readings reach outside it. Each cell holds the log-odds ``L`` of being occupied (0 is
unknown, p = 0.5), the amount of evidence it has received (``seen``) and an estimate of the orientation
of the surface in it: the doubled-angle mean of the directions of the beams that echoed off it (a
sonar only hears a surface it meets close to square, so echoing beams run roughly along the normal).

**Beam model.** A reading is a cone of half-angle :data:`BEAM_HALF_ANGLE` from the transducer's global
pose (the robot's global pose when it was read, composed with the transducer's pose on the body).
The cone is sampled once, in the sensor frame, on a polar template with samples
:data:`RADIAL_SPACING` cells apart in range and :data:`SAMPLE_SPACING` across; each sample stands for
its share of a cell's area, so summing samples integrates the cone over each cell whatever the range.
Across the cone the evidence falls off as
``1 - (a / half_angle)²``. For a reading of range ``r``:

* samples closer than ``r - tol`` (``tol`` = max(one cell, 2 % of r)) get *free* evidence
  (``-L_FREE`` per cell fully covered);
* samples within ``tol`` of ``r`` get *occupied* evidence, ``+L_OCC`` per cell, divided over the arc
  when the arc is longer than :data:`ARC_REFERENCE` (the echo came from one place on it);
* free evidence stops at :data:`FREE_RANGE` (3 m): farther cells are left alone.

**Less trustworthy readings (MURIEL).**

* *Max-range readings* (no echo, or beyond :data:`ECHO_RANGE`) mostly mean the ping glanced off a
  wall, not that the cone is empty: they clear only up to :data:`NO_ECHO_FREE_RANGE`, at
  :data:`NO_ECHO_WEIGHT` of a normal reading's weight.
* *High incidence*: where a beam passes a cell in which a surface has echoed before, and meets that
  surface at more than :data:`SPECULAR_START` from its normal, the reading may well have bounced off
  it (and what it then heard lies elsewhere); its free evidence for that cell is scaled by
  ``1 - P(specular) · known``, with P(specular) rising smoothly to 1 at :data:`SPECULAR_FULL` and
  ``known`` the surface's accumulated echo evidence over :data:`SURFACE_KNOWN` (at most 1). So
  glancing beams cannot erase a wall, while a beam meeting the surface square and going through
  is believed: the obstacle has moved.
* *Redundant readings*: a transducer that has not moved (less than :data:`REDUNDANT_MOVE` mm and
  :data:`REDUNDANT_TURN`°) since its last integrated reading adds nothing: a robot standing still
  would otherwise hear the same echo a hundred times and grow certain of it.

``L`` is clamped to ±:data:`L_MAX` so the grid can still change its mind.

**Task.** :func:`start_occupancy_grid` adds the micro-task :data:`TASK_NAME` (``"occ grid"``,
``INTERPRET`` phase) that feeds every new sonar reading into the robot's grid each cycle; the Colbert
binding is ``sfInitOccGridProcs()`` (``saphira/colbert/bindings/maps.py``). Suspending the task
(``sfSuspendTask("occ grid", 0)``) pauses the grid. A live view shows :meth:`OccupancyGrid.probabilities`
(row 0 at :attr:`OccupancyGrid.origin`'s y, the southernmost), or the compact
:meth:`OccupancyGrid.view_image`, when ``sfOCCGRID`` is on.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from saphira.client.reflector import Reflector
from saphira.client.sensors.sonar import NO_ECHO, Sonar
from saphira.core.arrays import FloatArray
from saphira.core.attached import Attached
from saphira.core.geometry import Pose
from saphira.core.tasks import Phase, Scheduler, Task, TaskState

__all__ = [
    "OccupancyGrid",
    "OccupancyTask",
    "grid_image",
    "occupancy_grid_for",
    "start_occupancy_grid",
]


TASK_NAME = "occ grid"
"""The micro-task that updates a robot's grid."""

BEAM_HALF_ANGLE = 12.5
"""deg: half the sonar cone (the Polaroid transducer's main lobe; the simulator's beam)."""
FREE_RANGE = 3000.0
"""mm: free evidence stops here; farther cells are left alone."""
ECHO_RANGE = 4500.0
"""mm: readings beyond this are treated as max-range (no echo)."""
NO_ECHO_FREE_RANGE = 1500.0
"""mm: how far a max-range reading clears."""
NO_ECHO_WEIGHT = 0.3
"""Weight of a max-range reading's free evidence, relative to an echo's."""
L_FREE = 0.5
"""Log-odds taken off a cell the free part of a cone fully covers."""
L_OCC = 1.2
"""Log-odds added to a cell the echo's arc fully covers (arcs up to ARC_REFERENCE long)."""
ARC_REFERENCE = 400.0
"""mm: longer arcs share their occupied evidence (the echo came from one place on the arc)."""
L_MAX = 8.0
"""Log-odds clamp."""
SPECULAR_START = 35.0
"""deg of incidence where a beam begins to risk bouncing off a surface."""
SPECULAR_FULL = 60.0
"""deg of incidence beyond which a smooth surface returns nothing (the simulator's max incidence)."""
SURFACE_KNOWN = 0.5
"""Occupied evidence (summed along echoing beams) at which a cell's surface counts as fully known."""
REDUNDANT_MOVE = 50.0
"""mm a transducer must move before its next reading counts."""
REDUNDANT_TURN = 3.0
"""deg a transducer must turn before its next reading counts (if it has not moved)."""
RADIAL_SPACING = 0.5
"""Cone samples lie this many cells apart in range (a divisor of 1: every cell row gets as many)."""
SAMPLE_SPACING = 0.9
"""And at most this many cells apart across the cone."""
GROW_MARGIN = 5000.0
"""mm added on each side when the grid grows."""
OCCUPIED = 0.0
"""Log-odds above which :meth:`OccupancyGrid.occupied` calls a cell occupied (p > 0.5)."""
SEEN = 0.5
"""Evidence (sum of |log-odds| received) above which a cell counts as seen."""


def _template(resolution: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The polar samples of one cone, by increasing range: rho, cos a, sin a, angle falloff, area share."""
    step = RADIAL_SPACING * resolution
    across = SAMPLE_SPACING * resolution
    half = math.radians(BEAM_HALF_ANGLE)
    rhos, angles, areas = [], [], []
    rho = step / 2.0
    while rho <= ECHO_RANGE + step:
        n = max(3, math.ceil(2.0 * half * rho / across) + 1)
        da = 2.0 * half / n
        a = -half + da * (np.arange(n) + 0.5)
        rhos.append(np.full(n, rho))
        angles.append(a)
        areas.append(np.full(n, step * rho * da / resolution**2))
        rho += step
    rho_all, a_all = np.concatenate(rhos), np.concatenate(angles)
    falloff = 1.0 - (a_all / half) ** 2
    return rho_all, np.cos(a_all), np.sin(a_all), falloff, np.concatenate(areas)


@dataclass(eq=False)
class OccupancyGrid:
    """A growing global log-odds grid; see the module's docstring for the sensor model.

    ``origin`` is the global (x, y) mm of the lower-left corner of cell ``[0, 0]``; cell ``[i, j]``
    covers x in ``origin.x + j·res .. + res`` and y in ``origin.y + i·res .. + res``.
    """

    resolution: float = 100.0
    origin_x: float = 0.0
    origin_y: float = 0.0
    log_odds: FloatArray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    seen: FloatArray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    readings: int = 0
    skipped: int = 0
    specular_discount: bool = True
    """MURIEL's distrust of high-incidence and max-range readings; False gives a plain log-odds grid."""

    def __post_init__(self) -> None:
        if self.resolution <= 0.0:
            raise ValueError("the grid's resolution must be positive")
        self._normal_c = np.zeros(self.log_odds.shape)
        self._normal_s = np.zeros(self.log_odds.shape)
        self._rho, self._ca, self._sa, falloff, area = _template(self.resolution)
        self._base = falloff * area
        self._cos_start = math.cos(math.radians(SPECULAR_START))
        self._cos_full = math.cos(math.radians(SPECULAR_FULL))

    # ------------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns): rows along y, columns along x."""
        rows, cols = self.log_odds.shape
        return rows, cols

    @property
    def origin(self) -> tuple[float, float]:
        return self.origin_x, self.origin_y

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) in global mm."""
        rows, cols = self.shape
        return (self.origin_x, self.origin_y,
                self.origin_x + cols * self.resolution, self.origin_y + rows * self.resolution)  # fmt: skip

    def ensure(self, xmin: float, ymin: float, xmax: float, ymax: float) -> None:
        """Grow the grid (by :data:`GROW_MARGIN` beyond what is asked) so it covers the box.

        The origin stays on a multiple of the resolution, so cells keep their place when it grows.
        """
        res = self.resolution
        rows, cols = self.shape
        x0, y0, x1, y1 = self.extent
        if rows and cols and xmin >= x0 and ymin >= y0 and xmax < x1 and ymax < y1:
            return
        if not (rows and cols):
            x0 = x1 = math.floor(xmin / res) * res
            y0 = y1 = math.floor(ymin / res) * res
        nx0 = x0 if xmin >= x0 else math.floor((xmin - GROW_MARGIN) / res) * res
        ny0 = y0 if ymin >= y0 else math.floor((ymin - GROW_MARGIN) / res) * res
        nx1 = x1 if xmax < x1 else math.ceil((xmax + GROW_MARGIN) / res) * res
        ny1 = y1 if ymax < y1 else math.ceil((ymax + GROW_MARGIN) / res) * res
        new_rows, new_cols = round((ny1 - ny0) / res), round((nx1 - nx0) / res)
        di, dj = round((y0 - ny0) / res), round((x0 - nx0) / res)
        arrays: list[FloatArray] = []
        for old in (self.log_odds, self.seen, self._normal_c, self._normal_s):
            grown: FloatArray = np.zeros((new_rows, new_cols))
            grown[di : di + rows, dj : dj + cols] = old
            arrays.append(grown)
        self.log_odds, self.seen, self._normal_c, self._normal_s = arrays
        self.origin_x, self.origin_y = float(nx0), float(ny0)

    # ------------------------------------------------------------------ queries
    def cell_of(self, x: float, y: float) -> tuple[int, int] | None:
        """(row, column) of the cell holding global (x, y), or None outside the grid."""
        rows, cols = self.shape
        i = math.floor((y - self.origin_y) / self.resolution)
        j = math.floor((x - self.origin_x) / self.resolution)
        return (i, j) if 0 <= i < rows and 0 <= j < cols else None

    def log_odds_at(self, x: float, y: float) -> float:
        """Log-odds of the cell at global (x, y); 0 (unknown) outside the grid."""
        cell = self.cell_of(x, y)
        return 0.0 if cell is None else float(self.log_odds[cell])

    def occupancy(self, x: float, y: float) -> float:
        """Probability that the cell at global (x, y) is occupied; 0.5 where nothing is known."""
        return 1.0 / (1.0 + math.exp(-self.log_odds_at(x, y)))

    def probabilities(self) -> FloatArray:
        """The whole grid as occupancy probabilities (rows along y from :attr:`origin_y`)."""
        result: FloatArray = 1.0 / (1.0 + np.exp(-self.log_odds))
        return result

    def occupied(self) -> npt.NDArray[np.bool_]:
        """Cells believed occupied (log-odds above :data:`OCCUPIED`)."""
        return self.log_odds > OCCUPIED

    def seen_cells(self) -> npt.NDArray[np.bool_]:
        """Cells that received at least :data:`SEEN` evidence."""
        return self.seen >= SEEN

    def view_image(self) -> dict[str, Any]:
        """The grid as a live view draws it (``sfOCCGRID``): the box of cells with any evidence, 8 bits each.

        ``{"origin": [x, y], "resolution": mm, "rows": n, "cols": m, "cells": base64}``: ``origin`` is
        the global mm of the box's lower-left corner; ``cells`` holds ``rows × cols`` bytes, row 0 the
        southernmost, each the occupancy probability scaled to 0..255 (128: unknown). An empty grid
        gives 0 rows and columns. Small enough to send every display period (a 20 m × 10 m floor at
        100 mm is 20 kB).
        """
        return grid_image(self.log_odds, self.seen, self.origin, self.resolution)

    # ------------------------------------------------------------------ updates
    def integrate(self, sensors: FloatArray, ranges: FloatArray) -> None:
        """Add readings: ``sensors`` is ``(N, 3)`` global transducer poses (mm, mm, deg), ``ranges`` mm.

        Redundancy is the caller's business (:class:`OccupancyTask` drops readings from a transducer
        that has not moved); here every reading counts.
        """
        sensors = np.asarray(sensors, dtype=np.float64).reshape(-1, 3)
        ranges = np.asarray(ranges, dtype=np.float64).reshape(-1)
        if not len(ranges):
            return
        n = len(ranges)
        echo = ranges < min(ECHO_RANGE, NO_ECHO)
        tol = np.maximum(self.resolution, 0.02 * ranges)
        no_echo_reach = NO_ECHO_FREE_RANGE if self.specular_discount else FREE_RANGE
        template = self._rho
        free_n = np.searchsorted(template, np.where(echo, np.minimum(ranges - tol, FREE_RANGE), no_echo_reach))
        occ_lo = np.where(echo, np.searchsorted(template, ranges - tol), 0)
        occ_hi = np.where(echo, np.searchsorted(template, ranges + tol, side="right"), 0)
        # Two runs of template samples per reading: [0, free_n) free, [occ_lo, occ_hi) on the echo's arc.
        seg_start = np.column_stack([np.zeros(n, dtype=np.intp), occ_lo]).ravel()
        seg_count = np.column_stack([free_n, occ_hi - occ_lo]).ravel()
        total = int(seg_count.sum())
        if total == 0:
            return
        k = np.repeat(seg_start - (np.cumsum(seg_count) - seg_count), seg_count) + np.arange(total)
        owner = np.repeat(np.repeat(np.arange(n), 2), seg_count)
        occ = np.repeat(np.tile(np.array([False, True]), n), seg_count)
        free = ~occ
        rho, ca, sa = template[k], self._ca[k], self._sa[k]
        th = np.radians(sensors[:, 2])
        c, s = np.cos(th)[owner], np.sin(th)[owner]
        dir_c, dir_s = c * ca - s * sa, s * ca + c * sa
        gx = sensors[owner, 0] + rho * dir_c
        gy = sensors[owner, 1] + rho * dir_s
        self.ensure(float(gx.min()), float(gy.min()), float(gx.max()), float(gy.max()))
        res = self.resolution
        flat = (np.floor((gy - self.origin_y) / res).astype(np.intp) * self.shape[1]
                + np.floor((gx - self.origin_x) / res).astype(np.intp))  # fmt: skip
        e = echo[owner]
        base = self._base[k]
        delta = np.zeros(total)

        # Free evidence, discounted where the beam may have glanced off a surface already seen.
        if not self.specular_discount:
            delta[free] = -L_FREE * base[free]
        else:
            delta[free] = self._free_evidence(flat[free], base[free], e[free], dir_c[free], dir_s[free])
        arc = 2.0 * math.radians(BEAM_HALF_ANGLE) * ranges[owner[occ]]
        delta[occ] = L_OCC * base[occ] * np.minimum(1.0, ARC_REFERENCE / np.maximum(arc, 1.0))
        idx = flat
        np.add.at(self.log_odds.reshape(-1), idx, delta)
        np.add.at(self.seen.reshape(-1), idx, np.abs(delta))
        oi = flat[occ]
        w = delta[occ]
        np.add.at(self._normal_c.reshape(-1), oi, w * (dir_c[occ] ** 2 - dir_s[occ] ** 2))
        np.add.at(self._normal_s.reshape(-1), oi, w * 2.0 * dir_c[occ] * dir_s[occ])
        self.log_odds.flat[idx] = np.clip(self.log_odds.flat[idx], -L_MAX, L_MAX)  # repeats write one value
        self.readings += len(ranges)

    def _free_evidence(
        self, cells: npt.NDArray[np.intp], base: FloatArray, echo: npt.NDArray[np.bool_], dc: FloatArray, ds: FloatArray
    ) -> FloatArray:
        """Free evidence for samples in ``cells`` along beam directions (dc, ds), MURIEL-discounted."""
        weight = np.where(echo, 1.0, NO_ECHO_WEIGHT)
        nc, ns = self._normal_c.flat[cells], self._normal_s.flat[cells]
        strength = np.hypot(nc, ns)
        # cos(2 x angle between beam and surface normal): directions are axial, hence doubled angles.
        cos2 = np.where(
            strength > 0.0, (nc * (dc * dc - ds * ds) + ns * 2.0 * dc * ds) / np.maximum(strength, 1e-12), 1.0
        )
        cos_inc = np.sqrt(np.clip((1.0 + cos2) / 2.0, 0.0, 1.0))
        specular = np.clip((self._cos_start - cos_inc) / (self._cos_start - self._cos_full), 0.0, 1.0)
        specular = specular * specular * (3.0 - 2.0 * specular)
        known = np.minimum(1.0, strength / SURFACE_KNOWN)
        result: FloatArray = -L_FREE * base * weight * (1.0 - specular * known)
        return result


def grid_image(log_odds: FloatArray, seen: FloatArray, origin: tuple[float, float], res: float) -> dict[str, Any]:
    """:meth:`OccupancyGrid.view_image` of copies of a grid's arrays (a live view copies them in the
    control cycle and builds the image in its own thread)."""
    rows_any = np.flatnonzero((seen > 0.0).any(axis=1)) if seen.size else np.zeros(0, dtype=np.intp)
    if not len(rows_any):
        return {"origin": [origin[0], origin[1]], "resolution": res, "rows": 0, "cols": 0, "cells": ""}
    cols_any = np.flatnonzero((seen > 0.0).any(axis=0))
    i0, i1, j0, j1 = int(rows_any[0]), int(rows_any[-1]) + 1, int(cols_any[0]), int(cols_any[-1]) + 1
    box = 1.0 / (1.0 + np.exp(-log_odds[i0:i1, j0:j1]))
    cells = np.rint(box * 255.0).astype(np.uint8)
    return {
        "origin": [origin[0] + j0 * res, origin[1] + i0 * res],
        "resolution": res,
        "rows": i1 - i0,
        "cols": j1 - j0,
        "cells": base64.b64encode(cells.tobytes()).decode("ascii"),
    }


class OccupancyTask(Task):
    """The ``occ grid`` micro-task: each cycle, every new reading of ``sonar`` goes into ``grid``."""

    def __init__(self, sonar: Sonar, grid: OccupancyGrid) -> None:
        super().__init__(TASK_NAME, phase=Phase.INTERPRET)
        self.sonar = sonar
        self.grid = grid
        self._counts: dict[int, int] = {}
        self._last: dict[int, Pose] = {}

    def step(self, state: int) -> int:
        sensors: list[Pose] = []
        ranges: list[float] = []
        for bucket in self.sonar.buckets:
            if bucket.count == self._counts.get(bucket.index, 0):
                continue
            self._counts[bucket.index] = bucket.count
            th = math.radians(bucket.global_th)
            c, s = math.cos(th), math.sin(th)
            p = bucket.pose
            pose = Pose(
                bucket.global_x + c * p.x - s * p.y, bucket.global_y + s * p.x + c * p.y, bucket.global_th + p.th
            )
            last = self._last.get(bucket.index)
            if last is not None and math.dist(last[:2], pose[:2]) < REDUNDANT_MOVE:
                turn = abs(math.remainder(pose[2] - last[2], 360.0))
                if turn < REDUNDANT_TURN:
                    self.grid.skipped += 1
                    continue
            self._last[bucket.index] = pose
            sensors.append(pose)
            ranges.append(float(bucket.range))
        if ranges:
            self.grid.integrate(np.array(sensors), np.array(ranges))
        return TaskState.RESUME if state == TaskState.INIT else state


_GRIDS: Attached[Reflector, OccupancyGrid] = Attached()


def occupancy_grid_for(reflector: Reflector) -> OccupancyGrid:
    """The occupancy grid of the robot ``reflector`` reflects (made, empty, on first use)."""
    return _GRIDS.get(reflector, OccupancyGrid)


def start_occupancy_grid(reflector: Reflector, scheduler: Scheduler) -> OccupancyGrid:
    """Start the :data:`TASK_NAME` task on ``scheduler`` that keeps the grid of ``reflector``'s robot
    from its sonar (once; a second call is harmless)."""
    grid = occupancy_grid_for(reflector)
    if TASK_NAME not in scheduler:
        scheduler.add(OccupancyTask(reflector.sonar, grid))
    return grid
