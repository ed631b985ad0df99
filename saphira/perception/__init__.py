"""The Local Perceptual Space made real (see docs/colbert.md): interpretation, environment, registration.

:class:`Perception` holds, for one reflector, the interpretation (:mod:`.interpretation`: wall,
corridor, door and junction hypotheses), the environment tracker (:mod:`.environment`:
``sfCurrentEnvironment``) and registration with map building (:mod:`.registration`,
:mod:`.mapping`). Its ``start_*`` methods are the manual's task sets; each adds its micro-tasks (in the
``INTERPRET`` phase, after the packets are read and before activities and behaviors run) under the
manual's instance names, once — calling one twice is harmless:

* :meth:`Perception.start_interpretation` (``sfInitInterpretationProcs``): ``side segment``,
  ``test wall``, ``test wall break``;
* :meth:`Perception.start_registration` (``sfInitRegistrationProcs``): ``test matching`` and
  ``test where``;
* :meth:`Perception.start_awareness` (``sfInitAwareProcs``): ``test where``;
* :meth:`Perception.start_localization` (``sfInitLocalizationProcs``, ``sfGlobalLocalize``):
  ``localize``, Monte Carlo localization (:mod:`.mcl`), which then keeps the global pose in place of
  registration's ``test matching`` (that task stays, but does nothing while ``localize`` runs).

Registration and environment tracking need the interpretation, so they start it too. Suspending a
task (``sfSuspendTask("test matching", 0)``) stops its work until it is resumed. :func:`perception_for`
gives the one :class:`Perception` of a reflector, creating it on first use.
"""

from __future__ import annotations

from collections.abc import Callable

from saphira.client.artifacts import Artifact, Corridor, Door, Junction, Wall
from saphira.client.reflector import Reflector
from saphira.core.attached import Attached
from saphira.core.tasks import Phase, Scheduler, TaskState
from saphira.perception.ekf import PoseFilter
from saphira.perception.environment import EnvironmentTracker
from saphira.perception.interpretation import Interpretation
from saphira.perception.mapping import MapBuilder
from saphira.perception.mcl import Localizer
from saphira.perception.registration import Registration

__all__ = [
    "EnvironmentTracker",
    "Interpretation",
    "Localizer",
    "MapBuilder",
    "Perception",
    "PoseFilter",
    "Registration",
    "perception_for",
]

SIDE_SEGMENT = "side segment"
TEST_WALL = "test wall"
TEST_WALL_BREAK = "test wall break"
TEST_MATCHING = "test matching"
TEST_WHERE = "test where"
LOCALIZE = "localize"


class Perception:
    """Interpretation, environment tracking and registration for one reflector on one scheduler."""

    def __init__(self, reflector: Reflector, scheduler: Scheduler) -> None:
        self.reflector = reflector
        self.scheduler = scheduler
        self.interpretation = Interpretation(reflector)
        self.environment = EnvironmentTracker(reflector, self.interpretation)
        self.registration = Registration(reflector, self.interpretation)
        self.localizer = Localizer(reflector)

    # ------------------------------------------------------------------ results
    @property
    def left_wall(self) -> Wall:
        """``sfLeftWallHyp``: ``viewable`` while a wall is found on the left."""
        return self.interpretation.left.wall

    @property
    def right_wall(self) -> Wall:
        """``sfRightWallHyp``."""
        return self.interpretation.right.wall

    @property
    def corridor(self) -> Corridor | None:
        """The sensed corridor hypothesis, or None."""
        return self.interpretation.corridor

    @property
    def doors(self) -> list[Door | Junction]:
        """The door and junction hypotheses held (nearest first)."""
        return self.interpretation.doors()

    @property
    def map_built(self) -> list[Artifact]:
        """The map artifacts map building has added, oldest first."""
        return self.registration.builder.built

    @property
    def current_environment(self) -> Artifact | None:
        """``sfCurrentEnvironment``: None, or the corridor the robot is in."""
        return self.environment.current

    # ------------------------------------------------------------------ task sets
    def _task(self, name: str, work: Callable[[], object]) -> None:
        if name in self.scheduler:
            return

        def step(state: int) -> int:
            work()
            return TaskState.RESUME if state == TaskState.INIT else state

        self.scheduler.add(step, name, phase=Phase.INTERPRET)

    def start_interpretation(self) -> None:
        """``sfInitInterpretationProcs``: side segments, walls and corridors, wall breaks."""
        interp = self.interpretation
        self._task(SIDE_SEGMENT, interp.side_segment)
        self._task(TEST_WALL, interp.test_wall)
        self._task(TEST_WALL_BREAK, interp.test_wall_break)

    def start_registration(self) -> None:
        """``sfInitRegistrationProcs``: ``test matching`` (and ``test where``)."""
        self.start_interpretation()
        self._task(TEST_MATCHING, self._match)
        self._task(TEST_WHERE, self.environment.update)

    def _match(self) -> None:
        """``test matching``: registration, unless Monte Carlo localization keeps the pose."""
        if LOCALIZE not in self.scheduler:
            self.registration.step()

    def start_localization(self, globally: bool = False) -> None:
        """``sfInitLocalizationProcs`` (``globally``: ``sfGlobalLocalize``): the task ``localize``
        tracks the global pose from where it is now, or, ``globally``, finds it anywhere on the map."""
        self._task(LOCALIZE, self.localizer.step)
        if globally:
            self.localizer.globalize()

    def start_awareness(self) -> None:
        """``sfInitAwareProcs``: ``test where`` keeps :attr:`current_environment` current."""
        self.start_interpretation()
        self._task(TEST_WHERE, self.environment.update)


_PERCEPTIONS: Attached[Reflector, Perception] = Attached()


def perception_for(reflector: Reflector, scheduler: Scheduler) -> Perception:
    """The :class:`Perception` of ``reflector`` (made on first use, with ``scheduler`` for its tasks)."""
    return _PERCEPTIONS.get(reflector, lambda: Perception(reflector, scheduler))
