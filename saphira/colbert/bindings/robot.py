"""Colbert bindings for the robot's identity, its sonar buckets and the pointlist; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. Choices the manual leaves open:

* ``sfRobotName``, ``sfRobotClass``, ``sfRobotSubclass`` are the three strings of the server's SYNC2
  reply (§5.6), read-only, and ``""`` while no robot is connected.
* ``sdata`` is the manual's sonar bucket structure (Listing 8.1). Its OCR-damaged field list is read
  as Saphira's ``struct.h`` spells it: ``fx, fy, fth`` the odometric robot pose when the sonar was
  read, ``afx, afy, afth`` the global pose then, ``x, y`` the reading point in robot coordinates,
  ``range`` (mm, 5000 = no echo) and ``snew`` (0xFFFF while the reading is new; writing 0 marks it
  read, as ``sfSonarNew`` does). Only ``snew`` is writable. ``sfSonarBucket(n)`` is NULL for a sonar
  the robot does not have (unlike ``sfSonarRange``, which reports an error).
* ``sfPointList`` is a ``list *``: a chain of cells with ``data`` (a ``point *``) and ``next`` (the
  next cell, NULL at the end), so Colbert, which has no arrays, walks it with ``l = l->next``. Each
  read of ``sfPointList`` is a snapshot of the list as it is then; the points are the live ones.
* ``sfGlobalOrigin`` and ``sfRobotOrigin`` are the two ``SYSTEM`` points of §8.2: global (0, 0, 0)
  and the robot's own pose; both are kept current as the robot moves and are not on the pointlist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saphira.client.sensors.sonar import SonarBucket
from saphira.colbert.bindings.table import BindingTable
from saphira.colbert.compile.symbols import Slot, parse_type

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings
    from saphira.robot import Robot

__all__ = ["SDATA_SLOTS", "table"]

SNEW = 0xFFFF
"""What ``sdata.snew`` holds while the reading has not been marked read."""


def _read_only(name: str, ctype: str, attr: str) -> Slot:
    return Slot(name, parse_type(ctype), getter=lambda b: getattr(b, attr))


def _set_snew(bucket: SonarBucket, value: Any) -> None:
    bucket.new = bool(value)


SDATA_SLOTS = [
    _read_only("fx", "float", "robot_x"),
    _read_only("fy", "float", "robot_y"),
    _read_only("fth", "float", "robot_th"),
    _read_only("afx", "float", "global_x"),
    _read_only("afy", "float", "global_y"),
    _read_only("afth", "float", "global_th"),
    _read_only("x", "float", "x"),
    _read_only("y", "float", "y"),
    _read_only("range", "int", "range"),
    Slot("snew", parse_type("int"), getter=lambda b: SNEW if b.new else 0, setter=_set_snew),
]


@dataclass(frozen=True, slots=True)
class _Cell:
    """One cell of the ``list *`` that ``sfPointList`` gives."""

    data: Any
    next: _Cell | None


LIST_SLOTS = [
    Slot("data", parse_type("point *"), getter=lambda c: c.data),
    Slot("next", parse_type("list *"), getter=lambda c: c.next),
]


def _point_list(robot: Robot) -> _Cell | None:
    head: _Cell | None = None
    for artifact in reversed(list(robot.reflector.pointlist)):
        head = _Cell(artifact, head)
    return head


def _identity(s: Bindings, field: str) -> str:
    robot = s.ctx.robot
    identity = robot.link.identity if robot is not None and robot.connected else None
    return "" if identity is None else str(getattr(identity, field))


def _sonar_bucket(s: Bindings, index: int) -> SonarBucket | None:
    buckets = s.robot.sonar.buckets
    return buckets[index] if 0 <= index < len(buckets) else None


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    return BindingTable(
        structs=[
            ("sdata", SDATA_SLOTS, None, "a sonar's latest reading (sfSonarBucket)"),
            ("list", LIST_SLOTS, None, "a cell of sfPointList: data (point *), next (NULL at the end)"),
        ],
        variables=[
            ("sfRobotName", "string", lambda: _identity(s, "name"), None, "the connected robot's name"),
            ("sfRobotClass", "string", lambda: _identity(s, "robot_class"), None, "its class (Pioneer, B14...)"),
            ("sfRobotSubclass", "string", lambda: _identity(s, "subclass"), None, "its subclass (pion1m, p3dx...)"),
            ("sfPointList", "list *", lambda: _point_list(s.robot), None, "the pointlist: walk it with l->next"),
            ("sfGlobalOrigin", "point *", lambda: s.robot.reflector.pointlist.global_origin, None, "global 0,0,0"),
            ("sfRobotOrigin", "point *", lambda: s.robot.reflector.pointlist.robot_origin, None, "the robot's pose"),
        ],
        functions=[
            ("sfSonarBucket", "sdata *(int)", lambda n: _sonar_bucket(s, n), "sonar n's latest reading, or NULL"),
        ],
    )
