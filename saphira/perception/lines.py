"""Line segments fitted to sonar points (see docs/colbert.md): robust total least squares, and gaps along a line.

A side sonar buffer is a cloud of LPS points, most of them echoes off one wall, some off whatever lies
beyond a doorway or in front of the robot. :func:`fit_segment` finds the dominant line with a small
deterministic RANSAC (lines through pairs of a subsample, scored by their inlier count), then refines
it by total least squares (the principal axis of the inliers: orthogonal residuals, so the fit does not
care how the wall is oriented) and re-selects the inliers at three times the residual RMS.
:func:`find_gaps` lists the stretches of a fitted line with no inlier: wall breaks, i.e. doors and
junctions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from saphira.core.arrays import BoolArray, FloatArray
from saphira.core.jit import kernel

INLIER_BAND = 60.0
"""mm: how far from a candidate line a point may lie and still count for it (RANSAC stage)."""

MIN_BAND = 40.0
"""mm: the refined inlier band is 3 x RMS, but never narrower than this."""

SUBSAMPLE = 14
"""Points used to propose candidate lines (all pairs of them)."""


@dataclass(frozen=True)
class Segment:
    """A fitted segment in the frame of its points: centre, direction (deg), extent and quality.

    ``ts`` are the inliers' positions along the line (mm from the centre, sorted); ``th`` is the
    direction of increasing ``ts``, folded into (-90, 90] so a segment has one orientation.
    """

    x: float
    y: float
    th: float
    length: float
    rms: float
    inliers: int
    total: int
    ts: FloatArray
    mask: BoolArray
    """Which of the points offered are inliers."""

    @property
    def normal_distance(self) -> float:
        """Signed distance from the frame's origin to the line: positive if the line is on the left."""
        rad = math.radians(self.th)
        return -math.sin(rad) * self.x + math.cos(rad) * self.y

    def sigma_angle(self) -> float:
        """Standard deviation (deg) of the fitted direction, from the residuals and the spread."""
        spread = float(np.std(self.ts)) if self.ts.size > 1 else 1.0
        return math.degrees(max(self.rms, 10.0) / (max(spread, 50.0) * math.sqrt(max(self.inliers, 2))))


def fit_segment(xs: FloatArray, ys: FloatArray, *, min_points: int = 8) -> Segment | None:
    """The dominant line through the points, or None if fewer than ``min_points`` support one."""
    n = xs.size
    if n < min_points:
        return None
    mask = np.empty(n, dtype=np.bool_)
    inliers = _select_inliers(xs, ys, min_points, mask)
    if inliers == 0:
        return None
    if inliers == n:
        return line_through(xs, ys, n, mask)
    return line_through(xs[mask], ys[mask], n, mask)


def line_through(xs: FloatArray, ys: FloatArray, total: int, mask: BoolArray | None = None) -> Segment:
    """The total least squares segment of points that are all inliers (``total``: points offered)."""
    x, y, th, length, rms, ts = _segment(xs, ys)
    return Segment(
        x=x,
        y=y,
        th=th,
        length=length,
        rms=rms,
        inliers=xs.size,
        total=total,
        ts=ts,
        mask=mask if mask is not None else np.ones(xs.size, dtype=np.bool_),
    )


# The kernels below are compiled (saphira.core.jit): a side buffer is a few dozen points, where numpy's
# per-call cost, not the arithmetic, would be the time.


@kernel()
def _principal_axis(xs: FloatArray, ys: FloatArray, mask: BoolArray) -> tuple[float, float, float, float]:
    """Centroid and unit direction of the principal axis of the points ``mask`` selects (total least
    squares line)."""
    n, sx, sy = 0, 0.0, 0.0
    for k in range(xs.size):
        if mask[k]:
            n += 1
            sx += xs[k]
            sy += ys[k]
    cx, cy = sx / n, sy / n
    sxx, syy, sxy = 0.0, 0.0, 0.0
    for k in range(xs.size):
        if mask[k]:
            dx, dy = xs[k] - cx, ys[k] - cy
            sxx += dx * dx
            syy += dy * dy
            sxy += dx * dy
    angle = 0.5 * math.atan2(2.0 * sxy, sxx - syy)
    return cx, cy, math.cos(angle), math.sin(angle)


@kernel(lambda: (np.zeros(8), np.zeros(8), 8, np.empty(8, dtype=np.bool_)))
def _select_inliers(xs: FloatArray, ys: FloatArray, min_points: int, mask: BoolArray) -> int:
    """Mark the inliers of the dominant line in ``mask``; how many there are (0: no line).

    All points on one clean line (within :data:`MIN_BAND` of their principal axis) are all inliers.
    Otherwise the candidate lines through pairs of every ``n // SUBSAMPLE``-th point
    (at least 100 mm apart) are scored by the points within :data:`INLIER_BAND`; the best one's
    inliers are refined twice by total least squares, keeping the points within 3 x RMS.
    """
    n = xs.size
    mask[:] = True
    cx, cy, ux, uy = _principal_axis(xs, ys, mask)
    worst = 0.0
    for k in range(n):
        worst = max(worst, abs(-uy * (xs[k] - cx) + ux * (ys[k] - cy)))
    if worst <= MIN_BAND:
        return n
    step = max(1, n // SUBSAMPLE)
    best, best_nx, best_ny, best_offset = -1, 0.0, 0.0, 0.0
    for i in range(0, n, step):
        for j in range(i + step, n, step):
            dx, dy = xs[j] - xs[i], ys[j] - ys[i]
            norm = math.hypot(dx, dy)
            if norm <= 100.0:
                continue
            nx, ny = -dy / norm, dx / norm
            offset = nx * xs[i] + ny * ys[i]
            count = 0
            for k in range(n):
                if abs(nx * xs[k] + ny * ys[k] - offset) <= INLIER_BAND:
                    count += 1
            if count > best:
                best, best_nx, best_ny, best_offset = count, nx, ny, offset
    if best < 0:
        return 0
    inliers = 0
    for k in range(n):
        mask[k] = abs(best_nx * xs[k] + best_ny * ys[k] - best_offset) <= INLIER_BAND
        inliers += mask[k]
    for _ in range(2):
        if inliers < min_points:
            return 0
        cx, cy, ux, uy = _principal_axis(xs, ys, mask)
        squares = 0.0
        for k in range(n):
            if mask[k]:
                residual = -uy * (xs[k] - cx) + ux * (ys[k] - cy)
                squares += residual * residual
        band = max(3.0 * math.sqrt(squares / inliers), MIN_BAND)
        inliers = 0
        for k in range(n):
            mask[k] = abs(-uy * (xs[k] - cx) + ux * (ys[k] - cy)) <= band
            inliers += mask[k]
    return inliers if inliers >= min_points else 0


@kernel(lambda: (np.arange(2.0), np.zeros(2)))
def _segment(xs: FloatArray, ys: FloatArray) -> tuple[float, float, float, float, float, FloatArray]:
    """:func:`line_through`'s numbers: centre, direction (deg), length, RMS residual and sorted ``ts``."""
    cx, cy, ux, uy = _principal_axis(xs, ys, np.ones(xs.size, dtype=np.bool_))
    if ux < 0.0 or (ux == 0.0 and uy < 0.0):
        ux, uy = -ux, -uy
    ts = np.sort(ux * (xs - cx) + uy * (ys - cy))
    mid = 0.5 * (ts[0] + ts[-1])
    squares = 0.0
    for k in range(xs.size):
        residual = -uy * (xs[k] - cx) + ux * (ys[k] - cy)
        squares += residual * residual
    return (
        cx + ux * mid,
        cy + uy * mid,
        math.degrees(math.atan2(uy, ux)),
        ts[-1] - ts[0],
        math.sqrt(squares / xs.size),
        ts - mid,
    )


@dataclass(frozen=True)
class Gap:
    """A stretch of a segment without inliers: ``start``..``end`` along it (mm from its centre)."""

    start: float
    end: float
    before: int
    after: int

    @property
    def middle(self) -> float:
        return 0.5 * (self.start + self.end)

    @property
    def width(self) -> float:
        return self.end - self.start


def find_gaps(segment: Segment, min_gap: float, *, min_support: int = 3, min_span: float = 150.0) -> list[Gap]:
    """Gaps of at least ``min_gap`` mm with wall on both sides (``min_support`` inliers over ``min_span``)."""
    ts = segment.ts
    gaps: list[Gap] = []
    steps = np.diff(ts)
    for k in np.flatnonzero(steps >= min_gap):
        before, after = int(k) + 1, ts.size - int(k) - 1
        if before < min_support or after < min_support:
            continue
        if ts[k] - ts[0] < min_span or ts[-1] - ts[k + 1] < min_span:
            continue
        gaps.append(Gap(float(ts[k]), float(ts[k + 1]), before, after))
    return gaps
