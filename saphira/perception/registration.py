"""Registration (task ``test matching``, see docs/colbert.md): keeping the global pose on the map.

Each cycle the pose filter (:class:`~saphira.perception.ekf.PoseFilter`, an EKF over the pose and
odometry's heading drift rate) takes the odometric motion since the last cycle as its prediction, then
sensed features are matched to nearby map artifacts
(category ``ARTIFACT``) and each accepted match corrects ``sfRobot.ax, ay, ath``:

1. the sensed corridor hypothesis against map corridors (its centre line: heading and lateral offset);
2. otherwise each wall hypothesis against map walls and the sides of map corridors (the same);
3. door and junction hypotheses, once confirmed and passed, against map doors and junctions of their
   type (their position: mainly the along-track offset, which lines cannot give);
4. a sensed wall that matches no map line still gives the heading, where the map's walls run in a
   few dominant directions (an office: multiples of 90°) — the nearest of them, if it lies in the gate
   (:meth:`Registration._match_direction`); this keeps the heading, and so the line matches, from
   drifting away in rooms whose walls are not on the map line for line;
5. door sides: a sensed wall that ended (:mod:`.ends`) against the jambs of map doors and junctions
   and the ends of map walls that open the same way (along-track again, as soon as the robot has
   passed the jamb rather than the whole door, and also where the map has walls but no doors).

A match must lie in the filter's χ² gate and be unambiguous: if a second, different map line or point
also fits nearly as well (:data:`AMBIGUITY`), nothing is corrected. Line measurements are used once
per :data:`LINE_SPACING` mm of travel, since successive fits share most of their readings and the filter
assumes independent measurements. A correction moves the robot in the global frame: map artifacts keep
their global coordinates (so their local ones follow), while percepts keep their local ones (they were
sensed relative to the robot). A global pose that moved otherwise than odometry says (the user placed
the robot, ``sfMoveRobot``, a reconnection) resets the filter to the prior uncertainty.

Map building (§8.8) lives in :mod:`saphira.perception.mapping` and is called from here with what did
not match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from saphira.client.artifacts import Artifact, ArtifactType, Category, Corridor, Door, Junction, Wall
from saphira.client.reflector import Reflector
from saphira.core.geometry import Pose, cos_sin, move_pose, norm2_angle
from saphira.perception.ekf import GATE, GATE_1D, MotionNoise, PoseFilter, line_noise, point_noise
from saphira.perception.ends import MapEnd, SensedEnd, WallEnds, map_ends
from saphira.perception.interpretation import BreakHypothesis, Interpretation
from saphira.perception.mapping import MapBuilder

A = TypeVar("A", bound=Artifact)

PRIOR_XY = 500.0
PRIOR_TH = 10.0
"""Standard deviations (mm, deg) of the pose when registration starts or the pose is set by hand."""

EXTERNAL_XY = 5.0
EXTERNAL_TH = 0.5
"""A global pose this far (mm, deg) from where odometry moved it was set from outside (the user, a
reconnection): the filter restarts from the prior."""

DRIFT_PUSH = 0.1
"""deg of estimated drift correction gathered before it is applied to the global pose."""

LINE_SPACING = 150.0
"""mm of travel between two line measurements."""

ANGLE_WINDOW = 20.0
"""deg: map lines further than this from a sensed line's direction are not candidates."""

OVERLAP_SLACK = 500.0
"""mm a sensed segment may extend beyond a map segment's ends and still match it."""

MIN_MAP_LINE = 1000.0
"""mm: a map line shorter than half the sensed wall (up to this) cannot explain it (furniture, a pillar
face, an oblique scrap of a scanned map would otherwise pull the heading towards their direction)."""

AMBIGUITY = 4.0
"""A second candidate within this much squared Mahalanobis distance of the best makes a match ambiguous."""

MIN_CORRIDOR_SUPPORT = 500.0
"""mm of travel a sensed corridor must have been seen over before it is matched."""

BUILD_SUPPORT = 1500.0
"""mm of travel a sensed corridor must have been seen over before map building adds it."""

BUILD_PAIRED = 2500.0
"""mm of travel with both walls seen parallel before map building adds a sensed corridor."""

BUILD_LENGTH = 2000.0
"""mm: the shortest sensed corridor map building adds: its walls' extent seen along the travel
(:attr:`~saphira.perception.interpretation.Interpretation.corridor_extent`), not one reading's, which
the side buffers' fixed number of echoes shortens at low speed."""

BUILD_MAX_WIDTH = 3000.0
"""mm: a wider sensed corridor is more likely a room; map building does not add it."""

DOOR_CONFIRM = 4
"""Detections before a door or junction hypothesis is matched."""

DOOR_PASSED = 1500.0
"""mm from the robot at which a confirmed door hypothesis is final and matched."""

CORRIDOR_SIGMA = (40.0, 1.0)
WALL_SIGMA = (50.0, 1.5)
DOOR_SIGMA = (150.0, 100.0)
END_SIGMA = (120.0, 100.0)
"""Measurement standard deviations: lines (lateral mm, direction deg), doors and wall ends (along mm,
across mm)."""

DIRECTION_SHARE = 0.15
"""A direction (mod 180°) is one of the map's dominant ones if its walls hold this share of the length."""

STEADY_RVEL = 5.0
"""deg/s: a wall's direction alone is only taken while the robot turns no faster than this."""

DIRECTION_WINDOW = 12.0
"""deg: a steady wall this close to a dominant direction corrects the heading even outside the χ²
gate (with directions 90° apart nothing else can explain it; drift soon takes odometry beyond a gate
the filter, trusting its drift estimate, keeps too narrow)."""

DIRECTION_SIGMA = 2.0
"""deg: standard deviation of a sensed wall's direction taken against a dominant map direction."""

SAME_END_POINT = 150.0
"""mm: map ends this close together (a wall's end that is also a door's jamb) are one feature."""

END_WINDOW = 1500.0
"""mm: map ends further than this from a sensed wall end (at the current pose) are not candidates."""


@dataclass(frozen=True)
class MapLine:
    """A line of the map: a point, a direction (global) and a half length; ``source`` is the artifact."""

    x: float
    y: float
    th: float
    half: float
    source: Artifact


@dataclass
class Candidate:
    """One possible match: its squared Mahalanobis distance, what the filter update needs, the map
    artifact, and ``key`` (the predicted measurement) to tell different map features apart."""

    distance2: float
    innovation: np.ndarray
    H: np.ndarray
    R: np.ndarray
    source: Artifact
    key: tuple[float, float]


@dataclass
class Registration:
    """The registration state of one reflector (see the module docstring)."""

    reflector: Reflector
    interpretation: Interpretation
    add_new_features: bool = True
    snap_to_right_angle_grid: bool = True
    filter: PoseFilter | None = None
    matches: dict[str, int] = field(
        default_factory=lambda: {"corridor": 0, "wall": 0, "door": 0, "junction": 0, "side": 0, "direction": 0}
    )
    rejected: int = 0
    builder: MapBuilder = field(init=False)
    ends: WallEnds = field(init=False)
    _last_line: float | None = None
    _last_odo: Pose | None = None
    _last_wall: float | None = None
    _unpushed: float = 0.0
    _directions: tuple[tuple[int, float], list[float]] | None = None

    def __post_init__(self) -> None:
        self.builder = MapBuilder(self.reflector.pointlist)
        self.ends = WallEnds(self.interpretation)

    # ------------------------------------------------------------------ filter
    def reset(self, sigma_xy: float = PRIOR_XY, sigma_th: float = PRIOR_TH) -> None:
        """Trust the current pose only to within these standard deviations (mm, deg)."""
        self._filter().reset(self.reflector.state.global_pose, sigma_xy, sigma_th)

    def _filter(self) -> PoseFilter:
        if self.filter is None:
            p = self.reflector.params
            noise = MotionNoise.from_params(p.angle_drift, p.angle_jitter, p.dist_jitter)
            self.filter = PoseFilter(self.reflector.state.global_pose, PRIOR_XY, PRIOR_TH, noise)
        return self.filter

    def _predict(self) -> PoseFilter:
        """Carry the filter to the current pose: odometric motion predicts; any other change of the
        global pose (the user placed the robot, a reconnection) restarts from the prior. The estimated
        drift reaches ``sfRobot`` once it amounts to :data:`DRIFT_PUSH` (moving every artifact's local
        coordinates each cycle for a few hundredths of a degree would cost more than it is worth)."""
        f = self._filter()
        state = self.reflector.state
        pose, odo = state.global_pose, state.odo_pose
        believed = Pose(pose.x, pose.y, norm2_angle(pose.th + self._unpushed))
        last, self._last_odo = self._last_odo, odo
        if last is None:
            return f
        c, s = cos_sin(last.th)
        dx, dy = odo.x - last.x, odo.y - last.y
        expected = move_pose(f.pose, c * dx + s * dy, -s * dx + c * dy, norm2_angle(odo.th - last.th))
        moved_by_hand = math.hypot(believed.x - expected.x, believed.y - expected.y) > EXTERNAL_XY
        if moved_by_hand or abs(norm2_angle(believed.th - expected.th)) > EXTERNAL_TH:
            f.reset(pose, PRIOR_XY, PRIOR_TH)
            self._unpushed = 0.0
            return f
        self._unpushed = norm2_angle(f.predict(believed).th - pose.th)
        if abs(self._unpushed) >= DRIFT_PUSH:
            self._set_pose(f.pose)
        return f

    def _apply(self, f: PoseFilter, c: Candidate) -> None:
        self._set_pose(f.update(c.innovation, c.H, c.R))
        c.source.matched = self.reflector.state.sips

    def _set_pose(self, pose: Pose) -> None:
        """Move the robot in the global frame: map artifacts stay put, percepts stay where sensed."""
        self._unpushed = 0.0
        percepts = [(a, a.x, a.y, a.th) for a in self.reflector.pointlist if a.cat == Category.PERCEPT]
        self.reflector.set_global_pose(*pose)
        for a, x, y, th in percepts:
            a.x, a.y, a.th = x, y, th
            a.set_global_coords(pose)

    # ------------------------------------------------------------------ the task's work
    def step(self) -> None:
        """One cycle of ``test matching``: predict, match, correct, and build the map."""
        f = self._predict()
        interp = self.interpretation
        odo = interp.odometer()
        line_due = self._last_line is None or odo - self._last_line >= LINE_SPACING
        corridor = interp.corridor
        matched_corridor = False
        if corridor is not None and corridor.viewable and interp.corridor_support >= MIN_CORRIDOR_SUPPORT:
            best = self._match_line(f, corridor, self._corridor_lines(), CORRIDOR_SIGMA, width=corridor.width)
            if best is not None:
                matched_corridor = True
                if line_due:
                    self._apply(f, best)
                    self.matches["corridor"] += 1
                    self._last_line = odo
                if isinstance(best.source, Corridor):
                    self.builder.extend(best.source, corridor, f.pose)
            elif self.add_new_features and self._unexplained(interp, odo):
                self.builder.add_corridor(corridor, f.pose, self.snap_to_right_angle_grid)
        if not matched_corridor and line_due:
            lines = self._wall_lines()
            for side in (interp.left, interp.right):
                if not side.wall.viewable:
                    continue
                sigma = (WALL_SIGMA[0] + (side.recent.rms if side.recent else 0.0), WALL_SIGMA[1])
                best = self._match_line(f, side.wall, lines, sigma)
                if best is not None:
                    self._apply(f, best)
                    self.matches["wall"] += 1
                    self._last_line = self._last_wall = odo
                elif self._match_direction(f, side.wall, lines):
                    self._last_line = odo
        for hyp in interp.breaks:
            if (
                not hyp.used
                and hyp.detections >= DOOR_CONFIRM
                and math.hypot(hyp.artifact.x, hyp.artifact.y) >= DOOR_PASSED
            ):
                hyp.used = True
                self._match_break(f, hyp)
        sensed_ends = self.ends.update()
        if sensed_ends:
            candidates = map_ends([a for a in self.reflector.pointlist if a.cat == Category.ARTIFACT])
            for end in sensed_ends:
                self._match_end(f, end, candidates)

    def _unexplained(self, interp: Interpretation, odo: float) -> bool:
        """A sensed corridor is new to the map once seen over :data:`BUILD_SUPPORT` mm while no map
        wall matched its walls for as long (walls that match explain it already), and only if it looks
        like a corridor rather than an office: both walls seen parallel over :data:`BUILD_PAIRED` mm, at
        least :data:`BUILD_LENGTH` long and no wider than :data:`BUILD_MAX_WIDTH`."""
        walls_quiet = self._last_wall is None or odo - self._last_wall >= BUILD_SUPPORT
        corridor = interp.corridor
        shaped = (
            corridor is not None
            and corridor.width <= BUILD_MAX_WIDTH
            and interp.corridor_extent >= BUILD_LENGTH
            and interp.corridor_paired >= BUILD_PAIRED
        )
        return interp.corridor_support >= BUILD_SUPPORT and walls_quiet and shaped

    # ------------------------------------------------------------------ lines
    def _map(self, kind: type[A]) -> list[A]:
        """The map artifacts (category ``ARTIFACT``) of one class."""
        return [a for a in self.reflector.pointlist if a.cat == Category.ARTIFACT and isinstance(a, kind)]

    def _corridor_lines(self) -> list[MapLine]:
        return [MapLine(c.ax, c.ay, c.ath, 0.5 * c.length if c.length > 0 else 1e9, c) for c in self._map(Corridor)]

    def _wall_lines(self) -> list[MapLine]:
        lines = [MapLine(w.ax, w.ay, w.ath, 0.5 * w.length, w) for w in self._map(Wall)]
        for c in self._map(Corridor):
            cth, sth = cos_sin(c.ath)
            half = 0.5 * c.length if c.length > 0 else 1e9
            for sign in (1.0, -1.0):
                d = sign * 0.5 * c.width
                lines.append(MapLine(c.ax - sth * d, c.ay + cth * d, c.ath, half, c))
        return lines

    def _match_line(
        self, f: PoseFilter, sensed: Artifact, lines: list[MapLine], sigma: tuple[float, float], width: float = 0.0
    ) -> Candidate | None:
        """The best unambiguous gated match of a sensed line (local coordinates) among map lines."""
        x, y, th = f.pose
        length = float(getattr(sensed, "length", 0.0))
        c, s = cos_sin(th)
        gx, gy = x + c * sensed.x - s * sensed.y, y + s * sensed.x + c * sensed.y  # sensed centre, global
        R = line_noise(*sigma)
        found: list[Candidate] = []
        for line in lines:
            source = line.source
            if width and isinstance(source, Corridor) and abs(source.width - width) > max(400.0, 0.3 * source.width):
                continue
            predicted, H = f.line_model(line.x, line.y, line.th)
            rel = math.degrees(predicted[1])
            direction = sensed.th if abs(norm2_angle(sensed.th - rel)) <= 90.0 else sensed.th + 180.0
            if abs(norm2_angle(direction - rel)) > ANGLE_WINDOW:
                continue
            if 2.0 * line.half < min(0.5 * length, MIN_MAP_LINE):
                continue
            lc, ls = cos_sin(line.th)
            along = lc * (gx - line.x) + ls * (gy - line.y)
            if abs(along) > line.half + 0.5 * length + OVERLAP_SLACK:
                continue
            dc, ds = cos_sin(direction)
            z = np.array([ds * sensed.x - dc * sensed.y, math.radians(norm2_angle(direction))])
            innovation = np.array([z[0] - predicted[0], math.radians(norm2_angle(math.degrees(z[1] - predicted[1])))])
            d2 = f.mahalanobis(innovation, H, R)
            found.append(Candidate(d2, innovation, H, R, line.source, (float(predicted[0]), rel)))
        return self._choose(found, 200.0)

    def _match_direction(self, f: PoseFilter, sensed: Wall, lines: list[MapLine]) -> bool:
        """Correct the heading alone from a sensed wall: the nearest dominant map direction, if gated."""
        directions = self._dominant_directions(lines)
        steady = abs(self.reflector.state.rvel) <= STEADY_RVEL
        if not directions or not steady or sensed.length < MIN_MAP_LINE:
            return False
        sensed_th = f.pose.th + sensed.th
        best = min(directions, key=lambda d: abs(norm2_angle(2.0 * (d - sensed_th))))
        innovation = math.radians(norm2_angle(2.0 * (best - sensed_th)) / 2.0)  # axial: mod 180
        sigma = math.radians(DIRECTION_SIGMA)
        if abs(innovation) > math.radians(DIRECTION_WINDOW) and f.heading_mahalanobis(innovation, sigma) > GATE_1D:
            return False
        self._set_pose(f.update_heading(innovation, sigma))
        self.matches["direction"] += 1
        return True

    def _dominant_directions(self, lines: list[MapLine]) -> list[float]:
        """Directions (deg mod 180) holding :data:`DIRECTION_SHARE` of the map's line length (cached)."""
        key = (len(lines), sum(line.half for line in lines if line.half < 1e8))
        if self._directions is not None and self._directions[0] == key:
            return self._directions[1]
        length: dict[int, float] = {}
        for line in lines:
            bin_ = round((line.th % 180.0) / 2.0) % 90  # 2-degree bins over 180
            length[bin_] = length.get(bin_, 0.0) + min(line.half, 50000.0)
        total = sum(length.values())
        found = [2.0 * b for b, v in length.items() if total > 0.0 and v >= DIRECTION_SHARE * total]
        self._directions = (key, found)
        return found

    def _choose(self, found: list[Candidate], same: float) -> Candidate | None:
        """The gated candidate with the least distance, unless another, different one is almost as good."""
        gated = sorted((c for c in found if c.distance2 <= GATE), key=lambda c: c.distance2)
        if not gated:
            if found:
                self.rejected += 1
            return None
        best = gated[0]
        for other in gated[1:]:
            if other.distance2 > best.distance2 + AMBIGUITY:
                break
            apart = abs(other.key[0] - best.key[0]) > same or abs(norm2_angle(other.key[1] - best.key[1])) > 5.0
            if apart:
                self.rejected += 1
                return None
        return best

    # ------------------------------------------------------------------ doors and junctions
    def _match_break(self, f: PoseFilter, hyp: BreakHypothesis) -> None:
        sensed = hyp.artifact
        kind: type[Artifact] = Door if sensed.type == ArtifactType.DOOR else Junction
        R = point_noise(DOOR_SIGMA[0], DOOR_SIGMA[1], sensed.th + 90.0)
        found: list[Candidate] = []
        for m in self._map(kind):
            if abs(norm2_angle(m.ath - f.pose.th - sensed.th)) > 45.0:
                continue
            predicted, H = f.point_model(m.ax, m.ay)
            innovation = np.array([sensed.x - predicted[0], sensed.y - predicted[1]])
            d2 = f.mahalanobis(innovation, H, R)
            found.append(Candidate(d2, innovation, H, R, m, (float(predicted[0]), float(predicted[1]))))
        best = self._choose_point(found)
        if best is not None:
            self._apply(f, best)
            self.matches["door" if kind is Door else "junction"] += 1
        elif kind is Door and self.add_new_features and not any(c.distance2 <= GATE for c in found):
            self.builder.add_door(sensed, f.pose)

    def _match_end(self, f: PoseFilter, end: SensedEnd, candidates: list[MapEnd]) -> None:
        """A door side: the sensed wall end against map jambs and wall ends opening the same way."""
        x, y, th = f.pose
        c, s = cos_sin(th)
        gx, gy = x + c * end.x - s * end.y, y + s * end.x + c * end.y
        opening = th + end.th
        R = point_noise(END_SIGMA[0], END_SIGMA[1], end.th)
        found: list[Candidate] = []
        for m in candidates:
            if abs(norm2_angle(m.th - opening)) > 45.0 or math.hypot(m.x - gx, m.y - gy) > END_WINDOW:
                continue
            predicted, H = f.point_model(m.x, m.y)
            innovation = np.array([end.x - predicted[0], end.y - predicted[1]])
            d2 = f.mahalanobis(innovation, H, R)
            found.append(Candidate(d2, innovation, H, R, m.source, (float(predicted[0]), float(predicted[1]))))
        best = self._choose_point(found, SAME_END_POINT)
        if best is not None:
            self._apply(f, best)
            self.matches["side"] += 1

    def _choose_point(self, found: list[Candidate], same: float = 0.0) -> Candidate | None:
        """The gated point with the least distance, unless another one more than ``same`` mm from it
        (a different map feature, not a wall end that is also a jamb) is almost as good."""
        gated = sorted((c for c in found if c.distance2 <= GATE), key=lambda c: c.distance2)
        if not gated:
            return None
        best = gated[0]
        for other in gated[1:]:
            if other.distance2 > best.distance2 + AMBIGUITY:
                break
            if math.hypot(other.key[0] - best.key[0], other.key[1] - best.key[1]) > same:
                self.rejected += 1
                return None
        return best
