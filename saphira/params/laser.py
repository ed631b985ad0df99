"""A robot's laser rangefinder as its parameter file describes it: mount pose, field of view, range.

Both sides read it: the simulator builds its laser from it (:mod:`saphira.sim.laser`) and the link
asks a simulator for in-band laser data when the robot has one (:mod:`saphira.client.sensors.laser`).

Keys (first laser only, case-insensitive; ARIA keeps them in its ``Laser parameters`` section, which
:mod:`saphira.params.robot_params` stores in :attr:`RobotParams.extra`):

* ``LaserPossessed`` (ARIA 2.x) or ``LaserAutoConnect`` (ARIA ≥ 2.7): whether the robot has a laser.
  ``LaserPossessed`` wins when both are given.
* ``LaserType`` (``lms2xx`` by default) picks the defaults of :data:`LASER_TYPES`;
  ``LaserStartDegrees``, ``LaserEndDegrees``, ``LaserIncrement`` and ``LaserMaxRange`` override them
  (blank or 0 range: the type's default, as in ARIA).
* ``LaserX``, ``LaserY`` (mm) and ``LaserTh`` (degrees): the mount on the body.
* ``LaserNoise`` (saphira's own key): standard deviation of the simulated range error, mm.

A value that is not a number is reported in the log (naming the file and key) and the default is
used: the robot's other parameters stay usable, and the laser is still described sensibly.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from typing import Final

from saphira.params.robot_params import RobotParams

log = logging.getLogger("saphira.client.sensors.laser")


@dataclass(frozen=True)
class LaserType:
    """Defaults of one laser model: field of view (degrees about its axis), resolution, range (mm)."""

    start: float
    end: float
    increment: float
    max_range: float


LASER_TYPES: Final = {
    "lms2xx": LaserType(-90.0, 90.0, 1.0, 32000.0),
    "sick": LaserType(-90.0, 90.0, 1.0, 32000.0),
    "lms1xx": LaserType(-135.0, 135.0, 0.5, 20000.0),
    "lms5xx": LaserType(-95.0, 95.0, 0.5, 80000.0),
    "urg": LaserType(-120.0, 120.0, 0.36, 4000.0),
    "urg2.0": LaserType(-120.0, 120.0, 0.36, 4000.0),
    "s3series": LaserType(-135.0, 135.0, 0.5, 20000.0),
    "tim3xx": LaserType(-135.0, 135.0, 1.0, 4000.0),
}
"""Sensible defaults per ARIA ``LaserType``; an unknown type gets the SICK LMS-200's (``lms2xx``)."""

DEFAULT_NOISE_MM: Final = 5.0
"""Range noise (1 σ) when the file gives none: the SICK LMS-200's statistical error in mm mode."""

_TRUE: Final = {"1", "true"}
_FALSE: Final = {"0", "false"}


@dataclass(frozen=True)
class LaserConfig:
    """One laser: mount (``x``, ``y`` mm, ``th`` deg on the body), scan from ``start`` to ``end`` degrees
    about its axis every ``increment`` degrees, ranges up to ``max_range`` mm with ``noise`` mm (1 σ)."""

    x: float = 18.0
    y: float = 0.0
    th: float = 0.0
    start: float = -90.0
    end: float = 90.0
    increment: float = 1.0
    max_range: float = 32000.0
    noise: float = DEFAULT_NOISE_MM
    laser_type: str = "lms2xx"

    @property
    def count(self) -> int:
        """Readings per scan: both ends included (181 for -90..90 by 1)."""
        return readings_for(self.start, self.end, self.increment)

    def angles(self, count: int | None = None) -> list[float]:
        """Bearing of each reading on the laser (degrees about its axis), ``count`` of them spread
        evenly from :attr:`start` to :attr:`end` (default: :attr:`count`)."""
        n = self.count if count is None else count
        if n <= 1:
            return [self.start] * n
        step = (self.end - self.start) / (n - 1)
        return [self.start + i * step for i in range(n)]


def readings_for(start: float, end: float, increment: float) -> int:
    """Readings in a scan from ``start`` to ``end`` every ``increment`` degrees (both ends included)."""
    if increment <= 0.0:
        return 1
    return math.floor(abs(end - start) / increment + 1e-6) + 1


def _lookup(params: RobotParams) -> dict[str, str]:
    """The first laser's keys, lower-cased (later sections' copies are stored as ``Section/Key``)."""
    return {key.lower(): value.strip() for key, value in params.extra.items() if "/" not in key}


def _flag(text: str | None) -> bool | None:
    if text is None or not text:
        return None
    word = text.split()[0].lower()
    return True if word in _TRUE else False if word in _FALSE else None


def _number(keys: dict[str, str], key: str, default: float, params: RobotParams) -> float:
    text = keys.get(key.lower(), "")
    if not text:
        return default
    try:
        value = float(text.split()[0])
    except ValueError:
        log.warning("%s: %s %r is not a number; using %g", params.source, key, text, default)
        return default
    return value if math.isfinite(value) else default


def with_laser(params: RobotParams) -> RobotParams:
    """``params`` with a laser declared (``LaserPossessed true``), whatever the file said; the rest of
    the laser's keys (type, mount, field of view) stay as the file gives them."""
    extra = {
        key: value for key, value in params.extra.items() if key.lower() not in ("laserpossessed", "laserautoconnect")
    }
    return dataclasses.replace(params, extra={**extra, "LaserPossessed": "true"})


def laser_declared(params: RobotParams) -> bool | None:
    """What the file says about a laser: True or False, or None when it says nothing."""
    keys = _lookup(params)
    possessed = _flag(keys.get("laserpossessed"))
    return possessed if possessed is not None else _flag(keys.get("laserautoconnect"))


def laser_config(params: RobotParams, *, assume: bool = False) -> LaserConfig | None:
    """The robot's laser, or None when it has none.

    ``assume`` fits the default laser to a robot whose file says nothing about one (the simulator
    does, as MobileSim's Pioneers all carry a SICK); a file that says ``false`` always means none.
    """
    declared = laser_declared(params)
    if declared is False or (declared is None and not assume):
        return None
    keys = _lookup(params)
    kind = (keys.get("lasertype") or "lms2xx").split()[0].lower()
    base = LASER_TYPES.get(kind, LASER_TYPES["lms2xx"])
    start = _number(keys, "LaserStartDegrees", base.start, params)
    end = _number(keys, "LaserEndDegrees", base.end, params)
    increment = abs(_number(keys, "LaserIncrement", base.increment, params)) or base.increment
    max_range = _number(keys, "LaserMaxRange", base.max_range, params)
    return LaserConfig(
        x=_number(keys, "LaserX", 18.0 if declared is None else 0.0, params),
        y=_number(keys, "LaserY", 0.0, params),
        th=_number(keys, "LaserTh", 0.0, params),
        start=min(start, end),
        end=max(start, end),
        increment=increment,
        max_range=max_range if max_range > 0.0 else base.max_range,
        noise=max(0.0, _number(keys, "LaserNoise", DEFAULT_NOISE_MM, params)),
        laser_type=kind,
    )
