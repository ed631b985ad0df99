"""A recording played one cycle at a time, for what looks at it: a plot, an MCAP export, the live view.

:func:`saphira.record.recording.replay` checks a recording against itself in one go; a :class:`Playback`
feeds the same received packets through a fresh link and reflector (so the pose, the sonar and the
laser are rebuilt as the run saw them) but stops after each cycle, so the caller can look at the robot,
the behaviors' recorded state (version 3) and the cycle's messages, then go on. The recording is read
as it is played (:func:`saphira.record.reader.recorded_cycles`), after one pass that checked it all, so
a playback holds one cycle of it at a time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from saphira.core.clock import LockStepClock
from saphira.core.geometry import Pose
from saphira.core.tasks import Phase, TaskState
from saphira.params.robot_params import RobotParams
from saphira.record.reader import RecordingInfo, recorded_cycles, scan_recording
from saphira.record.recording import ReplayTransport
from saphira.robot import Robot
from saphira.world.world import World, load_world

__all__ = ["Playback", "recorded_world"]


class Playback:
    """One pass through a recording (start a new one to go back)."""

    def __init__(self, info: RecordingInfo, params: RobotParams | None = None) -> None:
        self.info = info
        """What the recording holds (:func:`~saphira.record.reader.scan_recording`)."""
        self.params = params
        self.robot = Robot(LockStepClock(), params=params)
        if params is None and "params" in info.notes:  # the run's --params: its laser, its geometry
            self.robot.link.user_params = info.notes["params"]
        self._transport = ReplayTransport(info.source)
        self._connect_cycle = info.first_sent or 0  # the recorded link started its handshake with its first packet
        self._cycles = recorded_cycles(info)
        self.cycle = 0
        """The next cycle to play."""
        # First in the observe phase, so what observes the robot (a trace, an export) sees the pose recorded.
        self.robot.scheduler.add(self._place, "replay.pose", phase=Phase.OBSERVE)
        self._pose: Pose | None = None
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
        """A playback of the recording at ``path``, checked whole first (a bad line is an error here)."""
        return cls(scan_recording(path), params)

    @property
    def cycles(self) -> int:
        """How many cycles the recording holds."""
        return self.info.last_cycle + 1

    @property
    def done(self) -> bool:
        return self.cycle >= self.cycles

    def step(self) -> None:
        """Play the next cycle (nothing once :attr:`done`)."""
        if self.done:
            return
        events = next(self._cycles)
        robot = self.robot
        self._transport.feed(events.received)
        if events.cycle == self._connect_cycle:
            robot.link.connect(self._transport)
        # What the cycle recorded is there while it plays, for what observes it (an export, the live view).
        if events.behaviors is not None:
            self.behaviors = json.loads(events.behaviors)
        if events.artifacts is not None:
            self.artifacts = json.loads(events.artifacts)
        if events.tasks is not None:
            self.tasks = events.tasks
        self.messages = events.messages
        self._pose = events.pose
        robot.scheduler.run_cycle()
        robot.clock.wait_next()
        self.cycle += 1
        if self.cycle == self.cycles:
            self._cycles.close()  # the file, now rather than when the playback is dropped

    def _place(self, state: int) -> int:
        if self._pose is not None:
            self.robot.reflector.set_global_pose(*self._pose)
        return TaskState.RESUME

    def restart(self) -> Playback:
        """A new playback of the same recording, at cycle 0."""
        return Playback(self.info, self.params)


def recorded_world(info: RecordingInfo, world: str | None = None) -> World | None:
    """``world`` if given, else the world the recording names (the embedded simulator's), else None."""
    name = world or info.notes.get("world")
    return load_world(name) if name else None
