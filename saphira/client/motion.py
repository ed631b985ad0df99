"""Motion setpoints and the direct motion API (docs/colbert.md §5, docs/architecture.md §4–§5).

Two independent channels, **translation** (velocity or a distance to travel) and **rotation**
(velocity or a heading), are set here and reflected to the robot as command packets by
:meth:`MotionControl.commands`: a command goes out when its value changes and again every refresh
period, because the link may lose packets.

Decisions the manual leaves open, documented here:

* Heading setpoints (``set_heading``, ``set_dheading``, the behaviors' turn output) go out as the
  manual's default says (``sfHasDCHead`` 0): as DHEAD, the change that brings the robot to the
  setpoint, computed from the reported heading (or, for the command that counts from the server's
  setpoint, the reported setpoint) and sent once per change, never resent (a resent relative turn
  would turn the robot twice): a lost packet loses that turn, as on the original. :attr:`MotionControl.turn_command`
  DCHEAD is ``sfHasDCHead`` 1; HEAD sends the absolute heading, resent every refresh as ARIA does,
  for a link that loses packets.
* Position moves (``set_position``) are controlled here, from the reflected odometry: the client
  commands a velocity that follows a deceleration profile to the target. This works on every server,
  including PSOS without MOVE, and a lost packet only delays the next correction.
* **No progress**: a position or heading move that gets no closer to its target for
  :data:`DEFAULT_NO_PROGRESS_TIMEOUT` seconds (a stall, a wall, behaviors holding the robot at zero
  speed) is *blocked* (:meth:`MotionControl.blocked`); whoever waits on it decides what that means
  (a Colbert motion statement fails its activity). The timeout is :attr:`MotionControl.no_progress_timeout`.
* Precedence: a direct motion call takes its channel from the behaviors until :meth:`release` (Colbert
  motion statements release when they finish); ``behavior_control`` (the manual's
  ``sfBehaviorControl``) switches behavior output off for both channels.
* Holders: each take remembers who made it (:attr:`MotionControl.holder`, the task being stepped), so
  a part that fails can have the channels it last set stopped and given back (:meth:`stop_held_by`),
  as a failed Colbert activity's are, instead of leaving its last setpoint in force.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from saphira.core.geometry import norm2_angle, norm_angle
from saphira.protocol.commands import Command

DEFAULT_REFRESH_PERIOD = 0.5
"""Seconds between resends of an unchanged setpoint (ARIA's value; PSOS needs one every 2 s)."""

DEFAULT_POSITION_SPEED = 300.0
"""Top speed of a position move until ``set_max_velocity`` says otherwise (mm/s)."""

RELATIVE_TURNS = (Command.DHEAD, Command.DCHEAD)
"""Heading commands that turn by their argument instead of to it (never resent)."""

DEFAULT_DECELERATION = 300.0
POSITION_DEADBAND = 5.0
"""Remaining distance (mm) below which a position move commands zero velocity."""
REACTION_TIME = 0.2
"""Seconds between a velocity command and its effect showing in a SIP (one cycle out, one back).

Position moves brake early by the distance covered in this time, so they stop on the target
instead of overshooting it by that much."""
BRAKING_MARGIN = 0.8
"""Fraction of the robot's deceleration a position move plans with, leaving room for its lag."""
DEFAULT_NO_PROGRESS_TIMEOUT = 5.0
"""Seconds a position or heading move may go without getting closer to its target before it is blocked.

A Pioneer at its default 300 mm/s covers :data:`PROGRESS_DISTANCE` in a few hundredths of a second
and starts moving within half a second of a command, so 5 s without progress is a robot held by a
wall, a stall or an obstacle, not a slow start; yet it is long enough to ride out a brief stop."""
PROGRESS_DISTANCE = 10.0
"""A position move progresses when the distance still to go shrinks by at least this much (mm)."""
PROGRESS_ANGLE = 2.0
"""A heading move progresses when the heading error shrinks by at least this much (degrees)."""


class Channel(Enum):
    TRANSLATION = "translation"
    ROTATION = "rotation"


class TransMode(Enum):
    NONE = "none"
    VELOCITY = "velocity"
    POSITION = "position"


class RotMode(Enum):
    NONE = "none"
    VELOCITY = "velocity"
    HEADING = "heading"


@dataclass
class OdometricPose:
    """Where the robot is in the server's dead-reckoned frame (mm, mm, degrees)."""

    x: float = 0.0
    y: float = 0.0
    th: float = 0.0
    vel: float = 0.0
    """Reported translational velocity, mm/s."""
    control: float = 0.0
    """The server's heading setpoint as reported, relative to ``th`` (degrees)."""


class MotionControl:
    """The setpoint half of the state reflector and the direct motion API."""

    def __init__(
        self,
        *,
        max_velocity: float = 2200.0,
        max_rvelocity: float = 500.0,
        deceleration: float = DEFAULT_DECELERATION,
        refresh_period: float = DEFAULT_REFRESH_PERIOD,
    ) -> None:
        self.pose = OdometricPose()
        self.limit_velocity = max_velocity
        self.limit_rvelocity = max_rvelocity
        self.deceleration = deceleration
        self.refresh_period = refresh_period
        self.behavior_control = True
        self.direct = {Channel.TRANSLATION: False, Channel.ROTATION: False}
        self.trans_mode = TransMode.NONE
        self.rot_mode = RotMode.NONE
        self.velocity = 0.0
        self.rvelocity = 0.0
        self.heading = 0.0
        self.max_velocity = DEFAULT_POSITION_SPEED
        self.turn_command = Command.DHEAD
        """How a heading setpoint goes out: DHEAD (the manual's default), DCHEAD or HEAD (absolute)."""
        self.turn_from_current = Command.DCHEAD
        """The relative command that counts from the current heading; the other counts from the server's
        setpoint. PSOS (the manual): DCHEAD; ARCOS (ArCommands): DHEAD. The link sets it on connect."""
        self._pos_start = (0.0, 0.0, 0.0)
        self._pos_distance = 0.0
        self._sent: dict[Channel, tuple[Command, int] | None] = dict.fromkeys(Channel)
        self._sent_at: dict[Channel, float] = dict.fromkeys(Channel, -math.inf)
        self.no_progress_timeout = DEFAULT_NO_PROGRESS_TIMEOUT
        self._progress: dict[Channel, tuple[float, float] | None] = dict.fromkeys(Channel)
        """Per channel: (smallest distance or error to go seen, clock time it was reached)."""
        self.holder: Callable[[], object | None] = lambda: None
        """Who takes a channel now; a :class:`~saphira.robot.Robot` answers with the task being stepped."""
        self._held_by: dict[Channel, object | None] = dict.fromkeys(Channel)
        self._takes: dict[Channel, int] = dict.fromkeys(Channel, 0)

    # ------------------------------------------------------------ direct motion (docs/colbert.md §7)
    def set_velocity(self, vel: float) -> None:
        """Translational velocity setpoint in mm/s (signed)."""
        self._take(Channel.TRANSLATION)
        self.trans_mode = TransMode.VELOCITY
        self.velocity = self._clamp(vel, self.limit_velocity)

    def set_rvelocity(self, rvel: float) -> None:
        """Rotational velocity setpoint in deg/s (positive counter-clockwise)."""
        self._take(Channel.ROTATION)
        self.rot_mode = RotMode.VELOCITY
        self.rvelocity = self._clamp(rvel, self.limit_rvelocity)

    def set_heading(self, head: float) -> None:
        """Absolute heading setpoint in degrees, in the server's odometric frame."""
        self._take(Channel.ROTATION)
        self.rot_mode = RotMode.HEADING
        self.heading = norm2_angle(head)
        self._progress[Channel.ROTATION] = None

    def set_dheading(self, dhead: float) -> None:
        """Change the heading setpoint by ``dhead`` degrees (from the current heading if none is set)."""
        base = self.heading if self.rot_mode == RotMode.HEADING else self.pose.th
        self.set_heading(base + dhead)

    def set_position(self, dist: float) -> None:
        """Travel ``dist`` mm along the current heading (negative: backwards), then stop."""
        self._take(Channel.TRANSLATION)
        self.trans_mode = TransMode.POSITION
        self._pos_start = (self.pose.x, self.pose.y, self.pose.th)
        self._pos_distance = float(dist)
        self._progress[Channel.TRANSLATION] = None

    def set_max_velocity(self, vel: float) -> None:
        """Top speed (mm/s) used during position moves."""
        self.max_velocity = abs(self._clamp(vel, self.limit_velocity))

    def halt(self) -> None:
        """Stop both channels (direct)."""
        self.set_velocity(0.0)
        self.set_rvelocity(0.0)

    def remaining_distance(self) -> float:
        """Signed distance still to travel in a position move (0 when not in one)."""
        if self.trans_mode != TransMode.POSITION:
            return 0.0
        x0, y0, th0 = self._pos_start
        rad = math.radians(th0)
        travelled = (self.pose.x - x0) * math.cos(rad) + (self.pose.y - y0) * math.sin(rad)
        return self._pos_distance - travelled

    def done_position(self, tol: float) -> bool:
        """True once within ``tol`` mm of the commanded position (or when no position move is set)."""
        return abs(self.remaining_distance()) <= tol

    def heading_error(self) -> float:
        if self.rot_mode != RotMode.HEADING:
            return 0.0
        return norm2_angle(self.heading - self.pose.th)

    def done_heading(self, tol: float) -> bool:
        """True once within ``tol`` degrees of the commanded heading (or when no heading is set)."""
        return abs(self.heading_error()) <= tol

    def blocked(self, channel: Channel, now: float) -> bool:
        """True once the position (translation) or heading (rotation) move has got no closer to its target
        for :attr:`no_progress_timeout` seconds of clock time ``now``.

        Call it every cycle while waiting on the move; the first call after a new setpoint starts the watch.
        """
        if channel is Channel.TRANSLATION:
            remaining, step = abs(self.remaining_distance()), PROGRESS_DISTANCE
        else:
            remaining, step = abs(self.heading_error()), PROGRESS_ANGLE
        watch = self._progress[channel]
        if watch is None or remaining <= watch[0] - step:
            self._progress[channel] = (remaining, now)
            return False
        return now - watch[1] >= self.no_progress_timeout

    def target_vel(self) -> float:
        """The velocity setpoint being reflected (mm/s); in a position move, the profile's speed."""
        if self.trans_mode == TransMode.POSITION:
            return self._position_velocity()
        return self.velocity if self.trans_mode == TransMode.VELOCITY else 0.0

    def target_head(self) -> float:
        """The heading setpoint (degrees, odometric frame); the current heading when none is set."""
        return self.heading if self.rot_mode == RotMode.HEADING else self.pose.th

    def release(self, channel: Channel | None = None) -> None:
        """Give ``channel`` (or both) back to the behaviors."""
        for ch in (channel,) if channel is not None else tuple(Channel):
            self.direct[ch] = False
            self._held_by[ch] = None

    def takes(self) -> dict[Channel, int]:
        """How many direct setpoints each channel has had: two counts say what was set in between."""
        return dict(self._takes)

    def stop_channels(self, channels: Iterable[Channel]) -> None:
        """Set each channel's velocity to 0 and give it back to the behaviors (with none running, the robot stops)."""
        for channel in channels:
            if channel is Channel.TRANSLATION:
                self.set_velocity(0.0)
            else:
                self.set_rvelocity(0.0)
            self.release(channel)

    def stop_held_by(self, holder: object) -> list[Channel]:
        """Stop (:meth:`stop_channels`) the channels whose last direct setpoint ``holder`` gave; which they were."""
        channels = [ch for ch in Channel if self.direct[ch] and self._held_by[ch] is holder]
        self.stop_channels(channels)
        return channels

    def owned_by_behaviors(self, channel: Channel) -> bool:
        return self.behavior_control and not self.direct[channel]

    # ------------------------------------------------------------ behavior output (docs/architecture.md §5)
    def behavior_turn(self, dtheta: float) -> None:
        """The blended turn: a heading change relative to the current heading."""
        if self.owned_by_behaviors(Channel.ROTATION):
            self.rot_mode = RotMode.HEADING
            self.heading = norm2_angle(self.pose.th + dtheta)

    def behavior_speed(self, vel: float) -> None:
        if self.owned_by_behaviors(Channel.TRANSLATION):
            self.trans_mode = TransMode.VELOCITY
            self.velocity = self._clamp(vel, self.limit_velocity)

    # ------------------------------------------------------------ reflection
    def commands(self, now: float) -> list[tuple[Command, int]]:
        """Commands to send at clock time ``now``: changed setpoints, and unchanged ones once per refresh."""
        out: list[tuple[Command, int]] = []
        for channel, wanted in (
            (Channel.TRANSLATION, self._trans_command()),
            (Channel.ROTATION, self._rot_command()),
        ):
            if wanted is None:
                continue
            relative = wanted[0] in RELATIVE_TURNS
            if wanted != self._sent[channel] or (not relative and now - self._sent_at[channel] >= self.refresh_period):
                self._sent[channel] = wanted
                self._sent_at[channel] = now
                if relative:
                    wanted = (wanted[0], self._relative_turn(wanted[0]))
                    if wanted[1] == 0:
                        continue
                out.append(wanted)
        return out

    def _relative_turn(self, command: Command) -> int:
        """The DHEAD/DCHEAD argument that brings the server's setpoint to :attr:`heading`."""
        base = self.pose.th if command == self.turn_from_current else self.pose.th + self.pose.control
        return round(norm2_angle(self.heading - base))

    def forget_sent(self) -> None:
        """After a (re)connection nothing has reached the robot yet: resend everything."""
        for channel in Channel:
            self._sent[channel] = None
            self._sent_at[channel] = -math.inf

    def reset(self) -> None:
        """No setpoints at all (e.g. after a disconnect): nothing more is sent until a new one."""
        self.trans_mode = TransMode.NONE
        self.rot_mode = RotMode.NONE
        self.velocity = self.rvelocity = 0.0
        self._progress = dict.fromkeys(Channel)
        self.release()
        self.forget_sent()

    def _trans_command(self) -> tuple[Command, int] | None:
        if self.trans_mode == TransMode.NONE:
            return None
        return (Command.VEL, round(self.target_vel()))

    def _rot_command(self) -> tuple[Command, int] | None:
        if self.rot_mode == RotMode.VELOCITY:
            return (Command.RVEL, round(self.rvelocity))
        if self.rot_mode == RotMode.HEADING:
            return (self.turn_command, round(norm_angle(self.heading)) % 360)
        return None

    def _position_velocity(self) -> float:
        remaining = self.remaining_distance()
        if abs(remaining) <= POSITION_DEADBAND:
            return 0.0
        braking = max(0.0, abs(remaining) - abs(self.pose.vel) * REACTION_TIME)
        speed = min(self.max_velocity, math.sqrt(2.0 * BRAKING_MARGIN * self.deceleration * braking))
        return math.copysign(speed, remaining)

    def _take(self, channel: Channel) -> None:
        self.direct[channel] = True
        self._held_by[channel] = self.holder()
        self._takes[channel] += 1

    @staticmethod
    def _clamp(value: float, limit: float) -> float:
        return max(-limit, min(limit, float(value)))
