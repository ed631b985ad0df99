"""The Python parts of a run that failed: brains, behaviors, plugin tasks, plugins whose ``load_init`` raised.

A Colbert activity that hits an error is trapped and listed by its activity line; a Python part fails
by raising. :class:`PartFailures` listens for both kinds of Python failure on a scheduler
(``on_task_failed``) and an evaluator (``on_plugin_failed``) and keeps one :class:`PartFailure` per
part, with the place in the user's code that raised, so a run's summary can list it
(``brain Crash: error at brain.py:10: RuntimeError: boom``) and its exit status follow from the list.
``saphira run`` and ``saphira batch`` read the same list: both call the same things failures.
"""

from __future__ import annotations

import os
import re
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path

from saphira.core.errors import SaphiraError, SourceError
from saphira.core.paths import PACKAGE_DIR
from saphira.core.tasks import Task, TaskKind

_LIBRARY = tuple(
    os.path.join(Path(p).resolve(), "")
    for p in {*(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))} | {str(PACKAGE_DIR)}
)
_LOCATED = re.compile(r"^(\S+?:\d+(?::\d+)?): (.*)$", re.DOTALL)
"""A Saphira error whose message starts with its place (``file.beh:12: division by zero``)."""


@dataclass(frozen=True)
class PartFailure:
    """One failed part: ``kind`` (brain, behavior, task, plugin), its name, where it raised, what."""

    kind: str
    name: str
    where: str
    message: str

    def line(self) -> str:
        """``brain Crash: error at /path/brain.py:10: RuntimeError: boom`` (the summary's line, unindented)."""
        at = f" at {self.where}" if self.where else ""
        return f"{self.kind} {self.name}: error{at}: {self.message}"


def user_place(exc: BaseException) -> tuple[str, str]:
    """``(FILE:LINE, message)`` for ``exc``: the innermost frame in the user's code (not saphira's, nor a library's)."""
    text = str(exc)
    located = _LOCATED.match(text)
    if isinstance(exc, SaphiraError) and located is not None:
        return located.group(1), located.group(2)
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename
        if not name.startswith("<") and not str(Path(name).resolve()).startswith(_LIBRARY):
            return f"{name}:{frame.lineno}", message
    return (f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""), message


def describe_task(task: Task) -> PartFailure:
    """The failure of a task that raised: a brain, a behavior, or another task (a plugin's)."""
    kind = task.kind.value if task.kind in (TaskKind.BRAIN, TaskKind.BEHAVIOR) else TaskKind.TASK.value
    name = task.part_name
    if task.error is None:
        return PartFailure(kind, name, "", task.error_message or "failed")
    where, message = user_place(task.error)
    return PartFailure(kind, name, where, message)


class PartFailures:
    """The Python parts that failed during a run, in the order they failed (one entry per part)."""

    def __init__(self) -> None:
        self.failures: dict[tuple[str, str], PartFailure] = {}

    def task_failed(self, task: Task) -> None:
        """A scheduler's ``on_task_failed``; Colbert activities are left to their own activity lines."""
        if task.kind is not TaskKind.ACTIVITY:
            self.add(describe_task(task))

    def plugin_failed(self, error: SourceError) -> None:
        """An evaluator's ``on_plugin_failed``: a plugin's import or ``load_init`` raised (at ``error``'s place)."""
        message = error.message.removeprefix("plugin failed to load: ")
        self.add(PartFailure("plugin", Path(error.file).name, str(error.position), message))

    def add(self, failure: PartFailure) -> None:
        self.failures.setdefault((failure.kind, failure.name), failure)

    def lines(self) -> list[str]:
        return [failure.line() for failure in self.failures.values()]

    def __bool__(self) -> bool:
        return bool(self.failures)
