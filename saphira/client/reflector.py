"""The state reflector: the robot as last reported, and the setpoints to reflect back (docs/architecture.md §4).

:class:`RobotState` is the manual's ``sfRobot``. :class:`Reflector` turns each SIP into it, applying
the parameter file's conversion factors (the only place raw units become mm, degrees and volts), and
moves everything kept in the robot's frame — the sonar buffers and the artifacts' local coordinates —
by the motion the SIP reports, so the LPS stays registered. The setpoints live in
:class:`~saphira.client.motion.MotionControl`; their position feedback is set here.

Three frames (docs/architecture.md §4): the server's odometric frame (``odo_x``, ``odo_y``, ``odo_th``), the LPS
(the robot is always at 0, 0, 0), and the global frame (``ax``, ``ay``, ``ath``), which follows the
odometric motion and can be corrected (``move_robot``, ``set_global_pose``) by registration or the user.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from saphira.client.artifacts import PointList
from saphira.client.motion import MotionControl
from saphira.client.odometry import Motion, OdometryIntegrator
from saphira.client.sensors.accessories import AccessoryReflector
from saphira.client.sensors.device import DEVICE_GROUP, Device, device_types
from saphira.client.sensors.laser import LaserScan, ReflectedLaser
from saphira.client.sensors.sonar import NO_ECHO, Sonar, SonarPose
from saphira.core.geometry import Pose, norm2_angle
from saphira.core.plugins import registered_instance
from saphira.params.robot_params import RobotParams
from saphira.protocol.sip import Sip

D = TypeVar("D", bound=Device)


class RobotStatus(Enum):
    NOT_CONNECTED = "not connected"
    STOPPED = "stopped"
    MOVING = "moving"
    STALLED = "stalled"
    NO_HIGH_POWER = "no high power"


@dataclass
class RobotState:
    """The reported robot (``sfRobot``): mm, degrees, mm/s, deg/s, volts."""

    ax: float = 0.0
    ay: float = 0.0
    ath: float = 0.0
    odo_x: float = 0.0
    odo_y: float = 0.0
    odo_th: float = 0.0
    leftv: float = 0.0
    rightv: float = 0.0
    vel: float = 0.0
    rvel: float = 0.0
    status: RobotStatus = RobotStatus.NOT_CONNECTED
    battery: float = 0.0
    stall_word: int = 0
    stall_left: bool = False
    stall_right: bool = False
    front_bumpers: int = 0
    rear_bumpers: int = 0
    control: float = 0.0
    """The server's heading setpoint, as an offset from the current heading (degrees)."""
    compass: float | None = None
    digin: int = 0
    digout: int = 0
    analog: int = 0
    motors_enabled: bool = False
    sonar_enabled: bool = False
    temperature: int | None = None
    motor_packet_count: int = 0
    """SIPs received during the last second of clock time (MPac)."""
    sonar_packet_count: int = 0
    """Sonar readings received during the last second (SPac): one per transducer firing, the manual's
    "sonar packets, about 25" of a Pioneer 1 whose sonars fire at 25 Hz while SIPs come at 10 Hz
    (several readings ride in one SIP). The simulator fires every 20 ms, as later robots do: ~50."""
    sips: int = 0

    # The robot is the origin of its own frame (the manual's x, y, th fields).
    x: float = 0.0
    y: float = 0.0
    th: float = 0.0

    @property
    def global_pose(self) -> Pose:
        return Pose(self.ax, self.ay, self.ath)

    @property
    def odo_pose(self) -> Pose:
        """The server's odometric pose (``odo_x``, ``odo_y``, ``odo_th``)."""
        return Pose(self.odo_x, self.odo_y, self.odo_th)

    @property
    def stalled(self) -> bool:
        return self.stall_left or self.stall_right


@dataclass(frozen=True)
class PoseReport:
    """One step of a simulator that reports where its robot is instead of sending SIPs (Flat, Gamebots):
    what its link worked out from the wire, in Saphira's units, handed to :meth:`Reflector.apply_report`.

    ``pose`` (mm, mm, deg) is the odometric pose; ``motion`` is the motion since the last report (where the
    robot now is in its previous frame: mm ahead, mm left, deg turned), None when the pose places the
    robot (the first report, a new map): the global pose becomes ``pose`` and the sonar buffers are
    cleared. ``battery`` and ``sonar_enabled`` None leave the state's as they are.
    """

    pose: Pose
    motion: Pose | None
    vel: float
    rvel: float
    leftv: float
    rightv: float
    stalled: bool
    battery: float | None = None
    sonar_enabled: bool | None = None


class Reflector:
    """Applies SIPs to the state, the sonar, the artifacts and the setpoints' position feedback.

    It holds state and offers the methods that update it; it decodes no packets: the links do
    (:mod:`saphira.client.link.devices` hands the Pioneer protocol's device packets to :attr:`devices`)."""

    def __init__(self, params: RobotParams, *, front_max_range: float = 2500.0) -> None:
        self.state = RobotState()
        self.motion = MotionControl()
        self.pointlist = PointList()
        self.sonar = Sonar([], front_max_range=front_max_range)
        self.devices: dict[str, Device] = {kind.name: kind(self) for kind in device_types()}
        """Every registered device by name (:mod:`saphira.client.sensors.device`)."""
        self.accessories = self.device("accessories", AccessoryReflector)
        """Gripper, RC servo and FTVS vision state (:mod:`saphira.client.sensors.accessories`)."""
        self.laser = self.device("laser", ReflectedLaser)
        self.params = params
        self.configure(params)

    def configure(self, params: RobotParams) -> None:
        """Adopt a robot's parameters (on connect): conversion factors, sonar geometry, limits."""
        self.params = params
        self.odometry = OdometryIntegrator(params.dist_conv_factor, params.angle_conv_factor)
        self._vel_conv = params.vel_conv_factor
        self._range_conv = params.range_conv_factor
        self._diff_conv = params.diff_conv_factor
        self.sonar = Sonar(
            [SonarPose(u.x, u.y, u.th) for u in params.sonar_units],
            front_buffer=params.front_buffer,
            side_buffer=params.side_buffer,
            front_max_range=self.sonar.front_max_range,
        )
        for device in self.devices.values():
            device.configure(params)
            source = device.lps_source()
            if source is not None:
                self.sonar.join(source)
        self.motion.limit_velocity = float(params.trans_vel_max or params.max_velocity)
        self.motion.limit_rvelocity = float(params.rot_vel_max or params.max_rvelocity)
        self.motion.deceleration = float(params.trans_decel or params.max_acceleration or 300.0)

    def restart(self) -> None:
        """A new session: odometry counters start afresh; nothing has been sent yet."""
        self.odometry.reset()
        self.motion.forget_sent()
        for device in self.devices.values():
            device.restart()

    def device(self, name: str, kind: type[D]) -> D:
        """The device registered as ``name``, which must be a ``kind`` (a TypeError names what it is)."""
        return registered_instance(self.devices, name, kind, DEVICE_GROUP)

    def apply_sip(self, sip: Sip) -> Motion:
        """Fold one SIP into the reflector and return the motion it reported."""
        state = self.state
        motion = self.odometry.update(sip.x, sip.y, sip.th)
        odo = self.odometry
        state.odo_x, state.odo_y, state.odo_th = odo.x, odo.y, odo.th
        self.motion.pose.x, self.motion.pose.y, self.motion.pose.th = odo.x, odo.y, odo.th
        if motion.forward or motion.left or motion.dth:
            self._move_global(motion.forward, motion.left, motion.dth)
            self.sonar.move(motion.forward, motion.left, motion.dth)
        odo_pose, global_pose = Pose(odo.x, odo.y, odo.th), state.global_pose
        for number, units in sip.sonar:
            self.sonar.add_reading(number, min(NO_ECHO, round(units * self._range_conv)), odo_pose, global_pose)

        state.leftv = sip.left_vel * self._vel_conv
        state.rightv = sip.right_vel * self._vel_conv
        state.vel = (state.leftv + state.rightv) / 2.0
        self.motion.pose.vel = state.vel
        if sip.rot_vel is not None:
            state.rvel = sip.rot_vel / 10.0
        else:
            state.rvel = math.degrees((state.rightv - state.leftv) / 2.0 * self._diff_conv)
        state.battery = (sip.battery_dv if sip.battery_dv is not None else sip.battery) / 10.0
        state.stall_word = sip.stall
        state.stall_left = sip.left_motor_stalled
        state.stall_right = sip.right_motor_stalled
        state.front_bumpers = (sip.stall >> 9) & 0x7F
        state.rear_bumpers = (sip.stall >> 1) & 0x7F
        state.control = norm2_angle(math.degrees((sip.control - sip.th) * self.params.angle_conv_factor))
        self.motion.pose.control = state.control
        state.compass = sip.compass * 2.0 if sip.compass else None
        state.motors_enabled = sip.motors_enabled
        state.sonar_enabled = sip.sonar_enabled
        state.digin = sip.digin or 0
        state.digout = sip.digout or 0
        state.analog = sip.analog or 0
        state.temperature = sip.temperature
        self.accessories.apply_sip(sip)
        state.sips += 1
        if state.stalled:
            state.status = RobotStatus.STALLED
        elif sip.moving or abs(state.vel) > 1.0 or abs(state.rvel) > 0.5:
            state.status = RobotStatus.MOVING
        else:
            state.status = RobotStatus.STOPPED
        return motion

    def apply_laser_scan(self, scan: LaserScan) -> LaserScan:
        """Keep a complete scan (however its link decoded it): the latest, numbered, its points the LPS
        ring moved to where the robot is now."""
        return self.laser.keep(scan, self.state.odo_pose)

    def apply_sonar_ranges(self, readings: Iterable[tuple[int, int]]) -> None:
        """Sonar ranges (transducer, mm) taken at the current pose, from a link whose protocol reports
        ranges rather than SIPs (Flat, Gamebots); the sonar counts as on."""
        state = self.state
        odo, global_pose = state.odo_pose, state.global_pose
        for number, mm in readings:
            self.sonar.add_reading(number, mm, odo, global_pose)
        state.sonar_enabled = True

    def apply_report(self, report: PoseReport) -> None:
        """Fold one step of a pose-reporting simulator (:class:`PoseReport`) in, as :meth:`apply_sip` does a SIP."""
        state = self.state
        x, y, th = report.pose
        if report.motion is None:
            self.set_global_pose(x, y, th)
            self.sonar.clear()
        else:
            forward, left, dth = report.motion
            self._move_global(forward, left, dth)
            self.sonar.move(forward, left, dth)
        state.vel, state.rvel = report.vel, report.rvel
        state.leftv, state.rightv = report.leftv, report.rightv
        state.stall_left = state.stall_right = report.stalled
        state.stall_word = 0x0101 if report.stalled else 0
        state.odo_x, state.odo_y, state.odo_th = x, y, th
        motion_pose = self.motion.pose
        motion_pose.x, motion_pose.y, motion_pose.th, motion_pose.vel, motion_pose.control = x, y, th, state.vel, 0.0
        if report.battery is not None:
            state.battery = report.battery
        if report.sonar_enabled is not None:
            state.sonar_enabled = report.sonar_enabled
        state.motors_enabled = True
        state.sips += 1
        if state.stalled:
            state.status = RobotStatus.STALLED
        elif abs(state.vel) > 1.0 or abs(state.rvel) > 0.5:
            state.status = RobotStatus.MOVING
        else:
            state.status = RobotStatus.STOPPED

    def set_rates(self, motor_packets: int, sonar_packets: int, now: float) -> None:
        """The link's packet counts over the last second (MPac, SPac; VPac is counted here)."""
        self.state.motor_packet_count, self.state.sonar_packet_count = motor_packets, sonar_packets
        self.accessories.update_rates(now)

    def disconnected(self) -> None:
        """The link is down: no setpoints, no status, no packet rates."""
        self.motion.reset()
        self.state.status = RobotStatus.NOT_CONNECTED
        self.state.motor_packet_count = self.state.sonar_packet_count = 0

    def _move_global(self, forward: float, left: float, dth: float) -> None:
        state = self.state
        rad = math.radians(state.ath)
        c, s = math.cos(rad), math.sin(rad)
        state.ax += c * forward - s * left
        state.ay += s * forward + c * left
        state.ath = norm2_angle(state.ath + dth)
        self.pointlist.update_local(state.global_pose)

    def move_robot(self, dx: float, dy: float, dth: float) -> None:
        """Shift the global pose by (dx, dy) in the robot frame and turn it dth (``sfMoveRobot``)."""
        self._move_global(dx, dy, dth)

    def set_global_pose(self, x: float, y: float, th: float) -> None:
        """Place the robot in the global frame (registration, or the user's ``sfRobot.ax = …``)."""
        state = self.state
        state.ax, state.ay, state.ath = x, y, norm2_angle(th)
        self.pointlist.update_local(state.global_pose)
