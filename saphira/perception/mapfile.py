"""Saphira map files (the Saphira manual §8.10): corridors, doors, junctions and walls as text, global mm, degrees.

One artifact per line, ``;`` starts a comment, keywords in any case::

    CORRIDOR [(id)] x y th length width   ; (x, y) the centre, th along the corridor
    DOOR     [(id)] x y th width          ; th the normal of the opening
    JUNCTION [(id)] x y th width          ; like a door, where corridors meet
    WALL     [(id)] x y th length         ; (x, y) the centre, th along the wall
    GOAL     x y th "name"                ; a named goal point (this project's, not the manual's)

Loading (:func:`load_map_file`, ``sfLoadMapFile``) is additive: it adds ``ARTIFACT``-category
artifacts to the pointlist and leaves what is there. A broken file loads nothing: the whole file is
parsed first and the first error raises a :class:`MapFileError` naming file, line and column. Saving
(:func:`save_map_file`, ``sfSaveMapFile``) writes every map artifact on the pointlist in this format,
numbers in their shortest exact decimal form, so a reload gives the same artifacts, type, id, global
pose and dimensions alike.

Choices the manual leaves open, documented here:

* **Goals**: a ``GOAL`` line (not in the manual, whose map files hold no goals) is a named goal point,
  as a world's goals are (a Pyro-era ``Start Goal``, an ARIA map's ``Goal``): loading adds it to the
  pointlist as an ``ARTIFACT`` ``POS`` point with the next id above every id there (``sfFindGoal``
  finds it by name), ``saphira map`` writes a world's goals so, and saving writes every named goal
  point. The name is quoted, one to :data:`MAX_GOAL_NAME` characters without ``"`` or ``;``. A goal
  is not a map artifact: ``sfDeleteMapArtifacts`` leaves it.

* **Map artifacts** are the pointlist's ``ARTIFACT``-category corridors, doors, junctions and walls
  (goal points are ``POS`` and are left alone; sensed hypotheses are ``PERCEPT``).
* **Wall ids**: the manual's ``WALL`` has no id. A wall may carry one here, so a map built or edited
  in a program (whose walls may have ids) saves and reloads unchanged; walls without an id are
  written without one, so plain Saphira maps stay plain.
* **Checks**: an id is a positive integer and unique within a file; lengths and widths are positive;
  numbers are finite; nothing may follow the last number. Ids are not checked against artifacts
  already on the pointlist: loading a map twice gives two copies (delete the map first).
* **Directory**: a relative name is looked up in the map directory (``sfMapDir``; default the bundled
  ``maps/`` folder), trying the name as given and then with :data:`MAP_SUFFIX` added; failing that, a
  relative path from the working directory (``maps/corridor.smap`` in a checkout) is taken.
* **Extension**: this project's Saphira maps end in :data:`MAP_SUFFIX` (``.smap``), so they cannot
  be mistaken for the ARIA ``2D-Map`` worlds (``.map``) in the same folder. The loader itself reads
  any name: the content is what counts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from saphira.client.artifacts import (
    Artifact,
    ArtifactType,
    Category,
    Corridor,
    Door,
    Junction,
    Point,
    PointList,
    Wall,
    create_corridor,
    create_door,
    create_junction,
    create_wall,
)
from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.geometry import Pose
from saphira.core.inputfile import MIB, bounded_int, read_input
from saphira.core.outfile import OutputFile
from saphira.core.paths import data_dir

__all__ = [
    "MAP_SUFFIX",
    "MAP_TYPES",
    "MapEntry",
    "MapFileError",
    "MapNotFoundError",
    "default_map_dir",
    "delete_map_artifacts",
    "find_map_file",
    "format_map",
    "is_map_artifact",
    "load_map_file",
    "map_artifacts",
    "named_goals",
    "parse_map_text",
    "read_map_file",
    "save_map_file",
]

MAP_SUFFIX = ".smap"
"""The extension of the Saphira map files this project ships (ARIA's ``.map`` is a world format)."""

MAX_MAP_BYTES = 16 * MIB
"""The largest map file read: some 400 000 artifacts."""

MAP_TYPES = {
    "CORRIDOR": ArtifactType.CORRIDOR,
    "DOOR": ArtifactType.DOOR,
    "JUNCTION": ArtifactType.JUNCTION,
    "WALL": ArtifactType.WALL,
}
"""Keyword → artifact type of the four line kinds of a map file."""

_FIELDS = {
    "CORRIDOR": ("x", "y", "th", "length", "width"),
    "DOOR": ("x", "y", "th", "width"),
    "JUNCTION": ("x", "y", "th", "width"),
    "WALL": ("x", "y", "th", "length"),
}
MAX_GOAL_NAME = 200
"""The longest goal name a ``GOAL`` line may give."""

_GOAL_FIELDS = ("x", "y", "th")
_GOAL_NAME = re.compile(r'"([^";]*)"')
_TOKEN = re.compile(r"\([^)]*\)?|[^\s(]+")
_ID = re.compile(r"\(\s*([^)]*?)\s*\)")


class MapFileError(SourceError):
    """A map file that cannot be loaded: ``file:line:col: what is wrong``."""


class MapNotFoundError(SaphiraError, FileNotFoundError):
    """No map file by that name (``sfLoadMapFile`` returns -1)."""


@dataclass(frozen=True, slots=True)
class MapEntry:
    """One line of a map file: ``kind`` (``CORRIDOR`` … ``GOAL``), ``id`` (0: none), global pose, sizes,
    and a goal's ``name``."""

    kind: str
    id: int
    x: float
    y: float
    th: float
    length: float = 0.0
    width: float = 0.0
    line: int = 0
    name: str = ""

    @property
    def type(self) -> ArtifactType:
        return MAP_TYPES[self.kind]


def _parse_line(raw: str, number: int, filename: str) -> MapEntry | None:
    text = raw.split(";", 1)[0]
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return None

    def error(message: str, column: int) -> MapFileError:
        return MapFileError(message, SourcePosition(filename, number, column), raw)

    head = tokens[0]
    kind = head.group().upper()
    if kind == "GOAL":
        return _parse_goal(raw, text, head.end(), number, error)
    if kind not in _FIELDS:
        raise error(
            f"unknown artifact {head.group()!r} (expected CORRIDOR, DOOR, JUNCTION, WALL or GOAL)", head.start() + 1
        )
    fields = _FIELDS[kind]
    rest = tokens[1:]
    ident = 0
    if rest and rest[0].group().startswith("("):
        tok = rest.pop(0)
        match = _ID.fullmatch(tok.group())
        digits = match.group(1) if match else ""
        given = bounded_int(digits, digits=9) if digits[:1].isdigit() else None
        if given is None or given <= 0:
            raise error(f"an id is a positive integer in parentheses (at most 9 digits), not {quoted(tok.group())}",
                        tok.start() + 1)  # fmt: skip
        ident = given
    usage = f"{kind} {'' if kind == 'WALL' else '[(id)] '}{' '.join(fields)}"
    if len(rest) < len(fields):
        column = rest[-1].end() + 1 if rest else tokens[-1].end() + 1
        raise error(f"{kind} needs {len(fields)} numbers ({usage}), found {len(rest)}", column)
    if len(rest) > len(fields):
        extra = rest[len(fields)]
        raise error(f"unexpected {extra.group()!r} after {kind}'s {len(fields)} numbers ({usage})", extra.start() + 1)
    v = _numbers(kind, fields, rest, error)
    return MapEntry(kind, ident, v["x"], v["y"], v["th"], v.get("length", 0.0), v.get("width", 0.0), line=number)


def _numbers(
    kind: str, fields: tuple[str, ...], tokens: list[re.Match[str]], error: Callable[[str, int], MapFileError]
) -> dict[str, float]:
    values: dict[str, float] = {}
    for name, tok in zip(fields, tokens, strict=True):
        try:
            value = float(tok.group())
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise error(f"bad number {quoted(tok.group())} for {kind}'s {name}", tok.start() + 1)
        if name in ("length", "width") and value <= 0.0:
            raise error(f"{kind}'s {name} must be positive, not {tok.group()}", tok.start() + 1)
        values[name] = value
    return values


def _parse_goal(raw: str, text: str, start: int, number: int, error: Callable[[str, int], MapFileError]) -> MapEntry:
    """A ``GOAL x y th "name"`` line (``text``: the line before its comment; the numbers from ``start``)."""
    usage = 'GOAL x y th "name"'
    quote = raw.find('"', start)
    head = text if quote < 0 else raw[:quote]
    tokens = list(_TOKEN.finditer(head, start))
    if len(tokens) != len(_GOAL_FIELDS):
        if len(tokens) > len(_GOAL_FIELDS):
            raise error(f"unexpected {tokens[3].group()!r} after GOAL's 3 numbers ({usage})", tokens[3].start() + 1)
        column = tokens[-1].end() + 1 if tokens else start + 1
        raise error(f"GOAL needs 3 numbers and a quoted name ({usage}), found {len(tokens)} numbers", column)
    values = _numbers("GOAL", _GOAL_FIELDS, tokens, error)
    name = _GOAL_NAME.match(raw, quote) if quote >= 0 else None
    if name is None or not name.group(1).strip() or len(name.group(1)) > MAX_GOAL_NAME:
        column = quote + 1 if quote >= 0 else tokens[-1].end() + 1
        raise error(
            f"GOAL needs a quoted name of 1 to {MAX_GOAL_NAME} characters without '\"' or ';' ({usage})", column
        )
    after = raw[name.end() :].split(";", 1)[0]
    if after.strip():
        column = name.end() + len(after) - len(after.lstrip()) + 1
        raise error(f"unexpected {after.strip()!r} after GOAL's name ({usage})", column)
    return MapEntry("GOAL", 0, values["x"], values["y"], values["th"], line=number, name=name.group(1))


def parse_map_text(text: str, filename: str = "<map>") -> list[MapEntry]:
    """The entries of a map file's text, in file order; the first problem raises :class:`MapFileError`."""
    entries: list[MapEntry] = []
    seen: dict[int, int] = {}
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        entry = _parse_line(raw, number, filename)
        if entry is None:
            continue
        if entry.id:
            if entry.id in seen:
                column = raw.index("(") + 1
                raise MapFileError(
                    f"id {entry.id} given twice (first on line {seen[entry.id]})",
                    SourcePosition(filename, number, column),
                    raw,
                )
            seen[entry.id] = number
        entries.append(entry)
    return entries


def default_map_dir() -> Path:
    """The bundled ``maps/`` folder: the default ``sfMapDir``."""
    return data_dir("maps")


def find_map_file(name: str | Path, map_dir: str | Path | None = None) -> Path:
    """The file ``name`` names: absolute as is; relative in ``map_dir`` (default the bundled maps), as
    given and then with :data:`MAP_SUFFIX` added, and last from the working directory.
    :class:`MapNotFoundError` lists what was tried."""
    path = Path(name)
    if path.is_absolute():
        candidates = [path]
    else:
        folder = Path(map_dir) if map_dir is not None else default_map_dir()
        candidates = [folder / path]
        if path.suffix != MAP_SUFFIX:
            candidates.append(folder / path.with_name(path.name + MAP_SUFFIX))
        candidates.append(path)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise MapNotFoundError(f"no map file {str(name)!r} (looked for {', '.join(str(c) for c in candidates)})")


def read_map_file(name: str | Path, map_dir: str | Path | None = None) -> list[MapEntry]:
    """Find (see :func:`find_map_file`) and parse a map file."""
    path = find_map_file(name, map_dir)
    data = read_input(path, what="map file", limit=MAX_MAP_BYTES, error=MapFileError)
    return parse_map_text(data.decode("utf-8", errors="replace"), str(path))


def _artifact(entry: MapEntry, pointlist: PointList) -> Artifact:
    robot = pointlist.robot
    x, y, th, ident = entry.x, entry.y, entry.th, entry.id
    if entry.kind == "CORRIDOR":
        return create_corridor(robot, x, y, th, entry.width, entry.length, global_coords=True, id=ident)
    if entry.kind == "DOOR":
        return create_door(robot, x, y, th, entry.width, global_coords=True, id=ident)
    if entry.kind == "JUNCTION":
        return create_junction(robot, x, y, th, entry.width, global_coords=True, id=ident)
    return create_wall(robot, x, y, th, entry.length, global_coords=True, id=ident)


def add_map_entries(pointlist: PointList, entries: Iterable[MapEntry]) -> list[Artifact]:
    """Create the entries' artifacts (category ``ARTIFACT``) on ``pointlist``, then its goals' named
    points (:meth:`~saphira.client.artifacts.PointList.add_goals`); returns them all."""
    entries = list(entries)
    made = [_artifact(entry, pointlist) for entry in entries if entry.kind != "GOAL"]
    for artifact in made:
        pointlist.add(artifact)
    goals = [(e.name, Pose(e.x, e.y, e.th)) for e in entries if e.kind == "GOAL"]
    return [*made, *pointlist.add_goals(goals)]


def load_map_file(pointlist: PointList, name: str | Path, map_dir: str | Path | None = None) -> list[Artifact]:
    """``sfLoadMapFile``: add a map file's artifacts and goals to ``pointlist`` (additive); returns them.

    Raises :class:`MapNotFoundError` or :class:`MapFileError`; either way nothing is added.
    """
    return add_map_entries(pointlist, read_map_file(name, map_dir))


def named_goals(pointlist: Iterable[Artifact]) -> list[tuple[str, Pose]]:
    """The named goal points of a pointlist (a world's, a map's), name and global pose, in its order."""
    return [(a.name, a.global_pose) for a in pointlist if isinstance(a, Point) and a.name]


def is_map_artifact(artifact: Artifact) -> bool:
    """Whether ``artifact`` belongs to the map: category ``ARTIFACT`` and a corridor, door, junction or wall."""
    return artifact.cat == Category.ARTIFACT and isinstance(artifact, Corridor | Door | Junction | Wall)


def map_artifacts(pointlist: Iterable[Artifact]) -> list[Artifact]:
    """The map artifacts of a pointlist, in its order."""
    return [a for a in pointlist if is_map_artifact(a)]


def delete_map_artifacts(pointlist: PointList) -> int:
    """``sfDeleteMapArtifacts``: remove every map artifact from ``pointlist``; returns how many."""
    return pointlist.remove_many(map_artifacts(pointlist))


def _num(value: float) -> str:
    """The shortest decimal that reads back as ``value`` (integers without a point)."""
    value = float(value)  # numpy scalars print their type in repr()
    if value == 0.0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _line(artifact: Artifact) -> str:
    ident = f"({artifact.id})" if artifact.id else ""
    pose = [_num(artifact.ax), _num(artifact.ay), _num(artifact.ath)]
    if isinstance(artifact, Corridor):
        kind, sizes = "CORRIDOR", [_num(artifact.length), _num(artifact.width)]
    elif isinstance(artifact, Door):
        kind, sizes = "DOOR", [_num(artifact.width)]
    elif isinstance(artifact, Junction):
        kind, sizes = "JUNCTION", [_num(artifact.width)]
    elif isinstance(artifact, Wall):
        kind, sizes = "WALL", [_num(artifact.length)]
    else:
        raise ValueError(f"{type(artifact).__name__} is not a map artifact")
    return " ".join([f"{kind:<9}", f"{ident:>5}", *(f"{v:>7}" for v in pose + sizes)]).rstrip()


def format_map(artifacts: Iterable[Artifact], header: str = "", goals: Iterable[tuple[str, Pose]] = ()) -> str:
    """Map-file text for ``artifacts`` (map artifacts only) and named ``goals`` (``GOAL`` lines, those
    a map can hold), with ``header`` as ``;`` comment lines."""
    lines = [f";; {h}".rstrip() for h in header.splitlines()]
    lines.append(";;  type        id       x       y      th  length/width (CORRIDOR: length width)")
    lines += [_line(a) for a in artifacts if is_map_artifact(a)]
    for name, pose in goals:
        written = name.replace('"', "'").replace(";", ",")[:MAX_GOAL_NAME]  # what a GOAL line can hold
        if written.strip():
            lines.append(" ".join(["GOAL     ", " " * 5, *(f"{_num(v):>7}" for v in pose), f'"{written}"']))
    return "\n".join(lines) + "\n"


def save_map_file(pointlist: Iterable[Artifact], name: str | Path, map_dir: str | Path | None = None) -> Path:
    """``sfSaveMapFile``: write the map artifacts and named goals of ``pointlist`` to ``name`` (relative:
    in ``map_dir``).

    Returns the path written; an unwritable place raises :class:`SaphiraError`. An existing file is
    replaced only once the new one is whole (:mod:`saphira.core.outfile`).
    """
    path = Path(name)
    if not path.is_absolute():
        path = (Path(map_dir) if map_dir is not None else default_map_dir()) / path
    artifacts = list(pointlist)
    text = format_map(map_artifacts(artifacts), "Saphira map file (saphira sfSaveMapFile)", named_goals(artifacts))
    return OutputFile(path).write_text(text)
