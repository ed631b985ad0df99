"""Flat World files: several maps and the transitions between them (seed "Defining Flat Worlds").

A Flat World file names a world and its default map, then for each ``MAP`` the ``TRANSITION`` lines
that leave it::

    # comment
    WORLD <world-name> <default-map>
    MAP <map-name>
    TRANSITION (x y radius [command]) <new-map-name> [(new-x new-y new-theta)]

Units are mm and degrees. A transition without a command is *automatic* (the robot comes within
``radius`` of (x, y)); with one it fires on the ``t`` command at that place. With a new location the
robot is moved there after the map changes. That gives the four kinds of :attr:`Transition.kind`.

A map here is any world file our simulator loads (Saphira ``.wld``, ARIA ``2D-Map``, Pyro-era worlds:
:func:`saphira.world.world.load_world`); a relative map name is taken relative to the World file's folder,
and a bare name that is not there is looked up among the bundled worlds. Two automatic transitions at one
place make Flat switch back and forth for ever: :func:`parse_world_file` lists such pairs in
:attr:`FlatWorld.warnings` (the first :data:`MAX_LISTED` of each kind, then a count; and logs them);
the server in :mod:`saphira.flat.server.listener` fires an automatic transition only when the robot enters its
circle, so it does not loop, but the warning stays.

:func:`load_world_file` reads a regular file of at most :data:`MAX_WORLD_FILE_BYTES` of UTF-8 text
holding at most :data:`MAX_TRANSITIONS` transitions, and loads every map it names, so that a missing or
broken map is an error at the line that names it rather than when the robot gets there.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.geometry import Pose
from saphira.core.inputfile import MIB, decode_utf8, read_input
from saphira.world.world import World, WorldNotFoundError, find_world_file, load_world

log = logging.getLogger("saphira.world.flat_world")

MAX_WORLD_FILE_BYTES = MIB
"""A Flat World file is a few kB; anything past this is not one."""
MAX_TRANSITIONS = 1000
"""Transitions in one file (the overlap check compares every pair of a map's automatic ones)."""
MAX_MAPS = 100
"""Distinct maps one file may name (each is loaded when the file is)."""
MAX_LISTED = 10
"""Warnings of one kind listed in full; the rest are counted."""


class WorldFileError(SourceError):
    """A Flat World file that cannot be read: ``file:line:col: what is wrong``."""


@dataclass(frozen=True)
class Transition:
    """One ``TRANSITION`` line: where (and on which command) the map changes, to what, and where to."""

    x: float
    y: float
    radius: float
    command: str | None
    target: str
    new_pose: Pose | None
    line: int = 0

    @property
    def automatic(self) -> bool:
        return self.command is None

    @property
    def kind(self) -> int:
        """The seed's numbering: 1 command + location, 2 command, 3 automatic, 4 automatic + location."""
        if self.command is not None:
            return 1 if self.new_pose is not None else 2
        return 4 if self.new_pose is not None else 3

    def covers(self, x: float, y: float) -> bool:
        """Whether (x, y) is within the transition's radius of its place."""
        return math.hypot(x - self.x, y - self.y) <= self.radius


@dataclass
class FlatWorld:
    """A parsed World file. Maps are keyed by :meth:`key` (the resolved path), in file order."""

    name: str
    default_map: str
    source: str
    maps: dict[str, tuple[str, list[Transition]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    references: list[tuple[str, SourcePosition, str]] = field(default_factory=list)
    """Every map name the file gives (WORLD's default, MAP, TRANSITION targets): name, where, the line."""

    @property
    def folder(self) -> Path:
        return Path(self.source).parent

    def locate(self, name: str) -> Path:
        """The file a map name means: relative to the World file's folder, else a path or bundled world."""
        here = self.folder / name
        if here.is_file():
            return here
        return find_world_file(name)

    def key(self, name: str) -> str:
        """The identity of a map name (its resolved path; the name itself when no file has it)."""
        try:
            return str(self.locate(name).resolve())
        except WorldNotFoundError:
            return name

    def transitions(self, map_name: str) -> list[Transition]:
        """The transitions that leave ``map_name`` (none when the file does not list the map)."""
        entry = self.maps.get(self.key(map_name))
        return entry[1] if entry is not None else []

    def load_map(self, name: str) -> World:
        """Load a map the world names (raises :class:`WorldNotFoundError` / ``WorldError``)."""
        return load_world(self.locate(name))


_PLACE = re.compile(r"\(([^()]*)\)")


def _numbers(words: list[str], count: int, what: str, where: SourcePosition, text: str) -> list[float]:
    values = []
    for word in words[:count]:
        try:
            value = float(word)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise WorldFileError(f"bad number {quoted(word)} in {what}", where, text)
        values.append(value)
    return values


def _transition(rest: str, offset: int, file: str, number: int, text: str) -> Transition:
    def at(column: int) -> SourcePosition:
        return SourcePosition(file, number, column)

    place = _PLACE.match(rest)
    if place is None:
        raise WorldFileError("TRANSITION needs (x y radius [command]) first", at(offset + 1), text)
    words = place.group(1).split()
    if len(words) not in (3, 4):
        raise WorldFileError(f"(x y radius [command]) has 3 or 4 items, not {len(words)}", at(offset + 1), text)
    x, y, radius = _numbers(words, 3, "(x y radius [command])", at(offset + 2), text)
    if radius <= 0:
        raise WorldFileError(f"the radius must be positive, not {words[2]}", at(offset + 2), text)
    command = words[3] if len(words) == 4 else None
    after = rest[place.end() :]
    target_match = re.match(r"\s*([^\s()]+)", after)
    if target_match is None:
        raise WorldFileError("TRANSITION needs a new map after the place", at(offset + place.end() + 1), text)
    target = target_match.group(1)
    tail_start = place.end() + target_match.end()
    tail = rest[tail_start:].strip()
    pose = None
    if tail:
        where = at(offset + tail_start + 1 + (len(rest[tail_start:]) - len(rest[tail_start:].lstrip())))
        location = _PLACE.fullmatch(tail)
        if location is None or len(location.group(1).split()) != 3:
            raise WorldFileError(f"expected (new-x new-y new-theta) or nothing, not {tail!r}", where, text)
        pose = Pose(*_numbers(location.group(1).split(), 3, "(new-x new-y new-theta)", where, text))
    return Transition(x, y, radius, command, target, pose, number)


def parse_world_file(text: str, source: str = "<world>") -> FlatWorld:
    """Read a Flat World file's text (``source`` names it in errors and anchors relative map names)."""
    world: FlatWorld | None = None
    current: list[Transition] | None = None
    transitions = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        keyword, _, rest = stripped.partition(" ")
        rest_offset = indent + len(keyword) + 1 + (len(rest) - len(rest.lstrip()))
        rest = rest.strip()
        where = SourcePosition(source, number, indent + 1)
        if keyword == "WORLD":
            words = rest.split()
            if len(words) != 2:
                raise WorldFileError("WORLD takes a world name and a default map", where, raw)
            if world is not None:
                raise WorldFileError("a second WORLD line", where, raw)
            world = FlatWorld(words[0], words[1], source)
            column = line.index(words[1], rest_offset + len(words[0])) + 1
            world.references.append((words[1], SourcePosition(source, number, column), raw))
        elif keyword == "MAP":
            if world is None:
                raise WorldFileError("MAP before the WORLD line", where, raw)
            words = rest.split()
            if len(words) != 1:
                raise WorldFileError("MAP takes one map file name", where, raw)
            key = world.key(words[0])
            if key not in world.maps and len(world.maps) >= MAX_MAPS:
                raise WorldFileError(f"more than {MAX_MAPS} MAP lines", where, raw)
            column = line.index(words[0], rest_offset) + 1
            world.references.append((words[0], SourcePosition(source, number, column), raw))
            current = world.maps.setdefault(key, (words[0], []))[1]
        elif keyword == "TRANSITION":
            if current is None or world is None:
                raise WorldFileError("TRANSITION before any MAP line", where, raw)
            transitions += 1
            if transitions > MAX_TRANSITIONS:
                raise WorldFileError(f"more than {MAX_TRANSITIONS} TRANSITION lines", where, raw)
            transition = _transition(rest, rest_offset, source, number, raw)
            column = line.index(transition.target, rest_offset + rest.index(")")) + 1
            world.references.append((transition.target, SourcePosition(source, number, column), raw))
            current.append(transition)
        else:
            raise WorldFileError(
                f"unknown keyword {keyword!r} (expected WORLD, MAP or TRANSITION; keywords are upper-case)", where, raw
            )
    if world is None:
        raise WorldFileError("no WORLD line", SourcePosition(source, 1), None)
    world.warnings.extend(_loops(world))
    for warning in world.warnings:
        log.warning("%s", warning)
    return world


def _loops(world: FlatWorld) -> list[str]:
    """Pairs of automatic transitions at one place: the robot would be switched back and forth.

    Each kind is listed up to :data:`MAX_LISTED` times and then counted: ten thousand transitions at
    one place are fifty million pairs, which no one reads (and which took gigabytes as text).
    """
    overlaps: list[str] = []
    loops: list[str] = []
    counts = [0, 0]
    keys: dict[str, str] = {}
    for key, (name, transitions) in world.maps.items():
        autos = [t for t in transitions if t.automatic]
        count, pairs = _overlapping(autos, MAX_LISTED - len(overlaps))
        counts[0] += count
        for i, j in pairs:
            first, second = autos[i], autos[j]
            overlaps.append(
                f"{world.source}:{second.line}: automatic transitions at lines {first.line} and "
                f"{second.line} of map {name} overlap: which one fires is a matter of order"
            )
        for first in autos:
            landing = first.new_pose or Pose(first.x, first.y, 0.0)
            target_key = keys.setdefault(first.target, world.key(first.target))
            target = world.maps.get(target_key)
            for back in target[1] if target is not None else []:
                if not (back.automatic and back.covers(landing.x, landing.y)):
                    continue
                if keys.setdefault(back.target, world.key(back.target)) != key:
                    continue
                counts[1] += 1
                if len(loops) < MAX_LISTED:
                    loops.append(
                        f"{world.source}:{first.line}: automatic transitions at lines {first.line} and "
                        f"{back.line} at one place: the map would switch back and forth "
                        f"between {name} and {first.target}"
                    )
    for listed, count, what in ((overlaps, counts[0], "overlapping pairs"), (loops, counts[1], "back-and-forth pairs")):
        if count > len(listed):
            listed.append(f"{world.source}: and {count - len(listed)} more {what} of automatic transitions")
    return overlaps + loops


def _overlapping(autos: list[Transition], listed: int) -> tuple[int, list[tuple[int, int]]]:
    """How many pairs of ``autos`` overlap, and the first ``listed`` pairs ``(i, j)``, ``i < j``, in file
    order (all pairs at once in numpy: there are at most :data:`MAX_TRANSITIONS`)."""
    if len(autos) < 2:
        return 0, []
    x = np.array([t.x for t in autos])
    y = np.array([t.y for t in autos])
    r = np.array([t.radius for t in autos])
    close = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) < r[:, None] + r[None, :]
    first, second = np.nonzero(np.triu(close, k=1))
    pairs = list(zip(first[: max(listed, 0)].tolist(), second[: max(listed, 0)].tolist(), strict=True))
    return int(first.size), pairs


def load_world_file(path: str | Path) -> FlatWorld:
    """Read a Flat World file from disk and load every map it names; :class:`WorldFileError` if bad."""
    source = str(path)
    data = read_input(path, what="Flat World file", limit=MAX_WORLD_FILE_BYTES, error=WorldFileError)
    world = parse_world_file(decode_utf8(data, source, what="Flat World file", error=WorldFileError), source)
    checked: set[str] = set()
    for name, where, raw in world.references:
        if name in checked:
            continue
        checked.add(name)
        try:
            world.load_map(name)
        except (SaphiraError, OSError) as exc:
            raise WorldFileError(f"map {name!r} cannot be loaded: {exc}", where, raw) from None
    return world
