"""The experiment file of ``saphira batch``: what to run, over which worlds, poses, seeds and parameters.

A TOML file, read with the standard library's :mod:`tomllib`::

    [run]
    activity = "batch_wander.act"   # relative to this file: .act, .beh or a Python plugin (.py)
    world = "room"                  # or worlds = ["room", "maps/AMROffice.map"]: bundled names or paths
    params = "p3dx"                 # or params = ["p3dx", "p3at"]
    duration = 60                   # simulated seconds per trial
    seeds = [0, 1, 2]               # or seeds = 5 (meaning 0..4)
    start = [1500, 4000, 0]         # optional: one pose, a list of poses, or "random" (random_starts = N)
    time_limit = 90                 # optional: wall-clock seconds before a trial counts as hung
    record = "failed"               # optional: keep recordings of "none" (default), "failed" or "all" trials

    [grid]                          # globals of the activity file, swept as a full grid
    speed = [150.0, 300.0]

    [sample]                        # optional: random draws, combined with every grid point
    count = 8
    seed = 0
    standoff = { min = 200.0, max = 600.0 }   # uniform (integers when both bounds are)
    turn = [4.0, 8.0]                          # one of the list

    [metrics]                       # optional
    hook = "metrics.py:collect"     # a Python function(trial) -> {name: number}, run after each trial
    objective = "mean_speed"        # what ranks configurations (default distance), higher is better
    maximize = true
    at_most = { wall_contacts = 0 } # a configuration wins only if every trial keeps within these

Every error names the key and the reason (``exp.toml: [grid] speed: expected a non-empty list``).
Random starts and samples are drawn here, from their own seeds, so a trial's row says exactly what ran.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import random
import stat
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saphira.core.errors import SaphiraError
from saphira.core.geometry import Pose

GridValue = float | int | str | bool

RECORD_CHOICES = ("none", "failed", "all")
DEFAULT_TIME_LIMIT_MARGIN = 60.0
"""Default wall-clock limit: this many seconds plus one per simulated second (a trial at 1× real time)."""
RANDOM_START_TRIES = 10_000
MAX_FILE_BYTES = 1_000_000
"""An experiment file is a page of settings; anything larger is refused before it is read."""
MAX_TRIALS = 100_000
"""Trials one experiment may expand into (seeds, samples and grid points included): ~100 MB of specs."""
MAX_DURATION = 1e6
"""Simulated seconds per trial (11.6 days): beyond it the cycle count stops being a sane integer."""
MAX_TIME_LIMIT = 1e6
"""Wall-clock seconds per trial, a bound the timers and deadlines can represent."""
MAX_COORDINATE = 1e7
"""Largest start x or y in mm (10 km): farther is a typo, not a place in a world."""

_SECTIONS = {
    "run": {"activity", "world", "worlds", "params", "duration", "seeds", "start", "random_starts",
            "start_seed", "time_limit", "record"},
    "grid": None,
    "sample": None,
    "metrics": {"hook", "objective", "maximize", "at_most"},
}  # fmt: skip


class ExperimentError(SaphiraError):
    """A problem in an experiment file: ``file: [section] key: reason``."""


@dataclass(frozen=True)
class TrialSpec:
    """Everything one trial needs, picklable so that it can be shipped to a Dask worker."""

    trial_id: str
    activity: str
    world: str
    params: str
    duration: float
    seed: int
    start: Pose | None
    values: tuple[tuple[str, GridValue], ...]
    time_limit: float
    hook: str | None = None
    record: str = "none"

    @property
    def config(self) -> tuple[Any, ...]:
        """What identifies the trial's configuration: everything but the seed (and random start)."""
        return (self.world, self.params, self.values)


@dataclass
class Experiment:
    """A parsed experiment file; :meth:`trials` expands it into one :class:`TrialSpec` per run."""

    path: Path
    activity: Path
    worlds: list[str]
    params: list[str]
    duration: float
    seeds: list[int]
    starts: list[Pose | None]
    grid: dict[str, list[GridValue]]
    samples: list[dict[str, GridValue]] = field(default_factory=lambda: [{}])
    time_limit: float = 0.0
    record: str = "none"
    hook: str | None = None
    objective: str = "distance"
    maximize: bool = True
    at_most: dict[str, float] = field(default_factory=dict)

    @property
    def parameter_names(self) -> list[str]:
        return list(self.grid) + [k for k in self.samples[0] if k not in self.grid]

    def points(self) -> list[dict[str, GridValue]]:
        """Every parameter setting: the full grid, times every random sample."""
        keys = list(self.grid)
        grid = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*self.grid.values())]
        return [g | s for g in grid for s in self.samples]

    def trials(self) -> list[TrialSpec]:
        """All trials, in a fixed order: world, params, parameter setting, start, seed.

        A trial's id hashes what decides its result and is known before it runs (see
        :mod:`saphira.app.batch.inputs`): its settings, the saphira version and the named files' contents.
        """
        from saphira import __version__
        from saphira.app.batch.inputs import static_digests

        hook_file = self.hook.rpartition(":")[0] if self.hook else ""
        # Paths relative to the experiment file, so that a moved results folder still resumes.
        hook = [self._relative(self.hook), *static_digests([hook_file])] if self.hook else []
        common = [__version__, self._relative(str(self.activity)), *static_digests([str(self.activity)]), *hook]
        worlds = {w: [self._relative(w), *static_digests([w])] for w in self.worlds}
        params = {p: [self._relative(p), *static_digests([p])] for p in self.params}
        specs = []
        for world, param, point, start, seed in itertools.product(
            self.worlds, self.params, self.points(), self.starts, self.seeds
        ):
            values = tuple(point.items())
            key = json.dumps([*common, *worlds[world], *params[param], self.duration, seed, start, values])
            trial_id = hashlib.sha1(key.encode()).hexdigest()[:12]
            specs.append(TrialSpec(trial_id, str(self.activity), world, param, self.duration, seed, start,
                                   values, self.time_limit, self.hook, self.record))  # fmt: skip
        return specs

    def _relative(self, name: str) -> str:
        path = Path(name)
        return os.path.relpath(path, self.path.resolve().parent) if path.is_absolute() else name


def load_experiment(path: str | Path) -> Experiment:
    """Read and check an experiment file; raises :class:`ExperimentError` naming the key at fault."""
    file = Path(path)
    try:
        data = tomllib.loads(_read_text(file))
    except OSError as exc:
        raise ExperimentError(f"{file}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ExperimentError(f"{file}: not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{file}: not valid TOML: {exc}") from exc
    except RecursionError as exc:
        raise ExperimentError(f"{file}: not valid TOML: arrays or tables nested too deeply") from exc
    except ValueError as exc:  # tomllib's int() of a number of more than 4300 digits
        raise ExperimentError(f"{file}: not valid TOML: {exc}") from exc
    return _Reader(file, data).experiment()


def _read_text(file: Path) -> str:
    """The file's text, if it is a regular file of at most :data:`MAX_FILE_BYTES` (checked before opening,
    so a FIFO does not block and ``/dev/zero`` is not read)."""
    info = file.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ExperimentError(f"{file}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ExperimentError(f"{file}: {info.st_size} bytes; an experiment file has at most {MAX_FILE_BYTES}")
    with file.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:  # it grew since the check
        raise ExperimentError(f"{file}: more than {MAX_FILE_BYTES} bytes")
    return data.decode("utf-8")


class _Reader:
    """Checks one parsed TOML document key by key, so each error can name its key."""

    def __init__(self, file: Path, data: dict[str, Any]) -> None:
        self.file = file
        self.base = file.resolve().parent
        self.data = data
        self.count = 1  # trials so far: the product of the lengths read

    def multiply(self, where: str, n: int) -> None:
        """Count ``n`` more alternatives at ``where``; a sweep past :data:`MAX_TRIALS` is refused here,
        before anything is expanded."""
        self.count *= n
        if self.count > MAX_TRIALS:
            raise self.fail(where, f"the experiment would hold more than {MAX_TRIALS} trials; split it")

    def fail(self, where: str, reason: str) -> ExperimentError:
        return ExperimentError(f"{self.file}: {where}: {reason}")

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(f"[{name}]", "expected a table")
        allowed = _SECTIONS[name]
        for key in value:
            if allowed is not None and key not in allowed:
                raise self.fail(f"[{name}] {key}", f"unknown key (known: {', '.join(sorted(allowed))})")
        return value

    def experiment(self) -> Experiment:
        for name in self.data:
            if name not in _SECTIONS:
                raise self.fail(f"[{name}]", f"unknown section (known: {', '.join('[' + s + ']' for s in _SECTIONS)})")
        run = self.section("run")
        if "run" not in self.data:
            raise self.fail("[run]", "missing: the experiment needs at least [run] activity and duration")
        activity = self._activity(run)
        worlds = self._names(run, "world", "worlds", "simple", self._world)
        params = self._names(run, "params", "params", "p3dx", self._params)
        self.multiply("[run] worlds", len(worlds))
        self.multiply("[run] params", len(params))
        duration = self._number(run, "duration", positive=True, most=MAX_DURATION)
        if duration is None:
            raise self.fail("[run] duration", "missing: simulated seconds per trial")
        seeds = self._seeds(run)
        grid = self._grid()
        samples = self._samples(set(grid))
        metrics = self.section("metrics")
        exp = Experiment(self.file, activity, worlds, params, duration, seeds, [None], grid, samples)
        exp.starts = self._starts(run, worlds, params)
        limit = self._number(run, "time_limit", positive=True, most=MAX_TIME_LIMIT)
        exp.time_limit = limit if limit is not None else DEFAULT_TIME_LIMIT_MARGIN + duration
        exp.record = self._choice(run, "record", RECORD_CHOICES, "none")
        exp.hook = self._hook(metrics)
        objective = metrics.get("objective", "distance")
        if not isinstance(objective, str) or not objective:
            raise self.fail("[metrics] objective", "expected a metric name")
        exp.objective = objective
        maximize = metrics.get("maximize", True)
        if not isinstance(maximize, bool):
            raise self.fail("[metrics] maximize", "expected true or false")
        exp.maximize = maximize
        exp.at_most = self._at_most(metrics)
        return exp

    # ------------------------------------------------------------------ [run]
    def _activity(self, run: dict[str, Any]) -> Path:
        name = run.get("activity")
        if not isinstance(name, str) or not name:
            raise self.fail("[run] activity", "missing: the .act, .beh or .py file to run, relative to this file")
        path = (self.base / name).resolve()
        if not path.is_file():
            raise self.fail("[run] activity", f"no such file: {path}")
        if path.suffix not in (".act", ".beh", ".py"):
            raise self.fail("[run] activity", f"expected a .act, .beh or .py file, not {path.name}")
        return path

    def _names(self, run: dict[str, Any], one: str, many: str, default: str, check: Any) -> list[str]:
        if one != many and one in run and many in run:
            raise self.fail(f"[run] {many}", f"give either {one} or {many}, not both")
        key = many if many in run else one
        value = run.get(key, default)
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) and v for v in values):
            raise self.fail(f"[run] {key}", "expected a name or path, or a non-empty list of them")
        return [check(key, v) for v in values]

    def _local(self, name: str) -> str:
        """A path relative to the experiment file when such a file exists, else the name (a bundled one)."""
        candidate = self.base / name
        return str(candidate.resolve()) if candidate.is_file() else name

    def _world(self, key: str, name: str) -> str:
        from saphira.world.world import WorldError, load_world

        resolved = self._local(name)
        try:
            load_world(resolved)
        except (WorldError, OSError) as exc:
            raise self.fail(f"[run] {key}", f"{name!r}: {exc}") from exc
        return resolved

    def _params(self, key: str, name: str) -> str:
        from saphira.params.robot_params import params_for_file

        resolved = self._local(name)
        try:
            params_for_file(resolved)
        except (SaphiraError, OSError) as exc:
            raise self.fail(f"[run] {key}", f"{name!r}: {exc}") from exc
        return resolved

    def _number(self, table: dict[str, Any], key: str, *, positive: bool = False, most: float) -> float | None:
        value = table.get(key)
        if value is None:
            return None
        if not _finite(value):
            raise self.fail(f"[run] {key}", f"expected a finite number, not {_shown(value)}")
        if positive and value <= 0:
            raise self.fail(f"[run] {key}", f"must be positive, not {value}")
        if value > most:
            raise self.fail(f"[run] {key}", f"at most {most:g}, not {value:g}")
        return float(value)

    def _seeds(self, run: dict[str, Any]) -> list[int]:
        value = run.get("seeds", [0])
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                raise self.fail("[run] seeds", f"a count must be at least 1, not {value}")
            self.multiply("[run] seeds", value)
            return list(range(value))
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
        ):
            raise self.fail("[run] seeds", "expected a non-empty list of integers ≥ 0, or a count")
        if len(set(value)) != len(value):
            raise self.fail("[run] seeds", "a seed appears twice")
        self.multiply("[run] seeds", len(value))
        return list(value)

    def _choice(self, run: dict[str, Any], key: str, choices: Sequence[str], default: str) -> str:
        value = run.get(key, default)
        if value not in choices:
            raise self.fail(f"[run] {key}", f"expected one of {', '.join(map(repr, choices))}, not {value!r}")
        return str(value)

    def _pose(self, key: str, value: Any) -> Pose:
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        ):
            raise self.fail(f"[run] {key}", f"expected a pose [x_mm, y_mm, th_deg], not {_shown(value)}")
        if not all(_finite(v) for v in value) or max(abs(value[0]), abs(value[1])) > MAX_COORDINATE:
            raise self.fail(f"[run] {key}", f"{_shown(value)}: x and y must be finite and within "
                            f"±{MAX_COORDINATE:g} mm, th finite")  # fmt: skip
        return Pose(float(value[0]), float(value[1]), float(value[2]))

    def _starts(self, run: dict[str, Any], worlds: list[str], params: list[str]) -> list[Pose | None]:
        value = run.get("start")
        count = run.get("random_starts")
        if count is not None and value != "random":
            raise self.fail("[run] random_starts", 'only with start = "random"')
        if value is None:
            return [None]
        if value == "random":
            if count is None:
                count = 1
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise self.fail("[run] random_starts", f"expected a count ≥ 1, not {_shown(count)}")
            self.multiply("[run] random_starts", count)
            seed = run.get("start_seed", 0)
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise self.fail("[run] start_seed", f"expected an integer, not {seed!r}")
            return list(self._random_starts(worlds, params, count, seed))
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            self.multiply("[run] start", len(value))
            return [self._pose("start", v) for v in value]
        return [self._pose("start", value)]

    def _random_starts(self, worlds: list[str], params: list[str], count: int, seed: int) -> list[Pose]:
        """Free poses drawn in the first world for the largest robot, the same for every world listed."""
        from saphira.params.robot_params import params_for_file
        from saphira.world.placement import why_not_free
        from saphira.world.world import load_world

        world = load_world(worlds[0])
        radius = max(params_for_file(p).robot_radius for p in params) + 100.0
        rng = random.Random(seed)
        x0, y0, x1, y1 = world.bounds
        poses: list[Pose] = []
        for _ in range(RANDOM_START_TRIES):
            x, y = round(rng.uniform(x0, x1)), round(rng.uniform(y0, y1))
            th = round(rng.uniform(-180.0, 180.0))
            if not why_not_free(world, x, y, radius):
                poses.append(Pose(float(x), float(y), float(th)))
                if len(poses) == count:
                    return poses
        raise self.fail("[run] start", f"found only {len(poses)} free places in {worlds[0]} for {count} random starts")

    # ------------------------------------------------------------------ [grid], [sample]
    def _grid(self) -> dict[str, list[GridValue]]:
        grid = self.section("grid")
        out: dict[str, list[GridValue]] = {}
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise self.fail(f"[grid] {key}", "expected a non-empty list of values")
            for v in values:
                if not isinstance(v, str | bool) and not _finite(v):
                    raise self.fail(f"[grid] {key}", f"values must be finite numbers or strings, not {_shown(v)}")
            if len({json.dumps(v) for v in values}) != len(values):
                raise self.fail(f"[grid] {key}", "a value appears twice")
            self.multiply(f"[grid] {key}", len(values))
            out[key] = list(values)
        return out

    def _samples(self, grid_keys: set[str]) -> list[dict[str, GridValue]]:
        table = self.section("sample")
        if not table:
            return [{}]
        count = table.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise self.fail("[sample] count", f"expected the number of draws (≥ 1), not {_shown(count)}")
        self.multiply("[sample] count", count)
        seed = table.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise self.fail("[sample] seed", f"expected an integer, not {seed!r}")
        ranges = {k: v for k, v in table.items() if k not in ("count", "seed")}
        if not ranges:
            raise self.fail("[sample]", "no parameter to draw: add e.g. standoff = { min = 200.0, max = 600.0 }")
        for key, spec in ranges.items():
            if key in grid_keys:
                raise self.fail(f"[sample] {key}", "already swept in [grid]")
            self._check_range(key, spec)
        rng = random.Random(seed)
        return [{key: self._draw(rng, spec) for key, spec in ranges.items()} for _ in range(count)]

    def _check_range(self, key: str, spec: Any) -> None:
        if isinstance(spec, list):
            if not spec or not all(isinstance(v, str) or _finite(v) for v in spec):
                raise self.fail(f"[sample] {key}", "a list to choose from must hold finite numbers or strings")
            return
        if not isinstance(spec, dict) or set(spec) != {"min", "max"}:
            raise self.fail(f"[sample] {key}", "expected { min = A, max = B } or a list to choose from")
        lo, hi = spec["min"], spec["max"]
        if not all(_finite(v) and abs(v) <= sys.float_info.max / 2 for v in (lo, hi)) or lo > hi:
            raise self.fail(f"[sample] {key}", f"min and max must be finite numbers with min ≤ max, not {lo!r}, {hi!r}")

    @staticmethod
    def _draw(rng: random.Random, spec: list[GridValue] | Mapping[str, float]) -> GridValue:
        if isinstance(spec, list):
            return spec[rng.randrange(len(spec))]
        lo, hi = spec["min"], spec["max"]
        if isinstance(lo, int) and isinstance(hi, int):
            return rng.randint(lo, hi)
        return round(rng.uniform(lo, hi), 6)

    # ------------------------------------------------------------------ [metrics]
    def _hook(self, metrics: dict[str, Any]) -> str | None:
        hook = metrics.get("hook")
        if hook is None:
            return None
        if not isinstance(hook, str) or hook.count(":") != 1:
            raise self.fail("[metrics] hook", f"expected 'file.py:function', not {hook!r}")
        file, function = hook.split(":")
        path = (self.base / file).resolve()
        if not path.is_file():
            raise self.fail("[metrics] hook", f"no such file: {path}")
        if not function.isidentifier():
            raise self.fail("[metrics] hook", f"{function!r} is not a Python function name")
        return f"{path}:{function}"

    def _at_most(self, metrics: dict[str, Any]) -> dict[str, float]:
        table = metrics.get("at_most", {})
        if not isinstance(table, dict):
            raise self.fail("[metrics] at_most", "expected a table of metric = largest allowed value")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
                raise self.fail(f"[metrics] at_most.{key}", f"expected a number, not {value!r}")
        return {k: float(v) for k, v in table.items()}


def _finite(value: Any) -> bool:
    """A TOML number (not a boolean) that is neither infinite nor NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return abs(value) <= sys.float_info.max if isinstance(value, int) else math.isfinite(value)


def _shown(value: Any) -> str:
    """A value for a message, cut short (a 4000-digit number or a long list would swamp the line)."""
    text = (
        repr(value)
        if not isinstance(value, int) or abs(value) < 10**30
        else f"an integer of ~{value.bit_length() * 3 // 10} digits"
    )
    return text if len(text) <= 60 else text[:57] + "..."
