"""Gripper and RC-servo (pan-tilt) commands, the gripper switch byte and the 0xE0 gripper packet.

Sources: docs/protocol.md §9 (GRIPPER 33, GRIPPERVAL 36, GRIPPERPACREQUEST 37, PTUPOS 41),
§5 (the ARCOS SIP's gripper byte) and §9 (the 0xE0 packet); ARIA's ``ArGripper`` for the codes and
the meaning of each switch bit.

* **GRIPPER codes.** ARCOS (ARIA): 1 open, 2 close, 3 stop the paddles, 4 lift up, 5 lift down,
  6 stop the lift, 7 store (close and lift up), 8 deploy (lift down and open), 15 halt both,
  16 grip pressure and 17 lift carry (each followed by a GRIPPERVAL in 20 ms units). The PSOS table
  keeps only the values 0, 1, 4 and 5 legibly; saphira reads PSOS with the same numbers and
  takes 0 as "halt", the one meaning left for a value ARCOS does not use.
* **Switch byte** (ARCOS SIP gripper byte, 0xE0 packet, or a Pioneer 1's digital inputs): bit 0 is 0
  when the paddles are fully open, bit 1 is 0 when the lift is at either end, bits 2/3 are set while
  the outer/inner break beam is broken, bits 4/5 are 0 while the left/right paddle presses on
  something (or is fully closed), bit 6 is set while the lift moves, bit 7 while the paddles move.
* **PTUPOS** carries two bytes in one integer: high byte the servo (0-4), low byte the pulse width in
  10 µs units (0-200, i.e. 0-2 ms), as ``sfRobotCom2Bytes(sfCOMPTUPOS, servo, width)`` sends it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Final

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import PacketId


class GripperCommand(IntEnum):
    """The argument of GRIPPER (33)."""

    HALT_PSOS = 0
    """PSOS: saphira's reading of the value 0 (halt paddles and lift)."""
    OPEN = 1
    CLOSE = 2
    STOP = 3
    """Stop the paddles where they are."""
    LIFT_UP = 4
    LIFT_DOWN = 5
    LIFT_STOP = 6
    STORE = 7
    """Close the paddles and raise the lift."""
    DEPLOY = 8
    """Lower the lift and open the paddles."""
    HALT = 15
    PRESSURE = 16
    """Grip pressure: the next GRIPPERVAL gives how long to keep squeezing (20 ms units)."""
    LIFT_CARRY = 17
    """Lift carry: the next GRIPPERVAL gives how long to drive the lift (± 20 ms units)."""


class GripperSwitches(IntFlag):
    """Bits of the gripper switch byte (ARIA ``ArGripper`` reads them this way)."""

    NOT_OPEN = 0x01
    """Clear when the paddles are fully open (inner limit switch)."""
    LIFT_BETWEEN = 0x02
    """Clear when the lift is at the top or the bottom."""
    OUTER_BEAM = 0x04
    """The outer break beam (between the paddle tips) is broken."""
    INNER_BEAM = 0x08
    """The inner break beam (near the robot) is broken."""
    LEFT_FREE = 0x10
    """Clear while the left paddle presses on something (or is fully closed)."""
    RIGHT_FREE = 0x20
    """Clear while the right paddle presses on something (or is fully closed)."""
    LIFT_MOVING = 0x40
    PADDLES_MOVING = 0x80


class GripperIo(IntEnum):
    """The 0xE0 packet's first byte: where the robot reports the switches (ARIA's gripper types)."""

    NONE = 0
    USER_IO = 1
    """The switch byte is the SIP's digital inputs (a Pioneer 1 gripper on the user I/O port)."""
    GENERAL_IO = 2
    """The switch byte is in the ARCOS SIP's gripper bytes."""


class GripState(IntEnum):
    """The paddles as ARIA's ``getGripState`` reports them."""

    BETWEEN = 0
    OPEN = 1
    CLOSED = 2


def grip_state(switches: int) -> GripState:
    """Closed when both paddles press (or are shut), open at the inner limit, else between."""
    if not switches & (GripperSwitches.LEFT_FREE | GripperSwitches.RIGHT_FREE):
        return GripState.CLOSED
    if not switches & GripperSwitches.NOT_OPEN:
        return GripState.OPEN
    return GripState.BETWEEN


def break_beams(switches: int) -> int:
    """0 none broken, 1 the inner beam, 2 the outer beam, 3 both (ARIA ``getBreakBeamState``)."""
    inner = 1 if switches & GripperSwitches.INNER_BEAM else 0
    outer = 2 if switches & GripperSwitches.OUTER_BEAM else 0
    return inner | outer


def lift_maxed(switches: int) -> bool:
    """True when the lift is at its top or bottom stop."""
    return not switches & GripperSwitches.LIFT_BETWEEN


@dataclass(frozen=True, slots=True)
class GripperPacket:
    """The 0xE0 packet sent after GRIPPERPACREQUEST 1 (once) or 2 (every cycle)."""

    io: int = GripperIo.GENERAL_IO
    switches: int = 0
    grasp_time: int = 0
    """How long (20 ms units) the gripper keeps squeezing once both paddles press."""


_GRIPPER: Final = struct.Struct("<BBBB")


def encode_gripper_packet(packet: GripperPacket) -> bytes:
    """The framed 0xE0 packet; :class:`EncodeError` names a field outside 0..255."""
    for name in ("io", "switches", "grasp_time"):
        value = getattr(packet, name)
        if not 0 <= value <= 0xFF:
            raise EncodeError(f"gripper packet field {name}={value} is outside 0..255")
    return encode_packet(_GRIPPER.pack(PacketId.GRIPPER, packet.io, packet.switches, packet.grasp_time))


def decode_gripper_packet(payload: bytes | bytearray) -> GripperPacket:
    """Decode a 0xE0 payload (ID byte first); :class:`DecodeError` names the byte offset."""
    if not payload or payload[0] != PacketId.GRIPPER:
        raise DecodeError("not a gripper packet (ID 0xE0)", 0)
    if len(payload) < _GRIPPER.size:
        raise DecodeError(f"gripper packet of {len(payload)} bytes, expected {_GRIPPER.size}", len(payload))
    _, io, switches, grasp = _GRIPPER.unpack_from(payload)
    return GripperPacket(io, switches, grasp)


PTU_SERVOS: Final = 5
"""Servo numbers 0..4 (PSOS)."""
PTU_MAX_WIDTH: Final = 200
"""Largest pulse width, 10 µs units (2 ms)."""


def ptu_arg(servo: int, width: int) -> int:
    """The PTUPOS integer for ``servo`` and a pulse ``width`` in 10 µs units (high byte = servo)."""
    if not 0 <= servo < PTU_SERVOS:
        raise EncodeError(f"servo {servo} is outside 0..{PTU_SERVOS - 1}")
    if not 0 <= width <= PTU_MAX_WIDTH:
        raise EncodeError(f"pulse width {width} is outside 0..{PTU_MAX_WIDTH} (10 µs units)")
    return servo << 8 | width


def split_ptu_arg(value: int) -> tuple[int, int]:
    """(servo, pulse width) from a PTUPOS integer, as the server reads it (high byte, low byte)."""
    word = value & 0xFFFF
    return word >> 8, word & 0xFF
