"""Answers to Flat's laser queries (``b d j l o s``), computed from noise-free laser scans of the true world.

Every answer works on the robot-centric readings of :mod:`saphira.flat.server.laser` (the "y ahead" frame, bearings
counter-clockwise from the robot's right, 0…180 for one laser, −45…225 for two), merged in bearing order.
The seed names each query's parameters but not its algorithm; the choices, all documented in docs/flat.md:

* **Jumps** (``j``): neighbouring readings whose ranges differ by at least the minimum; the size is signed,
  ``value2 − value1`` (positive: the second reading is farther). A no-echo reading counts at full range.
* **Doorways** (``d``): a jump away (size ≥ min) followed, further round, by a jump back (≤ −min): the
  opening between them. ``theta`` is the bearing of its middle, the size the smaller of the two jumps.
* **Blobs** (``b``): runs of echoes whose neighbours are at most ``max-intra-blob-distance`` apart; a blob
  is kept when the gaps to the runs on either side are at least ``min-inter-blob-distance``, its size (in
  points) is within the limits and its centre is nearer than ``max-blob-distance``. ``(x y r n)`` is the
  centre of its points, the largest distance of a point from it, and the count.
* **Open space** (``o``): 1 when, for some bearing in the range (1-degree steps), a lane ``min-width`` wide
  straight out to ``min-distance`` holds no echo.
* **Segments** (``s``): echoes in the bearing range and within ``max-distance``, optionally median-filtered
  (``use-filter``, ``filter-window-size``), cut where neighbours are more than ``discontinuity-threshold``
  apart, then split (iterative end-point fit) until no point is further than ``collinear-range-threshold``
  from its line, merged again where adjacent pieces differ by less than ``collinear-theta-threshold``
  degrees and ``collinear-contig-threshold`` mm, and kept when at least ``min-segment-length`` long. The
  SQUID window parameters are read and not used (the split test does their job).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from saphira.flat.codec import (
    Blob,
    BlobQuery,
    BlobReply,
    Doorway,
    DoorwayQuery,
    DoorwaysReply,
    Jump,
    JumpQuery,
    JumpsReply,
    LaserQuery,
    LaserReading,
    LaserReply,
    OpenSpaceQuery,
    OpenSpaceReply,
    Reading,
    Reply,
    Segment,
    SegmentQuery,
    SegmentsReply,
)
from saphira.flat.server.laser import LaserRig

LaserQueryKind = BlobQuery | DoorwayQuery | JumpQuery | LaserQuery | OpenSpaceQuery | SegmentQuery


def answer(query: LaserQueryKind, time: int, rig: LaserRig, scans: tuple[LaserReading, ...]) -> Reply:
    """The reply to one laser query at ``time`` (ms) for the rig's current ``scans``."""
    if isinstance(query, LaserQuery):
        return LaserReply(time, rig.readings(scans))
    echoes = rig.echoes(scans)
    if isinstance(query, JumpQuery):
        return JumpsReply(time, tuple(find_jumps(echoes, query.min_jump_size)))
    if isinstance(query, DoorwayQuery):
        return DoorwaysReply(time, tuple(find_doorways(echoes, query)))
    if isinstance(query, BlobQuery):
        return BlobReply(time, tuple(find_blobs(echoes, query)))
    if isinstance(query, OpenSpaceQuery):
        return OpenSpaceReply(time, open_space(echoes, query))
    return SegmentsReply(time, tuple(find_segments(echoes, query)))


def find_jumps(echoes: list[tuple[Reading, bool]], min_jump: float) -> list[Jump]:
    """Jumps of at least ``min_jump`` mm between neighbouring readings, in bearing order."""
    jumps = []
    for (a, _), (b, _) in itertools.pairwise(echoes):
        size = b.r - a.r
        if abs(size) >= min_jump:
            jumps.append(Jump(size, a.theta, a.r, b.theta, b.r))
    return jumps


def find_doorways(echoes: list[tuple[Reading, bool]], query: DoorwayQuery) -> list[Doorway]:
    """Openings: a jump away followed by a jump back, with the middle bearing in range."""
    doors = []
    opened: Jump | None = None
    for jump in find_jumps(echoes, query.min_jump_size):
        if jump.size > 0:
            opened = jump
        elif opened is not None:
            theta = (opened.angle2 + jump.angle1) / 2.0
            if query.min_theta <= theta <= query.max_theta:
                doors.append(Doorway(theta, min(opened.size, -jump.size)))
            opened = None
    return doors


def _runs(points: list[Reading], gap: float) -> list[list[Reading]]:
    """Consecutive points cut where neighbours are more than ``gap`` apart."""
    runs: list[list[Reading]] = []
    for point in points:
        if runs and math.hypot(point.x - runs[-1][-1].x, point.y - runs[-1][-1].y) <= gap:
            runs[-1].append(point)
        else:
            runs.append([point])
    return runs


def _echo_runs(echoes: list[tuple[Reading, bool]], gap: float) -> list[list[Reading] | None]:
    """Runs of echoes, with ``None`` between runs that no-echo readings separate."""
    out: list[list[Reading] | None] = []
    chunk: list[Reading] = []
    for reading, hit in echoes:
        if hit:
            chunk.append(reading)
            continue
        if chunk:
            out.extend(_runs(chunk, gap))
            chunk = []
        if out and out[-1] is not None:
            out.append(None)
    if chunk:
        out.extend(_runs(chunk, gap))
    return out


def find_blobs(echoes: list[tuple[Reading, bool]], query: BlobQuery) -> list[Blob]:
    """Clusters of echoes standing apart from their neighbours (see the module docstring)."""
    runs = _echo_runs(echoes, query.max_intra_blob_distance)
    blobs = []
    for k, run in enumerate(runs):
        if run is None or not query.min_blob_size <= len(run) <= query.max_blob_size:
            continue
        gaps = []
        for side, neighbour in ((0, runs[k - 1] if k > 0 else None), (-1, runs[k + 1] if k + 1 < len(runs) else None)):
            if neighbour is not None:
                mine, theirs = run[side], neighbour[-1 - side]
                gaps.append(math.hypot(mine.x - theirs.x, mine.y - theirs.y))
        if any(g < query.min_inter_blob_distance for g in gaps):
            continue
        xs = np.array([p.x for p in run])
        ys = np.array([p.y for p in run])
        cx, cy = float(xs.mean()), float(ys.mean())
        if math.hypot(cx, cy) >= query.max_blob_distance:
            continue
        radius = float(np.hypot(xs - cx, ys - cy).max())
        blobs.append(Blob(cx, cy, radius, len(run)))
    return blobs


def open_space(echoes: list[tuple[Reading, bool]], query: OpenSpaceQuery) -> bool:
    """Whether a lane ``min_width`` wide reaches ``min_distance`` clear of echoes at some bearing in range."""
    points = np.array([(r.x, r.y) for r, hit in echoes if hit]).reshape(-1, 2)
    half = query.min_width / 2.0
    low, high = sorted((query.min_theta, query.max_theta))
    for theta in np.arange(low, high + 1e-9, 1.0):
        rad = math.radians(theta)
        along = points[:, 0] * math.cos(rad) + points[:, 1] * math.sin(rad)
        across = -points[:, 0] * math.sin(rad) + points[:, 1] * math.cos(rad)
        if not np.any((along >= 0.0) & (along <= query.min_distance) & (np.abs(across) < half)):
            return True
    return False


def _median_filtered(points: list[Reading], window: int) -> list[Reading]:
    """Ranges replaced by the median of ``window`` neighbours (bearings kept)."""
    if window < 2 or len(points) < window:
        return points
    ranges = np.array([p.r for p in points])
    half = window // 2
    padded = np.pad(ranges, half, mode="edge")
    out = []
    for k, point in enumerate(points):
        r = float(np.median(padded[k : k + window]))
        rad = math.radians(point.theta)
        out.append(Reading(r * math.cos(rad), r * math.sin(rad), r, point.theta))
    return out


def _fit(points: list[Reading]) -> Segment:
    """The total-least-squares line through ``points``, cut at the projections of the first and last."""
    xy = np.array([(p.x, p.y) for p in points])
    centre = xy.mean(axis=0)
    _, _, vt = np.linalg.svd(xy - centre)
    direction = vt[0]
    t0 = float((xy[0] - centre) @ direction)
    t1 = float((xy[-1] - centre) @ direction)
    a, b = centre + t0 * direction, centre + t1 * direction
    return Segment(float(a[0]), float(a[1]), float(b[0]), float(b[1]))


def _split(points: list[Reading], tolerance: float) -> list[list[Reading]]:
    """Iterative end-point fit: cut at the point furthest from the chord while it is beyond ``tolerance``."""
    if len(points) < 3:
        return [points]
    a, b = points[0], points[-1]
    ex, ey = b.x - a.x, b.y - a.y
    length = math.hypot(ex, ey) or 1e-9
    distances = [abs((p.x - a.x) * ey - (p.y - a.y) * ex) / length for p in points]
    worst = int(np.argmax(distances))
    if distances[worst] <= tolerance or worst in (0, len(points) - 1):
        return [points]
    return _split(points[: worst + 1], tolerance) + _split(points[worst:], tolerance)


def _direction(segment: Segment) -> float:
    return math.degrees(math.atan2(segment.y2 - segment.y1, segment.x2 - segment.x1))


def find_segments(echoes: list[tuple[Reading, bool]], query: SegmentQuery) -> list[Segment]:
    """Line segments in the laser data (see the module docstring), in the "y ahead" frame."""
    low, high = sorted((query.min_theta, query.max_theta))
    points = [r for r, hit in echoes if hit and low <= r.theta <= high and r.r <= query.max_distance]
    if query.use_filter:
        points = _median_filtered(points, query.filter_window_size)
    segments: list[Segment] = []
    for run in _runs(points, query.discontinuity_threshold):
        pieces = [p for p in _split(run, query.collinear_range_threshold) if len(p) >= 2]
        merged: list[list[Reading]] = []
        for piece in pieces:
            if merged:
                last = merged[-1]
                turn = abs((_direction(_fit(piece)) - _direction(_fit(last)) + 180.0) % 360.0 - 180.0)
                gap = math.hypot(piece[0].x - last[-1].x, piece[0].y - last[-1].y)
                if turn < query.collinear_theta_threshold and gap < query.collinear_contig_threshold:
                    last.extend(piece[1:] if piece[0] is last[-1] else piece)
                    continue
            merged.append(list(piece))
        for piece in merged:
            segment = _fit(piece)
            if math.hypot(segment.x2 - segment.x1, segment.y2 - segment.y1) >= query.min_segment_length:
                segments.append(segment)
    return segments
