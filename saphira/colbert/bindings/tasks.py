"""Colbert bindings for micro-tasks by pointer and by self, and for starting behaviors; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. The manual gives every task operation
in three forms: by instance name (``sfSuspendTask``, in :mod:`saphira.colbert.bindings.table`), by
``sfprocess *`` (``sfSuspendProcess``) and on the caller itself (``sfSuspendSelf``). This module adds
the last two, the ``process`` struct they use, and ``sfStartBehavior``. Choices the manual leaves open:

* ``process`` (the manual's ``sfprocess``) has two read-only slots, ``name`` and ``state``. A
  ``process *`` comes from ``sfFindProcess`` or ``sfStartBehavior``; it stays valid after the task is
  gone: ``sfGetProcessState`` is then 0 and ``sfFinished`` 2, as the manual says, and signalling it
  is an error that names it.
* "Self" is the activity the call runs in. At the prompt or in a behavior's Init/Update code there is
  no such activity, and the call is an error. As in a C micro-task that sets ``process_state``, the
  statements up to the activity's next break still run in that cycle; then the new state takes over.
  ``sfSuspendSelf(n)`` suspends for n cycles (0: until resumed); on resumption an activity continues
  at ``onresume:``, else at its first statement, as for every resumed activity (§7.9). There is no
  ``sfResumeSelf``: a suspended task cannot run to resume itself.
* ``sfSetProcessState`` gives an activity or a behavior a reserved state or ``-n`` (suspend for n
  cycles); its other states are its statement positions, so those are refused (a plain micro-task
  may take any state). ``sfSetTaskState(iname, state)``, which the
  manual mentions for suspending and resuming behaviors without giving its signature, is the same by
  instance name. Suspending, resuming and interrupting this way propagate to children as signals do.
* ``sfStartBehavior(b, iname, timeout, priority, suspended, args...)`` is ``start b(args) iname
  iname timeout timeout priority priority [suspend] noblock``: ``""`` as iname gives the behavior's
  Colbert name, called from an activity the behavior becomes its child. It returns the new
  ``process *``, or prints why it could not start the behavior and returns NULL.
* ``sfVSLOWLY`` and ``sfSLOWLY`` are the turn modifiers Very Slowly and Slowly (3.0 and 4.0 degrees,
  §6.3); a behavior rule may name them (``Turn Left sfSLOWLY``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from saphira.behavior.blend import TurnModifier
from saphira.behavior.executive import BehaviorTask
from saphira.colbert.bindings.table import BindingTable
from saphira.colbert.compile.symbols import BEHAVIOR, ColbertRuntimeError, Constant, Slot, parse_type
from saphira.colbert.runtime import Activity
from saphira.core.errors import SaphiraError
from saphira.core.tasks import Task, TaskState, state_name

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["PROCESS_SLOTS", "table"]

_SIGNAL_STATES = frozenset(TaskState) - {TaskState.INACTIVE}
"""What an activity or behavior may be given with sfSetProcessState (besides -n); its other states are its own."""

PROCESS_SLOTS = [
    Slot("name", parse_type("string"), getter=lambda t: t.name),
    Slot("state", parse_type("int"), getter=lambda t: int(t.state)),
]


class _Tasks:
    """The task operations, on the evaluator's scheduler."""

    def __init__(self, s: Bindings) -> None:
        self.s = s
        self.scheduler = s.ctx.scheduler

    def live(self, p: Task | None, fn: str) -> Task:
        """``p`` if it is still scheduled; else a runtime error naming it."""
        if p is None:
            raise ColbertRuntimeError(f"{fn}: null process pointer")
        if self.scheduler.find(p) is None:
            raise ColbertRuntimeError(f"{fn}: process '{p.name}' is no longer scheduled")
        return p

    def me(self, fn: str) -> Activity:
        current = self.scheduler.current
        if not isinstance(current, Activity):
            raise ColbertRuntimeError(f"{fn}: only an activity can signal itself (use {fn[:-4]}Task at the prompt)")
        return current

    def find(self, name: str) -> Task | None:
        return self.scheduler.find(name)

    def get_state(self, p: Task | None) -> int:
        if p is None:
            raise ColbertRuntimeError("sfGetProcessState: null process pointer")
        return 0 if self.scheduler.find(p) is None else int(p.state)

    def set_state(self, p: Task | None, state: int, fn: str = "sfSetProcessState") -> None:
        task = self.live(p, fn)
        if isinstance(task, Activity | BehaviorTask) and state not in _SIGNAL_STATES and state >= 0:
            raise ColbertRuntimeError(
                f"{fn}: '{task.name}' takes only the reserved states: "
                "sfINIT, sfSUSPEND, sfRESUME, sfINTERRUPT, sfSUCCESS, sfFAILURE, sfTIMEOUT, sfREMOVE or -n"
            )
        if state < 0:
            self.scheduler.suspend(task, -state)
        elif state == TaskState.SUSPEND:
            self.scheduler.suspend(task)
        elif state == TaskState.RESUME:
            self.scheduler.resume(task)
        elif state == TaskState.INTERRUPT:
            self.scheduler.interrupt(task)
        else:
            self.scheduler.set_state(task, state)

    def set_task_state(self, name: str, state: int) -> None:
        task = self.scheduler.find(name)
        if task is None:
            raise ColbertRuntimeError(f"sfSetTaskState: no activity or behavior named '{name}'")
        self.set_state(task, state, "sfSetTaskState")

    def suspended(self, p: Task | None) -> int:
        return int(p is not None and self.scheduler.find(p) is not None and p.suspended)

    def finished(self, p: Task | None) -> int:
        if p is None:
            raise ColbertRuntimeError("sfFinished: null process pointer")
        return self.scheduler.task_finished(p)

    def suspend(self, task: Task, cycles: int) -> None:
        self.scheduler.suspend(task, max(0, cycles))

    def start_behavior(
        self, definition: Any, iname: str, timeout: int, priority: int, suspended: int, *args: Any
    ) -> Task | None:
        ctx = self.s.ctx
        if definition is None:
            raise ColbertRuntimeError("sfStartBehavior: the behavior is NULL")
        name = iname or self._colbert_name(definition)
        existing = self.scheduler.find(name)
        if existing is not None:
            ctx.say(f"sfStartBehavior: an instance named '{name}' already exists ({state_name(existing.state)})")
            return None
        current = self.scheduler.current
        try:
            return ctx.runtime.behavior_starter(
                ctx.robot,
                definition,
                tuple(args),
                name=name,
                priority=priority,
                timeout=timeout if timeout > 0 else None,
                parent=current if isinstance(current, Activity) else None,
                suspended=bool(suspended),
            )
        except (SaphiraError, TypeError, ValueError) as exc:
            ctx.say(f"sfStartBehavior: {exc}")
            return None

    def _colbert_name(self, definition: Any) -> str:
        for name, symbol in self.s.ctx.symbols.symbols.items():
            if isinstance(symbol, Constant) and symbol.type == BEHAVIOR and symbol.value is definition:
                return name
        return str(getattr(definition, "name", "behavior"))


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    t = _Tasks(s)
    sched = t.scheduler
    return BindingTable(
        structs=[("process", PROCESS_SLOTS, None, "a micro-task, activity or behavior (sfFindProcess)")],
        constants=[
            ("sfVSLOWLY", "float", float(TurnModifier.VERY_SLOWLY), "turn modifier Very Slowly (degrees)"),
            ("sfSLOWLY", "float", float(TurnModifier.SLOWLY), "turn modifier Slowly (degrees)"),
        ],
        functions=[
            # ---- by pointer (§2.3)
            ("sfFindProcess", "process *(string)", t.find, "the task with that instance name, or NULL"),
            ("sfGetProcessState", "int(process *)", t.get_state, "its state; 0 once it is gone"),
            ("sfSetProcessState", "void(process *, int)", t.set_state, "give it a state (sfSUSPEND, -n...)"),
            ("sfSetTaskState", "void(string, int)", t.set_task_state, "sfSetProcessState by instance name"),
            ("sfSuspended", "int(process *)", t.suspended, "1 if suspended (indefinitely or for n cycles)"),
            ("sfFinished", "int(process *)", t.finished, "1 finished, 2 gone or removed, 0 running"),
            (
                "sfSuspendProcess",
                "void(process *, int)",
                lambda p, n: t.suspend(t.live(p, "sfSuspendProcess"), n),
                "suspend for n cycles (0: until resumed)",
            ),
            (
                "sfInterruptProcess",
                "void(process *)",
                lambda p: sched.interrupt(t.live(p, "sfInterruptProcess")),
                "interrupt it",
            ),
            ("sfResumeProcess", "void(process *)", lambda p: sched.resume(t.live(p, "sfResumeProcess")), "resume it"),
            ("sfRemoveProcess", "void(process *)", lambda p: sched.remove(t.live(p, "sfRemoveProcess")), "remove it"),
            # ---- on the calling activity (§2.3)
            ("sfSuspendSelf", "void(int)", lambda n: t.suspend(t.me("sfSuspendSelf"), n), "suspend this activity"),
            ("sfInterruptSelf", "void()", lambda: sched.interrupt(t.me("sfInterruptSelf")), "interrupt this activity"),
            ("sfRemoveSelf", "void()", lambda: sched.remove(t.me("sfRemoveSelf")), "remove this activity"),
            # ---- behaviors (§6.5)
            (
                "sfStartBehavior",
                "process *(behavior, string, int, int, int, ...)",
                t.start_behavior,
                "start b (iname, timeout, priority, suspended, args...); NULL on failure",
            ),
        ],
    )
