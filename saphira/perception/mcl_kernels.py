"""Compiled loops of Monte Carlo localization (:mod:`saphira.perception.mcl`), with :func:`~saphira.core.jit.kernel`.

Samples are rows ``x, y, th, drift`` (mm, mm, deg, deg of heading per mm driven: each sample carries
its own guess of odometry's systematic drift, so the samples whose drift is right survive). The map is
a likelihood field: a grid holding each cell's distance to the nearest map line (mm, capped) and which
line that is, built once per map (:func:`distance_field`); a reading then costs a few grid look-ups and
one ray-segment test per cone bearing and sample instead of a ray cast against every wall.
"""

from __future__ import annotations

import math

import numpy as np

from saphira.core.arrays import Float32Array, FloatArray, Int32Array
from saphira.core.jit import kernel


def _field_example() -> tuple[object, ...]:
    return np.zeros((1, 4)), 0.0, 0.0, 50.0, 2, 2, 100.0, np.zeros((2, 2), dtype=np.int32)


@kernel(_field_example)
def distance_field(
    walls: FloatArray, x0: float, y0: float, res: float, nx: int, ny: int, cap: float, nearest: Int32Array
) -> Float32Array:
    """Distance (mm, at most ``cap``) from each cell centre of an ``ny × nx`` grid with its corner at
    (x0, y0) and ``res`` mm cells to the nearest of the ``walls`` (rows x1 y1 x2 y2); that wall's row
    into ``nearest`` (``ny × nx``; -1 where none is within ``cap``, or where the nearest point is a
    wall's end: a ray there may pass beside the wall). Each wall only visits the cells within ``cap``
    of its bounding box."""
    field = np.full((ny, nx), cap, dtype=np.float32)
    nearest[:, :] = -1
    for k in range(walls.shape[0]):
        ax, ay, bx, by = walls[k, 0], walls[k, 1], walls[k, 2], walls[k, 3]
        ex, ey = bx - ax, by - ay
        length2 = ex * ex + ey * ey
        i0 = max(int((min(ax, bx) - cap - x0) / res), 0)
        i1 = min(int((max(ax, bx) + cap - x0) / res) + 1, nx)
        j0 = max(int((min(ay, by) - cap - y0) / res), 0)
        j1 = min(int((max(ay, by) + cap - y0) / res) + 1, ny)
        for j in range(j0, j1):
            py = y0 + (j + 0.5) * res
            for i in range(i0, i1):
                px = x0 + (i + 0.5) * res
                u = 0.0 if length2 <= 0.0 else ((px - ax) * ex + (py - ay) * ey) / length2
                u = min(max(u, 0.0), 1.0)
                dx, dy = px - (ax + u * ex), py - (ay + u * ey)
                d = math.sqrt(dx * dx + dy * dy)
                if d < field[j, i]:
                    field[j, i] = d
                    nearest[j, i] = k if 0.0 < u < 1.0 else -1
    return field


def _predict_example() -> tuple[object, ...]:
    return np.zeros((1, 4)), np.zeros((1, 4)), 0.0, 0.0, 0.0, np.zeros(4)


@kernel(_predict_example)
def predict(
    samples: FloatArray, normals: FloatArray, forward: float, left: float, dth: float, noise: FloatArray
) -> None:
    """Move every sample by the odometric step (``forward``, ``left`` mm in the robot's previous frame,
    ``dth`` deg) plus its own drift and noise. ``noise``: heading variance per mm driven (deg²/mm),
    heading σ per degree turned, position variance per mm driven (mm²/mm), drift σ per √mm."""
    dist = math.sqrt(forward * forward + left * left)
    sigma_th = math.sqrt(noise[0] * dist + (noise[1] * dth) ** 2)
    sigma_xy = math.sqrt(noise[2] * dist) + 0.02 * dist
    sigma_drift = noise[3] * math.sqrt(dist)
    for k in range(samples.shape[0]):
        th = samples[k, 2]
        rad = math.radians(th)
        c, s = math.cos(rad), math.sin(rad)
        f = forward + normals[k, 0] * sigma_xy
        lft = left + normals[k, 1] * sigma_xy * 0.5
        samples[k, 0] += c * f - s * lft
        samples[k, 1] += s * f + c * lft
        th += dth + samples[k, 3] * forward + normals[k, 2] * sigma_th
        samples[k, 2] = th - 360.0 * math.floor((th + 180.0) / 360.0)
        samples[k, 3] += normals[k, 3] * sigma_drift


def _weigh_example() -> tuple[object, ...]:
    return (
        np.zeros((1, 4)), np.zeros(1), np.zeros((1, 4)), np.zeros((2, 2), dtype=np.float32),
        np.zeros((2, 2), dtype=np.int32), np.zeros((1, 7)), 0.0, 0.0, 50.0, np.zeros(7), np.zeros(1),
    )  # fmt: skip


@kernel(_weigh_example)
def weigh(
    samples: FloatArray,
    logw: FloatArray,
    readings: FloatArray,
    field: Float32Array,
    nearest: Int32Array,
    walls: FloatArray,
    x0: float,
    y0: float,
    res: float,
    model: FloatArray,
    cone: FloatArray,
) -> float:
    """Add each sample's log likelihood of the ``readings`` (rows: sonar x, y, bearing in the robot's
    current frame, range) to ``logw``; return the samples' mean likelihood per reading (weighted by
    their current normalised weights ``exp(logw)``), the fit that recovery watches.

    Beam model (``model``: σ mm, z_hit, z_rand, gain, body mm, body penalty, cos of the largest
    incidence that echoes): the echo comes from the nearest surface in the cone, so a reading's miss
    is the larger of two distances: from the nearest map line (``field``) to the closest of the points
    at its range along the ``cone`` bearings (deg off the axis), and how far short of the range one of
    those bearings crosses the line nearest its point (``nearest``, rows of ``walls``: x1 y1 x2 y2,
    unit direction x y, length) within the largest incidence: a line crossing the cone nearer would
    have echoed first (without this, a pose nearer a wall explains a reading as well as the right
    one, and the estimate creeps towards the walls in open areas). A specular miss or a surface the
    map lacks is the ``z_rand`` floor. A sample whose centre lies closer than ``body`` to a map line
    (inside a wall) loses ``penalty``."""
    ny, nx = field.shape
    sigma, z_hit, z_rand, gain, body, penalty = model[0], model[1], model[2], model[3], model[4], model[5]
    cos_incidence = model[6]
    inv2s2 = 0.5 / (sigma * sigma)
    m = readings.shape[0]
    na = cone.shape[0]
    # each cone bearing's unit vector in the robot's frame: rotated by each sample's heading below
    ux = np.empty((m, na))
    uy = np.empty((m, na))
    for r in range(m):
        for a in range(na):
            b = math.radians(readings[r, 2] + cone[a])
            ux[r, a] = math.cos(b)
            uy[r, a] = math.sin(b)
    total = 0.0
    for k in range(samples.shape[0]):
        x, y, th = samples[k, 0], samples[k, 1], samples[k, 2]
        rad = math.radians(th)
        c, s = math.cos(rad), math.sin(rad)
        logp = 0.0
        for r in range(m):
            rng = readings[r, 3]
            sx = x + c * readings[r, 0] - s * readings[r, 1]
            sy = y + s * readings[r, 0] + c * readings[r, 1]
            best = math.inf
            hit = rng
            for a in range(na):
                dx = c * ux[r, a] - s * uy[r, a]
                dy = s * ux[r, a] + c * uy[r, a]
                px, py = sx + rng * dx, sy + rng * dy
                i = math.floor((px - x0) / res)
                j = math.floor((py - y0) / res)
                if not (0 <= i < nx and 0 <= j < ny):
                    continue
                d = float(field[j, i])
                if d < best:
                    best = d
                w = nearest[j, i]
                if w >= 0:  # crossed the line nearest the point on the way, squarely enough to echo?
                    ex, ey = walls[w, 4], walls[w, 5]
                    across = dx * ey - dy * ex
                    beyond = (px - walls[w, 0]) * ey - (py - walls[w, 1]) * ex
                    if beyond * across > 0.0 and abs(beyond) < rng * abs(across) and abs(across) >= cos_incidence:
                        hit = min(hit, rng - beyond / across)
            miss = max(best, rng - hit) if best < math.inf else 1e9
            logp += math.log(z_hit * math.exp(-miss * miss * inv2s2) + z_rand)
        i = math.floor((x - x0) / res)
        j = math.floor((y - y0) / res)
        inside = 0 <= i < nx and 0 <= j < ny
        if not inside or field[j, i] < body:
            logp -= penalty
        w = math.exp(logw[k])
        total += w * math.exp(logp / max(m, 1))
        logw[k] += gain * logp
    return total


def _resample_example() -> tuple[object, ...]:
    return np.zeros((1, 4)), np.ones(1), np.zeros(2), np.zeros((1, 4)), np.zeros((1, 4)), np.zeros(7)


@kernel(_resample_example)
def resample_kld(
    samples: FloatArray,
    weights: FloatArray,
    uniforms: FloatArray,
    randoms: FloatArray,
    out: FloatArray,
    kld: FloatArray,
) -> int:
    """KLD-sampling (Fox 2003): draw from ``samples`` by their normalised ``weights`` (``uniforms``
    drive the draws) into ``out`` until the number drawn reaches the bound the occupied histogram bins
    give, or ``out`` is full; a draw whose uniform is below the injection share takes the next row of
    ``randoms`` instead (recovery). ``kld``: bin size mm, bin size deg, ε, z, minimum count, maximum
    count, injection share. Returns how many rows of ``out`` were filled."""
    bin_xy, bin_th, eps, z, n_min, n_max, inject = kld[0], kld[1], kld[2], kld[3], kld[4], kld[5], kld[6]
    size = 1 << 16
    table = np.full(size, -1, dtype=np.int64)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    k = 0
    n = 0
    needed = n_min
    limit = min(int(n_max), out.shape[0], uniforms.shape[0] // 2)
    r = 0
    while n < limit and (n < needed or n < n_min):
        if uniforms[2 * n + 1] < inject and r < randoms.shape[0]:
            out[n, :] = randoms[r, :]
            r += 1
        else:
            idx = np.searchsorted(cdf, uniforms[2 * n])
            idx = min(idx, samples.shape[0] - 1)
            out[n, :] = samples[idx, :]
        bx = math.floor(out[n, 0] / bin_xy)
        by = math.floor(out[n, 1] / bin_xy)
        bt = math.floor(out[n, 2] / bin_th)
        key = ((bx + 100000) * 200003 + (by + 100000)) * 64 + (bt + 32)
        h = (key * 2654435761) % size
        while table[h] != -1 and table[h] != key:
            h = (h + 1) % size
        if table[h] == -1:
            table[h] = key
            k += 1
            if k > 1:
                a = 2.0 / (9.0 * (k - 1))
                needed = (k - 1) / (2.0 * eps) * (1.0 - a + math.sqrt(a) * z) ** 3
        n += 1
    return n


def _cluster_example() -> tuple[object, ...]:
    return np.zeros((1, 4)), np.ones(1), 0.0, 0.0, 0.0, 500.0, 20.0, np.zeros(5)


@kernel(_cluster_example)
def cluster_mean(
    samples: FloatArray,
    weights: FloatArray,
    cx: float,
    cy: float,
    cth: float,
    radius: float,
    spread: float,
    out: FloatArray,
) -> None:
    """The weighted mean of the samples within ``radius`` mm and ``spread`` deg of (cx, cy, cth) into
    ``out``: x, y, heading (circular mean, deg), their weight, their mean drift (the weight is 0 when
    none is that near). One pass instead of a dozen array operations per update."""
    r2 = radius * radius
    sw = sx = sy = ss = sc = sd = 0.0
    for k in range(samples.shape[0]):
        dx, dy = samples[k, 0] - cx, samples[k, 1] - cy
        if dx * dx + dy * dy > r2 or abs((samples[k, 2] - cth + 180.0) % 360.0 - 180.0) > spread:
            continue
        w = weights[k]
        rad = math.radians(samples[k, 2])
        sw += w
        sx += w * samples[k, 0]
        sy += w * samples[k, 1]
        ss += w * math.sin(rad)
        sc += w * math.cos(rad)
        sd += w * samples[k, 3]
    out[3] = sw
    if sw > 0.0:
        out[0], out[1], out[2], out[4] = sx / sw, sy / sw, math.degrees(math.atan2(ss, sc)), sd / sw
