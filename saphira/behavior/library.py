"""Finding and loading behavior definitions: the predefined ones shipped in ``behaviors/``, and user files.

A behavior file is a Python module defining :class:`~saphira.behavior.behavior.BehaviorDef` objects at
module level (usually with :func:`~saphira.behavior.behavior.behavior`). It is loaded by path, not
imported as a package module, so the predefined behaviors work the same from a source checkout and
from an installed wheel (``data_dir("behaviors")``), and a user can load a file from anywhere.

The behaviors are keyed by their ``name`` (snake_case). :data:`SAPHIRA_NAMES` maps the manual's names
(``sfAvoidCollision`` …) to them, for the Colbert bindings.
"""

from __future__ import annotations

import functools
import hashlib
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from saphira.behavior.behavior import BehaviorDef, TurnDir
from saphira.core.errors import SaphiraError, SourceError, SourcePosition
from saphira.core.modules import NotAModule, fresh_module
from saphira.core.paths import data_dir

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = [
    "SAPHIRA_NAMES",
    "BehaviorLoadError",
    "find_behavior",
    "load_behavior_file",
    "load_behavior_folder",
    "predefined_behaviors",
]

SAPHIRA_NAMES: Mapping[str, str] = {
    "sfConstantVelocity": "constant_velocity",
    "sfStop": "stop",
    "sfAvoidCollision": "avoid_collision",
    "sfStopCollision": "stop_collision",
    "sfKeepOff": "keep_off",
    "sfGoToPos": "go_to_pos",
    "sfAttendAtPos": "attend_at_pos",
    "sfTurnTo": "turn_to",
    "sfFollow": "follow",
    "sfFollowCorridor": "follow_corridor",
    "sfFollowDoor": "follow_door",
}
"""The manual's behavior names and the predefined behaviors they denote."""


class BehaviorLoadError(SaphiraError):
    """A behavior name that is not defined, or a folder of behavior files that cannot be read."""


def _module_name(path: Path) -> str:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"saphira_behaviors_{stem}_{digest}"


def _source_line(path: Path, line: int) -> str | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None


def _load_module(path: Path) -> ModuleType:
    """Execute a behavior file as a fresh module; errors become :class:`SourceError` at file:line."""
    name = _module_name(path)
    try:
        with fresh_module(path, name) as module:
            return module
    except NotAModule as exc:
        raise SourceError("not a Python behavior file", SourcePosition(str(path), 1)) from exc
    except SyntaxError as exc:
        line = exc.lineno or 1
        raise SourceError(
            f"syntax error: {exc.msg}", SourcePosition(str(path), line, exc.offset or 0), exc.text
        ) from exc
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        line = frames[-1].lineno if frames and frames[-1].lineno else 1
        raise SourceError(
            f"error while loading behaviors: {type(exc).__name__}: {exc}",
            SourcePosition(str(path), line),
            _source_line(path, line),
        ) from exc


def load_behavior_file(path: str | Path) -> dict[str, BehaviorDef[Any, Any]]:
    """The behaviors a Python file defines at module level, by name (the file is executed afresh).

    Raises :class:`~saphira.core.errors.SourceError` (``file:line[:col]: message``) for a missing file, a
    syntax error or an exception while it runs, and when two behaviors in it share a name.
    """
    file = Path(path).resolve()
    if not file.is_file():
        raise SourceError("no such behavior file", SourcePosition(str(file), 1))
    module = _load_module(file)
    found: dict[str, BehaviorDef[Any, Any]] = {}
    for value in vars(module).values():
        if isinstance(value, BehaviorDef):
            other = found.get(value.name)
            if other is not None and other is not value:
                raise SourceError(f"two behaviors are named {value.name!r}", SourcePosition(str(file), 1))
            found[value.name] = value
    return found


def load_behavior_folder(folder: str | Path) -> dict[str, BehaviorDef[Any, Any]]:
    """The behaviors of every ``*.py`` file in ``folder`` (files starting with ``_`` are skipped)."""
    directory = Path(folder)
    if not directory.is_dir():
        raise BehaviorLoadError(f"no behavior folder {directory}")
    found: dict[str, BehaviorDef[Any, Any]] = {}
    origin: dict[str, Path] = {}
    for file in sorted(directory.glob("*.py")):
        if file.name.startswith("_"):
            continue
        for name, defn in load_behavior_file(file).items():
            if name in found:
                raise BehaviorLoadError(f"behavior {name!r} is defined in both {origin[name]} and {file}")
            found[name] = defn
            origin[name] = file
    return found


@functools.cache
def predefined_behaviors() -> Mapping[str, BehaviorDef[Any, Any]]:
    """The predefined behaviors shipped with saphira (loaded once), by name."""
    return load_behavior_folder(data_dir("behaviors"))


def find_behavior(name: str) -> BehaviorDef[Any, Any]:
    """A predefined behavior by its name (``avoid_collision``) or the manual's (``sfAvoidCollision``)."""
    behaviors = predefined_behaviors()
    defn = behaviors.get(SAPHIRA_NAMES.get(name, name))
    if defn is None:
        known = ", ".join(sorted(behaviors))
        raise BehaviorLoadError(f"no predefined behavior {name!r} (known: {known})")
    return defn


def start_wander_stack(robot: Robot, speed: float = 300.0) -> None:
    """Start the manual's wander stack, as colbert/demo.act does: ``sfAvoidCollision`` (priority 0),
    ``sfKeepOff(100, 0.25)`` (1), ``sfConstantVelocity(speed)`` (2; demo.act's 300 mm/s) and ``sfStop``
    (3), turning left when a way round is open both sides."""
    robot.executive.preferred_turn_dir = TurnDir.LEFT
    robot.start_behavior(find_behavior("avoid_collision"), priority=0)
    robot.start_behavior(find_behavior("keep_off"), 100.0, 0.25, priority=1)
    robot.start_behavior(find_behavior("constant_velocity"), speed, priority=2)
    robot.start_behavior(find_behavior("stop"), priority=3)
