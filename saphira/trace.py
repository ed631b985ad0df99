"""What a run leaves behind: the robot's path and the sonar hits in the global frame, and a status line.

:class:`RunTrace` is an *observe*-phase task. Every cycle it appends the robot's global pose and turns
each new sonar echo into a global point, so a plot (:mod:`saphira.plot`) can draw the run over the
world. It keeps plain float lists: a 60-second run is 600 poses and a few thousand hits.

With a simulator, ``truth`` gives the robot's true pose: :attr:`RunTrace.true_path` records it, and
the sonar hits are placed with it, so a plot shows where the robot really went and what it really
heard, beside its own (odometric) estimate in :attr:`RunTrace.path`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from saphira.robot import Robot
from saphira.sonar import NO_ECHO
from saphira.tasks import Phase, Task, TaskState


class RunTrace(Task):
    """Records the global path and global sonar hits of one robot, once per cycle."""

    def __init__(
        self, robot: Robot, *, every: int = 1, truth: Callable[[], tuple[float, float, float]] | None = None
    ) -> None:
        super().__init__("trace", phase=Phase.OBSERVE)
        self.robot = robot
        self.every = every
        self.truth = truth
        self.path: list[tuple[float, float, float]] = []
        self.true_path: list[tuple[float, float, float]] = []
        self.hits: list[tuple[float, float]] = []
        self._seen: dict[int, int] = {}

    def step(self, state: int) -> int:
        robot = self.robot
        if robot.connected and robot.scheduler.cycle % self.every == 0:
            st = robot.state
            self.path.append((st.ax, st.ay, st.ath))
            x, y, th = st.ax, st.ay, st.ath
            if self.truth is not None:
                x, y, th = self.truth()
                self.true_path.append((x, y, th))
            rad = math.radians(th)
            c, s = math.cos(rad), math.sin(rad)
            for bucket in robot.sonar.buckets:
                if bucket.count != self._seen.get(bucket.index, 0):
                    self._seen[bucket.index] = bucket.count
                    if bucket.range < NO_ECHO:
                        self.hits.append((x + c * bucket.x - s * bucket.y, y + s * bucket.x + c * bucket.y))
        return TaskState.RESUME if state == TaskState.INIT else state

    @property
    def distance(self) -> float:
        """Length of the path in mm (the true one when known)."""
        path = self.true_path or self.path
        return sum(math.dist(a[:2], b[:2]) for a, b in itertools.pairwise(path))


def status_line(robot: Robot, activities: str = "") -> str:
    """One line: cycle, global pose, velocities, link rates and what is running.

    The link rates keep the manual's names with their units: MPac is SIPs per second (10 on a
    Pioneer), SPac sonar *readings* per second (one per transducer firing: ~50 here, 25 on a
    Pioneer 1), not packets — several readings ride in one SIP.
    """
    st = robot.state
    return (
        f"cycle {robot.scheduler.cycle:6d}  pose ({st.ax:7.0f}, {st.ay:7.0f}, {st.ath:6.1f})  "
        f"v {st.vel:5.0f} mm/s  rv {st.rvel:5.1f} deg/s  MPac {st.motor_packet_count:2d} SIPs/s  "
        f"SPac {st.sonar_packet_count:3d} sonar/s  {activities}"
    )
