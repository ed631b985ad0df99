"""Server→client packet IDs (docs/protocol.md §5)."""

from __future__ import annotations

from enum import IntEnum


class PacketId(IntEnum):
    """The first payload byte of a server packet."""

    SYNC0 = 0x00
    SYNC1 = 0x01
    SYNC2 = 0x02
    """Echo of SYNC2, followed by the autoconfiguration strings name, class, subclass."""
    CONFIG = 0x20
    SIP_STOPPED = 0x32
    """Standard SIP, motors stopped (PSOS sfSTATUSSTOPPED); AMRISim always sends this one."""
    SIP_MOVING = 0x33
    """Standard SIP, robot moving (PSOS sfSTATUSMOVING)."""
    VISION = 0x50
    """FTVS vision packet (saphira's layout, :mod:`saphira.protocol.vision`)."""
    LASER = 0x60
    LASER_EXTENDED = 0x61
    SIMSTAT = 0x62
    SIMINFO = 0x63
    SIM_MAP_CHANGED = 0x66
    ENCODER = 0x90
    ANALOG_GYRO = 0x98
    SEEKUR_IMU = 0x9A
    GRIPPER = 0xE0
    IO = 0xF0
    JOYSTICK = 0xF8
    BATTERY = 0xFA
    RESET_WITH_DATA = 0xFE
    """Makes ARIA drop the connection; a server must never send it."""
    RESET = 0xFF
    """Microcontroller reset: ARIA drops the connection; a server must never send it."""


SIP_IDS = frozenset((PacketId.SIP_STOPPED, PacketId.SIP_MOVING))
"""The IDs ARIA's ``processMotorPacket`` accepts as a standard SIP."""


def is_sip_id(packet_id: int) -> bool:
    """True for 0x32 and 0x33, the standard SIP ("motor packet") IDs."""
    return packet_id in SIP_IDS
