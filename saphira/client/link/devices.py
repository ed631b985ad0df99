"""The link's device layer: the Pioneer protocol's device packets, dispatched to the reflector's devices.

The link reads SIPs and CONFIG itself; every other packet comes here, and goes to the device
(:mod:`saphira.client.sensors.device`) whose ``packet_ids`` hold its id: the laser's 0x60/0x61, the
accessories' 0xE0 and 0x50, the gyro's 0x98, or whatever a registered device names. The client's own
PTUPOS commands come here too (an ARCOS SIP does not report the servo's pulse width).
"""

from __future__ import annotations

from saphira.client.reflector import Reflector
from saphira.client.sensors.device import Device
from saphira.protocol.command_packet import decode_command
from saphira.protocol.commands import ArgType, Command
from saphira.protocol.gripper import split_ptu_arg


class DeviceDecoder:
    """Dispatches one link's device packets to ``reflector``'s devices by packet id (the module docstring)."""

    def __init__(self, reflector: Reflector) -> None:
        self.reflector = reflector
        self.table: dict[int, Device] = {}
        """Packet id → the device that decodes it; two devices naming one id: the first by name wins."""
        for device in reflector.devices.values():
            for packet_id in device.packet_ids:
                self.table.setdefault(packet_id, device)

    def apply(self, payload: bytes, now: float) -> bool:
        """Hand one packet to its device (PacketError if the device finds it malformed); False if no device takes it."""
        device = self.table.get(payload[0]) if payload else None
        if device is None:
            return False
        device.apply(payload, now)
        return True

    def note_sent(self, packet: bytes) -> None:
        """Watch the client's own packets (framed) for PTUPOS, whose value an ARCOS SIP does not report."""
        if len(packet) < 6 or packet[3] != Command.PTUPOS:
            return
        command = decode_command(packet[3:-2])
        if command.arg_type in (ArgType.POSINT, ArgType.NEGINT):
            self.reflector.accessories.note_ptu(*split_ptu_arg(command.int_value))
