"""Sonar and laser interpretation (see docs/colbert.md): wall, corridor, door and junction hypotheses in the LPS.

Three steps, run by three micro-tasks under the manual's instance names (see :mod:`saphira.perception`):

* ``side segment`` fits a segment (:func:`~saphira.perception.lines.fit_segment`) to each side sonar
  buffer as the robot moves. Only readings taken since the robot's heading last differed from now by
  :data:`MAX_BEND` count (older ones describe walls seen before a turn), and the wall's line is
  refitted to the inliers among the :data:`RECENT` newest readings (odometry's heading drift bends
  older ones).
* ``test wall`` turns a segment on the correct side of the robot, running within
  :data:`MAX_WALL_ANGLE` of its heading and at least :data:`MIN_WALL_LENGTH` long into the wall
  hypothesis of that side (``sfLeftWallHyp`` / ``sfRightWallHyp``: ``viewable`` while found; line
  from the newest readings, centre and length over the whole agreeing buffer). Two parallel walls
  :data:`MIN_CORRIDOR_WIDTH` .. :data:`MAX_CORRIDOR_WIDTH` apart make a corridor hypothesis. The
  corridor hypothesis is one object for as long as the robot stays in that corridor (updated in
  place, from one wall and the known width when the other is not seen, kept for
  :data:`CORRIDOR_GRACE` mm of travel without any wall), so whoever holds it —
  ``sfCurrentEnvironment``, a FindAndFollow activity — keeps a stable pointer.
* ``test wall break`` looks for breaks in the walls (:func:`~saphira.perception.lines.find_gaps`):
  a break :data:`DOOR_WIDTHS` wide is a door, one up to :data:`MAX_JUNCTION_WIDTH` a junction. The
  sonar cone makes an opening look narrower by ``2 d tan(half angle)`` at distance ``d``, which is
  added back. Repeated detections of the same break refine one hypothesis (running mean).

Every hypothesis is a ``PERCEPT`` artifact on the pointlist, so its local coordinates follow the robot.

**With a laser** (the reflector has a scan: a Pioneer simulator's laser or Flat's), the laser *replaces*
the sonar for the side lines: ``side segment`` fits each side's line to the latest scan's points on that
side (the LPS laser ring) instead of the side sonar buffer. A scan is hundreds of points with
centimetre noise, taken at one instant from the true pose, where the side buffer holds a few dozen
cone-smeared echoes bent by odometry drift; pooling both would only weigh the better fit down. A side's
points are those within :data:`LASER_MIN_BEARING` of abeam or further round (nearer straight ahead or
behind, a 1-degree scan spaces its points on a side wall more than a door's width apart) and within
:data:`MAX_SIDE_RANGE` of the robot's axis. The whole scan is recent, so the newest-readings window and
the turn history do not apply, and a break needs no cone correction. Registration, corridor and door
finding read the hypotheses, so they take the laser's lines unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from saphira.client.artifacts import Artifact, ArtifactType, Category, Corridor, Door, Junction, Wall
from saphira.client.reflector import Reflector
from saphira.client.sensors.sonar import Region
from saphira.core.arrays import FloatArray
from saphira.core.geometry import cos_sin, norm2_angle, norm_angle
from saphira.core.jit import kernel
from saphira.perception.lines import Segment, find_gaps, fit_segment, line_through

MAX_SIDE_RANGE = 3000.0
"""mm: side readings farther than this from the robot's axis are not used for walls."""

LASER_MIN_BEARING = 25.0
"""deg: laser points nearer than this to straight ahead (or behind) are not side points: at 3 m from a
wall a 1-degree scan spaces its points there about 300 mm apart, just under :data:`MIN_APPARENT_GAP`."""

MAX_BEND = 25.0
"""deg: side readings taken before the heading last differed this much from now are not fitted."""

HISTORY = 600
"""Cycles of heading history kept for :data:`MAX_BEND` (a minute at 10 Hz)."""

RECENT = 24
"""The wall hypotheses are fitted to this many newest side readings (about a metre of wall at the
default sonar rate and 300 mm/s): odometry's heading drift bends the older readings of the LPS, and a
short window keeps that bias small. Break detection uses the whole buffer."""

MIN_RECENT = 8
"""Inliers among the newest readings needed for a wall hypothesis."""

MAX_WALL_ANGLE = 45.0
"""deg: a side wall runs within this angle of the robot's heading."""

MIN_WALL_LENGTH = 600.0
"""mm: the shortest segment that counts as a wall."""

MIN_CORRIDOR_WIDTH = 1000.0
MAX_CORRIDOR_WIDTH = 4000.0
PARALLEL = 10.0
"""deg: how far from parallel two walls may be and still bound one corridor."""

PAIRED_PARALLEL = 4.0
"""deg: two walls this parallel count towards :attr:`Interpretation.corridor_paired`."""

SAME_CORRIDOR_ANGLE = 20.0
SAME_CORRIDOR_OFFSET = 400.0
"""A new corridor reading within these (deg, mm of centre line offset) updates the current hypothesis."""

CORRIDOR_GRACE = 1500.0
"""mm of travel a corridor hypothesis survives without wall support."""

SONAR_HALF_ANGLE = 12.5
"""deg: effective half width of a sonar cone; an opening seen from d mm looks 2 d tan() narrower."""

MIN_APPARENT_GAP = 350.0
"""mm: the narrowest wall break looked at (after the cone's narrowing)."""

DOOR_WIDTHS = (600.0, 1800.0)
"""mm: a break this wide (corrected) is a door; wider, up to the next limit, a junction."""

MAX_JUNCTION_WIDTH = 4000.0

SAME_BREAK = 500.0
"""mm: a break detected this close to a known hypothesis of its type refines that hypothesis."""

FORGET_BREAK = 8000.0
"""mm: break hypotheses this far from the robot are dropped from the pointlist."""


Reading = tuple[float, float, float, float, float]
"""A corridor seen from the robot: centre line offset (left +), direction, width, extent lo..hi along it."""


@dataclass
class BreakHypothesis:
    """A door or junction hypothesis and how often it was seen (``used``: consumed by registration)."""

    artifact: Door | Junction
    side: Region
    detections: int = 1
    used: bool = False


@dataclass
class SideState:
    """Per side: the segments fitted to the usable buffer (``segment``) and to its newest readings
    (``recent``), and the wall hypothesis made from them."""

    region: Region
    wall: Wall
    segment: Segment | None = None
    recent: Segment | None = None
    sonar_offset: float = 0.0
    laser: bool = False
    """The segments were fitted to laser points (no sonar cone to correct for)."""


def _percept_wall() -> Wall:
    return Wall(cat=Category.PERCEPT, viewable=False)


@dataclass
class Interpretation:
    """The interpretation state of one reflector: side walls, the corridor hypothesis, wall breaks."""

    reflector: Reflector
    left: SideState = field(init=False)
    right: SideState = field(init=False)
    corridor: Corridor | None = None
    breaks: list[BreakHypothesis] = field(default_factory=list)
    new_breaks: list[BreakHypothesis] = field(default_factory=list)
    _unsupported_since: float = 0.0
    _corridor_seen: float = 0.0
    corridor_paired: float = 0.0
    """mm travelled in the current corridor hypothesis while both its walls were seen, parallel within
    :data:`PAIRED_PARALLEL` (what tells a corridor from a room: map building asks for enough of it)."""
    _paired_at: float = 0.0
    corridor_extent: float = 0.0
    """mm of the current corridor hypothesis's walls seen along the travel in one pass: the union of its
    readings' extents, each kept where the robot's motion moved it, restarted when the heading turns
    more than :data:`MAX_BEND` (as the side segments are). A reading spans only what the side buffers
    hold, a fixed number of echoes (the manual's ``SideBuffer``), so the less the robot moves between
    echoes the shorter it is; the union does not depend on the speed (map building asks for enough)."""
    _extent_span: tuple[float, float] = (0.0, 0.0)
    _extent_heading: float = 0.0
    _odo_total: float = 0.0
    _odo_last: tuple[float, float] | None = None
    _history: _HeadingHistory = field(default_factory=lambda: _HeadingHistory(HISTORY))

    def __post_init__(self) -> None:
        self.left = SideState(Region.LEFT, _percept_wall())
        self.right = SideState(Region.RIGHT, _percept_wall())
        for side in (self.left, self.right):
            self.reflector.pointlist.add(side.wall)

    # ------------------------------------------------------------------ helpers
    def odometer(self) -> float:
        """mm driven so far according to odometry (summed from the odometric pose on every call)."""
        state = self.reflector.state
        if self._odo_last is not None:
            self._odo_total += math.hypot(state.odo_x - self._odo_last[0], state.odo_y - self._odo_last[1])
        self._odo_last = (state.odo_x, state.odo_y)
        return self._odo_total

    def _place(self, artifact: Artifact, x: float, y: float, th: float) -> None:
        artifact.x, artifact.y, artifact.th = x, y, norm_angle(th)
        artifact.set_global_coords(self.reflector.state.global_pose)

    # ------------------------------------------------------------------ side segment
    def _usable(self) -> tuple[int, int]:
        """How many of the newest left and right buffer entries were taken since the robot's heading
        last differed from the current one by more than :data:`MAX_BEND` (older ones describe walls
        seen before a turn, moved through the turn by odometry)."""
        sonar, state = self.reflector.sonar, self.reflector.state
        left, right = sonar.buffers[Region.LEFT].added, sonar.buffers[Region.RIGHT].added
        history = self._history
        newest = history.append(state.odo_th, left, right)
        limit = max(sonar.buffers[Region.LEFT].limit, sonar.buffers[Region.RIGHT].limit)
        return _since_bend(history.headings, history.counts, newest, history.size, limit, MAX_BEND)

    def side_segment(self) -> None:
        """Fit a segment to each side buffer (entries taken since the last turn)."""
        sonar = self.reflector.sonar
        usable = self._usable()
        if self.reflector.laser.scan is not None:
            self._laser_sides()
            return
        for side, sign, n in ((self.left, 1.0, usable[0]), (self.right, -1.0, usable[1])):
            side.laser = False
            xs, ys = sonar.buffers[side.region].recent(n)
            keep = (sign * ys > 100.0) & (sign * ys < MAX_SIDE_RANGE)
            xs, ys = xs[keep], ys[keep]
            seg = side.segment = fit_segment(xs, ys)
            side.recent = seg
            if seg is not None and xs.size > RECENT:
                mask = seg.mask[-RECENT:]
                enough = int(mask.sum()) >= MIN_RECENT
                side.recent = line_through(xs[-RECENT:][mask], ys[-RECENT:][mask], RECENT) if enough else None
            side.sonar_offset = sonar.axis_offset(side.region)

    def _laser_sides(self) -> None:
        """Fit each side's segment to the latest laser scan's points on that side (module docstring)."""
        xs, ys = self.reflector.laser.ring.points()
        for side, sign in ((self.left, 1.0), (self.right, -1.0)):
            across = sign * ys
            bearing = np.degrees(np.arctan2(across, xs))
            keep = (bearing >= LASER_MIN_BEARING) & (bearing <= 180.0 - LASER_MIN_BEARING)
            keep &= (across > 100.0) & (across < MAX_SIDE_RANGE)
            side.segment = side.recent = fit_segment(xs[keep], ys[keep])
            side.laser = True
            side.sonar_offset = 0.0

    # ------------------------------------------------------------------ test wall
    def test_wall(self) -> None:
        """Update the wall hypotheses from the segments, then the corridor hypothesis from the walls."""
        for side, sign in ((self.left, 1.0), (self.right, -1.0)):
            seg, wall = side.recent, side.wall
            ok = (
                seg is not None
                and seg.length >= MIN_WALL_LENGTH
                and abs(seg.th) <= MAX_WALL_ANGLE
                and sign * seg.normal_distance > 0.0
            )
            if seg is not None and ok:
                wall.snew = not wall.viewable
                wall.viewable = True
                x, y, wall.length = _span(seg, side.segment)
                self._place(wall, x, y, seg.th)
            else:
                wall.snew = False
                wall.viewable = False
        self._test_corridor()

    def _test_corridor(self) -> None:
        left, right = self.left.wall, self.right.wall
        odo = self.odometer()
        reading: Reading | None = None  # offset, th, width, lo, hi
        paired = False
        if left.viewable and right.viewable:
            dl, dr = _offset(left), _offset(right)
            tl, tr = norm2_angle(left.th), norm2_angle(right.th)
            width = dl - dr
            if abs(norm2_angle(tl - tr)) <= PARALLEL and MIN_CORRIDOR_WIDTH <= width <= MAX_CORRIDOR_WIDTH:
                th = tl + 0.5 * norm2_angle(tr - tl)
                lo, hi = _extent(th, (left, right))
                reading = (0.5 * (dl + dr), th, width, lo, hi)
                paired = abs(norm2_angle(tl - tr)) <= PAIRED_PARALLEL
        corridor = self.corridor
        if corridor is not None and reading is not None:
            reading = _align(corridor, reading)
            if not _same(corridor, reading):  # another corridor: a new hypothesis
                self._drop_corridor()
                corridor = None
        elif corridor is not None:
            reading = self._one_wall_reading(corridor)
        if reading is None:
            if corridor is not None:
                too_far = odo - self._unsupported_since > CORRIDOR_GRACE
                bearing = abs(norm2_angle(corridor.th))
                turned = min(bearing, 180.0 - bearing) > 60.0
                if too_far or turned:
                    self._drop_corridor()
            return
        offset, th, width, lo, hi = reading
        c, s = cos_sin(th)
        mid = 0.5 * (lo + hi)
        seen = (lo, hi)
        heading = self.reflector.state.odo_th
        if corridor is None:
            corridor = Corridor(cat=Category.PERCEPT)
            self.corridor = corridor
            self._corridor_seen = odo
            self.corridor_paired, self._paired_at = 0.0, odo
            self._extent_heading = heading
            corridor.snew = True
            self.reflector.pointlist.add(corridor)
        else:
            if abs(norm2_angle(heading - self._extent_heading)) > MAX_BEND:
                self._extent_heading = heading  # what was seen before a turn is not one pass along the walls
            else:
                seen = _union(lo, hi, c * corridor.x + s * corridor.y, self._extent_span)
            corridor.snew = False
        self.corridor_extent = seen[1] - seen[0]
        self._extent_span = (seen[0] - mid, seen[1] - mid)
        if paired:
            self.corridor_paired += odo - self._paired_at
        self._paired_at = odo
        self._unsupported_since = odo
        corridor.width, corridor.length, corridor.viewable = width, max(hi - lo, 0.0), True
        self._place(corridor, -s * offset + c * mid, c * offset + s * mid, th)

    def _one_wall_reading(self, corridor: Corridor) -> Reading | None:
        """Carry the corridor on with one consistent wall and the known width."""
        for wall, sign in ((self.left.wall, 1.0), (self.right.wall, -1.0)):
            if not wall.viewable:
                continue
            th = norm2_angle(wall.th)
            centre = _offset(wall) - sign * 0.5 * corridor.width
            candidate = _align(corridor, (centre, th, corridor.width, *_extent(th, (wall,))))
            if _same(corridor, candidate):
                return candidate
        return None

    def _drop_corridor(self) -> None:
        if self.corridor is not None:
            self.corridor.viewable = False
            self.reflector.pointlist.remove(self.corridor)
        self.corridor = None

    @property
    def corridor_support(self) -> float:
        """mm travelled since the current corridor hypothesis was first seen (0 if none)."""
        return self.odometer() - self._corridor_seen if self.corridor is not None else 0.0

    # ------------------------------------------------------------------ test wall break
    def test_wall_break(self) -> None:
        """Find doors and junctions as breaks in the walls; refine the hypotheses already held."""
        self.new_breaks = []
        sonar_tan = math.tan(math.radians(SONAR_HALF_ANGLE))
        for side, sign in ((self.left, 1.0), (self.right, -1.0)):
            seg = side.segment
            if seg is None or not side.wall.viewable:
                continue
            tan_half = 0.0 if side.laser else sonar_tan
            distance = max(0.0, abs(seg.normal_distance) - side.sonar_offset)
            c, s = cos_sin(seg.th)
            for gap in find_gaps(seg, MIN_APPARENT_GAP):
                width = gap.width + 2.0 * distance * tan_half
                if width < DOOR_WIDTHS[0] or width > MAX_JUNCTION_WIDTH:
                    continue
                kind = ArtifactType.DOOR if width <= DOOR_WIDTHS[1] else ArtifactType.JUNCTION
                x, y = seg.x + c * gap.middle, seg.y + s * gap.middle
                self._break_seen(kind, side.region, x, y, seg.th - sign * 90.0, width)
        self._forget_far_breaks()

    def _break_seen(self, kind: int, region: Region, x: float, y: float, th: float, width: float) -> None:
        for hyp in self.breaks:
            a = hyp.artifact
            if a.type == kind and hyp.side == region and math.hypot(a.x - x, a.y - y) <= SAME_BREAK:
                n = hyp.detections = hyp.detections + 1
                a.width += (width - a.width) / n
                self._place(a, a.x + (x - a.x) / n, a.y + (y - a.y) / n, a.th)
                a.snew = False
                return
        artifact: Door | Junction = (
            Door(cat=Category.PERCEPT) if kind == ArtifactType.DOOR else Junction(cat=Category.PERCEPT)
        )
        artifact.width, artifact.snew = width, True
        self._place(artifact, x, y, th)
        hyp = BreakHypothesis(artifact, region)
        self.breaks.append(hyp)
        self.new_breaks.append(hyp)
        self.reflector.pointlist.add(artifact)

    def _forget_far_breaks(self) -> None:
        keep = []
        for hyp in self.breaks:
            if math.hypot(hyp.artifact.x, hyp.artifact.y) > FORGET_BREAK:
                self.reflector.pointlist.remove(hyp.artifact)
            else:
                keep.append(hyp)
        self.breaks = keep

    def doors(self) -> list[Door | Junction]:
        """The door and junction hypotheses currently held (nearest first)."""
        return sorted((h.artifact for h in self.breaks), key=lambda a: math.hypot(a.x, a.y))


Span = tuple[float, float, float]
"""A wall's centre and length: x, y, length (mm)."""


def _span(line: Segment, whole: Segment | None) -> Span:
    """Centre and length of a wall on ``line``: the whole buffer's extent when its fit agrees."""
    if whole is None or whole is line:
        return line.x, line.y, line.length
    agree = abs(norm2_angle(whole.th - line.th)) <= 5.0 and abs(whole.normal_distance - line.normal_distance) <= 60.0
    if not agree:
        return line.x, line.y, line.length
    c, s = cos_sin(line.th)
    ends = [
        c * (whole.x - line.x)
        + s * (whole.y - line.y)
        + d * 0.5 * whole.length * math.cos(math.radians(whole.th - line.th))
        for d in (-1.0, 1.0)
    ]
    lo, hi = min(ends[0], ends[1], -0.5 * line.length), max(ends[0], ends[1], 0.5 * line.length)
    mid = 0.5 * (lo + hi)
    return line.x + c * mid, line.y + s * mid, hi - lo


def _offset(a: Artifact) -> float:
    """Signed distance (mm, left positive) from the robot to the line of ``a``."""
    c, s = cos_sin(a.th)
    return -s * a.x + c * a.y


def _extent(th: float, walls: tuple[Wall, ...]) -> tuple[float, float]:
    """The walls' union along direction ``th`` (mm from the robot's foot on the axis)."""
    c, s = cos_sin(th)
    ends = []
    for w in walls:
        centre = c * w.x + s * w.y
        ends += [centre - 0.5 * w.length, centre + 0.5 * w.length]
    return min(ends), max(ends)


def _union(lo: float, hi: float, centre: float, span: tuple[float, float]) -> tuple[float, float]:
    """A reading's extent ``lo``..``hi`` joined to the extent seen before, ``span`` about the corridor's
    previous centre (now ``centre`` along the reading's direction); the reading alone if they do not meet."""
    before_lo, before_hi = centre + span[0], centre + span[1]
    if lo > before_hi or hi < before_lo:
        return lo, hi
    return min(lo, before_lo), max(hi, before_hi)


def _align(corridor: Corridor, reading: Reading) -> Reading:
    """The reading expressed in the corridor's own direction (a corridor line has two)."""
    offset, th, width, lo, hi = reading
    if abs(norm2_angle(corridor.th - th)) <= 90.0:
        return reading
    return -offset, norm_angle(th + 180.0), width, -hi, -lo


def _same(corridor: Corridor, reading: Reading) -> bool:
    offset, th, _, _, _ = reading
    if abs(norm2_angle(corridor.th - th)) > SAME_CORRIDOR_ANGLE:
        return False
    return abs(_offset(corridor) - offset) <= SAME_CORRIDOR_OFFSET


class _HeadingHistory:
    """The odometric heading and the left and right side buffers' ``added`` counts of the last
    ``length`` cycles, in ring arrays (oldest overwritten) for :func:`_since_bend`."""

    def __init__(self, length: int) -> None:
        self.headings = np.zeros(length)
        self.counts = np.zeros((length, 2), dtype=np.int64)
        self.size = 0
        self._next = 0

    def append(self, heading: float, left: int, right: int) -> int:
        """Record one cycle; the index it went to."""
        at = self._next
        self.headings[at] = heading
        self.counts[at, 0], self.counts[at, 1] = left, right
        self._next = (at + 1) % self.headings.size
        self.size = min(self.size + 1, self.headings.size)
        return at


@kernel(lambda: (np.zeros(1), np.zeros((1, 2), dtype=np.int64), 0, 1, 1, 1.0))
def _since_bend(
    headings: FloatArray, counts: npt.NDArray[np.int64], newest: int, size: int, limit: int, bend: float
) -> tuple[int, int]:
    """:meth:`Interpretation._usable` over the history, newest first, compiled: the entries added to each
    side buffer since the heading last differed from the newest one's by more than ``bend`` degrees.

    The walk stops where the counts show a buffer cleared since (a count larger than now), or at
    entries the buffers no longer hold (``limit`` or more entries before now on both sides).
    """
    heading, left, right = headings[newest], counts[newest, 0], counts[newest, 1]
    for back in range(size):
        i = (newest - back) % headings.size
        n_left, n_right = counts[i, 0], counts[i, 1]
        if n_left > left or n_right > right or min(left - n_left, right - n_right) >= limit:
            break
        turned = (headings[i] - heading) % 360.0
        if min(turned, 360.0 - turned) > bend:
            return left - n_left, right - n_right
    return left, right
