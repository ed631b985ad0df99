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

import functools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

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


def _tls(xs: FloatArray, ys: FloatArray) -> tuple[float, float, float, float]:
    """Centroid and unit direction of the principal axis (total least squares line)."""
    n = xs.size
    cx, cy = float(xs.sum()) / n, float(ys.sum()) / n
    dx, dy = xs - cx, ys - cy
    sxx, syy, sxy = float(dx @ dx), float(dy @ dy), float(dx @ dy)
    angle = 0.5 * math.atan2(2.0 * sxy, sxx - syy)
    return cx, cy, math.cos(angle), math.sin(angle)


@functools.cache
def _pairs(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    i, j = np.triu_indices(n, 1)
    return i, j


def fit_segment(xs: FloatArray, ys: FloatArray, *, min_points: int = 8) -> Segment | None:
    """The dominant line through the points, or None if fewer than ``min_points`` support one."""
    n = xs.size
    if n < min_points:
        return None
    cx, cy, ux, uy = _tls(xs, ys)
    if float(np.abs(-uy * (xs - cx) + ux * (ys - cy)).max()) <= MIN_BAND:
        return line_through(xs, ys, n)  # one clean line: nothing for the search to find
    step = max(1, n // SUBSAMPLE)
    sx, sy = xs[::step], ys[::step]
    i, j = _pairs(sx.size)
    dx, dy = sx[j] - sx[i], sy[j] - sy[i]
    norm = np.hypot(dx, dy)
    keep = norm > 100.0
    if not keep.any():
        return None
    i, dx, dy, norm = i[keep], dx[keep], dy[keep], norm[keep]
    normals = np.column_stack((-dy / norm, dx / norm))
    offsets = normals[:, 0] * sx[i] + normals[:, 1] * sy[i]
    # distance of every point from every candidate line: (candidates, points)
    dist = np.abs(normals @ np.vstack((xs, ys)) - offsets[:, None])
    inside = dist <= INLIER_BAND
    mask = inside[int(np.argmax(inside.sum(axis=1)))]
    for _ in range(2):
        if int(mask.sum()) < min_points:
            return None
        cx, cy, ux, uy = _tls(xs[mask], ys[mask])
        residual = np.abs(-uy * (xs - cx) + ux * (ys - cy))
        inl = residual[mask]
        rms = math.sqrt(float(inl @ inl) / inl.size)
        mask = residual <= max(3.0 * rms, MIN_BAND)
    if int(mask.sum()) < min_points:
        return None
    return line_through(xs[mask], ys[mask], n, mask)


def line_through(xs: FloatArray, ys: FloatArray, total: int, mask: BoolArray | None = None) -> Segment:
    """The total least squares segment of points that are all inliers (``total``: points offered)."""
    cx, cy, ux, uy = _tls(xs, ys)
    if ux < 0.0 or (ux == 0.0 and uy < 0.0):
        ux, uy = -ux, -uy
    ts = np.sort(ux * (xs - cx) + uy * (ys - cy))
    mid = 0.5 * float(ts[0] + ts[-1])
    residual = -uy * (xs - cx) + ux * (ys - cy)
    return Segment(
        x=cx + ux * mid,
        y=cy + uy * mid,
        th=math.degrees(math.atan2(uy, ux)),
        length=float(ts[-1] - ts[0]),
        rms=math.sqrt(float(residual @ residual) / xs.size),
        inliers=xs.size,
        total=total,
        ts=ts - mid,
        mask=mask if mask is not None else np.ones(xs.size, dtype=bool),
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
