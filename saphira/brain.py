"""Pyro-style brains: a Python file with a :class:`Brain` subclass and ``INIT(engine)``, stepped at 10 Hz.

A brain file, as Pyro's (Blank et al., SIGCSE 2003; the USARSim tutorial's slide 14)::

    from saphira.brain import Brain

    class Wander(Brain):
        def setup(self):            # once, when the brain is made
            self.turning = 0
        def step(self):             # every cycle (10 times a second)
            front = min(s.distance() for s in self.robot.range["front"])
            self.robot.move(0.5, 0.0) if front > 1.0 else self.robot.move(0.0, 0.5)
        def destroy(self):          # once, when the run ends (also on Ctrl-C and SIGTERM)
            self.robot.stop()

    def INIT(engine):
        return Wander("Wander", engine)

``saphira run brain.py [--robot URL]`` loads it (a ``.py`` with a top-level ``INIT`` is a brain; any
other ``.py`` is a Colbert plugin) and steps it from a micro-task in the *activities* phase, in a thread
of the brain's own (:class:`BrainThread`: a ``time.sleep`` in ``step`` never stalls the cycle), so it runs
unchanged on every link: the Pioneer protocol, the embedded simulator, Gamebots (``usarsim://``).
A ``step`` that raises ends the brain: it is destroyed, the channels it last set are stopped and given
back to the behaviors (its last ``move`` does not stay in force), and the run's summary lists it.

The brain's robot (:class:`~saphira.pyro_robot.PyroRobot`) speaks Pyro's idiom over the state
reflector: ``robot.move(translate, rotate)`` in -1..1 of the top speeds, ``robot.range["front"]`` (Pyro's
sonar groups), ``robot.x``/``y``/``th``/``stall`` (see :mod:`saphira.pyro_robot`). Pyro's own brains,
ported to Python 3 with ``2to3``, import the :mod:`pyrobot` package this project installs, whose
``Brain`` is this one.

The engine (:class:`BrainEngine`) gives the brain the rest of Saphira: :meth:`Brain.start_behavior`
starts a fuzzy behavior, :meth:`Brain.colbert` runs Colbert text (``"start patrol(2)"``).
"""

from __future__ import annotations

import ast
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, SupportsIndex, cast

from saphira.core.errors import SaphiraError
from saphira.core.modules import fresh_module
from saphira.core.tasks import Phase, Task, TaskKind, TaskState
from saphira.pyro_robot import PyroRobot

if TYPE_CHECKING:
    from saphira.behavior.behavior import BehaviorDef
    from saphira.behavior.executive import BehaviorTask
    from saphira.colbert.evaluator import Evaluator
    from saphira.core.clock import Clock
    from saphira.robot import Robot

log = logging.getLogger("saphira.brain")


class BrainError(SaphiraError):
    """A brain file that cannot be loaded: no INIT, INIT not returning a Brain, an import error."""


class BrainEngine:
    """What ``INIT(engine)`` gets: the robot (Pyro's idiom), the Saphira robot and the Colbert evaluator."""

    def __init__(self, saphira: Robot, evaluator: Evaluator | None = None) -> None:
        self.saphira = saphira
        self.robot = PyroRobot(saphira)
        self.evaluator = evaluator
        self.brain: Brain | None = None
        self.runner: BrainThread | None = None

    def call(self, action: Callable[[], Any]) -> Any:
        """Do ``action`` on the cycle's thread (the brain steps on its own) and return its result."""
        return action() if self.runner is None else self.runner.call(action)


class Brain:
    """Subclass it and define :meth:`step` (and :meth:`setup`, :meth:`destroy` as needed)."""

    def __init__(self, name: str = "brain", engine: BrainEngine | None = None, **kwargs: Any) -> None:
        if engine is None:
            raise BrainError(f"brain {name!r} needs the engine INIT(engine) was given")
        self.name = name
        self.engine = engine
        self.robot = engine.robot
        self.setup(**kwargs)

    def setup(self, **kwargs: Any) -> None:
        """Run once when the brain is made (Pyro's optional constructor)."""

    def step(self) -> None:
        """Run every cycle, 10 times a second."""

    def destroy(self) -> None:
        """Run once when the brain goes: the end of the run, Ctrl-C, SIGTERM."""

    # -- the rest of Saphira -----------------------------------------------------------------------
    def start_behavior(
        self, defn: BehaviorDef[Any, Any], *args: object, priority: int = 0, **params: Any
    ) -> BehaviorTask[Any, Any]:
        """Start a fuzzy behavior (``sfStartBehavior``); it drives the channels :meth:`PyroRobot.move` left alone."""
        saphira = self.engine.saphira
        task = self.engine.call(lambda: saphira.start_behavior(defn, *args, priority=priority, **params))
        return cast("BehaviorTask[Any, Any]", task)

    def colbert(self, text: str) -> bool:
        """Run Colbert text in the run's evaluator (``"start patrol(2)"``); True when it ran."""
        evaluator = self.engine.evaluator
        if evaluator is None:
            raise BrainError("this brain runs without a Colbert evaluator")
        return bool(self.engine.call(lambda: evaluator.eval_text(text, f"<brain {self.name}>")))


class BrainStopped(BaseException):
    """Raised in a brain's thread where it waits (a sleep, a call) once its run ends: it unwinds the step."""


_DONE: Final = object()
"""Posted by a brain's thread when a step has returned (or raised)."""
_ASLEEP: Final = object()
"""Posted by a brain's thread on a lock-step clock when its step sleeps past the current cycle."""
_EPSILON: Final = 1e-9
STOP_WAIT: Final = 1.0
"""Seconds the run's end waits for a brain's step that is still computing, before leaving it behind."""

_real_sleep: Final = time.sleep
_brain_threads: dict[int, BrainThread] = {}
"""Thread ident → the brain stepped on it; ``time.sleep`` asks it how a brain sleeps."""


def _sleep(seconds: float | SupportsIndex, /) -> None:
    """``time.sleep`` while brains run: a brain's thread sleeps its brain's way, every other thread as ever."""
    runner = _brain_threads.get(threading.get_ident())
    if runner is None:
        _real_sleep(seconds)
    else:
        runner.sleep(float(seconds))


class BrainThread:
    """A brain's ``step`` in a thread of its own, beside the cycle, as Pyro ran every brain.

    What the brain asks of the robot (:class:`PyroRobot`'s motion, :meth:`Brain.colbert`,
    :meth:`Brain.start_behavior`) is handed to the cycle and done there, in the brain task's step, so a
    brain never races the cycle. On a lock-step clock the two threads take turns: a step runs while the
    cycle waits, and a ``time.sleep`` in it takes robot time (the step goes on at the cycle that time is
    reached; a sleep that ends within the current cycle returns at once), so a run stays deterministic
    and no sleep stalls it. In real time the brain steps beside the cycle at up to 10 Hz: a step that
    sleeps or computes for long only delays the brain's next step, and the cycle keeps its 100 ms.
    """

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.error: BaseException | None = None
        """What the last step raised (the task fails on it)."""
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._go = threading.Event()
        self._stop = threading.Event()
        self._stepping = False
        self._lockstep = True
        self._cycle = 0
        self._period = 0.1
        self._brain_cycles = 0.0
        """On a lock-step clock: the brain's own time within its step, in cycles (sleeps add to it)."""
        self._wake_at: float | None = None
        self._thread = threading.Thread(target=self._run, name=f"brain {brain.name}", daemon=True)
        self._ident: int | None = None
        self._thread.start()

    # -- the cycle's side ------------------------------------------------------------------------------
    def advance(self, clock: Clock) -> None:
        """Do what the brain asked for, and start its next step (or wake the sleeping one) when due."""
        self._lockstep, self._cycle, self._period = clock.is_lockstep, clock.cycle, clock.period
        cycle = self._cycle
        if not self._lockstep:
            self._serve(wait=False)
            if not self._stepping and self.error is None:
                self._stepping = True
                self._go.set()
            return
        if not self._stepping:
            self._stepping = True
            self._brain_cycles = max(self._brain_cycles, float(cycle))
        elif self._wake_at is None or cycle + 1 - _EPSILON <= self._wake_at:
            return  # asleep until a later cycle
        self._wake_at = None
        self._go.set()
        self._serve(wait=True)

    def _serve(self, wait: bool) -> None:
        """Run what the brain handed over; with ``wait``, until its step returns or sleeps past this cycle."""
        while True:
            try:
                item = self._inbox.get(block=wait)
            except queue.Empty:
                return
            if item is _DONE:
                self._stepping = False
                if wait:
                    return
            elif item is _ASLEEP:
                return
            elif callable(item):
                item()

    def stop(self) -> None:
        """End the thread (a sleeping or waiting step unwinds); what it asked for afterwards is dropped."""
        self._stop.set()
        self._go.set()
        self._thread.join(STOP_WAIT)
        if self._thread.is_alive():
            log.warning("brain %s: its step was still running %.0f s after the run ended", self.brain.name, STOP_WAIT)
        if self._ident is not None:
            _brain_threads.pop(self._ident, None)
        _uninstall_sleep()

    # -- the brain's side ------------------------------------------------------------------------------
    def hand(self, action: Callable[[], object]) -> None:
        """Have the cycle do ``action`` (at once when called from the cycle's own thread)."""
        if threading.get_ident() == self._ident:
            self._inbox.put(action)
        else:
            action()

    def call(self, action: Callable[[], Any]) -> Any:
        """Have the cycle do ``action`` and return what it returned (or raise what it raised)."""
        if threading.get_ident() != self._ident:
            return action()
        reply: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

        def run() -> None:
            try:
                reply.put((True, action()))
            except Exception as exc:
                reply.put((False, exc))

        self._inbox.put(run)
        while True:
            try:
                ok, value = reply.get(timeout=0.1)
            except queue.Empty:
                if self._stop.is_set():
                    raise BrainStopped from None
                continue
            if ok:
                return value
            raise value

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` in the brain's step: robot time on a lock-step clock, wall time otherwise."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"sleep length must be a non-negative number, not {seconds}")
        if self._stop.is_set():
            raise BrainStopped
        if not self._lockstep:
            if self._stop.wait(seconds):
                raise BrainStopped
            return
        self._brain_cycles += seconds / self._period
        if self._brain_cycles < self._cycle + 1 - _EPSILON:
            return  # it ends within the current cycle
        self._wake_at = self._brain_cycles
        self._inbox.put(_ASLEEP)
        self._go.wait()
        self._go.clear()
        if self._stop.is_set():
            raise BrainStopped

    def _run(self) -> None:
        self._ident = threading.get_ident()
        _brain_threads[self._ident] = self
        while True:
            self._go.wait()
            self._go.clear()
            if self._stop.is_set():
                return
            try:
                self.brain.step()
            except BrainStopped:
                return
            except BaseException as exc:  # SystemExit in a step fails the brain, not the run
                self.error = exc
            self._inbox.put(_DONE)
            if self.error is not None:
                return


_sleep_users = 0


def _install_sleep() -> None:
    global _sleep_users
    _sleep_users += 1
    time.sleep = _sleep


def _uninstall_sleep() -> None:
    global _sleep_users
    _sleep_users = max(0, _sleep_users - 1)
    if _sleep_users == 0:
        time.sleep = _real_sleep


class BrainTask(Task):
    """The micro-task that steps a brain (in its :class:`BrainThread`) and destroys it when it ends."""

    kind = TaskKind.BRAIN

    def __init__(self, brain: Brain, source: str) -> None:
        super().__init__(f"brain {brain.name}", phase=Phase.ACTIVITIES)
        self.brain = brain
        self.source = source
        self.destroyed = False
        self.runner = BrainThread(brain)
        brain.engine.runner = self.runner
        brain.robot.hand_commands_to(self.runner.hand)

    @property
    def part_name(self) -> str:
        return self.brain.name

    def step(self, state: int) -> int:
        if self.scheduler is not None:
            self.runner.advance(self.scheduler.clock)
        exc = self.runner.error
        if exc is not None:
            log.error("%s: brain %s: step failed: %s: %s", self.source, self.brain.name, type(exc).__name__, exc)
            self.error = exc if isinstance(exc, Exception) else RuntimeError(f"{type(exc).__name__}: {exc}")
            self.error_message = f"{type(exc).__name__}: {exc}"
            if self.scheduler is not None:  # the run lists it; the robot stops what the brain drove
                self.scheduler.on_task_failed.emit(self)
            return TaskState.FAILURE
        return TaskState.RESUME if state == TaskState.INIT else state

    def terminate(self, state: int) -> None:
        """End the brain's thread, destroy the brain, then stop the channels it (or its ``destroy``) last
        set: nothing it drove runs on."""
        self.runner.stop()
        self.destroy()
        self.brain.engine.saphira.motion.stop_held_by(self)

    def destroy(self) -> None:
        """Call the brain's ``destroy`` once (a second call does nothing)."""
        if self.destroyed:
            return
        self.destroyed = True
        try:
            self.brain.destroy()
        except Exception as exc:
            log.error("%s: brain %s: destroy failed: %s: %s", self.source, self.brain.name, type(exc).__name__, exc)


def is_brain_file(path: str | Path) -> bool:
    """Whether ``path`` is a Python file with a top-level ``INIT`` function (a brain, not a plugin)."""
    path = Path(path)
    if path.suffix != ".py" or not path.is_file():
        return False
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return False
    return any(isinstance(node, ast.FunctionDef) and node.name == "INIT" for node in tree.body)


_serial = 0


def import_brain(path: str | Path) -> ModuleType:
    """Import a brain file as a fresh module (raises what its import raises); :func:`load_brain` starts it.

    The brains' ``time.sleep`` is installed first, so a brain's ``from time import sleep`` takes it; it
    stays installed for the brain :func:`load_brain` makes of the module (its thread's end removes it).
    """
    global _serial
    path = Path(path).resolve()
    _serial += 1
    _install_sleep()
    try:
        with fresh_module(path, f"saphira_brain_{_serial}_{path.stem}") as module:
            return module
    except BaseException:
        _uninstall_sleep()
        raise


def load_brain(
    path: str | Path, saphira: Robot, evaluator: Evaluator | None = None, module: ModuleType | None = None
) -> BrainTask:
    """Import the brain file (unless ``module`` is its :func:`import_brain` already), call its
    ``INIT(engine)`` and schedule the brain; the task that steps it."""
    path = Path(path).resolve()
    engine = BrainEngine(saphira, evaluator)
    try:
        module = module if module is not None else import_brain(path)
    except Exception as exc:
        raise BrainError(f"{path}: {_where(exc, path)}{type(exc).__name__}: {exc}") from exc
    try:
        init = getattr(module, "INIT", None)
        if not callable(init):
            raise BrainError(f"{path}: a brain file defines INIT(engine), returning the brain")
        brain = init(engine)
        if not isinstance(brain, Brain):
            raise BrainError(f"{path}: INIT returned {type(brain).__name__}, not a saphira.brain.Brain")
    except BrainError:
        _uninstall_sleep()
        raise
    except Exception as exc:
        _uninstall_sleep()
        raise BrainError(f"{path}: {_where(exc, path)}{type(exc).__name__}: {exc}") from exc
    engine.brain = brain
    task = BrainTask(brain, str(path))
    saphira.scheduler.add(task)
    return task


def _where(exc: BaseException, path: Path) -> str:
    """``line N: `` of the innermost frame in the brain file, when the traceback has one."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"line {exc.lineno}:{exc.offset or 0}: "
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"line {line}: " if line is not None else ""
