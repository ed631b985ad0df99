"""The CONFIG packet (ID 0x20), the reply to command CONFIG (18) (docs/protocol.md §6).

Fields in wire order are those ARIA's ``ArRobotConfigPacketReader`` reads; AMRISim sends the first 57
(through ``powerbot_charge_threshold``). Older or newer firmware sends fewer or more, so decoding
stops where the packet does: ``field_count`` records how many fields were present (the rest keep
their defaults: 0, "" and −128 for ``high_temperature_shutdown``, as ARIA assumes), and encoding
writes exactly ``field_count`` fields. Strings are NUL-terminated, decoded as latin-1.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, fields
from typing import Any, Final

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import PacketId


def _f(kind: str, default: int | str = 0) -> Any:
    # The wire type travels in the dataclass field's metadata, so the class is the only layout table.
    return field(default=default, metadata={"kind": kind})


AMRISIM_FIELD_COUNT: Final = 57


@dataclass(slots=True)
class ConfigPacket:
    """Robot configuration as the firmware reports it (units as on the wire: mm, deg, ms, decivolts)."""

    robot_class: str = _f("str", "")
    subclass: str = _f("str", "")
    serial_number: str = _f("str", "")
    at_flag: int = _f("u8")
    rot_vel_top: int = _f("u16")
    trans_vel_top: int = _f("u16")
    rot_accel_top: int = _f("u16")
    trans_accel_top: int = _f("u16")
    pwm_max: int = _f("u16")
    name: str = _f("str", "")
    sip_cycle_time: int = _f("u8")
    host_baud: int = _f("u8")
    aux1_baud: int = _f("u8")
    has_gripper: int = _f("u16")
    front_sonar: int = _f("u16")
    rear_sonar: int = _f("u8")
    low_battery: int = _f("u16")
    rev_count: int = _f("u16")
    watchdog: int = _f("u16")
    normal_mpacs: int = _f("u8")
    stall_val: int = _f("u16")
    stall_count: int = _f("u16")
    joy_vel: int = _f("u16")
    joy_rot_vel: int = _f("u16")
    rot_vel_max: int = _f("u16")
    trans_vel_max: int = _f("u16")
    rot_accel: int = _f("u16")
    rot_decel: int = _f("u16")
    rot_kp: int = _f("u16")
    rot_kv: int = _f("u16")
    rot_ki: int = _f("u16")
    trans_accel: int = _f("u16")
    trans_decel: int = _f("u16")
    trans_kp: int = _f("u16")
    trans_kv: int = _f("u16")
    trans_ki: int = _f("u16")
    front_bumps: int = _f("u8")
    rear_bumps: int = _f("u8")
    has_charger: int = _f("u8")
    sonar_cycle: int = _f("u8")
    reset_baud: int = _f("u8")
    gyro_type: int = _f("u8")
    drift_factor: int = _f("s16")
    aux2_baud: int = _f("u8")
    aux3_baud: int = _f("u8")
    ticks_mm: int = _f("u16")
    shutdown_voltage: int = _f("u16")
    firmware_version: str = _f("str", "")
    gyro_cw: int = _f("u16")
    gyro_ccw: int = _f("u16")
    kinematics_delay: int = _f("u8")
    lat_vel_top: int = _f("u16")
    lat_accel_top: int = _f("u16")
    lat_vel_max: int = _f("u16")
    lat_accel: int = _f("u16")
    lat_decel: int = _f("u16")
    powerbot_charge_threshold: int = _f("u16")
    pdb_port: int = _f("u8")
    gyro_rate_limit: int = _f("u16")
    high_temperature_shutdown: int = _f("s8", -128)
    power_bits: int = _f("u16")
    battery_type: int = _f("u8")
    state_of_charge_low: int = _f("u16")
    state_of_charge_shutdown: int = _f("u16")
    bootloader_version: str = _f("str", "")
    config_flags: int = _f("u32")
    gyro_fw_version: int = _f("s16")
    field_count: int = AMRISIM_FIELD_COUNT
    """How many of the fields above are on the wire (AMRISim: 57)."""
    extra: bytes = b""
    """Bytes after the last complete field."""

    @property
    def reset_baud_enabled(self) -> bool:
        """ARIA switches baud only when this byte is 2."""
        return self.reset_baud == 2

    @property
    def is_simulator(self) -> bool:
        """ARIA treats serial number "SIM" as a simulator (AMRISim sends it)."""
        return self.serial_number == "SIM"


_STRUCTS: Final = {
    kind: struct.Struct(fmt) for kind, fmt in (("u8", "<B"), ("s8", "<b"), ("u16", "<H"), ("s16", "<h"), ("u32", "<I"))
}
_LAYOUT: Final = tuple((f.name, str(f.metadata["kind"])) for f in fields(ConfigPacket) if "kind" in f.metadata)
MAX_FIELD_COUNT: Final = len(_LAYOUT)


def decode_config(payload: bytes | bytearray) -> ConfigPacket:
    """Decode a CONFIG payload (ID 0x20 first). A short packet is not an error (see module doc)."""
    if not payload or payload[0] != PacketId.CONFIG:
        got = f"0x{payload[0]:02X}" if payload else "nothing"
        raise DecodeError(f"packet ID is {got}, expected 0x20 (CONFIG)", 0)
    data = bytes(payload)
    cfg = ConfigPacket()
    pos = 1
    count = 0
    for name, kind in _LAYOUT:
        if kind == "str":
            end = data.find(b"\x00", pos)
            if end < 0:
                break
            setattr(cfg, name, data[pos:end].decode("latin-1"))
            pos = end + 1
        else:
            st = _STRUCTS[kind]
            if pos + st.size > len(data):
                break
            setattr(cfg, name, st.unpack_from(data, pos)[0])
            pos += st.size
        count += 1
    cfg.field_count = count
    cfg.extra = data[pos:]
    return cfg


def config_payload(cfg: ConfigPacket) -> bytes:
    """The payload of :func:`encode_config` (ID byte first, no framing)."""
    if not 0 <= cfg.field_count <= MAX_FIELD_COUNT:
        raise EncodeError(f"field_count {cfg.field_count} is outside 0..{MAX_FIELD_COUNT}")
    parts = [bytes((PacketId.CONFIG,))]
    for name, kind in _LAYOUT[: cfg.field_count]:
        value = getattr(cfg, name)
        if kind == "str":
            if not isinstance(value, str):
                raise EncodeError(f"CONFIG field {name} must be a string, got {value!r}")
            try:
                raw = value.encode("latin-1")
            except UnicodeEncodeError:
                raise EncodeError(f"CONFIG field {name}={value!r} is not latin-1 text") from None
            if b"\x00" in raw:
                raise EncodeError(f"CONFIG field {name}={value!r} contains a NUL")
            parts.append(raw + b"\x00")
        else:
            try:
                parts.append(_STRUCTS[kind].pack(value))
            except struct.error:
                raise EncodeError(f"CONFIG field {name}={value!r} does not fit {kind}") from None
    parts.append(cfg.extra)
    return b"".join(parts)


def encode_config(cfg: ConfigPacket) -> bytes:
    """A complete framed CONFIG packet with the first ``cfg.field_count`` fields."""
    return encode_packet(config_payload(cfg))
