"""The simulated Pioneer gripper: two paddles that open and close, a lift, and two break beams.

The gripper sits at the front of the robot's body (its throat at ``RobotRadius`` ahead of the
centre). It follows the GRIPPER codes of :class:`~saphira.protocol.gripper.GripperCommand` and
reports the switch byte of :class:`~saphira.protocol.gripper.GripperSwitches`. Timing and size are
those of the Pioneer 2 gripper as far as the sources let us know them, otherwise a robotics
engineer's estimate (documented choices):

* the paddles take :data:`PADDLE_TRAVEL_S` to go from open to closed (or back), the lift
  :data:`LIFT_TRAVEL_S` from bottom to top; both move at a constant rate;
* the paddles open :data:`OPEN_WIDTH` mm apart and reach :data:`PADDLE_LENGTH` mm ahead of the
  throat; the inner beam crosses the gripper :data:`INNER_BEAM` mm ahead of the throat, the outer one
  :data:`OUTER_BEAM` mm ahead, between the paddles;
* closing paddles stop on a box lying between them: both paddles then press on it (it is pushed to
  the middle of the gripper), and the gripper holds it. A held box moves with the robot, rises with
  the lift, and is no obstacle to its holder; opening the paddles lets go of it where it is.
* a beam is broken by any box whose footprint crosses it between the paddles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.protocol.gripper import GripperCommand, GripperSwitches
from saphira.world.objects import SimObject

PADDLE_TRAVEL_S: Final = 2.0
LIFT_TRAVEL_S: Final = 3.0
OPEN_WIDTH: Final = 220.0
PADDLE_LENGTH: Final = 190.0
INNER_BEAM: Final = 40.0
OUTER_BEAM: Final = 160.0
GRASP_TIME: Final = 10
"""Default grasp time (20 ms units) reported in the 0xE0 packet; GRIPPER 16 + GRIPPERVAL changes it."""
CARRY_UNIT_S: Final = 0.02
"""GRIPPERVAL's unit for lift carry and grip pressure: 20 ms."""


def _clip(polygon: FloatArray, x: float, keep_above: bool) -> FloatArray:
    """The part of a convex polygon with x ≥ ``x`` (``keep_above``) or x ≤ ``x`` (Sutherland–Hodgman)."""
    out: list[tuple[float, float]] = []
    n = len(polygon)
    for i in range(n):
        px, py = polygon[i]
        qx, qy = polygon[(i + 1) % n]
        p_in = px >= x if keep_above else px <= x
        q_in = qx >= x if keep_above else qx <= x
        if p_in:
            out.append((px, py))
        if p_in != q_in and qx != px:
            t = (x - px) / (qx - px)
            out.append((x, py + t * (qy - py)))
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def y_span(polygon: FloatArray, x_low: float, x_high: float) -> tuple[float, float] | None:
    """The (lowest, highest) y of the polygon's part between x_low and x_high, or ``None`` if empty."""
    part = _clip(_clip(polygon, x_low, True), x_high, False)
    if len(part) == 0:
        return None
    return float(part[:, 1].min()), float(part[:, 1].max())


def to_robot_frame(points: FloatArray, pose: Pose) -> FloatArray:
    """World points ``(N, 2)`` in the frame of a robot at ``pose`` (x ahead, y to the left)."""
    c, s = math.cos(math.radians(pose.th)), math.sin(math.radians(pose.th))
    d = points - np.array([pose.x, pose.y])
    return np.stack([d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c], axis=1)


class SimGripper:
    """One robot's gripper: paddle opening (1 open .. 0 closed), lift height (0 down .. 1 up), beams."""

    def __init__(self, throat: float) -> None:
        self.throat = throat
        """mm from the robot's centre to the back of the gripper."""
        self.held: SimObject | None = None
        self.reset()

    def reset(self) -> None:
        """Power-on state: deployed (lift down, paddles open), nothing held."""
        self._release()
        self.paddles = 1.0
        self.lift = 0.0
        self.paddle_dir = 0
        self.lift_dir = 0
        self.lift_time_left: float | None = None
        self.pressing = False
        self._offset = (0.0, 0.0, 0.0)
        self.inner_beam = False
        self.outer_beam = False
        self.grasp_time = GRASP_TIME
        self._value_for: int | None = None

    # -- commands ----------------------------------------------------------------------------------

    def command(self, code: int) -> bool:
        """Apply a GRIPPER code; False if the code means nothing to the gripper."""
        g = GripperCommand
        if code == g.OPEN:
            self._open()
        elif code == g.CLOSE:
            self._close()
        elif code == g.STOP:
            self.paddle_dir = 0
        elif code == g.LIFT_UP:
            self._lift(1)
        elif code == g.LIFT_DOWN:
            self._lift(-1)
        elif code == g.LIFT_STOP:
            self._lift(0)
        elif code == g.STORE:
            self._close()
            self._lift(1)
        elif code == g.DEPLOY:
            self._lift(-1)
            self._open()
        elif code in (g.HALT, g.HALT_PSOS):
            self.paddle_dir = 0
            self._lift(0)
        elif code in (g.PRESSURE, g.LIFT_CARRY):
            self._value_for = code
            return True
        else:
            return False
        self._value_for = None
        return True

    @property
    def expects_value(self) -> bool:
        """The last code was grip pressure or lift carry: the next GRIPPERVAL is its value."""
        return self._value_for is not None

    def value(self, amount: int) -> None:
        """GRIPPERVAL after GRIPPER 16 (grasp time) or 17 (drive the lift for ± amount × 20 ms)."""
        kind, self._value_for = self._value_for, None
        if kind == GripperCommand.PRESSURE:
            self.grasp_time = max(0, min(255, amount))
        elif kind == GripperCommand.LIFT_CARRY and amount:
            self._lift(1 if amount > 0 else -1)
            self.lift_time_left = abs(amount) * CARRY_UNIT_S

    def _open(self) -> None:
        self.pressing = False
        self._release()
        self.paddle_dir = 1 if self.paddles < 1.0 else 0

    def _close(self) -> None:
        if not self.pressing:
            self.paddle_dir = -1

    def _lift(self, direction: int) -> None:
        self.lift_time_left = None
        at_end = (direction > 0 and self.lift >= 1.0) or (direction < 0 and self.lift <= 0.0)
        self.lift_dir = 0 if at_end else direction

    def _release(self) -> None:
        if self.held is not None:
            self.held.holder = None
            self.held.lifted = False
            self.held = None

    # -- state -------------------------------------------------------------------------------------

    @property
    def gap(self) -> float:
        """mm between the paddles."""
        return self.paddles * OPEN_WIDTH

    @property
    def switches(self) -> int:
        """The switch byte (:class:`~saphira.protocol.gripper.GripperSwitches`)."""
        s = GripperSwitches
        bits = 0
        if self.paddles < 1.0:
            bits |= s.NOT_OPEN
        if 0.0 < self.lift < 1.0:
            bits |= s.LIFT_BETWEEN
        if self.outer_beam:
            bits |= s.OUTER_BEAM
        if self.inner_beam:
            bits |= s.INNER_BEAM
        if not self.pressing:
            bits |= s.LEFT_FREE | s.RIGHT_FREE
        if self.lift_dir:
            bits |= s.LIFT_MOVING
        if self.paddle_dir:
            bits |= s.PADDLES_MOVING
        return int(bits)

    # -- stepping ----------------------------------------------------------------------------------

    def step(self, dt: float, pose: Pose, objects: Iterable[SimObject]) -> None:
        """Advance ``dt`` s with the robot at ``pose``: lift, paddles, the held box, the beams."""
        reach = self.throat + PADDLE_LENGTH
        boxes = [
            o
            for o in objects
            if (o.holder is None or o.holder is self)
            and math.hypot(o.x - pose.x, o.y - pose.y) < reach + math.hypot(o.spec.width, o.spec.depth) / 2.0
        ]
        self._step_lift(dt)
        self._step_paddles(dt, pose, boxes)
        held = self.held
        if held is not None:
            ox, oy, oth = self._offset
            c, s = math.cos(math.radians(pose.th)), math.sin(math.radians(pose.th))
            held.x = pose.x + ox * c - oy * s
            held.y = pose.y + ox * s + oy * c
            held.th = pose.th + oth
            held.lifted = self.lift > 0.0
        self._update_beams(pose, boxes)

    def _step_lift(self, dt: float) -> None:
        if not self.lift_dir:
            return
        run = dt
        if self.lift_time_left is not None:
            run = min(dt, self.lift_time_left)
            self.lift_time_left -= run
        self.lift = min(1.0, max(0.0, self.lift + self.lift_dir * run / LIFT_TRAVEL_S))
        done = self.lift_time_left is not None and self.lift_time_left <= 0.0
        if done or self.lift in (0.0, 1.0):
            self.lift_dir = 0
            self.lift_time_left = None

    def _step_paddles(self, dt: float, pose: Pose, boxes: list[SimObject]) -> None:
        if not self.paddle_dir:
            return
        rate = dt / PADDLE_TRAVEL_S
        if self.paddle_dir > 0:
            self.paddles = min(1.0, self.paddles + rate)
            if self.paddles >= 1.0:
                self.paddle_dir = 0
            return
        target = max(0.0, self.paddles - rate)
        contact = self._box_between(pose, boxes)
        if contact is not None:
            box, width, x_centre = contact
            if target * OPEN_WIDTH <= width:
                self.paddles = min(self.paddles, width / OPEN_WIDTH)
                self.paddle_dir = 0
                self.pressing = True
                self._grasp(box, x_centre, pose)
                return
        self.paddles = target
        if target <= 0.0:
            self.paddle_dir = 0
            self.pressing = True  # shut on nothing: both paddle switches read "triggered"

    def _box_between(self, pose: Pose, boxes: list[SimObject]) -> tuple[SimObject, float, float] | None:
        """The box the closing paddles meet first: (box, its width across, its centre's x)."""
        half = self.gap / 2.0
        best: tuple[SimObject, float, float] | None = None
        for box in boxes:
            local = to_robot_frame(box.corners(), pose)
            span = y_span(local, self.throat, self.throat + PADDLE_LENGTH)
            if span is None or span[1] <= -half or span[0] >= half:
                continue
            width = min(span[1] - span[0], self.gap)
            if best is None or width > best[1]:
                best = (box, width, float(local[:, 0].mean()))
        return best

    def _grasp(self, box: SimObject, x_centre: float, pose: Pose) -> None:
        self.held = box
        box.holder = self
        self._offset = (x_centre, 0.0, box.th - pose.th)

    def _update_beams(self, pose: Pose, boxes: list[SimObject]) -> None:
        half = max(self.gap, 1.0) / 2.0
        inner = outer = False
        for box in boxes:
            local = to_robot_frame(box.corners(), pose)
            for ahead, which in ((INNER_BEAM, "inner"), (OUTER_BEAM, "outer")):
                x = self.throat + ahead
                span = y_span(local, x, x)
                if span is not None and span[1] > -half and span[0] < half:
                    if which == "inner":
                        inner = True
                    else:
                        outer = True
        self.inner_beam, self.outer_beam = inner, outer
