"""The Colbert executive: activities as micro-tasks, exactly the manual's execution model (docs/colbert.md §4–§5).

An :class:`Activity` is a :class:`~saphira.core.tasks.Task` whose state is ``FIRST_USER_STATE + node
index`` of its compiled program. Each scheduler call it evaluates ``update``, then runs nodes until
one breaks (see :mod:`saphira.colbert.compile.compiler`), and returns the new state. Signals go through the
scheduler, which propagates them to children; ``INIT`` starts at the first statement, ``RESUME`` at
``onresume:`` (else the first statement), ``INTERRUPT`` at ``oninterrupt:`` (else the act stays
interrupted and does nothing).

:class:`ColbertRuntime` is what compiled code calls: ``start``, signals, and the direct-motion
statements. Decisions the manual leaves open, documented here:

* **Redefinition** (docs/architecture.md §6): running instances keep the definition they were started
  with (§4.9.12); new instances use the new one. This is the only safe choice, since the other
  reading of the manual keeps each instance's statement index in a body whose lines may have moved.
* **Instance names**: starting an instance under a name that is in use is an error, even when the
  holder has finished (finished children are kept for inspection until removed, §7.9).
* ``trace name`` for a name that is not running marks the name: instances started under it later
  are traced (``direct.act``'s ``aa`` traces ``patrol`` before starting it). Trace is not propagated.
* **Direct motion**: a blocking ``move`` ends when the odometric distance still to go is within
  :attr:`ColbertRuntime.move_tolerance` mm, ``turn``/``turnto`` when the heading is within
  :attr:`ColbertRuntime.turn_tolerance` degrees; the channel then returns to the behaviors. A motion
  ``timeout`` stops that channel and execution continues. An activity owns the channels it last
  commanded: when it is suspended, interrupted or ends, those channels are stopped and given back to
  the behaviors (checked every cycle, so this also holds for signals sent from Python). A ``noblock``
  motion, ``speed`` and ``rotate`` keep their channel until the activity's next motion on it,
  ``halt``, or the activity stops running. ``halt``
  stops both channels and gives them back. ``turn`` is relative to the heading setpoint when one is
  active (``sfSetDHeading``), so sequences of turns do not accumulate tolerance errors; ``turnto``
  is in the robot's odometric frame (``sfSetHeading``). At top level every motion is non-blocking.
  A blocking ``move``/``turn``/``turnto`` without a ``timeout`` that gets no closer to its target for
  the robot's ``motion.no_progress_timeout`` seconds (5 s: a wall, a stall, an obstacle) stops its
  channel, prints where, and *fails* the activity, so a run cannot hang on a robot that cannot move.
  With a ``timeout`` the user has said how long to try, and the statement just ends as before.
* **Errors**: a runtime error in an activity prints ``file.act:line:col: act NAME: message`` with the
  failing statement's line and a caret (the file position, not the manual's act-relative line, so
  an editor can jump to it; traces keep act-relative lines), and suspends that activity (and its
  children), as the manual does; everything else carries on. The channels the failed activity and its
  children hold (a motion statement's or a binding's setpoint, ``sfSetVelocity``) are stopped in the
  same cycle, as for a Python part that raises: a failed activity never leaves the robot driving. A
  blocking ``start`` whose child is suspended by an error stops waiting (the child would never end),
  and the parent continues.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.client.motion import Channel
from saphira.colbert.compile.codegen import ActProgram, StartSpec, generated_position
from saphira.colbert.compile.symbols import (
    BEHAVIOR,
    FLOAT,
    INT,
    PTR,
    STRING,
    ActSchema,
    ColbertRuntimeError,
    Constant,
    CType,
    GlobalVariable,
    LinkedVariable,
    SymbolTable,
    c_float_text,
    convert_value,
    format_value,
    runtime_message,
)
from saphira.colbert.syntax import ast
from saphira.core.errors import SourceError, SourcePosition
from saphira.core.tasks import (
    FINISHED_STATES,
    FIRST_USER_STATE,
    Phase,
    Scheduler,
    Task,
    TaskKind,
    TaskState,
    state_name,
)

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["MOTION_TASK_NAME", "Activity", "ColbertRuntime", "WaitNextCycle", "start_behavior"]


class WaitNextCycle(Exception):
    """Raised by a binding that waits (``sfWaitClientPacket``): the activity returns to the scheduler
    and runs the same statement again next cycle, so the statement re-evaluates from its start."""


MOTION_TASK_NAME = "colbert motion"
"""The runtime's supervisor task (stops the channels of activities that no longer run)."""

_ENDED = FINISHED_STATES | {TaskState.REMOVE}
_CHANNEL_OF = {
    "move": Channel.TRANSLATION,
    "speed": Channel.TRANSLATION,
    "turn": Channel.ROTATION,
    "turnto": Channel.ROTATION,
    "rotate": Channel.ROTATION,
}


class Activity(Task):
    """One running instance of an act schema."""

    kind = TaskKind.ACTIVITY

    def __init__(self, program: ActProgram, args: list[Any], runtime: ColbertRuntime, name: str) -> None:
        super().__init__(name, phase=Phase.ACTIVITIES)
        self.program = program
        self.runtime = runtime
        frame = list(program.frame_template)
        frame[0] = self
        frame[1 : 1 + len(args)] = args
        for slot, struct_name in program.struct_locals:
            factory = runtime.symbols.structs[struct_name].factory
            assert factory is not None
            frame[slot] = factory()
        self.frame = frame
        self.traced = False
        self.wait_node = -1
        self.wait_deadline: int | None = 0
        self.wait_child: Task | None = None
        self.wait_command = ""
        self.error_position: SourcePosition | None = None
        """Where the last runtime error happened (``file:line:col``), for the run's summary."""
        self.trapped = False
        """Suspended by a runtime error (until resumed)."""

    @property
    def schema(self) -> str:
        return self.program.name

    @property
    def label(self) -> str:
        """How messages name the activity: its schema, with the instance name when that differs."""
        return self.name if self.name == self.program.name else f"{self.program.name} ({self.name})"

    @property
    def pc(self) -> int | None:
        """The index of the next node to run, while the activity is at a statement."""
        return self.state - FIRST_USER_STATE if self.state >= FIRST_USER_STATE else None

    @property
    def line(self) -> int | None:
        """The act-relative line of the statement the activity is at (None in special states)."""
        pc = self.pc
        return None if pc is None else self.program.relative_line(self.program.node_positions[pc].line)

    def local(self, name: str) -> Any:
        """The current value of a parameter or local variable (for inspection and tests)."""
        slot = self.program.local_slots.get(name)
        if slot is None:
            raise KeyError(f"act '{self.program.name}' has no variable '{name}'")
        return self.frame[slot]

    def end(self) -> None:
        """Fell off the end of the body: ``SUCCESS``."""
        assert self.scheduler is not None
        self.scheduler.succeed(self)

    def step(self, state: int) -> int:
        program = self.program
        if state >= FIRST_USER_STATE:
            pc = state - FIRST_USER_STATE
        elif state == TaskState.INIT:
            pc = 0
            self._reset_wait()
        elif state == TaskState.RESUME:
            pc = program.resume_index or 0
            self.trapped = False
            self._reset_wait()
        elif state == TaskState.INTERRUPT:
            if program.interrupt_index is None:
                return state
            pc = program.interrupt_index
            self._reset_wait()
        else:
            return state
        f = self.frame
        in_update = False
        try:
            if program.update is not None:
                in_update = True
                program.update(f)
                in_update = False
                if self.state != state:
                    return state  # a signal from update wins
            nodes = program.nodes
            if self.traced:
                traced = program.node_traced
                while pc >= 0:
                    nxt = nodes[pc](f)
                    if nxt != ~pc and traced[pc]:
                        self._trace(pc)
                    pc = nxt
            else:
                while pc >= 0:
                    pc = nodes[pc](f)
        except WaitNextCycle:
            if in_update:
                return self._trap(ColbertRuntimeError("an update statement cannot wait"), None)
            return FIRST_USER_STATE + pc
        except Exception as exc:  # every runtime error is trapped and reported (§7.12)
            return self._trap(exc, None if in_update else pc)
        return FIRST_USER_STATE + ~pc

    def terminate(self, state: int) -> None:
        self.runtime.activity_ended(self, state)

    def _reset_wait(self) -> None:
        self.wait_node = -1
        self.wait_child = None
        self.wait_deadline = None

    def _trace(self, pc: int) -> None:
        program = self.program
        line = program.relative_line(program.node_positions[pc].line)
        text = program.node_texts[pc]
        reader = program.node_values[pc]
        if reader is not None:
            with contextlib.suppress(Exception):  # tracing must never fail the activity
                value = reader(self.frame)
                text += f"  => {c_float_text(value) if isinstance(value, float) else value}"
        self.runtime.output(f"{self.name}, line {line}: {text}")

    def _trap(self, exc: Exception, pc: int | None) -> int:
        program = self.program
        pos = generated_position(exc)
        if pos is None:
            pos = program.update_pos if pc is None else program.node_positions[pc]
        error = SourceError(
            f"act {self.label}: {runtime_message(exc)}",
            SourcePosition(program.filename, pos.line, pos.column),
            program.source_line(pos.line),
        )
        self.error = exc
        self.error_message = str(error)
        self.error_position = error.position
        self.trapped = True
        self.runtime.report_error(error)
        assert self.scheduler is not None
        self.scheduler.suspend(self)
        self.runtime.stop_failed(self)
        return TaskState.SUSPEND


def start_behavior(
    robot: Robot | None,
    definition: Any,
    args: tuple[Any, ...],
    *,
    name: str,
    priority: int,
    timeout: int | None,
    parent: Task | None,
    suspended: bool,
) -> Task:
    """Start a behavior through the behavior executive (the one binding point between the two).

    Behaviors are tasks too: the returned task is signalled, inspected and ended like an activity.
    """
    if robot is None:
        raise ColbertRuntimeError("behaviors need a robot session")
    starter: Callable[..., Task] | None = getattr(robot, "start_behavior", None)
    if starter is None:
        raise ColbertRuntimeError("this robot session has no behavior executive")
    try:
        return starter(
            definition, *args, name=name, priority=priority, timeout=timeout, parent=parent, suspended=suspended
        )
    except (TypeError, ValueError) as exc:
        raise ColbertRuntimeError(str(exc)) from exc


class ColbertRuntime:
    """Starts activities and behaviors, delivers signals and runs direct-motion statements."""

    def __init__(
        self,
        scheduler: Scheduler,
        symbols: SymbolTable,
        *,
        robot: Robot | None = None,
        output: Callable[[str], None] = print,
    ) -> None:
        self.scheduler = scheduler
        self.symbols = symbols
        self.robot = robot
        self.output = output
        self.traced_names: set[str] = set()
        self.error_count = 0
        """Runtime errors trapped in activities so far (``saphira run`` exits 1 when there were any)."""
        self.owners: dict[Channel, Activity | None] = dict.fromkeys(Channel)
        self.move_tolerance = 20.0
        self.turn_tolerance = 3.0
        self.utility_handler: Callable[[ast.UtilityCommand], None] | None = None
        self.behavior_starter: Callable[..., Task] = start_behavior
        self.supervisor = scheduler.add(self._supervise, scheduler.unique_name(MOTION_TASK_NAME), phase=Phase.BEHAVE)

    # ------------------------------------------------------------------ inquiries
    def now(self) -> int:
        return self.scheduler.clock.cycle

    def activities(self) -> list[Activity]:
        """Every activity on the scheduler, in order."""
        return [t for t in self.scheduler.tasks if isinstance(t, Activity)]

    def instances_of(self, schema: str) -> list[Activity]:
        """Running (unfinished) instances of ``schema``."""
        return [a for a in self.activities() if a.program.name == schema and a.state not in _ENDED]

    # ------------------------------------------------------------------ start
    def start(
        self,
        schema: str,
        args: tuple[Any, ...] = (),
        *,
        iname: str | None = None,
        timeout: int | None = None,
        priority: int | None = None,
        suspend: bool = False,
        parent: Task | None = None,
    ) -> Task:
        """Start an act or a behavior by name, as the ``start`` statement does (arguments are Python values)."""
        types = tuple(_type_of(v) for v in args)
        spec = StartSpec(schema, types, iname, True, suspend, 0)
        return self._start(parent, spec, args, timeout, priority)

    def _start(self, ctx: Any, spec: StartSpec, args: tuple[Any, ...], timeout: Any, priority: Any) -> Task:
        parent = ctx if isinstance(ctx, Task) else None
        name = spec.iname or spec.schema
        existing = self.scheduler.find(name)
        if existing is not None:
            raise ColbertRuntimeError(
                f"an instance named '{name}' already exists ({state_name(existing.state)}); "
                f"remove it first or start this one with 'iname <other name>'"
            )
        limit = timeout if timeout is not None and timeout > 0 else None
        sym = self.symbols.lookup(spec.schema)
        if isinstance(sym, ActSchema):
            program = sym.program
            if len(args) != len(program.params):
                raise ColbertRuntimeError(
                    f"act '{spec.schema}' takes {len(program.params)} argument"
                    f"{'s' if len(program.params) != 1 else ''}, {len(args)} given"
                )
            converted = [
                convert_value(value, src, ptype, f"(argument '{pname}' of act '{spec.schema}')")
                for value, src, (pname, ptype) in zip(args, spec.arg_types, program.params, strict=True)
            ]
            activity = Activity(program, converted, self, name)
            activity.traced = name in self.traced_names or spec.schema in self.traced_names
            self.scheduler.add(activity, parent=parent, timeout=limit, suspended=spec.suspend)
            return activity
        if isinstance(sym, Constant | GlobalVariable | LinkedVariable) and sym.type == BEHAVIOR:
            definition = self.symbols.read(spec.schema)
            if definition is None:
                raise ColbertRuntimeError(f"behavior variable '{spec.schema}' is NULL")
            return self.behavior_starter(
                self.robot,
                definition,
                tuple(args),
                name=name,
                priority=int(priority) if priority is not None else 0,
                timeout=limit,
                parent=parent,
                suspended=spec.suspend,
            )
        raise ColbertRuntimeError(f"cannot start '{spec.schema}': there is no act or behavior of that name")

    def start_node(
        self, act: Activity, index: int, succ: int, spec: StartSpec, args: tuple[Any, ...], timeout: Any, priority: Any
    ) -> int:
        child = self._start(act, spec, args, timeout, priority)
        if spec.noblock:
            return succ if succ < 0 else ~succ
        act.wait_node = index
        act.wait_child = child
        return ~index

    def start_wait(self, act: Activity, index: int, succ: int) -> int:
        child = act.wait_child
        trapped = isinstance(child, Activity) and child.trapped and child.suspended
        if child is None or child.scheduler is None or child.state in _ENDED or trapped:
            act.wait_node = -1
            act.wait_child = None
            return succ
        return ~index

    def start_now(self, ctx: Any, spec: StartSpec, args: tuple[Any, ...], timeout: Any, priority: Any) -> None:
        self._start(ctx, spec, args, timeout, priority)

    # ------------------------------------------------------------------ signals
    def signal(self, ctx: Any, kind: str, target: str | None) -> None:
        """Deliver a signal statement (``suspend patrol;``, or to ``ctx`` itself without a target)."""
        if kind in ("trace", "untrace"):
            self._trace_signal(ctx, kind == "trace", target)
            return
        task = ctx if target is None else self.scheduler.find(target)
        if task is None:
            raise ColbertRuntimeError(f"no activity or behavior named '{target}'")
        if not isinstance(task, Task):  # pragma: no cover - the compiler refuses untargeted signals at top level
            raise ColbertRuntimeError(f"'{kind}' needs an activity name here")
        sched = self.scheduler
        if kind in ("stop", "suspend"):
            sched.suspend(task)
        elif kind == "resume":
            sched.resume(task)
        elif kind == "interrupt":
            sched.interrupt(task)
        elif kind == "succeed":
            sched.succeed(task)
        elif kind == "fail":
            sched.fail(task)
        elif kind == "remove":
            sched.remove(task)
        else:  # pragma: no cover - the grammar has no other signal
            raise ColbertRuntimeError(f"unknown signal '{kind}'")

    def _trace_signal(self, ctx: Any, on: bool, target: str | None) -> None:
        if target is None:
            if isinstance(ctx, Activity):
                ctx.traced = on
            return
        if on:
            self.traced_names.add(target)
        else:
            self.traced_names.discard(target)
        task = self.scheduler.find(target)
        if isinstance(task, Activity):
            task.traced = on

    # ------------------------------------------------------------------ direct motion
    def _motion(self) -> Any:
        robot = self.robot
        if robot is None:
            raise ColbertRuntimeError("direct motion needs a robot session")
        if not robot.connected:
            raise ColbertRuntimeError("direct motion needs a connected robot (use 'connect')")
        return robot.motion

    def _issue(self, owner: Activity | None, command: str, value: Any) -> None:
        motion = self._motion()
        if command == "move":
            motion.set_position(value)
        elif command == "turn":
            motion.set_dheading(value)
        elif command == "turnto":
            motion.set_heading(value)
        elif command == "speed":
            motion.set_velocity(value)
        elif command == "rotate":
            motion.set_rvelocity(value)
        else:  # pragma: no cover - the grammar has no other motion
            raise ColbertRuntimeError(f"unknown motion '{command}'")
        self.owners[_CHANNEL_OF[command]] = owner

    def motion_node(
        self, act: Activity, index: int, succ: int, command: str, value: Any, timeout: Any, noblock: bool
    ) -> int:
        self._issue(act, command, value)
        if noblock or command in ("speed", "rotate"):
            return succ
        act.wait_node = index
        act.wait_command = command
        act.wait_deadline = self.now() + timeout if timeout is not None and timeout > 0 else None
        return self.motion_wait(act, index, succ)

    def motion_wait(self, act: Activity, index: int, succ: int) -> int:
        channel = _CHANNEL_OF[act.wait_command]
        robot = self.robot
        if self.owners[channel] is not act or robot is None:
            act.wait_node = -1  # another activity (or halt) took the channel: this motion is over
            return succ
        motion = robot.motion
        if act.wait_command == "move":
            done = motion.done_position(self.move_tolerance)
        else:
            done = motion.done_heading(self.turn_tolerance)
        if done:
            motion.release(channel)
            self.owners[channel] = None
        elif act.wait_deadline is not None:
            if self.now() < act.wait_deadline:
                return ~index
            self._stop_channel(channel)
        elif motion.blocked(channel, self.scheduler.clock.now()):
            self._motion_blocked(act, index, motion.no_progress_timeout)
            return ~index
        else:
            return ~index
        act.wait_node = -1
        return succ

    def _motion_blocked(self, act: Activity, index: int, timeout: float) -> None:
        """A motion without a timeout of its own made no progress: stop it and fail the activity."""
        self._stop_channel(_CHANNEL_OF[act.wait_command])
        act.wait_node = -1
        program = act.program
        pos = program.node_positions[index]
        where = SourcePosition(program.filename, pos.line, pos.column)
        self.output(
            f"{where}: act {act.label}: {program.node_texts[index]} made no progress for {timeout:g} s "
            "(blocked or stalled); the activity fails"
        )
        assert act.scheduler is not None
        act.scheduler.fail(act)

    def motion_now(self, ctx: Any, command: str, value: Any) -> None:
        self._issue(ctx if isinstance(ctx, Activity) else None, command, value)

    def halt(self, ctx: Any) -> None:
        """``halt``: stop both channels and give them back to the behaviors."""
        self._motion()
        for channel in Channel:
            self._stop_channel(channel)

    def _stop_channel(self, channel: Channel) -> None:
        """No activity owns ``channel`` any more: its setpoint stops (:meth:`MotionControl.stop_channels`)."""
        self.owners[channel] = None
        if self.robot is not None:
            self.robot.motion.stop_channels((channel,))

    def _supervise(self, state: int) -> int:
        """Every cycle: stop the channels owned by activities that are not running any more."""
        for channel, owner in self.owners.items():
            if owner is not None and (owner.scheduler is None or not owner.active):
                self._stop_channel(channel)
        return TaskState.RESUME if state == TaskState.INIT else state

    def suspend_all(self) -> None:
        """The session is ending: suspend every activity, so none commands the robot while it is stopped and
        disconnected (its next motion would fail for want of a robot: shutting down is not an error)."""
        for act in self.activities():
            if act.parent is None and act.state not in _ENDED:
                self.scheduler.suspend(act)
        for channel, owner in self.owners.items():
            if owner is not None:
                self._stop_channel(channel)

    def stop_failed(self, act: Activity) -> None:
        """``act`` was suspended by an error: stop, in this cycle, every channel it or its children hold.

        Both kinds of hold: a motion statement's (:attr:`owners`) and a binding's setpoint
        (``sfSetVelocity``: the motion control records which task set each channel), as for a Python
        part that raises (``Robot``'s ``on_task_failed``).
        """
        failed: set[Task] = {act, *act.descendants()}
        for channel, owner in self.owners.items():
            if owner in failed:
                self._stop_channel(channel)
        if self.robot is not None:
            for task in failed:
                self.robot.motion.stop_held_by(task)

    def activity_ended(self, act: Activity, state: int) -> None:
        for channel, owner in self.owners.items():
            if owner is act:
                self._stop_channel(channel)
        if act.traced:
            self.output(f"{act.name}: {state_name(state)}")

    # ------------------------------------------------------------------ utility commands inside code
    def utility(self, command: ast.UtilityCommand) -> None:
        if self.utility_handler is None:
            raise ColbertRuntimeError("utility commands are not available here")
        self.utility_handler(command)

    # ------------------------------------------------------------------ reporting
    def report_error(self, error: SourceError) -> None:
        """A runtime error trapped in an activity: print it with its source line, and count it."""
        self.error_count += 1
        self.output(error.pretty())

    def describe(self, task: Task) -> str:
        """One line for a process list: name, schema, state, line."""
        if isinstance(task, Activity):
            where = f", line {task.line}" if task.line is not None else ""
            return f"{task.name} (act {task.schema}): {state_name(task.state)}{where}"
        return f"{task.name}: {state_name(task.state)}"

    def format(self, value: Any) -> str:
        return format_value(value, _type_of(value))


def _type_of(value: Any) -> CType:
    if isinstance(value, bool | int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STRING
    return PTR
