"""Monte Carlo localization against the map's lines (task ``localize``, ``sfInitLocalizationProcs``).

Registration (:mod:`.registration`) matches a few sensed walls to map lines and loses the robot in
offices, where walls are short, rooms are not on the map line for line, and one wrong match is never
undone. This localizer keeps many guesses of the global pose instead (as ARIA's SONARNL and ROS's AMCL):

* **Motion**: every cycle each sample moves by odometry's step, plus noise that grows with the distance
  driven and the angle turned, plus its own estimate of odometry's heading drift (deg per mm).
* **Sensing**: once the robot has moved :data:`UPDATE_DISTANCE` mm or turned :data:`UPDATE_TURN` deg,
  the sonar readings new since the last update weigh the samples against a likelihood field of the map
  (each grid cell's distance to the nearest map wall or corridor side). A sonar echo comes from the
  nearest surface anywhere in its wide cone, so a reading is explained by the nearest line to any point
  at its range across the cone, and contradicted by a line met squarely enough to echo nearer than it
  (else a pose nearer a wall fits as well as the right one: in open areas, where a few far echoes
  are all there is, the estimate crept towards the walls); a specular miss (no echo, or an echo from
  beyond) is a floor probability rather than a contradiction; no-echo readings say nothing.
* **Resampling** after every update, by KLD-sampling: as many samples as the spread of the belief
  needs (few when tracking, many when lost).
* **Recovery**: a running average of the fit (the samples' mean likelihood per reading); when the
  belief has settled into one cluster and its fit falls below what a right pose gives (:data:`GOOD_FIT`),
  a share of the draws are random poses in the map's free space, so a robot that was carried elsewhere
  (kidnapped) is found again. (AMCL compares a short- with a long-run average instead; with a map that
  matches the world as well as the simulator's does, the absolute level tells a wrong cluster apart
  better, and a dip of the fit while tracking does not scatter the samples.)

The estimate is the mean of the densest cluster of samples. While that cluster holds most of the
samples (:attr:`Localizer.localized`), each update puts it into ``sfRobot.ax, ay, ath`` (map artifacts
keep their global coordinates, percepts keep their local ones, as with registration). Started from the
current global pose (:meth:`Localizer.reset`) it tracks; :meth:`Localizer.globalize` (``sfGlobalLocalize``)
spreads the samples over the whole map, so a robot that has no idea where it is finds its pose by
wandering. A global pose set from outside (the user, ``sfMoveRobot``) restarts tracking from there.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from saphira.client.artifacts import Artifact, Category, Corridor, Wall
from saphira.client.reflector import Reflector
from saphira.client.sensors.sonar import NO_ECHO
from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose, cos_sin, move_pose, norm2_angle
from saphira.perception.mcl_kernels import cluster_mean, distance_field, predict, resample_kld, weigh

RESOLUTION = 50.0
"""mm: the likelihood field's cell size."""

FIELD_CAP = 2000.0
"""mm: distances in the field stop growing here (a reading that far from any line is a miss anyway)."""

MARGIN = 5000.0
"""mm of field around the map's lines (a map drawn from scans may leave open areas without lines at
its edge, where the robot can still go and see the lines it has behind it)."""

FREE = 300.0
"""mm: random samples go only where the nearest map line is at least this far (the robot fits)."""

UPDATE_DISTANCE = 100.0
UPDATE_TURN = 10.0
"""mm driven or deg turned between two sensor updates (successive readings of a robot standing still
are one measurement, not many)."""

MAP_CHECK = 10
"""Cycles between two looks at the pointlist for a changed map (every cycle costs more than it gives)."""

MIN_READINGS = 1
"""Readings an update needs (in an open area a single echo still pins one direction)."""

PUSH = (20.0, 0.25)
"""mm, deg: the estimate (after an update, or between updates moved by odometry and the samples' mean
drift) goes into ``sfRobot`` once it differs this much from the global pose odometry moved."""

BEAM = np.array([100.0, 1.0, 0.12, 0.4, 150.0, 8.0, math.cos(math.radians(60.0))])
"""The beam model (:func:`~saphira.perception.mcl_kernels.weigh`): σ mm, z_hit, z_rand, gain (readings
taken from nearby poses are not independent: each counts this much), body mm, inside-wall penalty, cos
of the largest angle from a wall's normal at which it still echoes (smooth walls reflect a grazing
beam away: a Pioneer's sonar, and the simulator's, hear nothing beyond about 60°)."""

CONE = np.linspace(-12.5, 12.5, 7)
"""deg off a sonar's axis where its echo may have come from: the whole ±12.5° cone (a wall met
obliquely echoes from the cone's edge; bearings short of it would place the robot nearer the wall)."""

MOTION = np.array([0.002, 0.05, 2.0, 3e-6])
"""Motion noise (:func:`~saphira.perception.mcl_kernels.predict`): heading deg²/mm, heading σ per deg
turned, position mm²/mm, drift σ per √mm (odometry's drift is systematic: a sample's guess of it
wanders little, so in an open area without echoes the cluster's drift still holds its heading)."""

DRIFT_PRIOR = 0.002
"""deg/mm: spread of the samples' first guess of odometry's heading drift (a P3-DX's is about 0.001)."""

RECOVERY_DRIFT = 0.25 * DRIFT_PRIOR
"""deg/mm: spread of the drift guesses of samples drawn in for recovery, about the cluster's drift."""

TRACK_XY = 300.0
TRACK_TH = 10.0
"""Standard deviations (mm, deg) of the samples when tracking starts from a known pose."""

MIN_SAMPLES = 300
GLOBAL_MIN = 4000
TRACK_SAMPLES = 2000
MAX_SAMPLES = 40000
"""Sample counts: the least KLD-sampling keeps (while localized, and while not), the start of
tracking, the most (global localization)."""

GROWTH = 4
"""The sample count grows at most this many times in one resampling."""

RESAMPLE = 0.5
"""Resample once the effective sample count falls below this share of the samples (evidence gathers
over several updates first, so one ambiguous set of readings does not wipe out the right guesses)."""

KLD_BIN = (500.0, 10.0)
KLD_EPSILON = 0.05
KLD_Z = 2.33
"""KLD-sampling: histogram bins (mm, deg), the bound on the error and the upper quantile (99%)."""

FIT_RATE = 0.1
"""Rate of the running average of the fit (about ten updates, 3 s at 300 mm/s: in an open area only
a few sonars echo, and the fit of the right pose dips for a moment)."""

SETTLING = 10
"""Updates after a (re)start during which nothing is injected and a poor fit does not count as lost
(a broad prior fits poorly at first)."""

SETTLING_SAMPLES = 1000
"""The least KLD-sampling keeps during those updates when tracking from a known pose (its prior is
broad; as many samples as when lost would cost a fifth of a two-minute run's localizing)."""

INJECT_MAX = 0.15
"""The largest share of random draws in one resampling."""

CLUSTER = (500.0, 20.0)
"""mm, deg: samples this close to the estimate belong to its cluster."""

LOCALIZED = 0.6
LOST = 0.3
"""Share of samples in the estimate's cluster at which the robot counts as localized, and at which it
stops counting as localized."""

GOOD_FIT = 0.75
LOST_FIT = 0.55
INJECT_BELOW = 0.65
"""The fit (the samples' mean likelihood per reading, at most z_hit + z_rand, averaged over updates)
of a belief that explains the readings: one cluster counts as localized only with a fit this good,
and stops counting below ``LOST_FIT``; a settled cluster fitting worse than ``INJECT_BELOW`` draws in
random samples (recovery). In a map that matches the world the right pose fits 0.9–1.05 (measured
over the bench's tracking runs) and a wrong one about 0.5."""

JUMP = (1000.0, 30.0)
"""mm, deg: an estimate this far from the last one (moved by odometry) is a different cluster; the
robot counts as localized there only once it is :data:`LOCALIZED` with a good fit."""

VIEW_SAMPLES = 300
"""The most samples a live view frame carries."""

EXTERNAL_XY = 5.0
EXTERNAL_TH = 0.5
"""A global pose this far (mm, deg) from where odometry moved it was set from outside."""


@dataclass(frozen=True)
class MapField:
    """The map's lines (rows x1 y1 x2 y2; ``lines`` adds their unit direction and length), their
    likelihood field and each cell's nearest line (row, -1: none within the field's cap); ``free`` the
    cells a robot fits in."""

    walls: FloatArray
    lines: FloatArray
    field: npt.NDArray[np.float32]
    nearest: npt.NDArray[np.int32]
    x0: float
    y0: float
    free: npt.NDArray[np.intp]

    @classmethod
    def of(cls, walls: FloatArray) -> MapField:
        x0 = float(min(walls[:, 0].min(), walls[:, 2].min())) - MARGIN
        y0 = float(min(walls[:, 1].min(), walls[:, 3].min())) - MARGIN
        x1 = float(max(walls[:, 0].max(), walls[:, 2].max())) + MARGIN
        y1 = float(max(walls[:, 1].max(), walls[:, 3].max())) + MARGIN
        nx, ny = math.ceil((x1 - x0) / RESOLUTION), math.ceil((y1 - y0) / RESOLUTION)
        nearest = np.empty((ny, nx), dtype=np.int32)
        field = distance_field(walls, x0, y0, RESOLUTION, nx, ny, FIELD_CAP, nearest)
        inner = np.zeros_like(field, dtype=bool)
        rim = int(MARGIN / RESOLUTION)
        inner[rim:-rim, rim:-rim] = True  # random samples only within the lines' bounds
        free = np.flatnonzero((field >= FREE) & inner)
        length = np.hypot(walls[:, 2] - walls[:, 0], walls[:, 3] - walls[:, 1])
        unit = (walls[:, 2:4] - walls[:, 0:2]) / np.maximum(length, 1e-9)[:, None]
        lines = np.ascontiguousarray(np.column_stack((walls, unit, length)))
        return cls(walls, lines, field, nearest, x0, y0, free)


def map_walls(artifacts: list[Artifact]) -> FloatArray:
    """Segments (x1 y1 x2 y2, global mm) of the map's walls and corridor sides (category ``ARTIFACT``)."""
    rows: list[tuple[float, float, float, float]] = []
    for a in artifacts:
        if a.cat != Category.ARTIFACT:
            continue
        if isinstance(a, Wall):
            c, s = cos_sin(a.ath)
            h = 0.5 * a.length
            rows.append((a.ax - c * h, a.ay - s * h, a.ax + c * h, a.ay + s * h))
        elif isinstance(a, Corridor) and a.length > 0:
            c, s = cos_sin(a.ath)
            h = 0.5 * a.length
            for sign in (1.0, -1.0):
                ox, oy = -s * sign * 0.5 * a.width, c * sign * 0.5 * a.width
                rows.append((a.ax + ox - c * h, a.ay + oy - s * h, a.ax + ox + c * h, a.ay + oy + s * h))
    return np.array(rows, dtype=np.float64).reshape(-1, 4)


class Localizer:
    """Monte Carlo localization of one reflector's robot on its map (see the module docstring)."""

    def __init__(self, reflector: Reflector, seed: int = 0) -> None:
        self.reflector = reflector
        self.rng = np.random.default_rng(seed)
        self.samples = np.zeros((0, 4))
        self.logw = np.zeros(0)
        """The samples' normalised log weights (uniform after a resampling)."""
        self.map: MapField | None = None
        self._map_key: tuple[int, float] | None = None
        self.localized = False
        self.estimate: Pose | None = None
        self.share = 0.0
        """Share of the samples in the estimate's cluster after the last update."""
        self.updates = 0
        self.injected = 0
        """Random samples drawn in for recovery, in all."""
        self.seconds = 0.0
        """Seconds (wall clock: on this kind of machine reading the process clock costs over a millisecond)
        spent in :meth:`step`, in all, for the cost per cycle."""
        self.steps = 0
        self.fit = 0.0
        """Running average of the samples' mean likelihood per reading (see :data:`GOOD_FIT`)."""
        self._settling = SETTLING
        self._drift = 0.0
        """deg/mm: the estimate's cluster's mean heading drift, applied to the estimate between updates."""
        self._last_odo: Pose | None = None
        self._moved = 0.0
        self._turned = 0.0
        self._counts: list[int] = []
        self._written: Pose | None = None
        self._pending_global = False

    # ------------------------------------------------------------------ starting
    def reset(self, pose: Pose | None = None, sigma_xy: float = TRACK_XY, sigma_th: float = TRACK_TH) -> None:
        """Track from ``pose`` (default: the current global pose) known to these standard deviations."""
        p = pose or self.reflector.state.global_pose
        n = TRACK_SAMPLES
        self.samples = np.column_stack(
            (
                p.x + sigma_xy * self.rng.standard_normal(n),
                p.y + sigma_xy * self.rng.standard_normal(n),
                p.th + sigma_th * self.rng.standard_normal(n),
                DRIFT_PRIOR * self.rng.standard_normal(n),
            )
        )
        self._restart(localized=True, estimate=Pose(p.x, p.y, p.th))

    def globalize(self) -> None:
        """Forget the pose: samples everywhere in the map's free space (``sfGlobalLocalize``). Without a
        map yet, this happens as soon as the map is loaded."""
        m = self._ensure_map()
        if m is None:
            self._pending_global = True
            return
        self._pending_global = False
        self.samples = self._random_samples(MAX_SAMPLES)
        self._restart(localized=False, estimate=None)

    def _restart(self, *, localized: bool, estimate: Pose | None) -> None:
        self.logw = np.full(len(self.samples), -math.log(len(self.samples)))
        self.localized = localized
        self.estimate = estimate
        self.share = 1.0 if localized else 0.0
        self._settling = SETTLING
        self._drift = 0.0
        self._moved = self._turned = 0.0
        self._written = self.reflector.state.global_pose

    def _random_samples(self, n: int, drift: float = 0.0, drift_spread: float = DRIFT_PRIOR) -> FloatArray:
        """``n`` poses anywhere in the map's free space, their drift guesses ``drift`` ± ``drift_spread``."""
        m = self.map
        assert m is not None
        nx = m.field.shape[1]
        cells = m.free[self.rng.integers(0, len(m.free), n)] if len(m.free) else np.zeros(n, dtype=np.intp)
        jitter = self.rng.random((n, 2)) * RESOLUTION
        return np.column_stack(
            (
                m.x0 + (cells % nx) * RESOLUTION + jitter[:, 0],
                m.y0 + (cells // nx) * RESOLUTION + jitter[:, 1],
                self.rng.random(n) * 360.0 - 180.0,
                drift + drift_spread * self.rng.standard_normal(n),
            )
        )

    def _ensure_map(self) -> MapField | None:
        """The likelihood field of the map on the pointlist, rebuilt when the map changed; None without one."""
        artifacts = [a for a in self.reflector.pointlist if a.cat == Category.ARTIFACT]
        key = (len(artifacts), round(sum(a.ax + a.ay for a in artifacts), 3))
        if key != self._map_key:
            self._map_key = key
            walls = map_walls(artifacts)
            self.map = MapField.of(walls) if len(walls) else None
        return self.map

    # ------------------------------------------------------------------ the task's work
    def step(self) -> None:
        """One cycle of ``localize``: move the samples by odometry; when due, weigh, resample, estimate."""
        started = time.perf_counter()
        try:
            self._step()
        finally:
            self.seconds += time.perf_counter() - started
            self.steps += 1

    def _step(self) -> None:
        state = self.reflector.state
        odo = state.odo_pose
        last, self._last_odo = self._last_odo, odo
        if (self.map is None or self.steps % MAP_CHECK == 0) and self._ensure_map() is None:
            return
        if self._pending_global:
            self.globalize()
        if not len(self.samples):
            self.reset()
        if last is None:
            return
        c, s = cos_sin(last.th)
        dx, dy = odo.x - last.x, odo.y - last.y
        forward, left, dth = c * dx + s * dy, -s * dx + c * dy, norm2_angle(odo.th - last.th)
        written = self._written or state.global_pose
        expected = move_pose(written, forward, left, dth)
        pose = state.global_pose
        if (
            math.hypot(pose.x - expected.x, pose.y - expected.y) > EXTERNAL_XY
            or abs(norm2_angle(pose.th - expected.th)) > EXTERNAL_TH
        ):
            self.reset(pose)
            return
        self._written = pose
        if forward or left or dth:
            normals = self.rng.standard_normal((len(self.samples), 4))
            predict(self.samples, normals, forward, left, dth, MOTION)
            self._moved += math.hypot(forward, left)
            self._turned += abs(dth)
            if self.estimate is not None:
                self.estimate = move_pose(self.estimate, forward, left, dth + self._drift * forward)
                self._push(pose)
        if self._moved >= UPDATE_DISTANCE or self._turned >= UPDATE_TURN:
            readings = self._readings(odo)
            if len(readings) >= MIN_READINGS:
                self._moved = self._turned = 0.0
                self._update(readings)

    def _push(self, pose: Pose) -> None:
        """The estimate into ``sfRobot`` while localized, once it is :data:`PUSH` away from ``pose`` (moving
        the robot in the global frame recomputes every artifact's local coordinates: not for less)."""
        est = self.estimate
        if not self.localized or est is None:
            return
        if math.hypot(est.x - pose.x, est.y - pose.y) >= PUSH[0] or abs(norm2_angle(est.th - pose.th)) >= PUSH[1]:
            self._set_pose(est)

    def _readings(self, odo: Pose) -> FloatArray:
        """The sonar readings new since the last update: sonar x, y, bearing in the robot's current
        (odometric) frame, and range; readings without an echo left out."""
        buckets = self.reflector.sonar.buckets
        if len(self._counts) != len(buckets):
            self._counts = [b.count for b in buckets]
            return np.zeros((0, 4))
        rows = []
        c, s = cos_sin(odo.th)
        for i, b in enumerate(buckets):
            if b.count == self._counts[i]:
                continue
            self._counts[i] = b.count
            if b.range >= NO_ECHO:
                continue
            dx, dy = b.robot_x - odo.x, b.robot_y - odo.y
            lx, ly = c * dx + s * dy, -s * dx + c * dy
            dth = norm2_angle(b.robot_th - odo.th)
            mc, ms = cos_sin(dth)
            p = b.pose
            rows.append((lx + mc * p.x - ms * p.y, ly + ms * p.x + mc * p.y, dth + p.th, float(b.range)))
        return np.array(rows, dtype=np.float64).reshape(-1, 4)

    def _update(self, readings: FloatArray) -> None:
        m = self.map
        assert m is not None
        logw = self.logw
        fit = weigh(self.samples, logw, readings, m.field, m.nearest, m.lines, m.x0, m.y0, RESOLUTION, BEAM, CONE)
        self.updates += 1
        self._settling = max(0, self._settling - 1)
        self.fit = fit if self._settling == SETTLING - 1 else self.fit + FIT_RATE * (fit - self.fit)
        inject = 0.0
        if self.share >= LOCALIZED and not self._settling:
            # one cluster, settled: if it no longer explains the readings, look elsewhere too
            inject = min(INJECT_MAX, max(0.0, 2.0 * (1.0 - self.fit / INJECT_BELOW)))
        weights = np.exp(logw - logw.max())
        weights /= weights.sum()
        neff = 1.0 / float(np.sum(weights * weights))
        if inject > 0.0 or neff < RESAMPLE * len(weights):
            self.samples = self._resample(weights, inject)
            self.logw = np.full(len(self.samples), -math.log(len(self.samples)))
        else:
            self.logw = np.log(np.maximum(weights, 1e-300))
        self._estimate()

    def _resample(self, weights: FloatArray, inject: float) -> FloatArray:
        n_min = MIN_SAMPLES if self.localized else GLOBAL_MIN
        if self.localized and self._settling:
            n_min = SETTLING_SAMPLES
        n_max = min(MAX_SAMPLES, max(GROWTH * len(weights), 2 * n_min))  # arrays no larger than needed
        uniforms = self.rng.random(2 * n_max)
        n_random = int(inject * n_max * 1.2) + 1 if inject > 0 else 0
        # a robot carried elsewhere keeps its odometry, and so the drift learnt while tracking
        randoms = self._random_samples(n_random, self._drift, RECOVERY_DRIFT) if n_random else np.zeros((0, 4))
        out = np.empty((n_max, 4))
        kld = np.array([KLD_BIN[0], KLD_BIN[1], KLD_EPSILON, KLD_Z, n_min, n_max, inject])
        count = resample_kld(self.samples, weights, uniforms, randoms, out, kld)
        self.injected += int(np.count_nonzero(uniforms[1 : 2 * count : 2] < inject)) if inject > 0 else 0
        return out[:count].copy()

    def _estimate(self) -> None:
        """The weighted mean of the densest cluster: all samples within :data:`CLUSTER` of a first
        guess, twice refined. The first guess is the last estimate while localized (if its cluster still
        holds most samples: the common case, and the cheap one), else the heaviest 1 m cell's mean."""
        w = np.exp(self.logw)
        total = float(w.sum())
        mean = np.zeros(5)  # x, y, th, weight, drift
        last = self.estimate
        if not (self.localized and last is not None and self._refine(w, last, mean) >= LOCALIZED * total):
            xy = self.samples[:, :2]
            cells = np.floor(xy / 1000.0).astype(np.int64)
            keys = cells[:, 0] * 1_000_003 + cells[:, 1]
            _uniq, inverse = np.unique(keys, return_inverse=True)
            members = inverse == int(np.argmax(np.bincount(inverse, weights=w)))
            centre = np.average(xy[members], axis=0, weights=w[members])
            heading = _circular_mean(self.samples[members, 2], w[members])
            mean[:] = (
                centre[0],
                centre[1],
                heading,
                w[members].sum(),
                np.average(self.samples[members, 3], weights=w[members]),
            )
            self._refine(w, Pose(float(centre[0]), float(centre[1]), heading), mean)
        centre, heading = mean[:2], float(mean[2])
        self.share = float(mean[3] / total)
        self._drift = float(mean[4])
        last, self.estimate = self.estimate, Pose(float(centre[0]), float(centre[1]), norm2_angle(heading))
        jumped = last is None or (
            math.hypot(last.x - centre[0], last.y - centre[1]) > JUMP[0]
            or abs(norm2_angle(last.th - heading)) > JUMP[1]
        )
        if jumped:
            self.localized = False
        if self.share >= LOCALIZED and self.fit >= GOOD_FIT:
            self.localized = True
        elif self.share < LOST or (self.fit < LOST_FIT and not self._settling):
            self.localized = False
        self._push(self.reflector.state.global_pose)

    def _refine(self, w: FloatArray, guess: Pose, mean: FloatArray) -> float:
        """Twice the mean of the samples within :data:`CLUSTER` of ``guess``, then of that mean, into
        ``mean`` (left as it was when none is that near); the cluster's weight."""
        found = np.zeros(5)
        centre = guess
        for _ in range(2):
            cluster_mean(self.samples, w, centre.x, centre.y, centre.th, CLUSTER[0], CLUSTER[1], found)
            if found[3] <= 0.0:
                break
            mean[:] = found
            centre = Pose(float(found[0]), float(found[1]), float(found[2]))
        return float(mean[3])

    def _set_pose(self, pose: Pose) -> None:
        """Move the robot in the global frame: map artifacts stay put, percepts stay where sensed."""
        reflector = self.reflector
        percepts = [(a, a.x, a.y, a.th) for a in reflector.pointlist if a.cat == Category.PERCEPT]
        reflector.set_global_pose(*pose)
        for a, x, y, a_th in percepts:
            a.x, a.y, a.th = x, y, a_th
            a.set_global_coords(pose)
        self._written = reflector.state.global_pose

    # ------------------------------------------------------------------ the live view
    def view(self, limit: int = VIEW_SAMPLES) -> tuple[FloatArray, Pose | None, bool]:
        """What the live view draws (a copy, cheap enough for the control cycle): up to ``limit``
        samples (rows x, y, th), the estimate and whether the robot counts as localized."""
        step = max(1, len(self.samples) // limit)
        return self.samples[::step, :3].copy(), self.estimate, self.localized


def _circular_mean(degrees: FloatArray, weights: FloatArray) -> float:
    rad = np.radians(degrees)
    return math.degrees(math.atan2(float(np.dot(np.sin(rad), weights)), float(np.dot(np.cos(rad), weights))))
