"""What a run leaves behind: the robot's path and the sonar hits in the global frame, and a status line.

:class:`RunTrace` is an *observe*-phase task. Every cycle it appends the robot's global pose and turns
each new sonar echo into a global point, so a plot (:mod:`saphira.plot`) can draw the run over the
world. It keeps plain float lists: a 60-second run is 600 poses and a few thousand hits.
"""

from __future__ import annotations

import math

from saphira.robot import Robot
from saphira.sonar import NO_ECHO
from saphira.tasks import Phase, Task, TaskState


class RunTrace(Task):
    """Records the global path and global sonar hits of one robot, once per cycle."""

    def __init__(self, robot: Robot, *, every: int = 1) -> None:
        super().__init__("trace", phase=Phase.OBSERVE)
        self.robot = robot
        self.every = every
        self.path: list[tuple[float, float, float]] = []
        self.hits: list[tuple[float, float]] = []
        self._seen: dict[int, int] = {}

    def step(self, state: int) -> int:
        robot = self.robot
        if robot.connected and robot.scheduler.cycle % self.every == 0:
            st = robot.state
            self.path.append((st.ax, st.ay, st.ath))
            rad = math.radians(st.ath)
            c, s = math.cos(rad), math.sin(rad)
            for bucket in robot.sonar.buckets:
                if bucket.count != self._seen.get(bucket.index, 0):
                    self._seen[bucket.index] = bucket.count
                    if bucket.range < NO_ECHO:
                        self.hits.append((st.ax + c * bucket.x - s * bucket.y, st.ay + s * bucket.x + c * bucket.y))
        return TaskState.RESUME if state == TaskState.INIT else state

    @property
    def distance(self) -> float:
        """Length of the recorded path in mm."""
        return sum(math.dist(a[:2], b[:2]) for a, b in zip(self.path, self.path[1:], strict=False))


def status_line(robot: Robot, activities: str = "") -> str:
    """One line: cycle, global pose, velocities, link rates and what is running."""
    st = robot.state
    return (
        f"cycle {robot.scheduler.cycle:6d}  pose ({st.ax:7.0f}, {st.ay:7.0f}, {st.ath:6.1f})  "
        f"v {st.vel:5.0f} mm/s  rv {st.rvel:5.1f} deg/s  MPac {st.motor_packet_count:2d} "
        f"SPac {st.sonar_packet_count:2d}  {activities}"
    )
