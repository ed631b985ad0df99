"""A recording played one cycle at a time, for what looks at it: a plot, an MCAP export, the live view.

:func:`saphira.record.recording.replay` checks a recording against itself in one go; a :class:`Playback`
feeds the same received packets through a fresh link and reflector (so the pose, the sonar and the
laser are rebuilt as the run saw them) but stops after each cycle, so the caller can look at the robot,
the behaviors' recorded state (version 3) and the cycle's messages, then go on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from saphira.core.clock import LockStepClock
from saphira.core.tasks import Phase, TaskState
from saphira.params.robot_params import RobotParams
from saphira.record.recording import Recording, ReplayTransport, read_recording
from saphira.robot import Robot
from saphira.world.world import World, load_world

__all__ = ["Playback", "recorded_world"]


class Playback:
    """One pass through a recording (start a new one to go back)."""

    def __init__(self, recording: Recording, params: RobotParams | None = None) -> None:
        self.recording = recording
        self.params = params
        self.robot = Robot(LockStepClock(), params=params)
        if params is None and "params" in recording.notes:  # the run's --params: its laser, its geometry
            self.robot.link.user_params = recording.notes["params"]
        self._transport = ReplayTransport(recording, self.robot)
        # The recorded link started its handshake in the cycle of the first packet it sent.
        self._connect_cycle = min(recording.sent) if recording.sent else 0
        self.cycle = 0
        """The next cycle to play."""
        # First in the observe phase, so what observes the robot (a trace, an export) sees the pose recorded.
        self.robot.scheduler.add(self._place, "replay.pose", phase=Phase.OBSERVE)
        self.behaviors: dict[str, Any] = {}
        """The behaviors' recorded state as of the cycle played last (empty before version 3)."""
        self.artifacts: list[list[float]] = []
        """The map's artifacts as recorded as of the cycle played last (version 3)."""
        self.tasks: list[Any] = []
        """The Activities rows recorded as of the cycle played last (version 4; empty before)."""
        self.messages: list[list[str]] = []
        """``[level, name, text]`` recorded in the cycle played last."""

    @classmethod
    def open(cls, path: str | Path, params: RobotParams | None = None) -> Playback:
        return cls(read_recording(path), params)

    @property
    def cycles(self) -> int:
        """How many cycles the recording holds."""
        return self.recording.last_cycle + 1

    @property
    def done(self) -> bool:
        return self.cycle >= self.cycles

    def step(self) -> None:
        """Play the next cycle (nothing once :attr:`done`)."""
        if self.done:
            return
        cycle, robot = self.cycle, self.robot
        if cycle == self._connect_cycle:
            robot.link.connect(self._transport)
        # What the cycle recorded is there while it plays, for what observes it (an export, the live view).
        self.behaviors = self.recording.behaviors.get(cycle, self.behaviors)
        self.artifacts = self.recording.artifacts.get(cycle, self.artifacts)
        self.tasks = self.recording.tasks.get(cycle, self.tasks)
        self.messages = self.recording.messages.get(cycle, [])
        robot.scheduler.run_cycle()
        robot.clock.wait_next()
        self.cycle += 1

    def _place(self, state: int) -> int:
        if (pose := self.recording.poses.get(self.cycle)) is not None:
            self.robot.reflector.set_global_pose(*pose)
        return TaskState.RESUME

    def restart(self) -> Playback:
        """A new playback of the same recording, at cycle 0."""
        return Playback(self.recording, self.params)


def recorded_world(recording: Recording, world: str | None = None) -> World | None:
    """``world`` if given, else the world the recording names (the embedded simulator's), else None."""
    name = world or recording.notes.get("world")
    return load_world(name) if name else None
