"""Artifacts and the pointlist (manual §8.1–§8.2).

An artifact is a real or imaginary object placed in space: a goal point, a lane, a corridor, a door,
a wall. Each holds two coordinate sets: local ``x, y, th`` (LPS, robot-relative) and global
``ax, ay, ath``. The global ones are fixed; the local ones follow the robot: every artifact on a
:class:`PointList` has its local coordinates recomputed from its global ones by
:meth:`PointList.update_local` whenever the robot's global pose changes, so artifacts stay put in
the world while the robot moves.

Geometry of the defining point (manual Fig. 8.4): ``x, y, th`` is the artifact's middle. Lanes and
corridors run along ``th`` (``length`` along, ``width`` across); for doors and junctions ``th`` is
the normal of the opening and ``width`` the opening; a wall runs along ``th`` over ``length``.

The manual contradicts itself on the range of artifact angles; here both ``th`` and ``ath`` are kept
in [0, 360) (§8.7.3), and :func:`saphira.core.geometry.point_phi` gives bearings in (-180, 180].
An ``id`` of 0 means "no id"; ids given by the caller are kept as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

from saphira.core.geometry import Pose, cos_sin, norm_angle

__all__ = [
    "Artifact",
    "ArtifactType",
    "Category",
    "Corridor",
    "Door",
    "Junction",
    "Lane",
    "Point",
    "PointList",
    "Region",
    "Wall",
    "create_corridor",
    "create_door",
    "create_global_artifact",
    "create_global_point",
    "create_junction",
    "create_lane",
    "create_local_artifact",
    "create_local_point",
    "create_wall",
]


class ArtifactType(IntEnum):
    """What an artifact represents (the manual's ``pt_type``); other ints are user-defined types."""

    INVALID = 0
    POS = 1
    WALL = 2
    CORRIDOR = 3
    LANE = 4
    DOOR = 5
    JUNCTION = 6
    OFFICE = 7
    BREAK = 8
    OBJ = 9
    POINT = 1  # the manual's sfPOINT creates a POS point


class Category(IntEnum):
    """Where an artifact comes from (the manual's ``cat_type``)."""

    SYSTEM = 0
    PERCEPT = 1
    ARTIFACT = 2


@dataclass(eq=False, slots=True)
class Artifact:
    """The fields every artifact shares (the manual's ``point`` structure).

    Identity, not value, is what makes two artifacts the same: a pointlist holds objects.
    """

    x: float = 0.0
    y: float = 0.0
    th: float = 0.0
    ax: float = 0.0
    ay: float = 0.0
    ath: float = 0.0
    type: int = ArtifactType.POS
    cat: Category = Category.ARTIFACT
    id: int = 0
    snew: bool = False
    viewable: bool = True
    matched: int = 0
    announced: int = 0

    @property
    def local(self) -> Pose:
        """The local (LPS) coordinates as a pose."""
        return Pose(self.x, self.y, self.th)

    @property
    def global_pose(self) -> Pose:
        """The global coordinates as a pose."""
        return Pose(self.ax, self.ay, self.ath)

    def set_local_coords(self, robot: Pose) -> None:
        """Recompute the local coordinates from the global ones, the robot being at ``robot``."""
        c, s = cos_sin(robot.th)
        _set_local(self, robot, c, s)

    def set_global_coords(self, robot: Pose) -> None:
        """Recompute the global coordinates from the local ones (call it after editing x, y, th)."""
        c, s = cos_sin(robot.th)
        self.ax = robot.x + c * self.x - s * self.y
        self.ay = robot.y + s * self.x + c * self.y
        self.ath = norm_angle(self.th + robot.th)


def _set_local(a: Artifact, robot: Pose, c: float, s: float) -> None:
    dx, dy = a.ax - robot.x, a.ay - robot.y
    a.x = c * dx + s * dy
    a.y = -s * dx + c * dy
    a.th = norm_angle(a.ath - robot.th)


@dataclass(eq=False, slots=True)
class Point(Artifact):
    """A goal or reference point; its direction matters for behaviors that align with it.

    ``name`` is a named goal's name (a world's or a map file's, :meth:`PointList.add_goals`); other
    points have none.
    """

    name: str = ""


@dataclass(eq=False, slots=True)
class Wall(Artifact):
    """A line segment through the defining point along ``th``, ``length`` mm long."""

    type: int = ArtifactType.WALL
    length: float = 0.0


@dataclass(eq=False, slots=True)
class Lane(Artifact):
    """A directed lane along ``th``: ``width`` across, ``length`` along, centred on the point."""

    type: int = ArtifactType.LANE
    width: float = 0.0
    length: float = 0.0


@dataclass(eq=False, slots=True)
class Corridor(Artifact):
    """A corridor along ``th``: ``width`` wall to wall, ``length`` along, centred on the point."""

    type: int = ArtifactType.CORRIDOR
    width: float = 0.0
    length: float = 0.0


@dataclass(eq=False, slots=True)
class Door(Artifact):
    """A doorway: ``th`` is the normal of the opening (pointing into the corridor), ``width`` its size."""

    type: int = ArtifactType.DOOR
    width: float = 0.0


@dataclass(eq=False, slots=True)
class Junction(Artifact):
    """A corridor junction: ``th`` is the normal of the opening, ``width`` its size."""

    type: int = ArtifactType.JUNCTION
    width: float = 0.0


@dataclass(eq=False, slots=True)
class Region(Artifact):
    """Any other type (office, break, object, user-defined): a ``width`` x ``length`` box on ``th``."""

    type: int = ArtifactType.OBJ
    width: float = 0.0
    length: float = 0.0


def _local(artifact: Artifact, robot: Pose, x: float, y: float, th: float) -> Artifact:
    artifact.x, artifact.y, artifact.th = x, y, norm_angle(th)
    artifact.set_global_coords(robot)
    return artifact


def _global(artifact: Artifact, robot: Pose, ax: float, ay: float, ath: float) -> Artifact:
    artifact.ax, artifact.ay, artifact.ath = ax, ay, norm_angle(ath)
    artifact.set_local_coords(robot)
    return artifact


def create_local_point(robot: Pose, x: float, y: float, th: float = 0.0, id: int = 0) -> Point:
    """A ``POS`` point at LPS ``(x, y, th)``, global coordinates from ``robot``; not on any pointlist."""
    point = Point(id=id)
    _local(point, robot, x, y, th)
    return point


def create_global_point(robot: Pose, ax: float, ay: float, ath: float = 0.0, id: int = 0) -> Point:
    """A ``POS`` point at global ``(ax, ay, ath)``, local coordinates from ``robot``."""
    point = Point(id=id)
    _global(point, robot, ax, ay, ath)
    return point


def _new(type: int, id: int, width: float, length: float) -> Artifact:
    """An empty artifact of the class that represents ``type``, with its relevant dimensions."""
    if type == ArtifactType.POS:
        return Point(id=id)
    if type == ArtifactType.WALL:
        return Wall(id=id, length=length)
    if type == ArtifactType.LANE:
        return Lane(id=id, width=width, length=length)
    if type == ArtifactType.CORRIDOR:
        return Corridor(id=id, width=width, length=length)
    if type == ArtifactType.DOOR:
        return Door(id=id, width=width)
    if type == ArtifactType.JUNCTION:
        return Junction(id=id, width=width)
    if type == ArtifactType.INVALID:
        raise ValueError("cannot create an artifact of type INVALID")
    return Region(id=id, type=type, width=width, length=length)


def create_local_artifact(
    robot: Pose,
    type: int,
    id: int,
    x: float,
    y: float,
    th: float,
    width: float = 0.0,
    length: float = 0.0,
) -> Artifact:
    """An artifact of ``type`` from LPS coordinates (``sfCreateLocalArtifact`` without the list).

    The class follows the type (``Wall``, ``Lane``, …); dimensions a type has no use for are
    ignored, as in the manual (a point ignores both, a door or junction its length, a wall its width).
    :meth:`PointList.create_local_artifact` also adds it to the list, as the manual's function does.
    """
    return _local(_new(type, id, width, length), robot, x, y, th)


def create_global_artifact(
    robot: Pose,
    type: int,
    id: int,
    ax: float,
    ay: float,
    ath: float,
    width: float = 0.0,
    length: float = 0.0,
) -> Artifact:
    """An artifact of ``type`` from global coordinates; see :func:`create_local_artifact`."""
    return _global(_new(type, id, width, length), robot, ax, ay, ath)


def _place(artifact: Artifact, robot: Pose, x: float, y: float, th: float, global_coords: bool) -> None:
    if global_coords:
        _global(artifact, robot, x, y, th)
    else:
        _local(artifact, robot, x, y, th)


def create_lane(
    robot: Pose,
    x: float,
    y: float,
    th: float,
    width: float,
    length: float = 0.0,
    *,
    global_coords: bool = False,
    id: int = 0,
) -> Lane:
    """A lane along ``th`` centred on ``(x, y)``; LPS coordinates unless ``global_coords``."""
    lane = Lane(id=id, width=width, length=length)
    _place(lane, robot, x, y, th, global_coords)
    return lane


def create_corridor(
    robot: Pose,
    x: float,
    y: float,
    th: float,
    width: float,
    length: float = 0.0,
    *,
    global_coords: bool = False,
    id: int = 0,
) -> Corridor:
    """A corridor along ``th`` centred on ``(x, y)``; LPS coordinates unless ``global_coords``."""
    corridor = Corridor(id=id, width=width, length=length)
    _place(corridor, robot, x, y, th, global_coords)
    return corridor


def create_door(
    robot: Pose, x: float, y: float, th: float, width: float, *, global_coords: bool = False, id: int = 0
) -> Door:
    """A door centred on ``(x, y)`` whose normal ``th`` points into the corridor."""
    door = Door(id=id, width=width)
    _place(door, robot, x, y, th, global_coords)
    return door


def create_junction(
    robot: Pose, x: float, y: float, th: float, width: float, *, global_coords: bool = False, id: int = 0
) -> Junction:
    """A junction centred on ``(x, y)`` with opening normal ``th``."""
    junction = Junction(id=id, width=width)
    _place(junction, robot, x, y, th, global_coords)
    return junction


def create_wall(
    robot: Pose, x: float, y: float, th: float, length: float, *, global_coords: bool = False, id: int = 0
) -> Wall:
    """A wall segment centred on ``(x, y)`` running along ``th``."""
    wall = Wall(id=id, length=length)
    _place(wall, robot, x, y, th, global_coords)
    return wall


class PointList:
    """The artifacts whose local coordinates the LPS keeps current (the manual's ``sfPointList``).

    Holds objects by identity and never twice (``add`` is the manual's ``sfAddPointCheck``; since
    local coordinates are recomputed from global ones, a duplicate could not be moved twice anyway).
    Also holds the two ``SYSTEM`` points: :attr:`global_origin` (global 0, 0, 0) and
    :attr:`robot_origin` (the robot: local 0, 0, 0, global = the robot's pose); they are updated
    with the rest but are not members of the iteration.
    """

    def __init__(self, robot: Pose | None = None) -> None:
        self._items: list[Artifact] = []
        self._members: set[int] = set()  # id() of each item: membership in O(1), so loading n is O(n)
        self.robot = robot or Pose()
        self._world_goals: list[Point] = []  # the goals place_goals put here, which the next call replaces
        self.global_origin = Point(cat=Category.SYSTEM)
        self.robot_origin = Point(cat=Category.SYSTEM)
        self.update_local(self.robot)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Artifact]:
        return iter(list(self._items))

    def __contains__(self, artifact: object) -> bool:
        return id(artifact) in self._members

    def add(self, artifact: Artifact) -> bool:
        """Add an artifact (its local coordinates are refreshed); False if it was already there."""
        if artifact in self:
            return False
        self._items.append(artifact)
        self._members.add(id(artifact))
        artifact.set_local_coords(self.robot)
        return True

    def remove(self, artifact: Artifact) -> bool:
        """Remove an artifact (``sfRemPoint``); False if it was not there."""
        for i, a in enumerate(self._items):
            if a is artifact:
                del self._items[i]
                self._members.discard(id(artifact))
                return True
        return False

    def remove_many(self, artifacts: Iterable[Artifact]) -> int:
        """Remove every one of ``artifacts`` that is here, in one pass; returns how many were."""
        doomed = {id(a) for a in artifacts} & self._members
        self._items = [a for a in self._items if id(a) not in doomed]
        self._members -= doomed
        return len(doomed)

    def find(self, id: int) -> Artifact | None:
        """The first artifact with this id (``sfFindArtifact``), or None."""
        return next((a for a in self._items if a.id == id), None)

    def find_goal(self, name: str) -> Point | None:
        """The goal point named ``name`` (``sfFindGoal``), or None."""
        return next((a for a in self._items if isinstance(a, Point) and a.name and a.name == name), None)

    def place_goals(self, goals: Iterable[tuple[str, Pose]]) -> list[Point]:
        """Put a world's named goals on the list (:meth:`add_goals`), replacing the goals the previous
        call put there (the simulator's former world); goals a map file added stay."""
        self.remove_many(self._world_goals)
        self._world_goals = self.add_goals(goals)
        return self._world_goals

    def add_goals(self, goals: Iterable[tuple[str, Pose]]) -> list[Point]:
        """Add named goals as ``ARTIFACT`` ``POS`` points (a world's, a map file's ``GOAL`` lines).

        Each gets the next id above every id on the list, in the given order, so ``sfFindArtifact``
        finds it as the manual finds any goal; :meth:`find_goal` finds it by name.
        """
        next_id = max((a.id for a in self._items), default=0) + 1
        points = []
        for i, (name, pose) in enumerate(goals):
            point = Point(id=next_id + i, name=name)
            _global(point, self.robot, pose.x, pose.y, pose.th)
            self.add(point)
            points.append(point)
        return points

    def remove_id(self, id: int) -> bool:
        """Remove the first artifact with this id (``sfRemArtifact``); False if there was none."""
        artifact = self.find(id)
        return artifact is not None and self.remove(artifact)

    def create_local_artifact(
        self, type: int, id: int, x: float, y: float, th: float, width: float = 0.0, length: float = 0.0
    ) -> Artifact:
        """``sfCreateLocalArtifact``: create from LPS coordinates and add to this list."""
        artifact = create_local_artifact(self.robot, type, id, x, y, th, width, length)
        self.add(artifact)
        return artifact

    def create_global_artifact(
        self, type: int, id: int, ax: float, ay: float, ath: float, width: float = 0.0, length: float = 0.0
    ) -> Artifact:
        """``sfCreateGlobalArtifact``: create from global coordinates and add to this list."""
        artifact = create_global_artifact(self.robot, type, id, ax, ay, ath, width, length)
        self.add(artifact)
        return artifact

    def update_local(self, robot: Pose) -> None:
        """The robot is now at global ``robot``: recompute every artifact's local coordinates."""
        self.robot = robot
        c, s = cos_sin(robot.th)
        for artifact in self._items:
            _set_local(artifact, robot, c, s)
        _set_local(self.global_origin, robot, c, s)
        ro = self.robot_origin
        ro.ax, ro.ay, ro.ath = robot.x, robot.y, norm_angle(robot.th)
        ro.x = ro.y = ro.th = 0.0
