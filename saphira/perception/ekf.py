"""An extended Kalman filter over the robot's global pose (x mm, y mm, heading) for registration.

State ``(x, y, θ, b)`` with θ in radians inside the filter and ``b`` the odometry's heading drift in
radians per mm driven forward (wheels of slightly different size make odometry turn steadily; a
random walk alone would underrate that over a long stretch without landmarks and then gate the true
match out). The pose mean is the reflector's global pose ``sfRobot.ax, ay, ath``, which odometry moves
every cycle; the filter adds ``b × forward`` to the heading and corrects the mean when a sensed feature
matches a map feature, and a heading that keeps needing the same correction teaches it ``b``.

* **Prediction** (:meth:`PoseFilter.predict`): a move of ``forward``/``left`` mm and ``dth`` deg in the
  robot's previous frame. ``F = ∂f/∂state`` carries the covariance; the process noise is a random walk
  whose variance grows with the distance driven and the angle turned (see :class:`MotionNoise`), and
  ``b`` itself may wander slowly (:data:`DRIFT_CHANGE`).
* **Measurements** are lines and points. A line (a wall, a corridor's centre line) measures the robot's
  lateral coordinate in the line's frame and the line's direction relative to the robot; a point (a
  door, a junction) its position in the robot's frame. Their Jacobians are analytic (below).
* **Gating**: an innovation ν with covariance S = H P Hᵀ + R is accepted only if its squared
  Mahalanobis distance νᵀ S⁻¹ ν is below :data:`GATE` (χ², 2 dof, 99 %), so one wrong match cannot
  throw the pose away; the caller also drops matches that are ambiguous.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose, norm2_angle
from saphira.core.jit import kernel

Deviations = tuple[float, float, float]
"""Standard deviations of a pose estimate: x, y (mm) and heading (deg)."""

GATE = 9.21
"""χ² 99 % quantile for 2 degrees of freedom: the largest squared Mahalanobis distance accepted."""

GATE_1D = 6.63
"""χ² 99 % quantile for 1 degree of freedom (a measurement of the heading alone)."""

REFERENCE_DISTANCE = 1000.0
"""mm: the distance over which the odometry's heading drift is also modelled as noise."""

DRIFT_PRIOR = 2.0
"""The drift rate starts at 0 with a standard deviation of this many times the parameter file's."""

DRIFT_CHANGE = 0.1
DRIFT_CHANGE_DISTANCE = 10000.0
"""The drift rate may wander by DRIFT_CHANGE of the parameter file's over DRIFT_CHANGE_DISTANCE mm."""


@dataclass(frozen=True)
class MotionNoise:
    """How fast odometry error grows, from the robot's parameter file (``AngleDrift``, ``DistJitter``…).

    Variances per mm driven: heading ``angle_drift² × REFERENCE_DISTANCE`` (a systematic drift
    becomes a random walk with the same spread after a metre), along-track ``dist² ×
    REFERENCE_DISTANCE``, across-track a quarter of that; per degree turned ``angle_jitter²`` of
    heading variance per degree. Floors keep a robot with a perfect parameter file honest.
    """

    angle_drift: float = 0.001
    angle_jitter: float = 0.01
    dist: float = 0.01

    @classmethod
    def from_params(cls, angle_drift: float, angle_jitter: float, dist_jitter: float) -> MotionNoise:
        return cls(max(abs(angle_drift), 0.0005), max(abs(angle_jitter), 0.005), max(abs(dist_jitter), 0.01))


class PoseFilter:
    """Covariance and corrections of the global pose and the heading drift (see the module docstring)."""

    def __init__(self, pose: Pose, sigma_xy: float, sigma_th: float, noise: MotionNoise | None = None) -> None:
        self.noise = noise or MotionNoise()
        self.pose = pose
        self.drift = 0.0
        """Estimated heading drift of odometry: radians per mm driven forward (positive: odometry turns
        clockwise of the truth, so the estimate adds this)."""
        self.P = np.zeros((4, 4))
        self.P[3, 3] = math.radians(DRIFT_PRIOR * self.noise.angle_drift) ** 2
        self.reset(pose, sigma_xy, sigma_th)

    def reset(self, pose: Pose, sigma_xy: float, sigma_th: float) -> None:
        """Forget the pose: it is ``pose`` give or take the given standard deviations. The drift estimate,
        a property of the odometry, is kept."""
        self.pose = pose
        var_drift = self.P[3, 3]
        self.P = np.diag([sigma_xy**2, sigma_xy**2, math.radians(sigma_th) ** 2, var_drift])

    @property
    def sigma(self) -> Deviations:
        """Standard deviations of x, y (mm) and heading (deg)."""
        d = np.sqrt(np.maximum(np.diag(self.P), 0.0))
        return float(d[0]), float(d[1]), math.degrees(float(d[2]))

    @property
    def drift_deg_per_m(self) -> float:
        """The estimated heading drift correction, degrees per metre driven."""
        return math.degrees(self.drift) * 1000.0

    def predict(self, new_pose: Pose) -> Pose:
        """Odometry moved the pose from :attr:`pose` to ``new_pose``: add the estimated drift over the
        forward distance, grow the covariance, and return the corrected pose."""
        old = self.pose
        gx, gy = new_pose.x - old.x, new_pose.y - old.y
        dth = norm2_angle(new_pose.th - old.th)
        c, s = math.cos(math.radians(old.th)), math.sin(math.radians(old.th))
        forward, left = c * gx + s * gy, -s * gx + c * gy
        n = self.noise
        travel = math.hypot(forward, left)
        var_f = n.dist**2 * REFERENCE_DISTANCE * travel
        var_l = 0.25 * var_f
        var_th = math.radians(1.0) ** 2 * (
            n.angle_drift**2 * REFERENCE_DISTANCE * travel + n.angle_jitter**2 * abs(dth)
        )
        var_drift = math.radians(DRIFT_CHANGE * n.angle_drift) ** 2 * travel / DRIFT_CHANGE_DISTANCE
        self.P = _propagate(self.P, gx, gy, forward, c, s, var_f, var_l, var_th, var_drift)
        self.pose = Pose(new_pose.x, new_pose.y, norm2_angle(new_pose.th + math.degrees(self.drift * forward)))
        return self.pose

    # ------------------------------------------------------------------ measurement models
    def line_model(self, mx: float, my: float, mth: float) -> tuple[FloatArray, FloatArray]:
        """Predicted (lateral mm, relative direction rad) of the map line and its Jacobian."""
        x, y, th = self.pose
        a = math.radians(mth)
        ca, sa = math.cos(a), math.sin(a)
        lateral = -sa * (x - mx) + ca * (y - my)
        rel = math.radians(norm2_angle(mth - th))
        H = np.array([[-sa, ca, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0]])
        return np.array([lateral, rel]), H

    def point_model(self, mx: float, my: float) -> tuple[FloatArray, FloatArray]:
        """Predicted position (mm) of a map point in the robot's frame and its Jacobian."""
        x, y, th = self.pose
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        dx, dy = mx - x, my - y
        hx, hy = c * dx + s * dy, -s * dx + c * dy
        H = np.array([[-c, -s, hy, 0.0], [s, -c, -hx, 0.0]])
        return np.array([hx, hy]), H

    def heading_mahalanobis(self, innovation: float, sigma: float) -> float:
        """ν² / S for a measurement of the heading alone (``innovation`` and ``sigma`` in radians)."""
        return innovation * innovation / (float(self.P[2, 2]) + sigma * sigma)

    def update_heading(self, innovation: float, sigma: float) -> Pose:
        """Apply a measurement of the heading alone (radians): the scalar case of :meth:`update`."""
        s = float(self.P[2, 2]) + sigma * sigma
        K = self.P[:, 2] / s
        self.P = self.P - np.outer(K, self.P[2, :])
        self.P = 0.5 * (self.P + self.P.T)
        dx = K * innovation
        x, y, th = self.pose
        self.pose = Pose(x + float(dx[0]), y + float(dx[1]), norm2_angle(th + math.degrees(float(dx[2]))))
        self.drift += float(dx[3])
        return self.pose

    def mahalanobis(self, innovation: FloatArray, H: FloatArray, R: FloatArray) -> float:
        """νᵀ S⁻¹ ν for a two-dimensional measurement."""
        S_inv = _inverse2(H @ self.P @ H.T + R)
        return float(innovation @ S_inv @ innovation)

    def update(self, innovation: FloatArray, H: FloatArray, R: FloatArray) -> Pose:
        """Apply one accepted measurement; returns (and keeps) the corrected pose."""
        K = self.P @ H.T @ _inverse2(H @ self.P @ H.T + R)
        dx = K @ innovation
        IKH = np.eye(4) - K @ H
        self.P = IKH @ self.P @ IKH.T + K @ R @ K.T  # Joseph form: stays symmetric positive definite
        x, y, th = self.pose
        self.pose = Pose(x + float(dx[0]), y + float(dx[1]), norm2_angle(th + math.degrees(float(dx[2]))))
        self.drift += float(dx[3])
        return self.pose


def _inverse2(S: FloatArray) -> FloatArray:
    """The inverse of a 2 x 2 covariance (closed form: cheaper than a general solver)."""
    a, b, c, d = float(S[0, 0]), float(S[0, 1]), float(S[1, 0]), float(S[1, 1])
    det = a * d - b * c
    return np.array([[d, -b], [-c, a]]) / det


def line_noise(sigma_lateral: float, sigma_angle: float) -> FloatArray:
    """R for a line measurement: lateral mm and direction deg standard deviations."""
    return np.diag([sigma_lateral**2, math.radians(sigma_angle) ** 2])


def point_noise(sigma_x: float, sigma_y: float, th: float) -> FloatArray:
    """R for a point measurement with σ ``sigma_x`` along ``th`` (deg, robot frame) and ``sigma_y`` across."""
    c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
    rot = np.array([[c, -s], [s, c]])
    out: FloatArray = rot @ np.diag([sigma_x**2, sigma_y**2]) @ rot.T
    return out


@kernel(lambda: (np.eye(4), 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0))
def _propagate(
    P: FloatArray,
    gx: float,
    gy: float,
    forward: float,
    c: float,
    s: float,
    var_f: float,
    var_l: float,
    var_th: float,
    var_drift: float,
) -> FloatArray:
    """``F P Fᵀ + Q`` of :meth:`PoseFilter.predict`, compiled (4 x 4 with numpy's per-call cost, not the
    arithmetic, as the time).

    F is the identity but for ∂x/∂θ = -gy, ∂y/∂θ = gx, ∂θ/∂drift = forward; Q holds the along- and
    across-track variances (heading ``c``, ``s``) rotated into the global frame, the heading's and the
    drift's.
    """
    F = np.eye(4)
    F[0, 2], F[1, 2], F[2, 3] = -gy, gx, forward
    Q = np.zeros((4, 4))
    Q[0, 0] = c * c * var_f + s * s * var_l
    Q[1, 1] = s * s * var_f + c * c * var_l
    Q[0, 1] = Q[1, 0] = c * s * (var_f - var_l)
    Q[2, 2] = var_th
    Q[3, 3] = var_drift
    out = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            total = 0.0
            for k in range(4):
                for m in range(4):
                    total += F[i, k] * P[k, m] * F[j, m]
            out[i, j] = total + Q[i, j]
    return out
