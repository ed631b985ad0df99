"""The Pioneer accessories on the client side: gripper, RC servos (pan-tilt) and FTVS blob vision.

:class:`AccessoryReflector` is the reflector's part for them (the reflector owns one): it reads the
gripper switch byte from each SIP (the ARCOS gripper byte, or a PSOS robot's digital inputs, where a
Pioneer 1 gripper is wired) and from 0xE0 gripper packets, the PTU word of a PSOS SIP, and the FTVS
vision packets (a device, :mod:`saphira.client.sensors.device`: the link's device layer hands it them) into
the manual's ``sfVaInfo``, ``sfVbInfo``, ``sfVcInfo``; it counts vision packets
per second (the information window's ``VPac``). An ARCOS SIP carries no PTU word, so for those robots
the reflector keeps the pulse width of the last PTUPOS the client sent.

The functions below send the commands (snake_case Python API; the Colbert names are in
:mod:`saphira.colbert.bindings.accessories`). Protocol details: :mod:`saphira.protocol.gripper`,
:mod:`saphira.protocol.vision`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from saphira.client.sensors.device import Device
from saphira.core.rates import PerSecond
from saphira.protocol.commands import Command
from saphira.protocol.gripper import (
    GripperCommand,
    GripperPacket,
    GripState,
    break_beams,
    decode_gripper_packet,
    grip_state,
    lift_maxed,
    ptu_arg,
)
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.sip import Sip
from saphira.protocol.vision import (
    CHANNELS,
    VISION_COM,
    VisionInfo,
    VisionMode,
    VisionPacket,
    decode_vision_packet,
)

if TYPE_CHECKING:
    from saphira.client.reflector import Reflector
    from saphira.robot import Robot


@dataclass
class AccessoryState:
    """The accessories as last reported. ``gripper_switches`` is ``None`` until a report came."""

    gripper_switches: int | None = None
    gripper_io: int | None = None
    """The 0xE0 packet's I/O type (1 user I/O, 2 general I/O), once one came."""
    grasp_time: int = 0
    ptu: int = 0
    """Pulse width (10 µs units) of the last RC-servo command: the PSOS SIP's, else the last one sent."""
    ptu_servos: list[int] = field(default_factory=lambda: [0] * 5)
    """The last pulse width sent to each servo 0-4."""
    vision: list[VisionInfo] = field(default_factory=lambda: [VisionInfo(), VisionInfo(), VisionInfo()])
    """Channels A, B, C of the last vision packet."""
    vision_packet_count: int = 0
    """Vision packets received during the last second (VPac)."""
    vision_packets: int = 0
    gripper_packets: int = 0

    @property
    def grip(self) -> GripState:
        return GripState.BETWEEN if self.gripper_switches is None else grip_state(self.gripper_switches)

    @property
    def beams(self) -> int:
        """0 no beam broken, 1 the inner, 2 the outer, 3 both."""
        return 0 if self.gripper_switches is None else break_beams(self.gripper_switches)

    @property
    def lift_maxed(self) -> bool:
        return self.gripper_switches is not None and lift_maxed(self.gripper_switches)


class AccessoryReflector(Device):
    """The accessories device: folds SIPs, gripper (0xE0) and vision (0x50) packets, and the client's own
    PTUPOS settings into :class:`AccessoryState`."""

    name = "accessories"
    packet_ids = frozenset((PacketId.GRIPPER, PacketId.VISION))

    def __init__(self, reflector: Reflector) -> None:
        super().__init__(reflector)
        self.state = AccessoryState()
        self._vision_times = PerSecond()

    def apply(self, payload: bytes, now: float) -> None:
        """A gripper or vision packet (PacketError if malformed)."""
        if payload[0] == PacketId.GRIPPER:
            self.apply_gripper(decode_gripper_packet(payload))
        else:
            self.apply_vision(decode_vision_packet(payload), now)

    def restart(self) -> None:
        """A new session: nothing reported yet."""
        self.state = AccessoryState()
        self._vision_times.clear()

    def apply_sip(self, sip: Sip) -> None:
        """The gripper byte (ARCOS) or digital inputs and PTU word (PSOS: a SIP with the timer field)."""
        if sip.gripper_state is not None:
            self.state.gripper_switches = sip.gripper_state
        elif sip.timer is not None:
            self.state.ptu = sip.ptu
            if sip.digin is not None:
                self.state.gripper_switches = sip.digin

    def apply_gripper(self, packet: GripperPacket) -> None:
        """A decoded 0xE0 gripper packet: its I/O type, switches and grasp time."""
        state = self.state
        state.gripper_io, state.gripper_switches = packet.io, packet.switches
        state.grasp_time = packet.grasp_time
        state.gripper_packets += 1

    def apply_vision(self, packet: VisionPacket, now: float) -> None:
        """A decoded 0x50 vision packet: channels A, B, C, counted for VPac."""
        self.state.vision = list(packet.channels)
        self.state.vision_packets += 1
        self._vision_times.add(now)

    def note_ptu(self, servo: int, width: int) -> None:
        """The client sent PTUPOS ``width`` to ``servo``, whose value an ARCOS SIP does not report."""
        if servo < len(self.state.ptu_servos):
            self.state.ptu_servos[servo] = width
        self.state.ptu = width

    def update_rates(self, now: float) -> None:
        """Drop vision packets older than a second from the VPac count."""
        self.state.vision_packet_count = self._vision_times.count(now)


# -- commands (the Python API) ---------------------------------------------------------------------


def gripper_command(robot: Robot, code: int) -> bool:
    """Send GRIPPER ``code`` (:class:`~saphira.protocol.gripper.GripperCommand`); False if not sent."""
    return robot.link.send_command(Command.GRIPPER, int(code))


def gripper_open(robot: Robot) -> bool:
    return gripper_command(robot, GripperCommand.OPEN)


def gripper_close(robot: Robot) -> bool:
    return gripper_command(robot, GripperCommand.CLOSE)


def gripper_up(robot: Robot) -> bool:
    return gripper_command(robot, GripperCommand.LIFT_UP)


def gripper_down(robot: Robot) -> bool:
    return gripper_command(robot, GripperCommand.LIFT_DOWN)


def gripper_stop(robot: Robot) -> bool:
    """Stop both the paddles and the lift."""
    return gripper_command(robot, GripperCommand.HALT)


def request_gripper_packets(robot: Robot, mode: int = 2) -> bool:
    """GRIPPERPACREQUEST: 0 none, 1 one 0xE0 packet, 2 one every cycle."""
    return robot.link.send_command(Command.GRIPPERPACREQUEST, mode)


def set_ptu(robot: Robot, servo: int, width: int) -> bool:
    """PTUPOS: drive RC servo ``servo`` (0-4) to a pulse ``width`` in 10 µs units (0-200)."""
    return robot.link.send_command(Command.PTUPOS, ptu_arg(servo, width))


def vision_command(robot: Robot, text: str) -> bool:
    """Send a VISION_COM string (``"pioneer_a_mode 2"``, ``"line_bottom_row 0"`` ...)."""
    return robot.link.send_command(VISION_COM, robot.link.string_arg(text))


def set_vision_mode(robot: Robot, channel: int, mode: VisionMode | int) -> bool:
    """Put channel 0 (A), 1 (B) or 2 (C) in BLOB, LINE or BLOB_BB mode."""
    return vision_command(robot, f"pioneer_{CHANNELS[channel]}_mode {int(mode)}")
