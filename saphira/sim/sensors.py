"""The simulated robot's sensors: wheel odometry with its error model, the sonar ring, the compass.

Each sensor is pure state plus arithmetic; the random numbers come from the caller (the
simulation's one seeded generator), so a run is reproducible. Units: mm, degrees.

* :class:`Odometry` — the pose the robot reports, dead-reckoned from the wheel motion, with the
  parameter file's error model (``AngleJitter``, ``AngleDrift``, ``DistJitter``).
* :class:`SonarRing` — each transducer is a beam of several rays; sonars fire one at a time in the
  polling sequence; :meth:`SonarRing.take_new_readings` hands over what fired since the last call.
* :func:`compass_reading` — the true heading plus N(0, 3°), north along +x (docs/architecture.md §7).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.core.jit import kernel
from saphira.params.robot_params import RobotParams
from saphira.sim.robot_model import wrap_degrees
from saphira.world.raycast import as_segments, first_hit, walls_in_fan

NO_ECHO_MM = 5000.0
"""Range a sonar reports when it hears nothing (ARIA's maximum sonar range)."""

COMPASS_SIGMA_DEG = 3.0
"""Standard deviation of the simulated compass (docs/architecture.md §7)."""

ERROR_REFERENCE_STEP = 0.1
"""s: the step length the parameter file's per-step error figures are stated for."""

_UINT16 = 1 << 16


def chord(distance: float, turn_deg: float) -> tuple[float, float]:
    """Straight-line (length, bearing offset in deg) of an arc of ``distance`` mm turning ``turn_deg``.

    The chord of a constant-curvature arc is ``distance × sinc(turn / 2)`` long and points half the
    turn off the starting heading; for a straight move it is the move itself.
    """
    half = math.radians(turn_deg) * 0.5
    factor = math.sin(half) / half if abs(half) > 1e-9 else 1.0 - half * half / 6.0
    return distance * factor, turn_deg * 0.5


class Odometry:
    """The robot's dead-reckoned pose (mm, mm, deg in (-180, 180]), starting at 0, 0, 0.

    :meth:`move` integrates the same wheel motion the true pose receives, so with ``error`` off the
    odometric pose is exactly the true motion relative to the start (or the last SETO). With
    ``error`` on, :meth:`add_error` perturbs it after every simulation step (see its docstring).
    """

    def __init__(self, params: RobotParams, error: bool = True) -> None:
        self.angle_jitter = params.angle_jitter
        self.angle_drift = params.angle_drift
        self.dist_jitter = params.dist_jitter
        self.error = error
        self.x = 0.0
        self.y = 0.0
        self.th = 0.0

    def reset(self, x: float = 0.0, y: float = 0.0, th: float = 0.0) -> None:
        """SETO: the odometric pose becomes (x, y, th); no arguments gives 0, 0, 0."""
        self.x, self.y, self.th = float(x), float(y), wrap_degrees(th)

    def move(self, length: float, bearing_offset: float, turn: float) -> None:
        """Apply one chord (see :func:`chord`): ``length`` mm at ``bearing_offset`` deg, then turn."""
        bearing = math.radians(self.th + bearing_offset)
        self.x += length * math.cos(bearing)
        self.y += length * math.sin(bearing)
        self.th = wrap_degrees(self.th + turn)

    def add_error(self, distance: float, turned: float, dt: float, normals: FloatArray) -> None:
        """Perturb the pose after a step of ``dt`` s that drove ``distance`` mm and turned ``turned`` deg.

        Heading error = ``angle_drift × distance`` (systematic: counter-clockwise for positive drift
        when driving forward) + N(0, σ) with σ = ``angle_jitter × |turned|``; distance error
        N(0, σ) with σ = ``dist_jitter × |distance|``, along the heading. The σ are those of a
        :data:`ERROR_REFERENCE_STEP` step; for other step lengths they scale with √(0.1 s / dt), so
        the accumulated error over a path does not depend on the step size. ``normals`` are two
        standard normal draws. Nothing happens with ``error`` off.
        """
        if not self.error or (distance == 0.0 and turned == 0.0):
            return
        scale = math.sqrt(ERROR_REFERENCE_STEP / dt)
        dth = self.angle_drift * distance + float(normals[0]) * self.angle_jitter * abs(turned) * scale
        slip = float(normals[1]) * self.dist_jitter * abs(distance) * scale
        self.move(slip, 0.0, dth)

    def counters(self, dist_conv_factor: float, angle_conv_factor: float) -> tuple[int, int, int]:
        """The SIP's raw X, Y, Th: ``x / DistConvFactor`` and ``y / …`` rounded and wrapped to 16 bits
        (0..65535), and ``radians(th) / AngleConvFactor`` rounded (signed; th in (-180, 180])."""
        x = round(self.x / dist_conv_factor) % _UINT16
        y = round(self.y / dist_conv_factor) % _UINT16
        return x, y, round(math.radians(self.th) / angle_conv_factor)


def compass_reading(true_heading: float, normal: float) -> int:
    """Compass degrees 0..359 for a true world heading, with ``normal`` a standard normal draw.

    North is +x and there is no magnetic bias, so the reading is the heading plus N(0, 3°). The SIP
    carries it halved (0..179); that encoding is the protocol server's.
    """
    return round(true_heading + COMPASS_SIGMA_DEG * normal) % 360


@dataclass(frozen=True)
class SonarBeam:
    """The sonar physics shared by every transducer.

    A firing casts ``rays`` rays spread evenly over ±``half_angle`` about the transducer's axis; a
    ray's echo counts only when it meets the wall within ``max_incidence`` of the wall's normal
    (smooth walls reflect specularly, so a grazing beam returns nothing). The reading is the nearest
    counted echo plus N(0, ``sigma_mm + sigma_fraction × range``), or ``max_range`` (no echo).
    ``fire_interval`` is the time between two firings (one transducer at a time).

    With ``edge_echoes``, the end of a wall inside the cone echoes whatever the angle, as the edges
    and corners that diffract a real sonar's wavefront do; without it the end of a thin wall met
    head-on, which no ray can hit square, would be invisible and a robot could drive into it.
    """

    half_angle: float = 12.5
    rays: int = 7
    max_incidence: float = 60.0
    max_range: float = NO_ECHO_MM
    sigma_mm: float = 5.0
    sigma_fraction: float = 0.01
    fire_interval: float = 0.02
    edge_echoes: bool = True

    def __post_init__(self) -> None:
        if self.rays < 1 or self.fire_interval <= 0.0 or self.max_range <= 0.0:
            raise ValueError("a sonar beam needs rays >= 1, fire_interval > 0 and max_range > 0")

    @property
    def ray_offsets(self) -> FloatArray:
        """Bearing of each ray relative to the transducer's axis (deg)."""
        if self.rays == 1:
            return np.zeros(1)
        return np.linspace(-self.half_angle, self.half_angle, self.rays)


class SonarRing:
    """The transducers of one robot, their polling sequence and the readings not yet reported.

    ``poses`` is the ``(N, 3)`` array of :attr:`RobotModel.sonar_poses`. The default sequence fires
    every sonar in index order. :attr:`ranges` holds each sonar's latest reading (``max_range``
    until it first fires).
    """

    MAX_PENDING = 256
    """Readings kept for :meth:`take_new_readings` when nobody collects them (the oldest are dropped)."""

    def __init__(self, poses: FloatArray, beam: SonarBeam | None = None) -> None:
        self.poses = np.asarray(poses, dtype=np.float64).reshape(-1, 3)
        self.beam = beam or SonarBeam()
        self.enabled = True
        self.ranges = np.full(self.count, self.beam.max_range)
        self._sequence: list[int] = list(range(self.count))
        self._next = 0
        self._clock = 0.0
        self._pending: deque[tuple[int, float]] = deque(maxlen=self.MAX_PENDING)
        self._offsets = self.beam.ray_offsets
        self._cos_max_incidence = math.cos(math.radians(self.beam.max_incidence))
        self._reach = float(np.hypot(self.poses[:, 0], self.poses[:, 1]).max()) if self.count else 0.0

    @property
    def count(self) -> int:
        return int(self.poses.shape[0])

    @property
    def reach(self) -> float:
        """Distance from the robot's centre to its farthest transducer (mm)."""
        return self._reach

    @property
    def sequence(self) -> tuple[int, ...]:
        """The polling sequence: sonar numbers (0-based) in firing order; empty means none fire."""
        return tuple(self._sequence)

    def set_polling(self, sequence: Iterable[int]) -> None:
        """POLLING: fire these sonars (0-based numbers, repeats allowed) in this order, from the start.

        Numbers that name no sonar are left out. On the wire each byte is the sonar number + 1;
        decoding that is the protocol server's job. An empty sequence turns all sonars off.
        """
        self._sequence = [int(n) for n in sequence if 0 <= int(n) < self.count]
        self._next = 0

    def set_enabled(self, on: bool) -> None:
        """SONAR 1/0: fire (or stop firing) the polling sequence."""
        self.enabled = bool(on)
        if not on:
            self._clock = 0.0

    def due(self, dt: float) -> list[int]:
        """Advance the firing clock by ``dt`` s; the sonars that fire now, in order.

        At most one pass over the sequence (or as many shots as there are sonars, if that is more)
        fires per call; time beyond that is dropped, so a long step does not flood the queue.
        """
        if not self.enabled or not self._sequence:
            return []
        self._clock += dt
        shots = int(self._clock / self.beam.fire_interval + 1e-9)
        if shots == 0:
            return []
        self._clock -= shots * self.beam.fire_interval
        length = len(self._sequence)
        if shots > max(length, self.count):
            shots = max(length, self.count)
            self._clock = 0.0
        start = self._next
        self._next = (start + shots) % length
        return [self._sequence[(start + k) % length] for k in range(shots)]

    def fire(self, sonars: list[int], pose: Pose, walls: FloatArray, normals: FloatArray) -> FloatArray:
        """Fire ``sonars`` from the true world ``pose`` against ``walls`` (an ``(M, 4)`` array).

        ``normals`` holds one standard normal draw per sonar (unused when it hears nothing). The
        readings (mm) are stored in :attr:`ranges`, queued for :meth:`take_new_readings` and returned.
        """
        beam = self.beam
        readings = np.empty(len(sonars))
        _fire(
            *pose, self.poses[sonars], self._offsets, as_segments(walls), beam.max_range, self._cos_max_incidence,
            beam.half_angle if beam.edge_echoes else -1.0, beam.sigma_mm, beam.sigma_fraction, normals, readings,
        )  # fmt: skip
        self.ranges[sonars] = readings
        self._pending.extend(zip(sonars, readings.tolist(), strict=True))
        return readings

    def take_new_readings(self) -> list[tuple[int, float]]:
        """The (sonar number, range mm) fired since the last call, oldest first; ``max_range`` = no echo."""
        readings = list(self._pending)
        self._pending.clear()
        return readings

    def reset(self) -> None:
        """Back to power-on: default sequence, enabled, no readings."""
        self.enabled = True
        self._sequence = list(range(self.count))
        self._next = 0
        self._clock = 0.0
        self._pending.clear()
        self.ranges[:] = self.beam.max_range


def _fire_example() -> tuple[object, ...]:
    one, walls = np.zeros(1), np.zeros((1, 4))
    return 0.0, 0.0, 0.0, np.zeros((1, 3)), one, walls, 1.0, 0.5, 1.0, 1.0, 0.0, one, np.empty(1)


@kernel(_fire_example)
def _fire(
    x: float,
    y: float,
    th: float,
    units: FloatArray,
    offsets_deg: FloatArray,
    walls: FloatArray,
    max_range: float,
    cos_max_incidence: float,
    edge_half_angle: float,
    sigma_mm: float,
    sigma_fraction: float,
    normals: FloatArray,
    readings: FloatArray,
) -> None:
    """:meth:`SonarRing.fire`'s work, compiled: the reading of each transducer (``units``: its x, y, th
    on the robot at the world pose x, y, th) into ``readings``, with ``normals`` its noise draws.

    Every ray of the beam (``offsets_deg`` about the transducer's axis) returns the distance to the
    first wall it meets, unless it meets that wall more than the maximum incidence from its normal
    (then the sound is reflected away and that ray hears nothing). With ``edge_half_angle`` >= 0 the
    end of any wall within that angle of the axis and in range echoes too. Walls outside the fan of
    rays are not tried (:func:`~saphira.world.raycast.walls_in_fan`).
    """
    c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
    candidates = np.empty(walls.shape[0], dtype=np.intp)
    for i in range(units.shape[0]):
        ox = x + c * units[i, 0] - s * units[i, 1]
        oy = y + s * units[i, 0] + c * units[i, 1]
        axis = th + units[i, 2]
        count = walls_in_fan(ox, oy, axis + offsets_deg.min(), axis + offsets_deg.max(), walls, candidates)
        best = math.inf
        for offset in offsets_deg:
            rad = math.radians(axis + offset)
            rc, rs = math.cos(rad), math.sin(rad)
            t, wall = first_hit(ox, oy, rc, rs, walls, candidates[:count])
            if wall < 0 or t > max_range or t >= best:
                continue
            ex, ey = walls[wall, 2] - walls[wall, 0], walls[wall, 3] - walls[wall, 1]
            # |sin| of the angle between ray and wall = cos of the angle from the wall's normal.
            if abs(rc * ey - rs * ex) / max(math.hypot(ex, ey), 1e-12) >= cos_max_incidence:
                best = t
        if edge_half_angle >= 0.0:
            for j in range(walls.shape[0]):
                for end in range(2):
                    dx, dy = walls[j, 2 * end] - ox, walls[j, 2 * end + 1] - oy
                    dist = math.hypot(dx, dy)
                    if dist >= best or dist > max_range:
                        continue
                    off = (math.degrees(math.atan2(dy, dx)) - axis + 180.0) % 360.0 - 180.0
                    if abs(off) <= edge_half_angle:
                        best = dist
        if math.isfinite(best):
            noisy = best + normals[i] * (sigma_mm + sigma_fraction * best)
            readings[i] = min(max(noisy, 0.0), max_range)
        else:
            readings[i] = max_range
