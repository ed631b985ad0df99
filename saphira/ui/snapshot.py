"""What a page gets per display period: a snapshot of the robot, its LPS, tasks and behaviors.

:func:`capture` runs in the control cycle, at its end, and only copies: numbers, tuples, the sonar
buffers' arrays. Everything slower — moving LPS points into the global frame, rounding, building the
JSON — is :meth:`Snapshot.to_json`, run in the UI thread, so the cycle pays as little as possible.

A frame is in global mm and degrees; the page turns it into local mode (robot centred, pointing up)
itself. The information area's fields follow the manual (§11.3): St, Tr, Rot, X, Y, Th (registered
global pose), MPac, SPac, VPac (FTVS packets in the last second; 0: no vision), Bat, CPU (this
process, percent of one core) and Scrn (frames per second sent to the pages).
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from saphira.client.sensors.sonar import NO_ECHO
from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.display.drawing import Primitive
from saphira.perception import LOCALIZE, perception_for
from saphira.perception.occupancy import grid_image
from saphira.record.behavior_rows import BehaviorRow, RawBehavior, behavior_dict, behavior_row, raw_behavior
from saphira.record.extras import TaskRow, task_rows

if TYPE_CHECKING:
    from saphira.robot import Robot
    from saphira.sim.embedded import EmbeddedSim
    from saphira.world.world import World

__all__ = ["WAKE_SECONDS", "GridCopy", "Snapshot", "Wake", "capture", "world_outline"]

WAKE_SECONDS = 10.0
"""The wake shows this much of the robot's recent travel (the manual's "last 10 s")."""
WAKE_SPACING = 20.0
"""A new wake point is kept once the robot has moved this many mm (a standing robot adds none)."""


WakePoint = tuple[float, float, float]
"""A wake point: when (s, the robot's clock), global x, y (mm)."""


class Wake:
    """The robot's global positions over the last :data:`WAKE_SECONDS`, one point per cycle at most."""

    def __init__(self) -> None:
        self.points: deque[WakePoint] = deque()

    def add(self, now: float, x: float, y: float) -> None:
        last = self.points[-1] if self.points else None
        if last is None or math.hypot(x - last[1], y - last[2]) >= WAKE_SPACING:
            self.points.append((now, x, y))
        while self.points and self.points[0][0] < now - WAKE_SECONDS:
            self.points.popleft()


GridCopy = tuple[FloatArray, FloatArray, tuple[float, float], float]
"""An occupancy grid's log-odds and evidence arrays (copies), its origin and resolution."""


@dataclass(slots=True)
class Snapshot:
    """One frame, captured at a cycle boundary (see the module docstring)."""

    cycle: int
    time: float
    pose: Pose
    info: dict[str, Any]
    sonar: list[tuple[float, float, bool]]
    buffers: tuple[FloatArray, FloatArray]
    artifacts: list[tuple[int, int, float, float, float, float, float]]
    wake: list[WakePoint]
    drawing: list[Primitive]
    tasks: list[TaskRow]
    behaviors: list[RawBehavior]
    summation: tuple[float | None, float | None]
    truth: list[tuple[str, float, float, float]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    grid: GridCopy | None = None
    """Copies of the occupancy grid's arrays when this frame carries its image (see ``LiveView``)."""
    laser: tuple[FloatArray, FloatArray] | None = None
    """The laser ring's points (LPS, mm) when the robot has a laser scan."""
    localization: tuple[FloatArray, Pose | None, bool] | None = None
    """Monte Carlo localization's samples (rows x, y, th), estimate and localized flag while ``localize``
    runs (:meth:`saphira.perception.mcl.Localizer.view`)."""

    def to_dict(self) -> dict[str, Any]:
        x, y, th = self.pose
        rad = math.radians(th)
        c, s = math.cos(rad), math.sin(rad)

        def to_global(lx: FloatArray, ly: FloatArray) -> list[list[int]]:
            gx = np.rint(x + c * lx - s * ly).astype(np.int64)
            gy = np.rint(y + s * lx + c * ly).astype(np.int64)
            return np.stack([gx, gy], axis=1).tolist()  # type: ignore[no-any-return]

        if self.sonar:
            sx = np.array([p[0] for p in self.sonar])
            sy = np.array([p[1] for p in self.sonar])
            sonar = [[*xy, int(new)] for xy, (_, _, new) in zip(to_global(sx, sy), self.sonar, strict=True)]
        else:
            sonar = []
        return {
            "type": "frame",
            "cycle": self.cycle,
            "time": round(self.time, 2),
            "pose": [round(x), round(y), round(th, 1)],
            "info": self.info,
            "sonar": sonar,
            "buffers": to_global(*self.buffers),
            "laser": to_global(*self.laser) if self.laser is not None else [],
            "artifacts": [
                [t, i, round(ax), round(ay), round(ath, 1), round(w), round(ln)]
                for t, i, ax, ay, ath, w, ln in self.artifacts
            ],
            "wake": [[round(px), round(py)] for _, px, py in self.wake],
            "drawing": [p.as_list() for p in self.drawing],
            "tasks": [list(t) for t in self.tasks],
            "behaviors": [behavior_dict(b) for b in self.behavior_rows()],
            "summation": [_round(self.summation[0], 1), _round(self.summation[1], 0)],
            "truth": [[n, round(tx), round(ty), round(tth, 1)] for n, tx, ty, tth in self.truth],
            **({"occgrid": grid_image(*self.grid)} if self.grid is not None else {}),
            **({"localization": _localization_dict(*self.localization)} if self.localization is not None else {}),
            **self.extra,
        }

    def behavior_rows(self) -> list[BehaviorRow]:
        """The Behaviors window in priority order (0, the highest, first)."""
        vel = float(self.info.get("Tr", 0.0))
        return sorted((behavior_row(raw, vel) for raw in self.behaviors), key=lambda b: b.priority)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


def world_outline(world: World | None) -> dict[str, Any]:
    """A world's walls (segments, mm), bounds and named goals ([x, y, name]) as a page draws them: in the
    first message a page gets, and again in the next frame when the world changes (``sfLoadWorldFile``,
    a Flat map transition)."""
    if world is None:
        return {"walls": [], "bounds": None, "goals": []}
    return {"walls": [[round(v) for v in seg] for seg in world.segments.tolist()],
            "bounds": [round(v) for v in world.bounds],
            "goals": [[round(pose.x), round(pose.y), name] for name, pose in world.goals]}  # fmt: skip


def _localization_dict(samples: FloatArray, estimate: Pose | None, localized: bool) -> dict[str, Any]:
    """``samples`` as [x, y, th] (mm, deg), ``estimate`` [x, y, th] or null, ``localized``."""
    est = None if estimate is None else [round(estimate.x), round(estimate.y), round(estimate.th, 1)]
    return {"samples": np.rint(samples).astype(np.int64).tolist(), "estimate": est, "localized": localized}


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def capture(
    robot: Robot,
    wake: Wake,
    drawing: list[Primitive],
    info: dict[str, Any],
    sim: EmbeddedSim | None = None,
) -> Snapshot:
    """Copy what a frame shows; called in the control thread at the end of a cycle (cheap)."""
    state = robot.state
    motion = robot.motion
    sonar = robot.sonar
    current = [(b.x, b.y, b.new) for b in sonar.buckets if b.range < NO_ECHO and b.count > 0]
    lx, ly = sonar.points()
    laser = robot.reflector.laser
    rx, ry = laser.ring.points()
    artifacts = [
        (int(a.type), a.id, a.ax, a.ay, a.ath, float(getattr(a, "width", 0.0)), float(getattr(a, "length", 0.0)))
        for a in robot.reflector.pointlist
        if a.viewable
    ]
    behaviors = [raw_behavior(t) for t in robot.executive.behaviors if not t.finished]
    record = robot.executive.last_record
    summation = (record.result.turn, record.result.speed) if record is not None else (None, None)
    info = {
        **info,
        "St": state.status.value,
        "Tr": round(state.vel),
        "Rot": round(state.rvel, 1),
        "X": round(state.ax),
        "Y": round(state.ay),
        "Th": round(state.ath, 1),
        "MPac": state.motor_packet_count,
        "SPac": state.sonar_packet_count,
        "VPac": robot.reflector.accessories.state.vision_packet_count,
        "Bat": round(state.battery, 1),
        "Vset": round(motion.target_vel()),
        "Hset": round(motion.target_head(), 1),
        "Ctrl": round(state.control, 1),
        "connected": robot.connected,
    }
    truth = [(r.name, r.x, r.y, r.th) for r in sim.simulation.robots] if sim is not None else []
    localizing = LOCALIZE in robot.scheduler
    localization = perception_for(robot.reflector, robot.scheduler).localizer.view() if localizing else None
    return Snapshot(
        cycle=robot.scheduler.cycle,
        time=robot.clock.now(),
        pose=state.global_pose,
        info=info,
        sonar=current,
        buffers=(lx.copy(), ly.copy()),
        laser=(rx, ry) if laser.scan is not None else None,  # points() returns fresh arrays
        artifacts=artifacts,
        wake=list(wake.points),
        drawing=drawing,
        tasks=task_rows(robot.scheduler.tasks),
        behaviors=behaviors,
        summation=summation,
        truth=truth,
        localization=localization,
    )
