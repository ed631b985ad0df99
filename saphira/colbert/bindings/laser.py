"""Colbert bindings for the laser's latest scan (:mod:`saphira.client.sensors.laser`); see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. Saphira had no laser bindings of
its own, so the names follow its sonar ones (``sfSonarRange``, ``sfSonarXCoord``):

* ``sfLaserCount()`` is the number of readings in the latest complete scan, 0 before the first;
  ``sfLaserScans()`` counts complete scans, so an activity can tell a new one has come.
* ``sfLaserRange(i)`` is reading ``i``'s range in mm (the laser's maximum range: no return),
  ``sfLaserAngle(i)`` its bearing in degrees in the robot frame (0 ahead, positive to the left),
  ``sfLaserXCoord(i)``/``sfLaserYCoord(i)`` the point in the robot frame when the scan was taken.
  An index outside 0 .. count-1 is a runtime error naming the scan's size, as for the sonar.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from saphira.client.sensors.laser import LaserScan
from saphira.colbert.bindings.table import BindingTable
from saphira.colbert.compile.symbols import ColbertRuntimeError

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["table"]


def _scan(s: Bindings) -> LaserScan | None:
    return s.robot.reflector.laser.scan


def _count(s: Bindings) -> int:
    scan = _scan(s)
    return 0 if scan is None else scan.count


def _reading(s: Bindings, index: int) -> tuple[LaserScan, int]:
    scan = _scan(s)
    if scan is None:
        raise ColbertRuntimeError("no laser scan has arrived (does the robot have a laser?)")
    if not 0 <= index < scan.count:
        raise ColbertRuntimeError(f"there is no laser reading {index} (the scan has {scan.count})")
    return scan, index


def _range(s: Bindings, index: int) -> int:
    scan, i = _reading(s, index)
    return round(float(scan.ranges[i]))


def _angle(s: Bindings, index: int) -> float:
    scan, i = _reading(s, index)
    return float(scan.angles[i])


def _coord(s: Bindings, index: int, axis: int) -> float:
    scan, i = _reading(s, index)
    rad = math.radians(float(scan.angles[i]))
    r = float(scan.ranges[i])
    if axis == 0:
        return scan.mount_x + r * math.cos(rad)
    return scan.mount_y + r * math.sin(rad)


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    return BindingTable(
        functions=[
            ("sfLaserCount", "int()", lambda: _count(s), "readings in the latest laser scan (0: none yet)"),
            ("sfLaserScans", "int()", lambda: s.robot.reflector.laser.scans,
             "complete laser scans received"),
            ("sfLaserRange", "int(int)", lambda i: _range(s, i), "range of laser reading i, mm"),
            ("sfLaserAngle", "float(int)", lambda i: _angle(s, i), "bearing of laser reading i, degrees"),
            ("sfLaserXCoord", "float(int)", lambda i: _coord(s, i, 0), "x of laser reading i (robot frame)"),
            ("sfLaserYCoord", "float(int)", lambda i: _coord(s, i, 1), "y of laser reading i (robot frame)"),
        ],
    )  # fmt: skip
