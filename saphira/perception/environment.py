"""Environment tracking (``sfInitAwareProcs``, see docs/colbert.md): which artifact the robot is in.

:attr:`EnvironmentTracker.current` is ``None`` or the artifact the robot is in — the manual's
``sfCurrentEnvironment``. A map corridor (category ``ARTIFACT``) that contains the robot's registered
position is preferred, because its geometry is known and registration keeps it aligned; otherwise the
sensed corridor hypothesis of the interpretation. The current environment is kept while it stays
valid (a map corridor with :data:`HYSTERESIS` mm of slack at its sides and ends), so a pointer taken
from it (FindAndFollow's ``e``) stays equal for as long as the robot stays in that corridor.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.client.artifacts import Artifact, Category, Corridor
from saphira.client.reflector import Reflector
from saphira.core.geometry import ORIGIN, change_vp
from saphira.perception.interpretation import Interpretation

HYSTERESIS = 200.0
"""mm a robot may stray beyond its current map corridor's bounds before it is out of it."""


def contains(corridor: Corridor, margin: float = 0.0) -> bool:
    """True if the robot (the LPS origin) is inside the corridor's box, grown by ``margin`` mm.

    A corridor without a length (0) is unbounded along its axis.
    """
    robot = change_vp(corridor, ORIGIN)
    if abs(robot.y) > 0.5 * corridor.width + margin:
        return False
    return corridor.length <= 0.0 or abs(robot.x) <= 0.5 * corridor.length + margin


@dataclass
class EnvironmentTracker:
    """Keeps :attr:`current` up to date (task ``test where``)."""

    reflector: Reflector
    interpretation: Interpretation
    current: Artifact | None = None

    def update(self) -> Artifact | None:
        """Decide the current environment for this cycle and return it."""
        current = self.current
        if isinstance(current, Corridor) and self._still_in(current):
            return current
        for artifact in self.reflector.pointlist:
            if isinstance(artifact, Corridor) and artifact.cat == Category.ARTIFACT and contains(artifact):
                self.current = artifact
                return artifact
        sensed = self.interpretation.corridor
        self.current = sensed if sensed is not None and sensed.viewable else None
        return self.current

    def _still_in(self, corridor: Corridor) -> bool:
        """The current map corridor stays current while the robot is within its bounds plus slack."""
        in_map = corridor.cat == Category.ARTIFACT and corridor in self.reflector.pointlist
        return in_map and contains(corridor, HYSTERESIS)
