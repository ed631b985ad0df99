"""The micro-task OS: finite-state machines stepped once per cycle (docs/architecture.md §3).

A task is called every cycle with its current state and returns its next one. States follow Saphira:

* ``INIT`` on the first call, ``RESUME`` after a suspension ends, ``INTERRUPT`` when another task
  interrupted it (convention: clean up, then return ``SUSPEND``);
* ``SUSPEND`` (not run until resumed) and ``-n`` (skipped for *n* cycles, then called with ``RESUME``);
* ``SUCCESS``, ``FAILURE``, ``TIMEOUT`` (finished; not run), ``REMOVE`` (taken off the scheduler);
* user states are integers above 10; ``INACTIVE`` is what an inquiry returns for "no such task".

The manual lost the reserved states' numbers to OCR; the values below are this project's choice,
with ``INACTIVE == 0`` because ``sfGetProcessState`` returns 0 for a task that does not exist.

Each cycle runs the phases in order (receive, interpret, activities, behave, reflect, observe); within
a phase, tasks run in the order they were added. Tasks added during a cycle run from the next time
their phase comes round. A task that raises ends in ``FAILURE`` and every other task carries on.

Decisions the manual leaves open, documented here:

* Timeouts count cycles from the cycle the task was added, suspended or not.
* ``suspend(task, 0)`` suspends indefinitely; ``suspend(task, n)`` for ``n > 0`` suspends for n cycles.
* Finished top-level tasks stay visible for one full cycle after they finish and are reaped at the
  end of the next one; their final state stays available in :attr:`Scheduler.outcomes`, and
  ``sfGetTaskState`` of their name answers it (``SUCCESS``...) until the name is used again. Finished
  children are kept until removed or until their parent ends, so a parent can inspect them.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from enum import Enum, IntEnum
from typing import ClassVar

from saphira.core.clock import Clock, CycleStats, LockStepClock
from saphira.core.errors import SaphiraError
from saphira.core.events import Event

log = logging.getLogger("saphira.core.tasks")


class TaskState(IntEnum):
    """Saphira's reserved task states (all ≤ 10)."""

    INACTIVE = 0
    INIT = 1
    RESUME = 2
    INTERRUPT = 3
    SUSPEND = 4
    SUCCESS = 5
    FAILURE = 6
    TIMEOUT = 7
    REMOVE = 8


FIRST_USER_STATE = 11
"""User-defined states are integers above 10."""

FINISHED_STATES = frozenset({TaskState.SUCCESS, TaskState.FAILURE, TaskState.TIMEOUT})
_ENDED_STATES = FINISHED_STATES | {TaskState.REMOVE}
_NOT_STEPPED = frozenset({TaskState.SUSPEND}) | _ENDED_STATES


class Phase(IntEnum):
    """The ordered parts of one cycle (docs/architecture.md §1)."""

    RECEIVE = 0
    INTERPRET = 1
    ACTIVITIES = 2
    BEHAVE = 3
    REFLECT = 4
    OBSERVE = 5


class TaskKind(Enum):
    """What part of a program a task is, declared by the class that makes such tasks (a class attribute).

    The session's supervision (a lost link suspends activities, behaviors and brains; a run's summary names
    a failed brain or behavior) asks a task its kind instead of knowing the layers that define them."""

    TASK = "task"
    """A plain task: a plugin's, the library's own."""
    BEHAVIOR = "behavior"
    """A fuzzy behavior's instance (``saphira.behavior.executive.BehaviorTask``)."""
    ACTIVITY = "activity"
    """A Colbert activity (``saphira.colbert.runtime.Activity``)."""
    BRAIN = "brain"
    """A Pyro-style brain stepped as a task (``saphira.brain.BrainTask``)."""


class TaskError(SaphiraError):
    """Misuse of the task API: a duplicate instance name, an unknown task, a bad state."""


def is_finished(state: int) -> bool:
    """True for ``SUCCESS``, ``FAILURE`` and ``TIMEOUT``."""
    return state in FINISHED_STATES


def is_suspended(state: int) -> bool:
    """True for ``SUSPEND`` and for suspended-for-n-cycles (negative) states."""
    return state == TaskState.SUSPEND or state < 0


def state_name(state: int) -> str:
    """``"SUCCESS"``, ``"suspended 3"``, ``"state 12"``: for process lists and traces."""
    if state < 0:
        return f"suspended {-state}"
    try:
        return TaskState(state).name
    except ValueError:
        return f"state {state}"


class Task:
    """A micro-task. Subclass it and override :meth:`step`, or wrap a function with :class:`FunctionTask`.

    Lifecycle hooks: :meth:`step` once per cycle; :meth:`terminate` once, when the task ends (finished,
    removed, or ended with its parent), to release what it holds (e.g. stop a motion).
    """

    kind: ClassVar[TaskKind] = TaskKind.TASK
    """What part of a program this task is; a subclass that makes behaviors, activities or brains says so."""

    def __init__(self, name: str | None = None, *, phase: Phase = Phase.ACTIVITIES, timeout: int | None = None) -> None:
        self.name = name or type(self).__name__
        self.phase = phase
        self.timeout = timeout
        self.state: int = TaskState.INIT
        self.parent: Task | None = None
        self.children: list[Task] = []
        self.scheduler: Scheduler | None = None
        self.error: BaseException | None = None
        self.error_message: str | None = None
        self.started_cycle = 0
        self.finished_cycle: int | None = None
        self.cpu_ns = 0
        self.calls = 0
        self._deadline: int | None = None
        self._terminated = False

    @property
    def part_name(self) -> str:
        """The name a run's summary gives this part of the program (a brain task's is its brain's)."""
        return self.name

    def step(self, state: int) -> int:
        """Run one cycle's work for ``state`` and return the next state."""
        raise NotImplementedError

    def terminate(self, state: int) -> None:
        """Called once when the task ends with final ``state``."""

    @property
    def finished(self) -> bool:
        return is_finished(self.state)

    @property
    def suspended(self) -> bool:
        return is_suspended(self.state)

    @property
    def active(self) -> bool:
        """Running: neither suspended, interrupted, finished nor removed."""
        return self.state not in _NOT_STEPPED and self.state != TaskState.INTERRUPT and self.state >= 0

    def descendants(self) -> Iterator[Task]:
        for child in self.children:
            yield child
            yield from child.descendants()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {state_name(self.state)}>"


StepFunction = Callable[[int], "int | None"]


class FunctionTask(Task):
    """A task whose step is a plain function ``fn(state) -> next state`` (``None`` keeps the state)."""

    def __init__(
        self,
        fn: StepFunction,
        name: str | None = None,
        *,
        phase: Phase = Phase.ACTIVITIES,
        timeout: int | None = None,
    ) -> None:
        super().__init__(name or getattr(fn, "__name__", "task"), phase=phase, timeout=timeout)
        self.fn = fn

    def step(self, state: int) -> int:
        result = self.fn(state)
        return state if result is None else result


TaskRef = Task | str


class Scheduler:
    """Steps every task once per cycle, phase by phase, paced by a :class:`Clock`.

    Events: ``on_startup`` (first cycle), ``on_connect`` / ``on_disconnect`` (fired by the robot
    link), ``on_task_failed(task)`` (a task raised).
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock if clock is not None else LockStepClock()
        self.stats = CycleStats()
        self.on_startup: Event[[]] = Event("startup")
        self.on_connect: Event[[]] = Event("connect")
        self.on_disconnect: Event[[]] = Event("disconnect")
        self.on_task_failed: Event[[Task]] = Event("task_failed")
        self.outcomes: dict[str, int] = {}
        self.current: Task | None = None
        self._phases: list[list[Task]] = [[] for _ in Phase]
        self._by_name: dict[str, Task] = {}
        self._started = False
        self._thread: threading.Thread | None = None
        self._stop_requested = False
        self.lock = threading.RLock()
        # Waiting on this condition releases ``lock`` (every level of it), so a foreground caller that
        # holds the lock (the Colbert prompt) can pause while the background scheduler runs its cycles.
        self._cycle_done = threading.Condition(self.lock)

    # ----------------------------------------------------------------- registry
    @property
    def cycle(self) -> int:
        return self.clock.cycle

    @property
    def tasks(self) -> list[Task]:
        """Every task on the scheduler, in phase and insertion order."""
        return [task for phase in self._phases for task in phase]

    def add(
        self,
        task: Task | StepFunction,
        name: str | None = None,
        *,
        phase: Phase | None = None,
        parent: TaskRef | None = None,
        timeout: int | None = None,
        suspended: bool = False,
    ) -> Task:
        """Schedule ``task`` (or a step function) and return it. Instance names are unique."""
        if not isinstance(task, Task):
            task = FunctionTask(task, name)
        elif name is not None:
            task.name = name
        if phase is not None:
            task.phase = phase
        if timeout is not None:
            task.timeout = timeout
        if task.name in self._by_name:
            raise TaskError(f"a task named {task.name!r} already exists; give this instance another name")
        if task.scheduler is not None:
            raise TaskError(f"task {task.name!r} is already scheduled")
        parent_task = self.get(parent) if parent is not None else None
        task.scheduler = self
        task.started_cycle = self.cycle
        task._deadline = None if task.timeout is None or task.timeout <= 0 else self.cycle + task.timeout
        if suspended:
            task.state = TaskState.SUSPEND
        if parent_task is not None:
            task.parent = parent_task
            parent_task.children.append(task)
        self._phases[task.phase].append(task)
        self._by_name[task.name] = task
        self.outcomes.pop(task.name, None)
        return task

    def unique_name(self, base: str) -> str:
        """``base`` if free, else ``base<2>``, ``base<3>``…"""
        if base not in self._by_name:
            return base
        n = 2
        while f"{base}<{n}>" in self._by_name:
            n += 1
        return f"{base}<{n}>"

    def find(self, ref: TaskRef) -> Task | None:
        """The task with that instance name (or the task itself if still scheduled), else ``None``."""
        if isinstance(ref, Task):
            return ref if ref.scheduler is self else None
        return self._by_name.get(ref)

    def get(self, ref: TaskRef) -> Task:
        task = self.find(ref)
        if task is None:
            raise TaskError(f"no task named {ref if isinstance(ref, str) else ref.name!r}")
        return task

    def __contains__(self, ref: TaskRef) -> bool:
        return self.find(ref) is not None

    # ----------------------------------------------------------------- inquiries (the manual's values)
    def get_task_state(self, ref: TaskRef) -> int:
        """The task's state, or ``INACTIVE`` when there is no such task (``sfGetTaskState``).

        A name whose task finished and was reaped (a top-level one, a cycle after it finished) still
        answers its end state, ``SUCCESS``, ``FAILURE`` or ``TIMEOUT``, until a task of that name starts
        again: how it ended is what the caller asks; one ended by ``remove`` is gone (``INACTIVE``).
        """
        task = self.find(ref)
        if task is not None:
            return task.state
        ended = self.outcomes.get(ref) if isinstance(ref, str) else None
        return ended if ended is not None and is_finished(ended) else TaskState.INACTIVE

    def task_finished(self, ref: TaskRef) -> int:
        """1 finished (success/failure/timeout, reaped or not), 2 absent or removed, else 0 (``sfTaskFinished``)."""
        state = self.get_task_state(ref)
        if state in (TaskState.INACTIVE, TaskState.REMOVE):
            return 2
        return 1 if is_finished(state) else 0

    def task_suspended(self, ref: TaskRef) -> int:
        """1 when suspended indefinitely or for n cycles, else 0 (``sfTaskSuspended``)."""
        task = self.find(ref)
        return int(task is not None and task.suspended)

    # ----------------------------------------------------------------- signals (propagate to children)
    def set_state(self, ref: TaskRef, state: int) -> None:
        """Set a task's state directly (``sfSetProcessState``); ending states end it properly."""
        task = self.get(ref)
        self._enter(task, state)

    def suspend(self, ref: TaskRef, cycles: int = 0) -> None:
        """Suspend indefinitely (``cycles == 0``) or for ``cycles`` cycles; children are suspended too."""
        if cycles < 0:
            raise TaskError(f"cannot suspend for a negative number of cycles ({cycles})")
        state = TaskState.SUSPEND if cycles == 0 else -cycles
        self._signal(self.get(ref), state)

    def interrupt(self, ref: TaskRef) -> None:
        self._signal(self.get(ref), TaskState.INTERRUPT)

    def resume(self, ref: TaskRef) -> None:
        """Resume a suspended or interrupted task and its suspended children."""
        self._signal(self.get(ref), TaskState.RESUME)

    def remove(self, ref: TaskRef) -> None:
        """Take the task (and its children) off the scheduler at the end of this cycle."""
        self._enter(self.get(ref), TaskState.REMOVE)

    def succeed(self, ref: TaskRef) -> None:
        self._enter(self.get(ref), TaskState.SUCCESS)

    def fail(self, ref: TaskRef) -> None:
        self._enter(self.get(ref), TaskState.FAILURE)

    def _signal(self, task: Task, state: int) -> None:
        for target in (task, *task.descendants()):
            if target.state in _ENDED_STATES:
                continue
            if state == TaskState.RESUME and not (target.suspended or target.state == TaskState.INTERRUPT):
                continue
            target.state = state

    def _enter(self, task: Task, state: int) -> None:
        """Move ``task`` to ``state``; an ending state ends its unfinished children with it."""
        task.state = state
        if state in _ENDED_STATES:
            self._ended(task, state)

    def _ended(self, task: Task, state: int) -> None:
        if task.finished_cycle is None:
            task.finished_cycle = self.cycle
        for child in task.children:
            if child.state not in _ENDED_STATES:
                child.state = TaskState.REMOVE
                self._ended(child, TaskState.REMOVE)
            elif child.state != TaskState.REMOVE:
                child.state = TaskState.REMOVE
        if not task._terminated:
            task._terminated = True
            try:
                task.terminate(state)
            except Exception as exc:
                log.exception("terminate() of task %r raised", task.name)
                task.error = task.error or exc

    # ----------------------------------------------------------------- the cycle
    def run_cycle(self) -> None:
        """Run every phase once (no waiting). ``step()`` adds the clock's pacing."""
        with self.lock:
            if not self._started:
                self._started = True
                self.on_startup.emit()
            t_start = time.perf_counter_ns()
            for phase_tasks in self._phases:
                self._run_phase(tuple(phase_tasks))
            self.current = None
            self._reap()
            self.stats.record(time.perf_counter_ns() - t_start)

    def _run_phase(self, phase_tasks: tuple[Task, ...]) -> None:
        cycle = self.clock.cycle
        not_stepped = _NOT_STEPPED
        clock_ns = time.perf_counter_ns
        for task in phase_tasks:
            state = task.state
            if state in not_stepped:
                pass
            elif state < 0:
                state += 1
                task.state = TaskState.RESUME if state == 0 else state
            else:
                self.current = task
                t0 = clock_ns()
                try:
                    new_state = task.step(state)
                except Exception as exc:
                    task.cpu_ns += clock_ns() - t0
                    self._task_raised(task, exc)
                    continue
                task.cpu_ns += clock_ns() - t0
                task.calls += 1
                # A signal sent during the step (e.g. to itself or by a child) wins over a plain return.
                if task.state != state:
                    new_state = task.state
                if new_state in _ENDED_STATES:
                    self._enter(task, new_state)
                else:
                    task.state = new_state
            # Timed out: still running at the end of its last allowed cycle.
            if task._deadline is not None and cycle + 1 >= task._deadline and task.state not in _ENDED_STATES:
                self._enter(task, TaskState.TIMEOUT)

    def _task_raised(self, task: Task, exc: Exception) -> None:
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" ({frame.filename}:{frame.lineno})" if frame else ""
        task.error = exc
        task.error_message = f"task {task.name!r} failed: {type(exc).__name__}: {exc}{where}"
        log.error("%s", task.error_message)
        self._enter(task, TaskState.FAILURE)
        self.on_task_failed.emit(task)

    def _reap(self) -> None:
        cycle = self.clock.cycle
        doomed = [
            task
            for phase in self._phases
            for task in phase
            if task.state == TaskState.REMOVE
            or (
                task.parent is None
                and task.finished
                and task.finished_cycle is not None
                and task.finished_cycle < cycle
            )
        ]
        for task in doomed:
            self._forget(task)

    def _forget(self, task: Task) -> None:
        if task.scheduler is not self:
            return
        for child in list(task.children):
            self._forget(child)
        self._phases[task.phase].remove(task)
        del self._by_name[task.name]
        self.outcomes[task.name] = task.state
        task.scheduler = None
        if task.parent is not None and task in task.parent.children:
            task.parent.children.remove(task)

    def step(self) -> None:
        """One full cycle: run the phases, then wait for the next cycle on the clock."""
        self.run_cycle()
        self.clock.wait_next()
        with self._cycle_done:
            self._cycle_done.notify_all()

    def run(self, cycles: int | None = None, *, until: Callable[[], bool] | None = None) -> int:
        """Run ``cycles`` cycles, or until ``until()`` is true, or until :meth:`stop`. Returns cycles run."""
        done = 0
        try:
            while not self._stop_requested and (cycles is None or done < cycles):
                if until is not None and until():
                    break
                self.step()
                done += 1
        finally:
            self._stop_requested = False  # consumed: the next run() starts afresh
        return done

    # ----------------------------------------------------------------- async mode (sfStartup(1))
    def start_async(self) -> None:
        """Run the scheduler in a background thread; foreground code waits with :meth:`pause`."""
        if self._thread is not None:
            raise TaskError("the scheduler is already running in the background")
        self._thread = threading.Thread(target=self.run, name="saphira-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop a background or foreground :meth:`run` at the next cycle boundary."""
        self._stop_requested = True
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    @property
    def running_async(self) -> bool:
        return self._thread is not None

    def pause(self, ms: float, *, wall_timeout: float | None = None) -> None:
        """Wait ``ms`` milliseconds of clock time while the scheduler keeps running (``sfPause``).

        ``pause(0)`` yields until the next cycle boundary. Without a background thread the cycles are
        run here, in the caller's thread, which is what lock-step scripts want. With one, the caller
        may hold :attr:`lock`: it is released while waiting and taken back before returning, and
        ``wall_timeout`` (seconds of wall-clock time) bounds the wait when the cycles stall.
        """
        target = self.clock.cycle + max(1, self.clock.cycles_for(ms / 1000.0))
        if self._thread is None:
            while self.clock.cycle < target:
                self.step()
            return
        end = None if wall_timeout is None else time.monotonic() + wall_timeout
        with self._cycle_done:
            while self.clock.cycle < target and self._thread is not None:
                remaining = 1.0 if end is None else min(1.0, end - time.monotonic())
                if remaining <= 0:
                    return
                self._cycle_done.wait(timeout=remaining)

    # ----------------------------------------------------------------- reporting
    def process_list(self) -> list[tuple[str, str, str, float]]:
        """(name, phase, state, mean µs per call) for every task, like the Processes window."""
        return [
            (t.name, t.phase.name.lower(), state_name(t.state), t.cpu_ns / 1000 / t.calls if t.calls else 0.0)
            for t in self.tasks
        ]
