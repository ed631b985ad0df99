"""The simulator's world: wall segments (and scan points) in mm, loaded from a `.wld` or `.map` file.

Saphira's own simulator reads world description files (`.wld`, see :mod:`saphira.world.wld`);
MobileSim and ARIA use `2D-Map` files (`.map`, see :mod:`saphira.world.aria_map`); Pyro-era worlds use
``Start … End`` blocks (:mod:`saphira.world.pyro`). All become one :class:`World`;
:func:`load_world` picks the reader from the file's content and finds bare names such as
``"simple"`` among the bundled worlds.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.geometry import Pose
from saphira.core.inputfile import MIB, read_input
from saphira.core.paths import data_dir
from saphira.world.raycast import SegmentIndex, min_distance_point_segments

if TYPE_CHECKING:
    from saphira.world.objects import WorldObject

WORLD_SUFFIXES = (".wld", ".map")
MAX_WORLD_BYTES = 16 * MIB
"""The largest world or map file read (the bundled ARIA maps are under 1 MB)."""
MAX_WALLS = 100_000
"""Walls a world may have (the largest bundled map has 470): a world costs every cycle of every robot,
and the size limit alone let a 16 MiB file hold ~900,000 walls (minutes to load, ~500 MB)."""
MAX_COORDINATE = 1e9
"""mm: the largest number a world may hold (1000 km); beyond, the simulator's squares overflow."""


class WorldError(SourceError):
    """A world or map file that cannot be read: ``file:line[:col]: what is wrong``."""


class WorldNotFoundError(SaphiraError, FileNotFoundError):
    """No world file by that path or bundled name."""


@dataclass(frozen=True)
class MapObject:
    """One ``Cairn:`` object of an ARIA map (home, dock, goal, forbidden line, box obstacle, …).

    ``extent`` is the optional ``x1 y1 x2 y2`` that follows the name (lines and rectangles), kept
    as written in the file; ``line`` is where the object was defined.
    """

    kind: str
    pose: Pose
    description: str = ""
    icon: str = ""
    name: str = ""
    extent: tuple[float, float, float, float] | None = None
    line: int = 0


def _frozen(array: FloatArray, columns: int, what: str) -> FloatArray:
    result = np.array(array, dtype=np.float64).reshape(-1, columns)
    if not np.isfinite(result).all():
        raise ValueError(f"{what} must be finite numbers")
    result.setflags(write=False)
    return result


@dataclass(frozen=True, eq=False)
class World:
    """Everything the simulator needs to know about the robot's surroundings.

    ``segments`` is ``(N, 4)`` walls ``x1 y1 x2 y2``; ``points`` is ``(M, 2)`` scan points (ARIA maps
    only); both are read-only float64 arrays in mm. ``bounds`` is ``(xmin, ymin, xmax, ymax)``.
    ``start_pose`` is where the file puts the robot (``position`` in a world file; the first
    ``RobotHome``, else the first ``Dock`` object in a map, as MobileSim does), or ``None``;
    ``homes`` lists every home of a map in file order (further robots start on the next one).
    ``goals`` are named points (a Pyro-era world's goals, or a map's ``Goal`` objects).
    ``objects`` are the movable coloured boxes a world file places (:mod:`saphira.world.objects`).
    """

    name: str
    source: str
    segments: FloatArray
    points: FloatArray = field(default_factory=lambda: np.zeros((0, 2)))
    bounds: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    start_pose: Pose | None = None
    map_objects: tuple[MapObject, ...] = ()
    homes: tuple[Pose, ...] = ()
    goals: tuple[tuple[str, Pose], ...] = ()
    objects: tuple[WorldObject, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "segments", _frozen(self.segments, 4, "segments"))
        object.__setattr__(self, "points", _frozen(self.points, 2, "points"))

    @cached_property
    def index(self) -> SegmentIndex:
        """A :class:`SegmentIndex` over :attr:`segments`, built on first use."""
        return SegmentIndex(self.segments)

    def clearance(self, x: float, y: float) -> float:
        """Distance from (x, y) to the nearest wall (``inf`` in a world without walls)."""
        return min_distance_point_segments((x, y), self.segments)

    def is_free(self, x: float, y: float, radius: float) -> bool:
        """Whether a disc of ``radius`` at (x, y) overlaps no wall and lies inside :attr:`bounds`."""
        xmin, ymin, xmax, ymax = self.bounds
        inside = xmin + radius <= x <= xmax - radius and ymin + radius <= y <= ymax - radius
        return inside and not self.index.circle_collides((x, y), radius)


def parse_number(token: str, file: str, line: int, column: int, source_line: str) -> float:
    """``token`` as a float within ±:data:`MAX_COORDINATE`, or a :class:`WorldError` pointing at it."""
    try:
        value = float(token)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise WorldError(f"bad number {quoted(token)}", SourcePosition(file, line, column), source_line)
    if abs(value) > MAX_COORDINATE:
        message = f"number {quoted(token)} out of range (at most {MAX_COORDINATE:g} in size)"
        raise WorldError(message, SourcePosition(file, line, column), source_line)
    return value


def bounds_of(segments: FloatArray, points: FloatArray) -> tuple[float, float, float, float]:
    """The smallest box holding every segment end and point; all zeros when there are none."""
    coordinates = np.concatenate([segments.reshape(-1, 2), points.reshape(-1, 2)])
    if coordinates.shape[0] == 0:
        return (0.0, 0.0, 0.0, 0.0)
    low = coordinates.min(axis=0)
    high = coordinates.max(axis=0)
    return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))


def find_world_file(name: str | Path) -> Path:
    """The file ``name`` names: an existing path, else a bundled world (``"simple"``, ``"room.wld"``)."""
    path = Path(name)
    if path.is_file():
        return path
    tried = [str(path)]
    if path.parent == Path("."):
        try:
            folder = data_dir("maps")
        except FileNotFoundError:
            folder = None
        if folder is not None:
            names = [path.name] if path.suffix in WORLD_SUFFIXES else [path.name + s for s in WORLD_SUFFIXES]
            for candidate in (folder / n for n in names):
                if candidate.is_file():
                    return candidate
                tried.append(str(candidate))
    raise WorldNotFoundError(f"no world file {str(name)!r} (looked for {', '.join(tried)})")


def load_world(source: str | Path) -> World:
    """Read a `.wld` world or `.map` file by path or bundled name.

    A file whose first non-blank line starts with ``2D-Map`` is an ARIA map; one with a line
    starting ``OriginPad``, ``Start`` or ``End`` is a Pyro-era block world
    (:mod:`saphira.world.pyro`); any other is a Saphira world file (except that a `.map` file
    must have the ``2D-Map`` line). Raises
    :class:`WorldNotFoundError` or :class:`WorldError`.

    A :class:`World` is immutable, so the last few read are kept and shared while their file is
    unchanged (same size and modification time): a batch runs hundreds of trials in one world, and
    reading a large ARIA map and indexing its walls cost each trial ~30 ms. The file is noted as an
    input of the batch trial running, if any, cached or not.
    """
    path = find_world_file(source)
    try:
        stat = path.stat()
    except OSError as err:
        raise WorldNotFoundError(f"cannot read world file {str(path)!r}: {err.strerror}") from err
    world = _read_world(path, path.resolve(), stat.st_mtime_ns, stat.st_size)
    sys.audit("saphira.input", str(path))  # a batch trial's input even when the cache spared reading it
    return world


@functools.lru_cache(maxsize=8)
def _read_world(path: Path, resolved: Path, mtime_ns: int, size: int) -> World:
    """The world in ``path`` (its other arguments are the cache key: where it is and which version)."""
    return parse_world_data(read_input(path, what="world file", limit=MAX_WORLD_BYTES, error=WorldError), path)


def parse_world_data(raw: bytes, path: Path) -> World:
    """The world in ``raw``, the bytes of the file ``path`` (which names it in errors and gives its kind
    and name): a caller that has opened and read the file itself (a server, without following links)."""
    # Imported here: the readers import World from this module.
    from saphira.world.aria_map import is_aria_map, parse_map
    from saphira.world.pyro import is_block_world, parse_pyro_world
    from saphira.world.wld import parse_wld

    text = raw.decode("utf-8-sig", errors="replace")  # a byte-order mark is not content
    if is_aria_map(text) or path.suffix.lower() == ".map":
        return parse_map(text, str(path), name=path.stem)
    if is_block_world(text):
        return parse_pyro_world(text, str(path), name=path.stem)
    return parse_wld(text, str(path), name=path.stem)
