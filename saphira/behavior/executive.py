"""The fuzzy behavior executive: behaviors as micro-tasks, blended every cycle (docs/architecture.md §5).

:meth:`BehaviorExecutive.start_behavior` (the manual's ``sfStartBehavior``) instantiates a
:class:`~saphira.behavior.behavior.BehaviorDef` as a :class:`BehaviorTask`: a micro-task in the behave
phase with an instance name, a priority (0 the highest), a timeout in cycles, an optional parent and
the usual signals (suspend, resume, interrupt; interrupting a behavior suspends it). Signals to a parent
reach its behaviors, and a parent that ends removes them.

Each cycle the executive's own task (``behaviors``, behave phase) runs every active behavior — not
suspended, interrupted or finished — in the order they were started: ``update``, then the rules, then
the activity outputs. It blends the outputs with a :class:`~saphira.behavior.blend.Blender`, writes the
blended turn and speed through :meth:`MotionControl.behavior_turn` / ``behavior_speed`` (which ignore
them while ``behavior_control`` is off or a direct motion holds the channel), leaves a channel with no
preference alone, and ends in ``SUCCESS`` every behavior whose goal exceeded 0.8. A behavior whose
``init`` or ``update`` raises, or that hands in a non-finite truth, ends in ``FAILURE`` with the error
reported (``scheduler.on_task_failed``); the others carry on. :attr:`BehaviorExecutive.last_record`
keeps the cycle's :class:`ExecutiveRecord` (rule truths, activities, preferred and blended values).

Decisions left open by the manual, made here: ``init`` runs when the behavior is started (also when
started suspended); a behavior started during a cycle's activity phase takes part in that same cycle's
blend; a goal-satisfied behavior still contributes to the cycle in which its goal was reached; and in
the first cycle with no behavior running after one ran, the executive writes speed 0 and a turn of 0
(hold the heading), so a robot whose last behavior finished or was suspended stops instead of running
on at the last blended speed.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from saphira.behavior.behavior import BehaviorContext, BehaviorDef, BehaviorError, FuzzyVars, TurnDir
from saphira.behavior.blend import METHODS, BehaviorOutput, Blender, BlendResult, Consequent, FiredRule
from saphira.client.motion import Channel as MotionChannel
from saphira.client.motion import TransMode
from saphira.client.reflector import Reflector
from saphira.core.tasks import FINISHED_STATES, Phase, Scheduler, Task, TaskKind, TaskRef, TaskState

__all__ = ["GOAL_THRESHOLD", "BehaviorExecutive", "BehaviorTask", "ExecutiveRecord", "RobotHost"]

log = logging.getLogger("saphira.behavior")

P = TypeVar("P")
V = TypeVar("V")

GOAL_THRESHOLD = 0.8
"""A behavior whose goal output exceeds this ends in SUCCESS (manual Table 5.1)."""

_ENDED = FINISHED_STATES | {TaskState.REMOVE}


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"unknown defuzzification method {method!r}; expected one of {', '.join(METHODS)}")
    return method


class RobotHost(Protocol):
    """What the executive runs on: a scheduler and a state reflector (a :class:`~saphira.robot.Robot`)."""

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def reflector(self) -> Reflector: ...


class BehaviorTask(Task, Generic[P, V]):
    """A running behavior instance: a micro-task with a priority and the behavior's outputs.

    ``activity_turn``, ``activity_speed``, ``goal``, ``progress`` and ``rule_truths`` are those of the
    last cycle the behavior ran (the Behaviors window's columns), ``rule_consequents`` what each rule
    recommended then. ``priority`` may be changed at any time.
    """

    kind = TaskKind.BEHAVIOR

    def __init__(self, defn: BehaviorDef[P, V], ctx: BehaviorContext[P, V], priority: int, timeout: int | None) -> None:
        super().__init__(ctx.name, phase=Phase.BEHAVE, timeout=timeout)
        self.defn = defn
        self.ctx = ctx
        self.priority = priority
        self.activity_turn = 0.0
        self.activity_speed = 0.0
        self.goal = 0.0
        self.progress = 0.0
        self.rule_truths: tuple[float, ...] = ()
        self.rule_consequents: tuple[Consequent, ...] = ()

    @property
    def params(self) -> P:
        return self.ctx.p

    @property
    def vars(self) -> V:
        return self.ctx.v

    def step(self, state: int) -> int:
        """The executive does the work; the task only follows its signals (an interrupt suspends)."""
        if state == TaskState.INIT:
            return TaskState.RESUME
        if state == TaskState.INTERRUPT:
            return TaskState.SUSPEND
        return state


@dataclass(frozen=True, slots=True)
class ExecutiveRecord:
    """One cycle of the executive: who ran, the blend (with every behavior's truths and preferences),
    whether the blended values reached the setpoints, and which behaviors ended."""

    cycle: int
    ran: tuple[str, ...]
    result: BlendResult
    turn_written: bool
    speed_written: bool
    succeeded: tuple[str, ...]
    failed: tuple[str, ...]

    def explain(self) -> str:
        """A few lines saying why the robot turned and sped as it did."""
        r = self.result

        def fmt(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f}"

        lines = [
            f"cycle {self.cycle}: turn {fmt(r.turn)} deg{'' if self.turn_written else ' (not applied)'}, "
            f"speed {fmt(r.speed)} mm/s{'' if self.speed_written else ' (not applied)'} [{r.method}]"
        ]
        for b in r.behaviors:
            fired = ", ".join(f"{n} {t:.2f}" for n, t in zip(b.rule_names, b.rule_truths, strict=True) if t > 0.0)
            lines.append(
                f"  p{b.priority} {b.name}: activity turn {b.activity_turn:.2f} speed {b.activity_speed:.2f};"
                f" prefers turn {fmt(b.preferred_turn)} speed {fmt(b.preferred_speed)}; {fired or 'no rule fired'}"
            )
        return "\n".join(lines)


class BehaviorExecutive:
    """Runs the behaviors of one robot; created by :class:`~saphira.robot.Robot` as ``robot.executive``."""

    def __init__(
        self,
        robot: RobotHost,
        *,
        blender: Blender | None = None,
        method: str = "centroid",
        task_name: str = "behaviors",
    ) -> None:
        self.scheduler = robot.scheduler
        self.reflector = robot.reflector
        self.blender = blender if blender is not None else Blender()
        self._method = _check_method(method)
        self.preferred_turn_dir = TurnDir.LEFT
        self.last_record: ExecutiveRecord | None = None
        self._drove = False
        self._behaviors: list[BehaviorTask[Any, Any]] = []
        self.task = self.scheduler.add(self._step, self.scheduler.unique_name(task_name), phase=Phase.BEHAVE)

    # ------------------------------------------------------------------ configuration
    @property
    def method(self) -> str:
        """Defuzzification: 'centroid' (default), 'bisector', 'mom', 'som' or 'lom'."""
        return self._method

    @method.setter
    def method(self, value: str) -> None:
        self._method = _check_method(value)

    @property
    def cycle(self) -> int:
        return self.scheduler.cycle

    @property
    def behaviors(self) -> list[BehaviorTask[Any, Any]]:
        """The behavior instances still on the scheduler, in the order they were started."""
        self._prune()
        return list(self._behaviors)

    # ------------------------------------------------------------------ starting
    def start_behavior(
        self,
        defn: BehaviorDef[P, V],
        *args: object,
        name: str | None = None,
        priority: int = 0,
        timeout: int | None = None,
        parent: TaskRef | None = None,
        suspended: bool = False,
        **params: object,
    ) -> BehaviorTask[P, V]:
        """Instantiate ``defn`` with its parameters (``sfStartBehavior``) and return the running instance.

        Parameters go positionally in the behavior's order, or by name. ``name`` defaults to the
        behavior's name (made unique); ``timeout`` counts cycles (0 or ``None``: none); ``parent`` ties
        the behavior to a task's signals and lifetime; ``suspended`` starts it waiting for a resume.
        Raises :class:`BehaviorError` for bad parameters and :class:`~saphira.core.tasks.TaskError` for a
        name already in use. An ``init`` that raises ends the instance in ``FAILURE`` (reported).
        """
        if not isinstance(defn, BehaviorDef):
            raise BehaviorError(f"start_behavior needs a behavior, got {defn!r}")
        if isinstance(priority, bool) or not isinstance(priority, int) or priority < 0:
            raise BehaviorError(f"{defn.name}: priority must be an integer >= 0 (0 is highest), got {priority!r}")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0):
            raise BehaviorError(f"{defn.name}: timeout must be a number of cycles >= 0, got {timeout!r}")
        p = defn.bind(args, params)
        v = defn.make_vars()
        if isinstance(v, FuzzyVars):
            v.p = p
        with self.scheduler.lock:  # a background scheduler sees the new behavior at a cycle boundary
            instance = name if name is not None else self.scheduler.unique_name(defn.name)
            ctx = BehaviorContext(instance, p, v, self.reflector, self)
            task = BehaviorTask(defn, ctx, priority, timeout)
            self.scheduler.add(task, parent=parent, suspended=suspended)
            self._behaviors.append(task)
            if defn.init is not None:
                try:
                    defn.init(ctx)
                except Exception as exc:
                    self._fail(task, exc, "init")
        return task

    # ------------------------------------------------------------------ the cycle
    def _step(self, state: int) -> int:
        self.run_once()
        return TaskState.RESUME

    def run_once(self) -> ExecutiveRecord:
        """Evaluate, blend and apply once (what the ``behaviors`` task does every cycle)."""
        self._prune()
        motion = self.reflector.motion
        # Accel / Decel are relative to the velocity being commanded (the reported one if none is).
        setpoint = self.reflector.state.vel if motion.trans_mode is TransMode.NONE else motion.target_vel()
        outputs: list[BehaviorOutput] = []
        ran: list[BehaviorTask[Any, Any]] = []
        failed: list[str] = []
        for task in self._behaviors:
            if not task.active:
                continue
            t0 = time.perf_counter_ns()
            try:
                outputs.append(self._evaluate(task, setpoint))
            except Exception as exc:
                self._fail(task, exc, "update")
                failed.append(task.name)
                continue
            finally:
                task.cpu_ns += time.perf_counter_ns() - t0
            ran.append(task)

        result = self.blender.blend(outputs, self._method)
        if not ran and self._drove:
            # The last running behavior has just stopped (finished, suspended, removed): stop the
            # motion it left behind rather than let the robot run on at its last blended speed.
            result = dataclasses.replace(result, turn=0.0, speed=0.0)
        self._drove = bool(ran)
        turn_written = speed_written = False
        if result.turn is not None and motion.owned_by_behaviors(MotionChannel.ROTATION):
            motion.behavior_turn(result.turn)
            turn_written = True
        if result.speed is not None and motion.owned_by_behaviors(MotionChannel.TRANSLATION):
            motion.behavior_speed(result.speed)
            speed_written = True

        succeeded: list[str] = []
        for task in ran:
            if task.goal > GOAL_THRESHOLD and task.state not in _ENDED:
                self.scheduler.succeed(task)
                succeeded.append(task.name)
        record = ExecutiveRecord(
            cycle=self.scheduler.cycle,
            ran=tuple(task.name for task in ran),
            result=result,
            turn_written=turn_written,
            speed_written=speed_written,
            succeeded=tuple(succeeded),
            failed=tuple(failed),
        )
        self.last_record = record
        return record

    def _evaluate(self, task: BehaviorTask[Any, Any], setpoint: float) -> BehaviorOutput:
        """One behavior's update, rules and activity outputs; raises on anything unusable."""
        defn = task.defn
        ctx = task.ctx
        defn.update(ctx)
        v = ctx.v
        fired: list[FiredRule] = []
        for rule in defn.compiled_rules:
            truth = float(rule.truth(v))
            if not math.isfinite(truth):
                raise BehaviorError(f"rule {rule.name!r} has truth {truth}, not a number in [0, 1]")
            fixed = rule.fixed
            fired.append(FiredRule(truth, fixed if fixed is not None else rule.consequent(v, setpoint), rule.name))
        a_turn, a_speed, goal, progress = (float(fn(v)) for fn in defn.activity_functions)
        for what, value in (("turn activity", a_turn), ("speed activity", a_speed), ("goal", goal)):
            if not math.isfinite(value):
                raise BehaviorError(f"{what} is {value}, not a number in [0, 1]")
        task.activity_turn, task.activity_speed, task.goal, task.progress = a_turn, a_speed, goal, progress
        task.rule_truths = tuple(rule.truth for rule in fired)
        task.rule_consequents = tuple(rule.consequent for rule in fired)
        return BehaviorOutput(task.name, task.priority, a_turn, a_speed, fired)

    def _fail(self, task: BehaviorTask[Any, Any], exc: Exception, where: str) -> None:
        """End ``task`` in FAILURE and report the error with the place it was raised."""
        frames: Sequence[traceback.FrameSummary] = traceback.extract_tb(exc.__traceback__)
        frame = frames[-1] if frames else None
        at = f" ({frame.filename}:{frame.lineno})" if frame is not None else ""
        task.error = exc
        task.error_message = f"behavior {task.name!r} failed in {where}: {type(exc).__name__}: {exc}{at}"
        log.error("%s", task.error_message)
        if task.scheduler is not None and task.state not in _ENDED:
            self.scheduler.fail(task)
        self.scheduler.on_task_failed.emit(task)

    def _prune(self) -> None:
        """Forget instances that have left the scheduler."""
        if any(task.scheduler is None for task in self._behaviors):
            self._behaviors = [task for task in self._behaviors if task.scheduler is not None]
