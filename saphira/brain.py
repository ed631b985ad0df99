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
other ``.py`` is a Colbert plugin) and runs ``step`` as a micro-task in the *activities* phase, so it
runs unchanged on every link: the Pioneer protocol, the embedded simulator, Gamebots (``usarsim://``).
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saphira.core.errors import SaphiraError
from saphira.core.modules import fresh_module
from saphira.core.tasks import Phase, Task, TaskKind, TaskState
from saphira.pyro_robot import PyroRobot

if TYPE_CHECKING:
    from saphira.behavior.behavior import BehaviorDef
    from saphira.behavior.executive import BehaviorTask
    from saphira.colbert.evaluator import Evaluator
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
        return self.engine.saphira.start_behavior(defn, *args, priority=priority, **params)

    def colbert(self, text: str) -> bool:
        """Run Colbert text in the run's evaluator (``"start patrol(2)"``); True when it ran."""
        evaluator = self.engine.evaluator
        if evaluator is None:
            raise BrainError("this brain runs without a Colbert evaluator")
        return evaluator.eval_text(text, f"<brain {self.name}>")


class BrainTask(Task):
    """The micro-task that steps a brain in the activities phase and destroys it when it ends."""

    kind = TaskKind.BRAIN

    def __init__(self, brain: Brain, source: str) -> None:
        super().__init__(f"brain {brain.name}", phase=Phase.ACTIVITIES)
        self.brain = brain
        self.source = source
        self.destroyed = False

    @property
    def part_name(self) -> str:
        return self.brain.name

    def step(self, state: int) -> int:
        try:
            self.brain.step()
        except Exception as exc:
            log.error("%s: brain %s: step failed: %s: %s", self.source, self.brain.name, type(exc).__name__, exc)
            self.error = exc
            self.error_message = f"{type(exc).__name__}: {exc}"
            if self.scheduler is not None:  # the run lists it; the robot stops what the brain drove
                self.scheduler.on_task_failed.emit(self)
            return TaskState.FAILURE
        return TaskState.RESUME if state == TaskState.INIT else state

    def terminate(self, state: int) -> None:
        """Destroy the brain, then stop the channels it (or its ``destroy``) last set: nothing it drove runs on."""
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


def load_brain(path: str | Path, saphira: Robot, evaluator: Evaluator | None = None) -> BrainTask:
    """Import the brain file, call its ``INIT(engine)`` and schedule the brain; the task that steps it."""
    global _serial
    path = Path(path).resolve()
    _serial += 1
    module_name = f"saphira_brain_{_serial}_{path.stem}"
    engine = BrainEngine(saphira, evaluator)
    try:
        with fresh_module(path, module_name) as module:
            init = getattr(module, "INIT", None)
            if not callable(init):
                raise BrainError(f"{path}: a brain file defines INIT(engine), returning the brain")
            brain = init(engine)
            if not isinstance(brain, Brain):
                raise BrainError(f"{path}: INIT returned {type(brain).__name__}, not a saphira.brain.Brain")
    except BrainError:
        raise
    except Exception as exc:
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
