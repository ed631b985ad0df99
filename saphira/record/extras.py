"""What a version 3 recording holds besides packets and states: the behaviors and the messages.

Version 3 adds these event kinds, each one JSON value on its line (ASCII: ``json.dumps`` escapes the rest),
and version 4 the ``t`` line:

    12 b {"turn":-4.0,"speed":300.0,"rows":[{"name":"avoid",...,"rules":[["left",0.4,">",-8.0]]}]}
    12 m ["INFO","sfMessage","reached the door"]
    12 a [[5,3,2000.0,1500.0,90.0,0.0,3000.0]]
    12 t [["patrol","running",0,"activity",true],["sfGoToPos","INIT",1,"behavior",false]]

A ``b`` line is the behaviors' state at the end of the cycle — the blended desired turn and speed
and each behavior's Behaviors-window row (:func:`saphira.record.behavior_rows.behavior_dicts`, rules
with their antecedent truths) — written only when it differs from the last one, so a steady behavior costs no
lines; it holds at most :data:`MAX_BEHAVIORS` rows and :data:`MAX_LINE` characters. An ``m`` line is
an activity's message (``sfMessage``, name ``sfMessage``) or a ``saphira`` log record. An ``a`` line is
the map's artifacts (the pointlist's viewable ones: type, id, global x, y, th, width, length), written
when they changed, at most :data:`MAX_ARTIFACTS` of them. A ``t`` line is the Activities window's rows
(:func:`task_rows`: name, state, depth, kind, running), written when they changed, at most
:data:`MAX_TASKS` of them, so a replay shows the activities as they ran.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.core.tasks import Task, TaskKind, state_name
from saphira.record.behavior_rows import behavior_dicts

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = [
    "MAX_ARTIFACTS", "MAX_BEHAVIORS", "MAX_LINE", "MAX_TASKS", "MESSAGE_NAME", "MessageTap", "TaskRow",
    "artifact_rows", "behavior_state", "encode", "message_body", "task_rows",
]  # fmt: skip

MAX_BEHAVIORS = 24
"""Behaviors kept on a ``b`` line (in priority order); more are left out."""
MAX_LINE = 16_384
"""Characters a ``b`` or ``m`` line's JSON may take; rows (or text) beyond are left out."""
MAX_ARTIFACTS = 400
"""Artifacts kept on an ``a`` line."""
MAX_TASKS = 200
"""Rows kept on a ``t`` line (tree order: the first top-level tasks and their children)."""
MAX_TEXT = 2_000
"""Characters of a message kept."""
MESSAGE_NAME = "sfMessage"
"""The name an activity's message is recorded under (a log record keeps its logger's name)."""


def behavior_state(robot: Robot) -> dict[str, Any]:
    """The desired turn and speed the executive blended last, and the running behaviors' rows."""
    record = robot.executive.last_record
    turn, speed = (record.result.turn, record.result.speed) if record is not None else (None, None)
    return {
        "turn": None if turn is None else round(turn, 2),
        "speed": None if speed is None else round(speed, 1),
        "rows": behavior_dicts(robot)[:MAX_BEHAVIORS],
    }


def artifact_rows(robot: Robot) -> list[list[float]]:
    """The viewable artifacts as ``[type, id, x, y, th, width, length]`` (global mm, deg)."""
    rows = [
        [int(a.type), a.id, round(a.ax, 1), round(a.ay, 1), round(a.ath, 1),
         round(float(getattr(a, "width", 0.0)), 1), round(float(getattr(a, "length", 0.0)), 1)]
        for a in robot.reflector.pointlist
        if a.viewable
    ]  # fmt: skip
    return rows[:MAX_ARTIFACTS]


TaskRow = tuple[str, str, int, str, bool]
"""An Activities row: name, state ("running" while it is stepped, else its state's name), depth, kind, running."""


def task_rows(tasks: list[Task]) -> list[TaskRow]:
    """The Activities window's rows in tree order: every top-level task, then its children, indented."""
    rows: list[TaskRow] = []

    def walk(task: Task, depth: int) -> None:
        kind = task.kind.value if task.kind in (TaskKind.ACTIVITY, TaskKind.BEHAVIOR) else TaskKind.TASK.value
        rows.append((task.name, "running" if task.active else state_name(task.state), depth, kind, task.active))
        for child in task.children:
            walk(child, depth + 1)

    for task in tasks:
        if task.parent is None:
            walk(task, 0)
    return rows


def encode(value: Any) -> str:
    """One line of JSON, ASCII only, at most :data:`MAX_LINE` characters (rows dropped from the end)."""
    text = json.dumps(value, separators=(",", ":"))
    while len(text) > MAX_LINE and isinstance(value, dict) and value.get("rows"):
        value = {**value, "rows": value["rows"][:-1]}
        text = json.dumps(value, separators=(",", ":"))
    return text


def message_body(level: str, name: str, text: str) -> str:
    """An ``m`` line's JSON: ``[level, name, text]`` with the text cut to :data:`MAX_TEXT` characters."""
    return json.dumps([level, name, text[:MAX_TEXT]], separators=(",", ":"))


class MessageTap(logging.Handler):
    """Passes the ``saphira`` logger's records, and a session's messages, to ``write(level, name, text)``."""

    def __init__(self, write: Callable[[str, str, str], None]) -> None:
        super().__init__()
        self.write = write
        logging.getLogger("saphira").addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        self.write(record.levelname, record.name, record.getMessage())

    def tee(self, output: Callable[[str], None]) -> Callable[[str], None]:
        """``output`` that also writes each message as ``sfMessage``."""

        def both(text: str) -> None:
            output(text)
            self.write("INFO", MESSAGE_NAME, text)

        return both

    def detach(self) -> None:
        logging.getLogger("saphira").removeHandler(self)
