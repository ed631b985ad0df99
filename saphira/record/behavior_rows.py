"""The Behaviors window's rows: what the live view shows of each running behavior and a recording keeps.

A row is built in two steps so the control cycle pays little: :func:`raw_behavior` copies a behavior's
outputs in the cycle (they are replaced, never changed in place), :func:`behavior_row` turns the copy
into names, directions and parameter texts later (the live view's UI thread). It sits in ``record``,
below the live view, because a version 3 recording writes the same rows (:mod:`saphira.record.extras`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saphira.behavior.blend import Channel
from saphira.behavior.executive import BehaviorTask

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["BehaviorRow", "RawBehavior", "behavior_dict", "behavior_dicts", "behavior_row", "raw_behavior"]

RawBehavior = tuple[BehaviorTask[Any, Any], int, bool, float, float, float, float, tuple[float, ...], tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class BehaviorRow:
    """One behavior in the Behaviors window (and its detail view)."""

    name: str
    priority: int
    running: bool
    activity_turn: float
    activity_speed: float
    goal: float
    progress: float
    params: tuple[tuple[str, str], ...]
    rules: tuple[tuple[str, float, str, float], ...]
    """(name, antecedent truth, direction ``< > + -``, value)."""


def behavior_dict(b: BehaviorRow) -> dict[str, Any]:
    return {
        "name": b.name, "priority": b.priority, "running": b.running,
        "turn": round(b.activity_turn, 2), "speed": round(b.activity_speed, 2),
        "goal": round(b.goal, 2), "progress": round(b.progress, 2),
        "params": [list(p) for p in b.params],
        "rules": [[n, round(t, 2), d, round(v, 1)] for n, t, d, v in b.rules],
    }  # fmt: skip


def behavior_dicts(robot: Robot) -> list[dict[str, Any]]:
    """The Behaviors window's rows as a frame carries them, now (a recording keeps them per cycle)."""
    vel = robot.state.vel
    rows = (behavior_row(raw_behavior(t), vel) for t in robot.executive.behaviors if not t.finished)
    return [behavior_dict(b) for b in sorted(rows, key=lambda b: b.priority)]


def _param_text(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int | str) or value is None:
        return str(value)
    return f"<{type(value).__name__}>"  # a pointer parameter: the manual shows an address


def raw_behavior(task: BehaviorTask[Any, Any]) -> RawBehavior:
    """What the cycle copies of a behavior (its outputs are replaced, never changed in place)."""
    return (task, task.priority, task.active, task.activity_turn, task.activity_speed, task.goal, task.progress,
            task.rule_truths, task.rule_consequents)  # fmt: skip


def behavior_row(raw: RawBehavior, vel: float) -> BehaviorRow:
    """The Behaviors window's row, built in the UI thread from a copy made in the cycle."""
    task, priority, active, a_turn, a_speed, goal, progress, truths, consequents = raw
    rules: list[tuple[str, float, str, float]] = []
    for name, truth, consequent in zip(task.defn.rule_names, truths, consequents, strict=False):
        value = consequent.value
        if consequent.channel is Channel.TURN:
            direction = "<" if value > 0 else ">" if value < 0 else " "
        else:
            direction = "+" if value > vel else "-" if value < vel else " "
        rules.append((name, truth, direction, value))
    params = tuple((spec.name, _param_text(getattr(task.params, spec.name, None))) for spec in task.defn.params)
    return BehaviorRow(task.name, priority, active, a_turn, a_speed, goal, progress, params, tuple(rules))
