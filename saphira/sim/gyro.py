"""The simulated analog gyro: ARCOS's 0x98 packets after each SIP while GYRO 1 has turned them on.

Each packet carries the readings of one cycle at ARIA's 25 ms sample period (four per 100 ms), every
one the robot's true turn rate as an ADC count around :data:`~saphira.protocol.gyro.GYRO_ZERO`
(clockwise above it, :mod:`saphira.protocol.gyro`), without noise: it draws nothing from the
simulation's random stream, so a run's other sensors are the same with or without it. The
temperature byte is a constant 25. A new session starts with the gyro off, as ARIA expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from saphira.protocol.command_packet import CommandPacket
from saphira.protocol.commands import Command
from saphira.protocol.gyro import DEG_PER_COUNT, GYRO_ZERO, SAMPLE_PERIOD, GyroPacket, GyroReading, encode_gyro_packet
from saphira.sim.devices import Handler, SimDevice

if TYPE_CHECKING:
    from saphira.sim.server import PioneerServer

__all__ = ["SimGyro"]

TEMPERATURE = 25


class SimGyro(SimDevice):
    """The gyro of the robot the server serves."""

    name = "gyro"
    order = 30

    def __init__(self, server: PioneerServer) -> None:
        super().__init__(server)
        self.on = False
        """GYRO 1 (or 2) turned the packets on."""
        self.packets_sent = 0

    def handlers(self, installed: Mapping[int, Handler]) -> dict[int, Handler]:
        return {Command.GYRO: self._gyro}

    def _gyro(self, command: CommandPacket) -> None:
        self.on = command.magnitude != 0  # 1 gyro and encoders, 2 ARIA's gyro-only mode: packets either way

    def end_session(self) -> None:
        self.on = False

    def packets(self) -> bytes:
        if not self.on:
            return b""
        server = self.server
        count = max(1, round(server.period / SAMPLE_PERIOD))
        rate = min(max(round(GYRO_ZERO - server.robot.rvel / DEG_PER_COUNT), 0), 1023)
        self.packets_sent += 1
        return encode_gyro_packet(GyroPacket((GyroReading(rate, TEMPERATURE),) * count))
