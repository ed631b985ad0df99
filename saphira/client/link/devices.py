"""The link's device layer: the Pioneer protocol's device packets, decoded into the reflector's updates.

The link reads SIPs and CONFIG itself; the laser (0x60/0x61), gripper (0xE0) and vision (0x50)
packets come here, and so do the client's own PTUPOS commands (an ARCOS SIP does not report the
servo's pulse width). :class:`DeviceDecoder` decodes each (:mod:`saphira.protocol.laser`,
:mod:`~saphira.protocol.gripper`, :mod:`~saphira.protocol.vision`), reassembles laser scans from their
packets (:class:`~saphira.client.sensors.laser.LaserAssembler`, which keeps its counters here) and
hands what it got to the reflector's methods, so the reflector only holds state.
"""

from __future__ import annotations

from saphira.client.reflector import Reflector
from saphira.client.sensors.laser import LaserAssembler, LaserScan
from saphira.protocol.command_packet import decode_command
from saphira.protocol.commands import ArgType, Command
from saphira.protocol.errors import PacketError
from saphira.protocol.gripper import decode_gripper_packet, split_ptu_arg
from saphira.protocol.laser import decode_laser
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.vision import decode_vision_packet


class DeviceDecoder:
    """Decodes one link's device packets into ``reflector`` (see the module docstring)."""

    def __init__(self, reflector: Reflector) -> None:
        self.reflector = reflector
        self.laser = LaserAssembler()
        """The scans being reassembled, and the counts of packets, scans and broken scans."""

    def restart(self) -> None:
        """A new session: no partial scan."""
        self.laser.reset()

    def apply_laser(self, payload: bytes) -> LaserScan | None:
        """Fold one 0x60/0x61 packet in (PacketError if malformed); the scan it completes, kept by the reflector."""
        reflector = self.reflector
        state = reflector.state
        first = self.laser.feed(decode_laser(payload), state.odo_pose, state.global_pose)
        if first is None:
            return None
        return reflector.apply_laser_scan(self.laser.scan(first, reflector.laser.config))

    def note_sent(self, packet: bytes) -> None:
        """Watch the client's own packets (framed) for PTUPOS, whose value an ARCOS SIP does not report."""
        if len(packet) < 6 or packet[3] != Command.PTUPOS:
            return
        command = decode_command(packet[3:-2])
        if command.arg_type in (ArgType.POSINT, ArgType.NEGINT):
            self.reflector.accessories.note_ptu(*split_ptu_arg(command.int_value))

    def apply_accessory(self, payload: bytes, now: float) -> bool:
        """Take a gripper (0xE0) or vision (0x50) packet; False for any other (or undecodable) one."""
        kind = payload[0] if payload else -1
        accessories = self.reflector.accessories
        try:
            if kind == PacketId.GRIPPER:
                accessories.apply_gripper(decode_gripper_packet(payload))
                return True
            if kind == PacketId.VISION:
                accessories.apply_vision(decode_vision_packet(payload), now)
                return True
        except PacketError:
            return False
        return False
