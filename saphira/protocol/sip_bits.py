"""Typed views of the SIP's bit fields: flags, stall/bumper word, fault flags, charge state (docs/protocol.md §5)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag


class SipFlags(IntFlag):
    """The ARCOS SIP flags word (offset 16–17)."""

    MOTORS_ENABLED = 1 << 0
    SONAR_ARRAY_1 = 1 << 1
    SONAR_ARRAY_2 = 1 << 2
    SONAR_ARRAY_3 = 1 << 3
    SONAR_ARRAY_4 = 1 << 4
    ESTOP = 1 << 5
    """E-stop pressed or unrelieved."""
    JOYSTICK_BUTTON = 1 << 9
    CHARGER_POWER_GOOD = 1 << 10

    @classmethod
    def sonar_arrays(cls) -> SipFlags:
        """Bits 1–4: any set means sonar is on (ARIA's legacy check; AMRISim sets all four)."""
        return cls.SONAR_ARRAY_1 | cls.SONAR_ARRAY_2 | cls.SONAR_ARRAY_3 | cls.SONAR_ARRAY_4


class FaultFlags(IntFlag):
    """The optional fault-flags word that follows the rot vel field."""

    TEMPERATURE_WARNING = 1 << 1
    """As set by AMRISim."""
    GYRO_FAULT = 1 << 4
    """As read by ARIA."""


class ChargeState(IntEnum):
    """The optional charge-state byte; ARIA uses UNKNOWN when the SIP lacks it."""

    NOT_CHARGING = 0
    BULK = 1
    OVERCHARGE = 2
    FLOAT = 3
    BALANCE = 4
    UNKNOWN = 255


@dataclass(frozen=True, slots=True)
class Stall:
    """The stall/bumper word (offset 12–13) taken apart.

    Low byte: bit 0 left motor stalled, bits 1–7 rear bumper segments. High byte: bit 0 right motor
    stalled, bits 1–7 front bumper segments. In ``front_bumpers``/``rear_bumpers`` bit i is segment i.
    PSOS sends only the two motor-stall bits in this word ("bumpers").
    """

    left_motor: bool = False
    right_motor: bool = False
    front_bumpers: int = 0
    rear_bumpers: int = 0

    @classmethod
    def from_word(cls, word: int) -> Stall:
        low, high = word & 0xFF, (word >> 8) & 0xFF
        return cls(bool(low & 1), bool(high & 1), high >> 1, low >> 1)

    def to_word(self) -> int:
        if not (0 <= self.front_bumpers <= 0x7F and 0 <= self.rear_bumpers <= 0x7F):
            raise ValueError("bumper segment masks must be within 0..0x7F (7 segments)")
        low = int(self.left_motor) | self.rear_bumpers << 1
        high = int(self.right_motor) | self.front_bumpers << 1
        return high << 8 | low

    @property
    def any_motor(self) -> bool:
        return self.left_motor or self.right_motor
