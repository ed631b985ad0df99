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

The brain's robot (:class:`PyroRobot`) speaks Pyro's idiom over the state reflector:

* ``robot.move(translate, rotate)``: Pyro's normalised speeds, -1..1. ``translate`` 1.0 is the
  robot's top translational speed, ``rotate`` 1.0 its top turn rate, counter-clockwise (left)
  positive: the parameter file's ``TransVelMax`` / ``RotVelMax``, or where it leaves them to the
  robot (0), :data:`DEFAULT_MAX_VELOCITY` mm/s and :data:`DEFAULT_MAX_RVELOCITY` deg/s (a Pioneer's
  firmware defaults). It sets both channels as a direct motion does (behaviors lose them until
  :meth:`PyroRobot.release`); ``robot.stop()`` is ``move(0, 0)``.
* ``robot.range[i]`` is sonar *i*; ``robot.range["front"]`` a named group, a list of readings.
  ``reading.distance()`` is in ``robot.range.units``: Pyro's default ``"ROBOTS"`` (robot diameters),
  or ``"METERS"``, ``"CM"``, ``"MM"``, ``"SCALED"`` (0..1 of the maximum range). Groups are chosen by
  each sonar's bearing on the body (:data:`GROUPS`), so they fit any ring: ``front`` (within 20° of
  straight ahead), ``front-left``, ``front-right``, ``front-all``, ``left``, ``right``, ``back``,
  ``back-left``, ``back-right``, ``back-all``, ``all``.
* ``robot.x``, ``robot.y`` (metres) and ``robot.th`` (degrees, 0..360) are the global pose;
  ``robot.stall`` is true while a motor stalls.

The engine (:class:`BrainEngine`) gives the brain the rest of Saphira: :meth:`Brain.start_behavior`
starts a fuzzy behavior, :meth:`Brain.colbert` runs Colbert text (``"start patrol(2)"``).
"""

from __future__ import annotations

import ast
import logging
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saphira.errors import SaphiraError
from saphira.modules import fresh_module
from saphira.sonar import NO_ECHO
from saphira.tasks import Phase, Task, TaskState

if TYPE_CHECKING:
    from saphira.behavior.behavior import BehaviorDef
    from saphira.behavior.executive import BehaviorTask
    from saphira.colbert.evaluator import Evaluator
    from saphira.robot import Robot

log = logging.getLogger("saphira.brain")

DEFAULT_MAX_VELOCITY = 750.0
"""mm/s that ``translate`` 1.0 means when the parameter file leaves TransVelMax to the robot."""
DEFAULT_MAX_RVELOCITY = 100.0
"""deg/s that ``rotate`` 1.0 means when the parameter file leaves RotVelMax to the robot."""
UNITS = {"ROBOTS": None, "METERS": 1000.0, "CM": 10.0, "MM": 1.0, "SCALED": None}

GROUPS: dict[str, Callable[[float], bool]] = {
    "front": lambda b: abs(b) <= 20.0,
    "front-left": lambda b: 20.0 < b <= 60.0,
    "front-right": lambda b: -60.0 <= b < -20.0,
    "front-all": lambda b: abs(b) <= 60.0,
    "left": lambda b: 60.0 < b <= 120.0,
    "right": lambda b: -120.0 <= b < -60.0,
    "back-left": lambda b: 120.0 < b < 160.0,
    "back-right": lambda b: -160.0 < b < -120.0,
    "back": lambda b: abs(b) >= 160.0,
    "back-all": lambda b: abs(b) > 120.0,
    "all": lambda b: True,
}
"""Pyro's range groups, by sonar bearing in degrees (0 ahead, + to the left)."""


class BrainError(SaphiraError):
    """A brain file that cannot be loaded: no INIT, INIT not returning a Brain, an import error."""


class RangeReading:
    """One range sensor's latest reading (Pyro's ``SensorValue``)."""

    def __init__(self, device: RangeDevice, index: int) -> None:
        self._device = device
        self.index = index
        self.pos = index

    @property
    def bearing(self) -> float:
        """The sensor's direction on the body, degrees (0 ahead, + left)."""
        return self._device.bearing(self.index)

    def distance(self, unit: str | None = None) -> float:
        return self._device.convert(self._device.range_mm(self.index), unit)

    def __repr__(self) -> str:
        return f"<range {self.index}: {self.distance():.2f} {self._device.units}>"


class RangeDevice:
    """``robot.range``: the sonar ring by index and by named group (see :data:`GROUPS`)."""

    def __init__(self, saphira: Robot) -> None:
        self._robot = saphira
        self.units = "ROBOTS"
        self.max_range_mm = float(NO_ECHO)

    def __len__(self) -> int:
        return len(self._robot.sonar.buckets)

    def __iter__(self) -> Iterator[RangeReading]:
        return (RangeReading(self, i) for i in range(len(self)))

    def __getitem__(self, key: int | str) -> Any:
        if isinstance(key, str):
            test = GROUPS.get(key)
            if test is None:
                raise KeyError(f"no range group {key!r} (groups: {', '.join(GROUPS)})")
            return [RangeReading(self, i) for i in range(len(self)) if test(self.bearing(i))]
        if not -len(self) <= key < len(self):
            raise IndexError(f"range sensor {key}: this robot has {len(self)}")
        return RangeReading(self, key % len(self))

    def bearing(self, index: int) -> float:
        return self._robot.sonar.buckets[index].pose.th

    def range_mm(self, index: int) -> float:
        return float(min(self._robot.sonar.range(index), self.max_range_mm))

    def convert(self, mm: float, unit: str | None = None) -> float:
        unit = (unit or self.units).upper()
        if unit not in UNITS:
            raise ValueError(f"unknown range unit {unit!r} (units: {', '.join(UNITS)})")
        if unit == "ROBOTS":
            return mm / (2.0 * self._robot.params.robot_radius)
        if unit == "SCALED":
            return mm / self.max_range_mm
        return mm / float(UNITS[unit] or 1.0)


class PyroRobot:
    """The robot as a brain sees it, in Pyro's idiom (see the module docstring)."""

    def __init__(self, saphira: Robot) -> None:
        self.saphira = saphira
        self.range = RangeDevice(saphira)
        self.sonar = self.range

    @property
    def name(self) -> str:
        identity = self.saphira.link.identity
        return identity.name if identity is not None else self.saphira.params.name

    @property
    def max_velocity(self) -> float:
        return float(self.saphira.params.trans_vel_max or DEFAULT_MAX_VELOCITY)

    @property
    def max_rvelocity(self) -> float:
        return float(self.saphira.params.rot_vel_max or DEFAULT_MAX_RVELOCITY)

    def move(self, translate: float, rotate: float) -> None:
        """Drive at ``translate`` × top speed and ``rotate`` × top turn rate (both clipped to -1..1)."""
        motion = self.saphira.motion
        motion.set_velocity(_unit(translate) * self.max_velocity)
        motion.set_rvelocity(_unit(rotate) * self.max_rvelocity)

    def translate(self, value: float) -> None:
        self.saphira.motion.set_velocity(_unit(value) * self.max_velocity)

    def rotate(self, value: float) -> None:
        self.saphira.motion.set_rvelocity(_unit(value) * self.max_rvelocity)

    def stop(self) -> None:
        self.move(0.0, 0.0)

    def release(self) -> None:
        """Give both channels back to the behaviors."""
        self.saphira.motion.release()

    @property
    def x(self) -> float:
        return self.saphira.state.ax / 1000.0

    @property
    def y(self) -> float:
        return self.saphira.state.ay / 1000.0

    @property
    def th(self) -> float:
        return self.saphira.state.ath % 360.0

    @property
    def stall(self) -> bool:
        return self.saphira.state.stalled


def _unit(value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a Pyro speed must be a number in -1..1, not {value}")
    return max(-1.0, min(1.0, value))


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

    def __init__(self, brain: Brain, source: str) -> None:
        super().__init__(f"brain {brain.name}", phase=Phase.ACTIVITIES)
        self.brain = brain
        self.source = source
        self.destroyed = False

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
