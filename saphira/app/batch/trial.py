"""One trial: a lock-step ``saphira run`` of the experiment's activity, measured, that never raises.

The run is :class:`saphira.app.run.Session`, built as ``saphira run`` builds it (robot, embedded simulator,
evaluator, trace), so a trial is exactly what ``saphira run FILE --world W --params P --seed S
--duration D`` would do. Between loading the file and the first cycle the trial's parameter values
are assigned to the file's globals: top-level statements saw the declared values, acts see these.
A grid key names a Colbert global, or ``key_`` when ``key`` is a Colbert keyword (``speed`` is the
``speed`` statement, so the file declares ``float speed_;``), or an attribute of a Python plugin module.

Whatever happens, :func:`run_trial` returns a :class:`TrialResult`: status ``ok``; ``error`` when the
file did not load, the run failed as ``saphira run`` would say (a failure line in its summary: an
activity that failed or hit a runtime error, a brain, behavior, plugin or task that raised) or the
trial itself raised; ``timeout`` when it ran past its wall-clock limit (:mod:`saphira.app.batch.watchdog`).
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saphira.app.batch.experiment import GridValue, TrialSpec
from saphira.app.batch.inputs import INPUTS_COLUMN, describe_inputs, recording_inputs
from saphira.app.batch.metrics import (
    MetricsObserver,
    MetricValue,
    builtin_metrics,
    check_user_metrics,
    first_runtime_error,
    parse_metric_line,
)
from saphira.app.batch.parameters import find_parameter, undeclared
from saphira.app.batch.watchdog import TrialTimeout, wall_clock_limit
from saphira.app.console import Console
from saphira.app.run import Session
from saphira.colbert.compile.symbols import FLOAT, INT, STRING, GlobalVariable, LinkedVariable
from saphira.colbert.evaluator import Evaluator
from saphira.core.errors import SaphiraError
from saphira.core.modules import NotAModule, fresh_module
from saphira.core.parts import user_place

PATH_EVERY = 5
"""Keep every 5th pose of the true path (2 per simulated second) for the trajectory plots."""

STATUS_OK, STATUS_ERROR, STATUS_TIMEOUT = "ok", "error", "timeout"
STATUS_CRASHED = "crashed"
"""The trial's process ended without reporting (``os._exit``, a crash): :mod:`saphira.app.batch.isolated`."""


class TrialError(SaphiraError):
    """The trial could not run as the experiment asks (file did not load, unknown grid key, bad metric)."""


@dataclass
class TrialResult:
    """One row of ``trials.csv``, the trial's true path (mm, decimated) and its recording, if kept."""

    row: dict[str, MetricValue]
    path: list[tuple[int, int]] = field(default_factory=list)
    recording: bytes | None = None

    @property
    def status(self) -> str:
        return str(self.row["status"])


@dataclass
class TrialContext:
    """What a Python metrics hook gets: the spec, the finished session and the metrics so far."""

    spec: TrialSpec
    session: Session
    metrics: dict[str, MetricValue]
    messages: list[str]


class _CapturingConsole(Console):
    """A console that keeps every message line (for METRIC lines and errors) and prints nothing."""

    def __init__(self) -> None:
        super().__init__(io.StringIO(), status=False, quiet=True)  # never the batch's stdout: nothing to close
        self.lines: list[str] = []

    def message(self, text: str) -> None:
        self.lines.extend(text.split("\n"))


def base_row(spec: TrialSpec) -> dict[str, MetricValue]:
    """The columns that say what ran: id, status, world, params, start, parameters, seed."""
    row: dict[str, MetricValue] = {
        "trial": spec.trial_id, "status": STATUS_OK, "error": "",
        "world": short_name(spec.world), "params": short_name(spec.params),
        "start": " ".join(f"{v:g}" for v in spec.start) if spec.start is not None else "",
    }  # fmt: skip
    row.update(dict(spec.values))
    row["seed"] = spec.seed
    return row


def short_name(name: str) -> str:
    """A bundled name as is; a path by its file name (the experiment file says which)."""
    return Path(name).name if os.sep in name else name


def run_trial(spec: TrialSpec) -> TrialResult:
    """Run one trial and measure it; never raises (failures are rows with status and error)."""
    wall_start, cpu_start = time.perf_counter(), time.thread_time()
    result = TrialResult(base_row(spec))
    console = _CapturingConsole()
    record_path = _temp_recording() if spec.record != "none" else None
    session: Session | None = None
    try:
        with recording_inputs() as inputs, wall_clock_limit(spec.time_limit):
            session = _session(spec, console, record_path)
            _run(spec, session, console, result)
    except TrialTimeout:
        _fail(result, STATUS_TIMEOUT, f"still running after {spec.time_limit:g} s of wall-clock time (hung?)")
    except Exception as exc:  # the trial's own failure is a row, never the batch's end
        _fail(result, STATUS_ERROR, _describe(exc))
    finally:
        if session is not None and session.recorder is not None:
            session.recorder.close()
    if spec.hook is not None:  # imported once per process: listed for every trial, wherever it ran
        inputs.add(spec.hook.rpartition(":")[0])
    result.row[INPUTS_COLUMN] = describe_inputs(inputs, Path(spec.activity).parent)
    if session is not None:
        result.path = [(round(x), round(y)) for x, y, _ in session.trace.true_path[::PATH_EVERY]]
    if record_path is not None:
        if spec.record == "all" or result.status != STATUS_OK:
            result.recording = record_path.read_bytes()
        record_path.unlink(missing_ok=True)
    result.row["wall_s"] = round(time.perf_counter() - wall_start, 3)
    result.row["cpu_s"] = round(time.thread_time() - cpu_start, 3)
    return result


def _temp_recording() -> Path:
    handle, name = tempfile.mkstemp(prefix="saphira-trial-", suffix=".rec")
    os.close(handle)
    return Path(name)


def _session(spec: TrialSpec, console: Console, record: Path | None) -> Session:
    args = argparse.Namespace(
        robot=None, world=spec.world, params=spec.params, seed=spec.seed, pose=spec.start,
        files=[spec.activity], duration=spec.duration, record=record, quiet=True, realtime=False, plot=None,
    )  # fmt: skip
    session = Session(args, console)
    session.evaluator.load_directory = Path(spec.activity).parent  # nested loads: beside the activity
    return session


def _run(spec: TrialSpec, session: Session, console: _CapturingConsole, result: TrialResult) -> None:
    session.connect()
    if not session.load():
        raise TrialError(" / ".join(line.strip() for line in console.lines[:3]) or f"{spec.activity} did not load")
    assign_values(session.evaluator, spec.values, spec.activity)
    observer = MetricsObserver(session)
    session.robot.scheduler.add(observer)
    session.run()
    row = result.row
    row.update(builtin_metrics(session, observer))
    user: dict[str, object] = {}
    for line in console.lines:
        values = parse_metric_line(line)
        if values is not None:
            user.update(values)
    if spec.hook is not None:
        hook = _hook(spec.hook)
        returned = hook(TrialContext(spec, session, dict(row), console.lines))
        if not isinstance(returned, Mapping):
            raise TrialError(f"metrics hook {spec.hook} returned {type(returned).__name__}, not a mapping")
        user.update(returned)
    row.update(check_user_metrics(user, spec.hook or "METRIC line"))
    failures = session.failure_lines()  # what makes saphira run exit 1 makes the trial an error
    if session.evaluator.runtime.error_count:
        _fail(result, STATUS_ERROR, first_runtime_error(session, console.lines))
    elif failures:
        _fail(result, STATUS_ERROR, failures[0].strip())


def _fail(result: TrialResult, status: str, error: str) -> None:
    if result.row["status"] == STATUS_OK:
        result.row["status"] = status
        result.row["error"] = error


def _describe(exc: BaseException) -> str:
    """``ZeroDivisionError: division by zero (plugin.py:12)``: the exception and where in the user's code it
    was raised (:func:`saphira.core.parts.user_place`, the place ``saphira run``'s summary names too)."""
    if isinstance(exc, SaphiraError):
        return str(exc)
    place, message = user_place(exc)
    if not place:
        return message
    file, _, line = place.rpartition(":")
    return f"{message} ({Path(file).name}:{line})"


def assign_values(evaluator: Evaluator, values: tuple[tuple[str, GridValue], ...], filename: str) -> None:
    """Set each parameter where :func:`~saphira.app.batch.parameters.find_parameter` finds it."""
    for key, value in values:
        target = find_parameter(evaluator, key)
        if isinstance(target, GlobalVariable):
            evaluator.symbols.values[target.index] = _converted(key, value, target.type.name, filename)
        elif isinstance(target, LinkedVariable) and target.setter is not None:
            target.setter(_converted(key, value, target.type.name, filename))
        elif target is None:
            raise TrialError(f"parameter {key!r}: {undeclared(key, filename)}")
        else:
            setattr(target, key, value)


def _converted(key: str, value: GridValue, type_name: str, filename: str) -> GridValue:
    if type_name == FLOAT.name and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if type_name == INT.name and isinstance(value, int | float) and float(value).is_integer():
        return int(value)
    if type_name == STRING.name and isinstance(value, str):
        return value
    raise TrialError(f"parameter {key!r}: {value!r} does not fit the {type_name} global in {Path(filename).name}")


_HOOKS: dict[str, Callable[[TrialContext], Any]] = {}


def _hook(spec: str) -> Callable[[TrialContext], Any]:
    """The hook function ``/path/file.py:function``, imported once per process."""
    if spec not in _HOOKS:
        file, function = spec.rsplit(":", 1)
        try:
            with fresh_module(file, f"saphira_batch_hook_{len(_HOOKS)}") as module:
                fn = getattr(module, function, None)
        except NotAModule as exc:
            raise TrialError(f"metrics hook {file} is not a Python module") from exc
        if not callable(fn):
            raise TrialError(f"metrics hook: {file} has no function {function}")
        _HOOKS[spec] = fn
    return _HOOKS[spec]
