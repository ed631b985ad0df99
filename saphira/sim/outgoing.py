"""What a simulated Pioneer sends unasked: the SIP each cycle, the CONFIG reply and SIMSTAT (docs/protocol.md §5, §9).

:class:`PacketWriter` builds them for one :class:`~saphira.sim.server.PioneerServer` from its robot,
layout, options and settings (battery, digital outputs, the accessories' SIP fields), through the
same codec the client decodes with; the wire decisions are in the server's module docstring. It keeps
the sonar readings that did not fit the last SIP (``max_sonar_per_sip``) for the next.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from saphira.protocol.config import ConfigPacket
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.simstat import SimStat
from saphira.protocol.sip import Sip, SipLayout, SonarReading, encode_sip

if TYPE_CHECKING:
    from saphira.sim.server import PioneerServer

__all__ = ["PacketWriter"]

_STALL_BOTH: Final = 0x0101
_SONAR_FLAGS: Final = 0x1E
_NO_TEMPERATURE: Final = -127
_INT32: Final = (1 << 31) - 1


def _clamp(value: float, low: int, high: int) -> int:
    if value != value or value in (math.inf, -math.inf):
        return 0
    v = round(value)
    return low if v < low else high if v > high else v


def _i16(value: float) -> int:
    return _clamp(value, -0x8000, 0x7FFF)


def _u16(value: float) -> int:
    return _clamp(value, 0, 0xFFFF)


def _i32(value: float) -> int:
    return _clamp(value, -_INT32 - 1, _INT32)


class PacketWriter:
    """The SIP, CONFIG and SIMSTAT of ``server``'s robot, in the conversion factors of its model."""

    def __init__(self, server: PioneerServer) -> None:
        self.server = server
        model = server.robot.model
        self._dist_conv = model.dist_conv_factor
        self._angle_conv = model.angle_conv_factor
        self._vel_conv = model.vel_conv_factor or 1.0
        self._range_conv = model.range_conv_factor or 1.0
        self._heading_units = max(1, round(2.0 * math.pi / self._angle_conv))
        self.backlog: list[tuple[int, float]] = []
        """Sonar readings fired but not yet sent (more than one SIP holds)."""

    def _take_sonar(self) -> tuple[SonarReading, ...]:
        readings = self.server.robot.take_new_readings()
        backlog = self.backlog
        if backlog:
            readings = backlog + readings
            backlog.clear()
        limit = self.server.options.max_sonar_per_sip
        if len(readings) > limit:
            backlog.extend(readings[limit : limit * 3])
            readings = readings[:limit]
        scale = 1.0 / self._range_conv
        # Ranges are finite and non-negative (the sensor clips them): only the top needs a bound.
        return tuple([SonarReading(n, min(int(mm * scale + 0.5), 0xFFFF)) for n, mm in readings])

    def sip(self) -> bytes:
        """This cycle's SIP, in the server's layout (ARCOS, or PSOS 4.x for a Pioneer 1 subclass)."""
        robot = self.server.robot
        left, right = robot.wheel_velocities()
        scale = 1.0 / self._vel_conv
        x, y, th = robot.odometry.counters(self._dist_conv, self._angle_conv)
        control = round(math.radians(robot.heading_setpoint) / self._angle_conv)
        battery = self.server.battery
        packet_id = PacketId.SIP_MOVING if robot.is_moving else PacketId.SIP_STOPPED
        stall = _STALL_BOTH if robot.stalled_left or robot.stalled_right else 0
        if self.server.layout is SipLayout.PSOS:
            units = self._heading_units
            psos = Sip(
                packet_id=packet_id,
                x=x & 0x7FFF,
                y=y & 0x7FFF,
                th=th % units,
                left_vel=_i16(left * scale),
                right_vel=_i16(right * scale),
                battery=min(battery, 0xFF),
                stall=stall,
                control=control % units,
                compass=robot.compass // 2,
                sonar=self._take_sonar(),
                ptu=self.server.accessories.ptu_width,
                timer=0,
                analog=0,
                digin=self.server.accessories.switches,
                digout=self.server.digout,
            )
            return encode_sip(psos, SipLayout.PSOS)
        arcos = Sip(
            packet_id=packet_id,
            x=x,
            y=y,
            th=_i16(th),
            left_vel=_i16(left * scale),
            right_vel=_i16(right * scale),
            battery=min(battery, 0xFF),
            stall=stall,
            control=_i16(control),
            flags=(1 if robot.drive.enabled else 0) | (_SONAR_FLAGS if robot.sonar.enabled else 0),
            compass=robot.compass // 2,
            sonar=self._take_sonar(),
            gripper_state=self.server.accessories.switches,
            analog_port=self.server.accessories.switches,
            analog=0,
            digin=0xFF,
            digout=self.server.digout,
            battery_dv=battery,
            charge_state=0,
            rot_vel=_i16(robot.rvel * 10.0),
            fault_flags=0,
            lat_vel=0,
            temperature=_NO_TEMPERATURE,
            state_of_charge=0,
        )
        return encode_sip(arcos)

    def config(self) -> ConfigPacket:
        """The CONFIG (0x20) reply: AMRISim's field values, with this robot's limits and settings."""
        robot = self.server.robot
        model = robot.model
        drive = robot.drive
        headings = [float(h) for h in model.sonar_poses[:, 2]]
        watchdog = self.server.options.watchdog
        return ConfigPacket(
            robot_class=self.server.identity.robot_class,
            subclass=self.server.identity.subclass,
            serial_number="SIM",
            rot_vel_top=_u16(model.max_rvelocity),
            trans_vel_top=_u16(model.max_velocity),
            rot_accel_top=9999,
            trans_accel_top=9999,
            pwm_max=400,
            name=self.server.identity.name,
            sip_cycle_time=_clamp(self.server.period * 1000.0, 1, 0xFF),
            front_sonar=int(any(abs(h) <= 90.0 for h in headings)),
            rear_sonar=int(any(abs(h) > 90.0 for h in headings)),
            watchdog=_u16(watchdog * 1000.0) if watchdog is not None else 0,
            rot_vel_max=_u16(drive.rot_vel_max),
            trans_vel_max=_u16(drive.trans_vel_max),
            rot_accel=_u16(drive.rot_accel),
            rot_decel=_u16(drive.rot_decel),
            trans_accel=_u16(drive.trans_accel),
            trans_decel=_u16(drive.trans_decel),
            firmware_version="S.0",
        )

    def simstat(self) -> SimStat:
        """The SIMSTAT (0x62) contents: timing and the robot's true pose (no GPS, no odometry error)."""
        robot = self.server.robot
        interval = _u16(self.server.period * 1000.0)
        return SimStat(
            sim_interval=interval,
            real_interval=interval,
            last_interval=_u16(self.server.last_interval * 1000.0),
            true_x=_i32(robot.x),
            true_y=_i32(robot.y),
            true_th=_i32(robot.th),
        )
