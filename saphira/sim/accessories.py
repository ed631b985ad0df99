"""The simulator server's accessories: gripper, RC servos (pan-tilt) and the FTVS camera, on the wire.

:class:`Accessories` is a simulated device (:mod:`saphira.sim.devices`): it gives the
:class:`~saphira.sim.server.PioneerServer` its command handlers, the SIP fields these devices fill and
the packets they add after each SIP. Every simulated robot carries
a gripper, five RC-servo outputs and an FTVS camera. Wire decisions (docs/protocol.md §4, §5, §9, §10;
:mod:`saphira.protocol.gripper`, :mod:`saphira.protocol.vision`):

* GRIPPER (33) drives the gripper (PSOS and ARCOS codes). The switch byte goes into the ARCOS SIP's
  gripper byte and into the high byte of that word too (where ARIA's general-I/O gripper reads it),
  and, for a PSOS robot, into the digital inputs (a Pioneer 1 gripper is wired to the user I/O port).
* GRIPPERPACREQUEST (37) 1 sends one 0xE0 packet, 2 one after every SIP, 0 stops them; the packet
  says general I/O (ARCOS) or user I/O (PSOS). GRIPPERVAL (36) gives the value of a preceding
  GRIPPER 16/17. 36 and 37 are also the old SRISim laser numbers (start and end angle, which ARIA's
  simulated laser sends before 35): 37 is taken as the gripper request only for 0, 1 or 2 (no laser
  has a 0-2 degree end angle) and 36 only right after GRIPPER 16/17; anything else goes to the
  handler the server had for the number before (the laser's).
* PTUPOS (41): high byte the servo 0-4, low byte the pulse width (10 µs units); the PSOS SIP's PTU
  word reports the last pulse width commanded (§9). The ARCOS SIP has no such word.
* VISION (16, ``VISION_COM``) strings set the FTVS (:func:`~saphira.protocol.vision.parse_vision_command`);
  vision packets go out one after every SIP (every 100 ms). On a PSOS robot (the manual's Pioneer 1,
  whose option the FTVS was) they stream from start-up in the default BLOB mode, as the manual's FTVS
  does, before any command; on an ARCOS robot (which AMRISim and ARIA know without one) the first
  VISION_COM starts them, so an ARIA client gets exactly AMRISim's packets until it asks.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from saphira.protocol.command_packet import CommandPacket
from saphira.protocol.commands import Command
from saphira.protocol.gripper import (
    PTU_SERVOS,
    GripperIo,
    GripperPacket,
    encode_gripper_packet,
    split_ptu_arg,
)
from saphira.protocol.sip import SipLayout
from saphira.protocol.vision import encode_vision_packet, parse_vision_command
from saphira.sim.devices import Handler, SimDevice
from saphira.sim.vision import SimCamera

if TYPE_CHECKING:
    from saphira.sim.server import PioneerServer

log = logging.getLogger("saphira.sim.server")

_REQUEST_VALUES = (0, 1, 2)


class Accessories(SimDevice):
    """One robot's accessories as its server sees them; a PSOS robot gets the Pioneer 1 wiring."""

    name = "accessories"
    order = 10

    def __init__(self, server: PioneerServer) -> None:
        super().__init__(server)
        self.simulation = server.simulation
        self.robot = server.robot
        self.psos = server.layout is SipLayout.PSOS
        self.label = server.label
        self.camera = SimCamera()
        self.camera.streaming = self.psos
        self.gripper_requests = 0
        """0 no 0xE0 packets, 1 one with the next SIP, 2 one with every SIP."""
        self.ptu = [0] * PTU_SERVOS
        """Pulse width (10 µs units) last commanded per servo."""
        self.ptu_width = 0
        """The last PTUPOS pulse width, whatever the servo (the PSOS SIP's PTU word)."""
        self.vision_commands = 0
        self.gripper_packets_sent = 0
        self.vision_packets_sent = 0

    def handlers(self, installed: Mapping[int, Handler]) -> dict[int, Handler]:
        """This module's handlers; ``installed`` holds the laser's, for the numbers 36/37 share."""
        old_36 = installed.get(Command.GRIPPERVAL)
        old_37 = installed.get(Command.GRIPPERPACREQUEST)

        def gripper_value(command: CommandPacket) -> None:
            if self.robot.gripper.expects_value:
                self.robot.gripper.value(command.int_value)
            elif old_36 is not None:
                old_36(command)

        def packet_request(command: CommandPacket) -> None:
            if command.int_arg is not None and command.int_arg in _REQUEST_VALUES:
                self.gripper_requests = command.int_arg
            elif old_37 is not None:
                old_37(command)

        return {
            Command.GRIPPER: self._gripper,
            Command.GRIPPERVAL: gripper_value,
            Command.GRIPPERPACREQUEST: packet_request,
            Command.PTUPOS: self._ptupos,
            Command.VISION: self._vision,
        }

    def _gripper(self, command: CommandPacket) -> None:
        if not self.robot.gripper.command(command.int_value):
            log.info("%s: GRIPPER %d is not a gripper code; ignored", self.label, command.int_value)

    def _ptupos(self, command: CommandPacket) -> None:
        servo, width = split_ptu_arg(command.int_value)
        if servo < PTU_SERVOS:
            self.ptu[servo] = width
        self.ptu_width = width

    def _vision(self, command: CommandPacket) -> None:
        text = self.server.string_arg(command).decode("latin-1")
        self.vision_commands += 1
        camera = self.camera
        camera.streaming = True
        try:
            camera.apply(parse_vision_command(text))
        except ValueError as exc:
            log.warning("%s: %s", self.label, exc)

    # -- SIP fields and packets --------------------------------------------------------------------

    @property
    def switches(self) -> int:
        """The gripper switch byte."""
        return self.robot.gripper.switches

    def packets(self) -> bytes:
        """What goes out after this cycle's SIP: the 0xE0 packet if requested, the vision packet."""
        out = b""
        if self.gripper_requests:
            io = GripperIo.USER_IO if self.psos else GripperIo.GENERAL_IO
            gripper = self.robot.gripper
            out += encode_gripper_packet(GripperPacket(io, gripper.switches, gripper.grasp_time))
            self.gripper_packets_sent += 1
            if self.gripper_requests == 1:
                self.gripper_requests = 0
        camera = self.camera
        if camera.streaming:
            robot = self.robot
            seen = camera.observe(robot.pose, self.simulation.objects, self.simulation.world.segments)
            out += encode_vision_packet(seen)
            self.vision_packets_sent += 1
        return out

    def end_session(self) -> None:
        """The client left: no more gripper packets until asked again; vision as at start-up."""
        self.gripper_requests = 0
        self.camera.streaming = self.psos


__all__ = ["Accessories"]
