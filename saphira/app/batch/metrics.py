"""What a trial measures: the built-in metrics, and user metrics from ``METRIC`` lines or a Python hook.

Built-in metrics (columns of ``trials.csv``):

* ``wall_contacts`` — times the simulated body came up against a wall (the simulator's count);
* ``stall_cycles`` — cycles in which the robot reported a stalled motor;
* ``distance`` — length of the true path, mm; ``mean_speed`` — distance over the time driven, mm/s;
* ``time_to_success`` — robot seconds until every top-level activity had succeeded (empty if they
  did not all succeed, or there were none);
* ``pose_error`` — at the end, distance between the robot's registered (global) pose and the true one, mm;
* ``act_<name>`` — final state of each top-level activity (``success``, ``failure``, ``running`` …);
* ``cycle_p50_ms``, ``cycle_p99_ms`` — cycle time percentiles; ``wall_s`` and ``cpu_s`` — the trial's
  wall-clock and CPU time (its thread's: what the trial costs whatever else the machine runs). These
  depend on the machine and its load: :data:`TIMING_COLUMNS` are the columns that differ between two
  runs of the same trial; every other column is the same for the same seed.

User metrics: an activity prints ``sfSMessage("METRIC dist=%d", d)`` (several ``name=value`` pairs may
share one line; the last value printed wins), or the experiment's hook returns a mapping.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from saphira.colbert.runtime import Activity
from saphira.core.errors import SaphiraError
from saphira.core.tasks import Phase, Task, TaskState

if TYPE_CHECKING:
    from saphira.app.run import Session

MetricValue = float | int | str

BUILTIN_METRICS = ("wall_contacts", "stall_cycles", "distance", "mean_speed", "time_to_success", "pose_error")
TIMING_COLUMNS = ("cycle_p50_ms", "cycle_p99_ms", "wall_s", "cpu_s")
ACT_PREFIX = "act_"

_METRIC_LINE = re.compile(r"^\s*METRIC\s+(.*)$")
_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S+)")


class MetricError(SaphiraError):
    """A ``METRIC`` line or hook result that cannot be a column."""


def parse_metric_line(line: str) -> dict[str, float] | None:
    """``"METRIC dist=12 turns=3.5"`` → ``{"dist": 12.0, "turns": 3.5}``; None for any other line."""
    match = _METRIC_LINE.match(line)
    if match is None:
        return None
    body = match.group(1).strip()
    pairs = _PAIR.findall(body)
    if not pairs or _PAIR.sub("", body).strip():
        raise MetricError(f"bad METRIC line {line!r}: expected name=number pairs, e.g. 'METRIC dist=12'")
    values: dict[str, float] = {}
    for name, text in pairs:
        try:
            values[name] = float(text)
        except ValueError:
            raise MetricError(f"bad METRIC line {line!r}: {name}={text} is not a number") from None
    return values


def check_user_metrics(values: dict[str, object], source: str) -> dict[str, MetricValue]:
    """User metrics as columns: names must not hide a built-in column; values numbers or strings."""
    out: dict[str, MetricValue] = {}
    for name, value in values.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise MetricError(f"{source}: metric name {name!r} is not an identifier")
        if name in BUILTIN_METRICS or name in TIMING_COLUMNS or name.startswith(ACT_PREFIX):
            raise MetricError(f"{source}: metric {name!r} would hide the built-in column of that name")
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise MetricError(f"{source}: metric {name} = {value!r} is not a number or string")
        out[name] = value
    return out


def activity_state(state: int) -> str:
    """A final activity state as a word: ``success``, ``failure``, ``timeout``, ``suspended``, ``running``."""
    if state < 0:
        return "suspended"
    if state > TaskState.REMOVE:
        return "running"
    return TaskState(state).name.lower()


class MetricsObserver(Task):
    """Counts stall cycles and notes when every top-level activity has succeeded (an observe-phase task)."""

    def __init__(self, session: Session) -> None:
        super().__init__("batch-metrics", phase=Phase.OBSERVE)
        self.session = session
        self.stall_cycles = 0
        self.success_cycle: int | None = None

    def step(self, state: int) -> int:
        robot = self.session.robot
        if robot.connected and robot.state.stalled:
            self.stall_cycles += 1
        self.check_success()
        return TaskState.RESUME if state == TaskState.INIT else state

    def check_success(self) -> None:
        states = self.session.outcome.states
        if self.success_cycle is None and states and all(s == TaskState.SUCCESS for s in states.values()):
            self.success_cycle = self.session.robot.scheduler.cycle


def builtin_metrics(session: Session, observer: MetricsObserver) -> dict[str, MetricValue]:
    """The built-in columns of a finished session (timing ones included)."""
    robot = session.robot
    sim = session.sim
    period = robot.clock.period
    trace = session.trace
    observer.check_success()
    driven = max(len(trace.true_path) - 1, 0) * period
    distance = trace.distance
    row: dict[str, MetricValue] = {
        "wall_contacts": sim.wall_contacts if sim is not None else "",
        "stall_cycles": observer.stall_cycles,
        "distance": round(distance, 1),
        "mean_speed": round(distance / driven, 2) if driven > 0 else 0.0,
        "time_to_success": "" if observer.success_cycle is None else round(observer.success_cycle * period, 2),
        "pose_error": "",
    }
    if sim is not None:
        true = sim.true_pose
        row["pose_error"] = round(math.hypot(robot.state.ax - true.x, robot.state.ay - true.y), 1)
    for name, state in sorted(session.outcome.states.items()):
        row[ACT_PREFIX + name] = activity_state(state)
    summary = robot.scheduler.stats.summary(robot.clock.overruns)
    row["cycle_p50_ms"] = round(summary.p50_ms, 3)
    row["cycle_p99_ms"] = round(summary.p99_ms, 3)
    return row


def first_runtime_error(session: Session, messages: list[str]) -> str:
    """The first error an activity hit (``file:line:col: act NAME: message``), from the run's messages."""
    for task in session.robot.scheduler.tasks:
        if isinstance(task, Activity) and task.error_message:
            return task.error_message
    for line in messages:
        if re.match(r"^\S+:\d+:\d+: act ", line):
            return line
    return f"{session.evaluator.runtime.error_count} runtime error(s)"
