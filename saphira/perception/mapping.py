"""Map building (see docs/colbert.md): sensed corridors and doorways that match nothing become map artifacts.

Registration hands over what it could not match. A sensed corridor becomes a map ``CORRIDOR`` (category
``ARTIFACT``, a fresh id) if no map corridor lies near it (roughly parallel, overlapping, within a
corridor width); with ``snap`` its direction is rounded to a multiple of 90° about its centre (the
office assumption). While the robot drives on, the corridor hypothesis keeps matching that artifact
and :meth:`MapBuilder.extend` grows the artifact's length to cover what has been seen; its line is
left alone (it anchors the pose). A confirmed door hypothesis becomes a map ``DOOR`` if no map door
lies within :data:`DOOR_CLEARANCE`. Artifacts this builder did not make are never changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from saphira.client.artifacts import (
    Artifact,
    Category,
    Corridor,
    Door,
    Junction,
    PointList,
    create_corridor,
    create_door,
)
from saphira.core.geometry import Pose, cos_sin, norm2_angle, to_global

CORRIDOR_CLEARANCE = 20.0
"""deg: a map corridor this close to parallel, and near, blocks a new one."""

DOOR_CLEARANCE = 1000.0
"""mm: no new door this close to a map door or junction."""


@dataclass
class MapBuilder:
    """Adds map artifacts to ``pointlist``; :attr:`built` lists what it made, oldest first."""

    pointlist: PointList
    built: list[Artifact] = field(default_factory=list)

    def _next_id(self) -> int:
        return max((a.id for a in self.pointlist), default=0) + 1

    def add_corridor(self, sensed: Corridor, pose: Pose, snap: bool) -> Corridor | None:
        """A map corridor for the sensed one unless one is already there; returns the new artifact."""
        centre = to_global(pose, sensed.x, sensed.y, sensed.th)
        th = round(centre.th / 90.0) * 90.0 if snap else centre.th
        for c in self.pointlist:
            if not (isinstance(c, Corridor) and c.cat == Category.ARTIFACT):
                continue
            # against the direction it would be given: a corridor sensed 50 degrees off the grid snaps
            # onto one already built, which must not be built again
            diff = abs(norm2_angle(c.ath - th))
            if min(diff, 180.0 - diff) > CORRIDOR_CLEARANCE:
                continue
            cc, cs = cos_sin(c.ath)
            dx, dy = centre.x - c.ax, centre.y - c.ay
            lateral, along = abs(-cs * dx + cc * dy), abs(cc * dx + cs * dy)
            if lateral <= max(c.width, sensed.width) and along <= 0.5 * (c.length + sensed.length) + 1000.0:
                return None
        corridor = create_corridor(
            pose, centre.x, centre.y, th, sensed.width, sensed.length, global_coords=True, id=self._next_id()
        )
        self.pointlist.add(corridor)
        self.built.append(corridor)
        return corridor

    def extend(self, corridor: Corridor, sensed: Corridor, pose: Pose) -> None:
        """Grow a corridor this builder made so it covers the sensed corridor's extent."""
        if not any(a is corridor for a in self.built):
            return
        c, s = cos_sin(corridor.ath)
        centre = to_global(pose, sensed.x, sensed.y)
        mid = c * (centre.x - corridor.ax) + s * (centre.y - corridor.ay)
        lo = min(-0.5 * corridor.length, mid - 0.5 * sensed.length)
        hi = max(0.5 * corridor.length, mid + 0.5 * sensed.length)
        shift = 0.5 * (lo + hi)
        if hi - lo <= corridor.length + 1.0:
            return
        corridor.ax += c * shift
        corridor.ay += s * shift
        corridor.length = hi - lo
        corridor.set_local_coords(pose)

    def add_door(self, sensed: Door | Junction, pose: Pose) -> Door | None:
        """A map door for a confirmed door hypothesis unless a map door or junction is near it."""
        where = to_global(pose, sensed.x, sensed.y, sensed.th)
        for a in self.pointlist:
            mapped = isinstance(a, Door | Junction) and a.cat == Category.ARTIFACT
            if mapped and math.hypot(a.ax - where.x, a.ay - where.y) < DOOR_CLEARANCE:
                return None
        door = create_door(pose, where.x, where.y, where.th, sensed.width, global_coords=True, id=self._next_id())
        self.pointlist.add(door)
        self.built.append(door)
        return door
