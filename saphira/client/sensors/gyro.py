"""The analog gyro on the client side: ARIA's ``ArAnalogGyro`` heading, added through the device seam alone.

:class:`AnalogGyro` takes the 0x98 packets (:mod:`saphira.protocol.gyro`) that GYRO 1
(:func:`start_gyro`) asks for, and integrates each reading's turn rate over its 25 ms into
:attr:`AnalogGyro.heading`, independent of the wheels' odometry. As ARIA does, it learns the zero-rate
level while the robot stands still (here the mean of every still reading of the session, the ADC's
mid-scale until one came) and takes a reading within 2 counts of it as no turn while standing still.
It does not correct the odometric heading (ARIA's ``encoderCorrect``): it reports beside it.

Colbert: ``sfGyroStart()``, ``sfGyroStop()``, ``sfGyroHeading()``, ``sfGyroRate()``,
``sfGyroTemperature()``, ``sfGyroReadings()`` (docs/colbert.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from saphira.client.sensors.device import Device, DeviceBinding, DeviceError
from saphira.core.geometry import norm2_angle
from saphira.protocol.commands import Command
from saphira.protocol.gyro import DEG_PER_COUNT, GYRO_ZERO, SAMPLE_PERIOD, decode_gyro_packet
from saphira.protocol.packet_ids import PacketId

if TYPE_CHECKING:
    from saphira.client.reflector import Reflector
    from saphira.robot import Robot

__all__ = ["AnalogGyro", "gyro_of", "start_gyro", "stop_gyro"]

_STILL_VEL = 2.0
"""mm/s and deg/s under which the robot stands still (ARIA's threshold for ignoring small readings)."""
_DEADBAND = 2.0
"""ADC counts from the zero level that count as no turn while standing still."""


class AnalogGyro(Device):
    """Heading (deg, (-180, 180], counter-clockwise positive), rate (deg/s) and temperature from 0x98 packets."""

    name = "gyro"
    packet_ids = frozenset((PacketId.ANALOG_GYRO,))

    def __init__(self, reflector: Reflector) -> None:
        super().__init__(reflector)
        self.restart()

    def restart(self) -> None:
        self.heading = 0.0
        self.rate = 0.0
        self.temperature: int | None = None
        self.readings = 0
        """Readings taken this session (0: the gyro is off or absent)."""
        self._still_sum = 0.0
        self._still_count = 0

    def apply(self, payload: bytes, now: float) -> None:
        state = self.reflector.state
        still = abs(state.vel) < _STILL_VEL and abs(state.rvel) < _STILL_VEL
        for reading in decode_gyro_packet(payload).readings:
            if still:
                self._still_sum += reading.rate
                self._still_count += 1
            zero = self._still_sum / self._still_count if self._still_count else GYRO_ZERO
            offset = reading.rate - zero
            self.rate = 0.0 if still and abs(offset) < _DEADBAND else -offset * DEG_PER_COUNT
            self.heading = norm2_angle(self.heading + self.rate * SAMPLE_PERIOD)
            self.temperature = reading.temperature
            self.readings += 1

    @classmethod
    def bindings(cls) -> Sequence[DeviceBinding]:
        return [
            DeviceBinding("sfGyroStart", "int()", start_gyro, "turn the analog gyro's 0x98 packets on (GYRO 1)"),
            DeviceBinding("sfGyroStop", "int()", stop_gyro, "turn the analog gyro's packets off (GYRO 0)"),
            DeviceBinding("sfGyroHeading", "float()", lambda r: gyro_of(r).heading, "gyro heading, degrees"),
            DeviceBinding("sfGyroRate", "float()", lambda r: gyro_of(r).rate, "gyro turn rate, deg/s"),
            DeviceBinding("sfGyroTemperature", "int()", _temperature, "gyro temperature byte (sensor units)"),
            DeviceBinding("sfGyroReadings", "int()", lambda r: gyro_of(r).readings, "gyro readings this session"),
        ]


def gyro_of(robot: Robot) -> AnalogGyro:
    """The robot's gyro device."""
    return robot.reflector.device("gyro", AnalogGyro)


def start_gyro(robot: Robot) -> bool:
    """GYRO 1: the robot sends its gyro readings after each SIP; False if not sent."""
    return robot.link.send_command(Command.GYRO, 1)


def stop_gyro(robot: Robot) -> bool:
    """GYRO 0: no more gyro packets; False if not sent."""
    return robot.link.send_command(Command.GYRO, 0)


def _temperature(robot: Robot) -> int:
    temperature = gyro_of(robot).temperature
    if temperature is None:
        raise DeviceError("no gyro reading has arrived (sfGyroStart turns the gyro on)")
    return temperature
