"""Wall ends (door sides) as along-track evidence for registration (see docs/colbert.md, §8.7).

Lines fix the heading and the lateral offset only; a sensed wall that *ends* fixes the position along
it too. :class:`WallEnds` watches each side's fitted segment: once the robot has driven
:data:`END_MARGIN` mm beyond the segment's forward end with no more wall on that line, the wall ended
there — at a door's or junction's side (jamb) or at the free end of a wall. The end is confirmed when
it stays put (within :data:`END_STABLE` mm in the odometric frame) for :data:`END_CONFIRM` cycles, and
each end is offered once. The sonar cone hears a wall's edge before its axis reaches it, so the
apparent end lies :data:`CONE_SHIFT` × ``d tan(half angle)`` beyond the true one at distance ``d``
(measured in the simulator; the same effect narrows a door, see :mod:`.interpretation`).

:func:`map_ends` lists the map's candidates: the two jambs of every map door and junction and both
ends of every map wall, each with the direction in which the opening lies beyond it (a sensed end
only matches a map end opening the same way).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from saphira.client.artifacts import Artifact, Category, Door, Junction, Wall
from saphira.core.geometry import cos_sin, norm2_angle
from saphira.perception.interpretation import MAX_WALL_ANGLE, MIN_WALL_LENGTH, SONAR_HALF_ANGLE, Interpretation

END_MARGIN = 350.0
"""mm the robot must have driven past a wall's forward end, with no more wall, before it counts as one."""

END_STABLE = 150.0
END_CONFIRM = 3
"""A wall end must stay within END_STABLE mm (odometric frame) for END_CONFIRM cycles."""

SAME_END = 600.0
"""mm: an end this close (odometric frame) to one already offered is the same end."""

CONE_SHIFT = 0.9
"""Fraction of ``d tan(half angle)`` by which the sonar cone carries a wall's apparent end past its edge."""


@dataclass(frozen=True)
class SensedEnd:
    """A confirmed wall end in the robot's frame: position (mm), the wall's direction towards the
    opening (deg) and the side's sonar distance to the wall (mm)."""

    x: float
    y: float
    th: float
    distance: float


@dataclass(frozen=True)
class MapEnd:
    """A map wall end or jamb: global position (mm), direction of the opening beyond it (deg), source."""

    x: float
    y: float
    th: float
    source: Artifact


@dataclass
class _Tracker:
    candidate: tuple[float, float] | None = None
    seen: int = 0
    offered: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class WallEnds:
    """Confirms the ends of the side walls as the robot drives past them (see the module docstring)."""

    interpretation: Interpretation
    trackers: dict[int, _Tracker] = field(default_factory=lambda: {1: _Tracker(), -1: _Tracker()})

    def update(self) -> list[SensedEnd]:
        """The wall ends confirmed this cycle (at most one a side)."""
        interp = self.interpretation
        state = interp.reflector.state
        oc, os_ = cos_sin(state.odo_th)
        found: list[SensedEnd] = []
        tan_half = math.tan(math.radians(SONAR_HALF_ANGLE))
        for side, sign in ((interp.left, 1), (interp.right, -1)):
            tracker = self.trackers[sign]
            seg = side.segment
            end = None
            if (
                seg is not None
                and seg.length >= MIN_WALL_LENGTH
                and abs(seg.th) <= MAX_WALL_ANGLE
                and sign * seg.normal_distance > 0.0
            ):
                c, s = cos_sin(seg.th)
                robot_along = -(c * seg.x + s * seg.y)  # the robot's foot on the line, from its centre
                last = float(seg.ts[-1])
                if robot_along - last >= END_MARGIN:
                    distance = max(0.0, abs(seg.normal_distance) - side.sonar_offset)
                    along = last - CONE_SHIFT * distance * tan_half
                    end = SensedEnd(seg.x + c * along, seg.y + s * along, seg.th, distance)
            if end is None:
                tracker.candidate, tracker.seen = None, 0
                continue
            odo = (state.odo_x + oc * end.x - os_ * end.y, state.odo_y + os_ * end.x + oc * end.y)
            if tracker.candidate is not None and math.dist(tracker.candidate, odo) <= END_STABLE:
                tracker.seen += 1
            else:
                tracker.seen = 1
            tracker.candidate = odo
            if tracker.seen == END_CONFIRM and all(math.dist(odo, o) > SAME_END for o in tracker.offered):
                tracker.offered = [*tracker.offered[-7:], odo]
                found.append(end)
        return found


def map_ends(artifacts: list[Artifact]) -> list[MapEnd]:
    """Jambs of the map's doors and junctions and the ends of its walls (category ``ARTIFACT``)."""
    ends: list[MapEnd] = []
    for a in artifacts:
        if a.cat != Category.ARTIFACT:
            continue
        if isinstance(a, Door | Junction):
            along = a.ath + 90.0  # a door's heading is its normal; its wall runs across it
            half = 0.5 * a.width
        elif isinstance(a, Wall):
            along = a.ath
            half = 0.5 * a.length
        else:
            continue
        c, s = cos_sin(along)
        for sign in (1.0, -1.0):
            x, y = a.ax + sign * c * half, a.ay + sign * s * half
            # beyond a wall's end lies the opening; beyond a jamb, towards the door's centre
            opening = along if sign > 0 else along + 180.0
            if not isinstance(a, Wall):
                opening += 180.0
            ends.append(MapEnd(x, y, norm2_angle(opening), a))
    return ends
