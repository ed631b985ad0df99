"""The standard SIP ("motor packet", IDs 0x32/0x33) in both layouts (docs/protocol.md §5).

Both layouts share the first 20 payload bytes and the sonar list::

    ID x:u16 y:u16 th:s16 lvel:s16 rvel:s16 battery:u8 stall:u16 control:s16 W:u16 compass:u8
    n:u8 n × (sonar number:u8, range:u16)

where W is the PTU pulse width in PSOS 4.x and the flags word in ARCOS. After the sonar list:

* PSOS 4.x: input timer u16, user analog u8, digital in u8, digital out u8.
* ARCOS as ARIA parses it and AMRISim emits it: optional groups, each present only if
  bytes remain — [gripper state u8, analog port u8, analog u8, digin u8, digout u8], [battery u16],
  [charge state u8], [rot vel s16], [fault flags u16], [lat vel s16], [temperature s8],
  [state of charge s8], [µC time u32], [flags3 u32]. AMRISim sends everything up to state of charge.

Values stay in raw wire units (counts, decivolts, 0.1 deg/s); x/y are the wrapping 16-bit counters.
Bytes after the last complete field are kept in ``extra``, so ``encode_sip(decode_sip(p)) == frame(p)``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate, chain
from typing import Final, NamedTuple

from saphira.protocol.errors import DecodeError, EncodeError
from saphira.protocol.framing import encode_packet
from saphira.protocol.packet_ids import SIP_IDS, PacketId
from saphira.protocol.sip_bits import ChargeState, FaultFlags, SipFlags, Stall
from saphira.protocol.sync import RobotIdentity


class SipLayout(Enum):
    """Which firmware generation's SIP layout to read or write."""

    PSOS = "psos"
    """Pioneer 1 PSOS 4.x (Saphira manual Table 7.5)."""
    ARCOS = "arcos"
    """P2OS/AROS/ARCOS as ARIA parses it and MobileSim/AMRISim emits it."""


PSOS_SUBCLASSES = frozenset({"", "pion1", "pion1m", "pion1x", "psos1m", "psos1x", "psos41m", "psos41x",
                             "psos43m", "pionat"})  # fmt: skip
"""Subclasses whose SIPs use the PSOS 4.x layout; every other robot speaks ARCOS."""


def layout_for(identity: RobotIdentity) -> SipLayout:
    """The layout a robot's SIPs use, told by its SYNC2 subclass (client and simulator agree on it)."""
    return SipLayout.PSOS if identity.subclass.lower() in PSOS_SUBCLASSES else SipLayout.ARCOS


class SonarReading(NamedTuple):
    """One sonar entry: the sonar number and its range in sonar units (× RangeConvFactor → mm)."""

    number: int
    range: int


_SONAR_ARRAYS: Final = int(SipFlags.sonar_arrays())
_MOTORS_ENABLED: Final = int(SipFlags.MOTORS_ENABLED)
"""The flag bits as plain ints: the properties below are read every cycle, and IntFlag arithmetic is slow."""


@dataclass(slots=True)
class Sip:
    """A standard SIP in raw units. Optional trailing fields are ``None`` when the packet lacks them.

    Core: ``x``/``y`` position counters (× DistConvFactor → mm, wrap at 2^16 on the wire; ARIA masks
    to 15 bits), ``th`` heading (× AngleConvFactor → rad), wheel velocities (× VelConvFactor → mm/s),
    ``battery`` in decivolts, ``stall`` the stall/bumper word (see :attr:`stall_bits`), ``control`` the
    heading setpoint, ``flags`` the ARCOS flags word, ``compass`` in 2-degree units, ``sonar`` the
    entries of this packet. ``ptu`` is PSOS's RC-servo pulse width, which sits where ARCOS has flags.
    PSOS tail: ``timer``, ``analog``, ``digin``, ``digout``. ARCOS tail: ``gripper_state``,
    ``analog_port``, ``analog``, ``digin``, ``digout``, ``battery_dv`` (decivolts), ``charge_state``,
    ``rot_vel`` (0.1 deg/s), ``fault_flags``, ``lat_vel`` (mm/s), ``temperature`` (°C, −127 = none),
    ``state_of_charge`` (%), ``uc_time`` (µs), ``flags3``.
    """

    packet_id: int = PacketId.SIP_STOPPED
    x: int = 0
    y: int = 0
    th: int = 0
    left_vel: int = 0
    right_vel: int = 0
    battery: int = 0
    stall: int = 0
    control: int = 0
    flags: int = 0
    compass: int = 0
    sonar: tuple[SonarReading, ...] = ()
    ptu: int = 0
    timer: int | None = None
    gripper_state: int | None = None
    analog_port: int | None = None
    analog: int | None = None
    digin: int | None = None
    digout: int | None = None
    battery_dv: int | None = None
    charge_state: int | None = None
    rot_vel: int | None = None
    fault_flags: int | None = None
    lat_vel: int | None = None
    temperature: int | None = None
    state_of_charge: int | None = None
    uc_time: int | None = None
    flags3: int | None = None
    extra: bytes = b""

    @property
    def moving(self) -> bool:
        """ID 0x33 (sfSTATUSMOVING). AMRISim always sends 0x32."""
        return self.packet_id == PacketId.SIP_MOVING

    @property
    def flag_bits(self) -> SipFlags:
        return SipFlags(self.flags)

    @property
    def motors_enabled(self) -> bool:
        return bool(self.flags & _MOTORS_ENABLED)

    @property
    def sonar_enabled(self) -> bool:
        return bool(self.flags & _SONAR_ARRAYS)

    @property
    def stall_bits(self) -> Stall:
        return Stall.from_word(self.stall)

    @property
    def left_motor_stalled(self) -> bool:
        return bool(self.stall & 0x0001)

    @property
    def right_motor_stalled(self) -> bool:
        return bool(self.stall & 0x0100)

    @property
    def fault_bits(self) -> FaultFlags | None:
        return None if self.fault_flags is None else FaultFlags(self.fault_flags)

    @property
    def charge(self) -> ChargeState:
        """The charge state; UNKNOWN when absent or not a known value (as ARIA does when absent)."""
        try:
            return ChargeState(self.charge_state) if self.charge_state is not None else ChargeState.UNKNOWN
        except ValueError:
            return ChargeState.UNKNOWN


# --- wire layout -----------------------------------------------------------------------------------

_HEAD: Final = struct.Struct("<BHHhhhBHhHBB")
HEAD_SIZE: Final = _HEAD.size  # 20: ID through the sonar count
_MAX_SONAR: Final = (255 - 2 - HEAD_SIZE) // 3
_SONAR: Final = tuple(struct.Struct("<" + "BH" * n) for n in range(_MAX_SONAR + 1))
_MAKE_READING: Final = SonarReading._make
# Positional construction in field order is the fast path; mypy cannot count the starred tail.
_new_sip: Final[Callable[..., Sip]] = Sip

# ARCOS optional groups: (struct format, number of fields).
_ARCOS_GROUPS: Final = (
    ("BBBBB", 5),
    ("H", 1),
    ("B", 1),
    ("h", 1),
    ("H", 1),
    ("h", 1),
    ("b", 1),
    ("b", 1),
    ("I", 1),
    ("I", 1),
)
_ARCOS_TAIL_FIELDS: Final = 14
_ARCOS_PREFIX: Final = tuple(
    struct.Struct("<" + "".join(fmt for fmt, _ in _ARCOS_GROUPS[:k])) for k in range(len(_ARCOS_GROUPS) + 1)
)
_ARCOS_PREFIX_FIELDS: Final = (0, *accumulate(n for _, n in _ARCOS_GROUPS))
_ARCOS_TAIL_MAX: Final = _ARCOS_PREFIX[-1].size
# For each number of remaining bytes (capped at the full tail), how many whole groups fit.
_ARCOS_GROUPS_FOR: Final = tuple(
    max(k for k in range(len(_ARCOS_PREFIX)) if _ARCOS_PREFIX[k].size <= r) for r in range(_ARCOS_TAIL_MAX + 1)
)
# For each tail field index, the number of groups needed to include it.
_ARCOS_GROUPS_NEEDED: Final = tuple(
    next(k for k in range(1, len(_ARCOS_PREFIX)) if _ARCOS_PREFIX_FIELDS[k] > i) for i in range(_ARCOS_TAIL_FIELDS)
)
_NONES: Final = (None,) * _ARCOS_TAIL_FIELDS
_ARCOS_TAIL_NAMES: Final = (
    "gripper_state",
    "analog_port",
    "analog",
    "digin",
    "digout",
    "battery_dv",
    "charge_state",
    "rot_vel",
    "fault_flags",
    "lat_vel",
    "temperature",
    "state_of_charge",
    "uc_time",
    "flags3",
)

_PSOS_TAIL: Final = struct.Struct("<HBBB")
_PSOS_TAIL_NAMES: Final = ("timer", "analog", "digin", "digout")


def _decode_sonar(payload: bytes | bytearray, n: int) -> tuple[tuple[SonarReading, ...], int]:
    end = HEAD_SIZE + 3 * n
    if end > len(payload):
        whole = (len(payload) - HEAD_SIZE) // 3
        raise DecodeError(f"sonar count {n} but only {whole} whole entries follow", HEAD_SIZE + 3 * whole)
    if n == 0:
        return (), end
    values = iter(_SONAR[n].unpack_from(payload, HEAD_SIZE))
    return tuple(map(_MAKE_READING, zip(values, values, strict=True))), end


def decode_sip(payload: bytes | bytearray, layout: SipLayout = SipLayout.ARCOS) -> Sip:
    """Decode a SIP payload (ID byte first). Raises :class:`DecodeError` naming the byte offset.

    ARCOS accepts IDs 0x32/0x33 (as ARIA); PSOS accepts 0x30–0x3F (the manual's "0x3S").
    """
    if len(payload) < HEAD_SIZE:
        raise DecodeError(f"SIP of {len(payload)} bytes is shorter than its {HEAD_SIZE}-byte core", len(payload))
    h = _HEAD.unpack_from(payload, 0)
    sonar, end = _decode_sonar(payload, h[11])
    remaining = len(payload) - end
    if layout is SipLayout.ARCOS:
        if h[0] not in SIP_IDS:
            raise DecodeError(f"packet ID 0x{h[0]:02X} is not a SIP (0x32/0x33)", 0)
        k = _ARCOS_GROUPS_FOR[remaining if remaining < _ARCOS_TAIL_MAX else _ARCOS_TAIL_MAX]
        prefix = _ARCOS_PREFIX[k]
        tail = prefix.unpack_from(payload, end) + _NONES[_ARCOS_PREFIX_FIELDS[k] :]
        extra = bytes(payload[end + prefix.size :]) if remaining > prefix.size else b""
        return _new_sip(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], sonar, 0, None, *tail, extra)
    if h[0] & 0xF0 != 0x30:
        raise DecodeError(f"packet ID 0x{h[0]:02X} is not a PSOS SIP (0x3S)", 0)
    sip = Sip(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], 0, h[10], sonar, ptu=h[9])
    if remaining >= _PSOS_TAIL.size:
        sip.timer, sip.analog, sip.digin, sip.digout = _PSOS_TAIL.unpack_from(payload, end)
        end += _PSOS_TAIL.size
    sip.extra = bytes(payload[end:])
    return sip


def sip_payload(sip: Sip, layout: SipLayout = SipLayout.ARCOS) -> bytes:
    """The payload of :func:`encode_sip` (ID byte first, no framing)."""
    sonar = sip.sonar
    n = len(sonar)
    psos = layout is SipLayout.PSOS
    try:
        head = _HEAD.pack(
            sip.packet_id,
            sip.x & 0xFFFF,
            sip.y & 0xFFFF,
            sip.th,
            sip.left_vel,
            sip.right_vel,
            sip.battery,
            sip.stall,
            sip.control,
            sip.ptu if psos else sip.flags,
            sip.compass,
            n,
        )
        body = _SONAR[n].pack(*chain.from_iterable(sonar)) if n else b""
        if psos:
            tail = b""
            values = (sip.timer, sip.analog, sip.digin, sip.digout)
            if any(v is not None for v in values):
                tail = _PSOS_TAIL.pack(*(0 if v is None else v for v in values))
        else:
            fields = (
                sip.gripper_state,
                sip.analog_port,
                sip.analog,
                sip.digin,
                sip.digout,
                sip.battery_dv,
                sip.charge_state,
                sip.rot_vel,
                sip.fault_flags,
                sip.lat_vel,
                sip.temperature,
                sip.state_of_charge,
                sip.uc_time,
                sip.flags3,
            )
            last = _ARCOS_TAIL_FIELDS - 1
            while last >= 0 and fields[last] is None:
                last -= 1
            k = _ARCOS_GROUPS_NEEDED[last] if last >= 0 else 0
            tail = _ARCOS_PREFIX[k].pack(*(0 if v is None else v for v in fields[: _ARCOS_PREFIX_FIELDS[k]]))
    except (struct.error, IndexError, TypeError):
        raise EncodeError(_diagnose(sip, layout)) from None
    return b"".join((head, body, tail, sip.extra))


def encode_sip(sip: Sip, layout: SipLayout = SipLayout.ARCOS) -> bytes:
    """A complete framed SIP. ``x``/``y`` are wrapped to 16 bits; other out-of-range fields raise
    :class:`EncodeError` naming the field, as does a packet longer than count 255."""
    return encode_packet(sip_payload(sip, layout))


_RANGES: Final = {
    "packet_id": (0, 0xFF),
    "th": (-0x8000, 0x7FFF),
    "left_vel": (-0x8000, 0x7FFF),
    "right_vel": (-0x8000, 0x7FFF),
    "battery": (0, 0xFF),
    "stall": (0, 0xFFFF),
    "control": (-0x8000, 0x7FFF),
    "flags": (0, 0xFFFF),
    "ptu": (0, 0xFFFF),
    "compass": (0, 0xFF),
    "timer": (0, 0xFFFF),
    "gripper_state": (0, 0xFF),
    "analog_port": (0, 0xFF),
    "analog": (0, 0xFF),
    "digin": (0, 0xFF),
    "digout": (0, 0xFF),
    "battery_dv": (0, 0xFFFF),
    "charge_state": (0, 0xFF),
    "rot_vel": (-0x8000, 0x7FFF),
    "fault_flags": (0, 0xFFFF),
    "lat_vel": (-0x8000, 0x7FFF),
    "temperature": (-128, 127),
    "state_of_charge": (-128, 127),
    "uc_time": (0, 0xFFFFFFFF),
    "flags3": (0, 0xFFFFFFFF),
}


def _diagnose(sip: Sip, layout: SipLayout) -> str:
    """Name the first field that made packing fail (only called on the error path)."""
    names = ("packet_id", "th", "left_vel", "right_vel", "battery", "stall", "control", "compass")
    tail = ("ptu", *_PSOS_TAIL_NAMES) if layout is SipLayout.PSOS else ("flags", *_ARCOS_TAIL_NAMES)
    for name in (*names, *tail):
        value = getattr(sip, name)
        if value is None:
            continue
        lo, hi = _RANGES[name]
        if not isinstance(value, int) or not lo <= value <= hi:
            return f"SIP field {name}={value!r} is outside {lo}..{hi}"
    if len(sip.sonar) > _MAX_SONAR:
        return f"{len(sip.sonar)} sonar entries do not fit one packet (at most {_MAX_SONAR})"
    for i, reading in enumerate(sip.sonar):
        if len(reading) != 2 or not 0 <= reading[0] <= 0xFF or not 0 <= reading[1] <= 0xFFFF:
            return f"sonar entry {i} {tuple(reading)!r} is not (number 0..255, range 0..65535)"
    return "SIP fields do not fit the wire format"
