"""Client command numbers and argument-type bytes (docs/protocol.md §2, §4).

Every number of the PSOS 4.x, ARCOS (AriaCoda ``ArCommands.h``) and simulator tables is here. Where
one number has several names (SYNC0 = PULSE, SRISim/AMRISim reuses, ...) the later names are enum
aliases, so ``Command(0)`` is ``Command.PULSE`` and ``Command.SYNC0 is Command.PULSE``: bytes alone
cannot tell them apart, the connection state does (docs/protocol.md §3).
"""

from __future__ import annotations

from enum import IntEnum


class ArgType(IntEnum):
    """The byte that follows the command number and announces the argument (§2)."""

    POSINT = 0x3B
    """sfARGINT: a non-negative integer, u16 little-endian."""
    NEGINT = 0x1B
    """sfARGNINT: a negative integer, sent as its absolute value (u16 little-endian)."""
    STRING = 0x2B
    """sfARGSTR: a string (length-prefixed and/or NUL-terminated, see the argument encoders)."""


class Command(IntEnum):
    """Client→server command numbers."""

    # --- PSOS 4.2 core and ARCOS (§4) ---
    PULSE = 0
    """Keep-alive (2 s watchdog in PSOS); identical bytes to SYNC0."""
    SYNC0 = 0
    OPEN = 1
    """Start the servers and the SIP stream; identical bytes to SYNC1 without an argument."""
    SYNC1 = 1
    CLOSE = 2
    """Close the connection; identical bytes to SYNC2 without an argument."""
    SYNC2 = 2
    POLLING = 3
    """String: sonar firing sequence, one byte per sonar (sonar number + 1)."""
    ENABLE = 4
    SETA = 5
    SETV = 6
    SETO = 7
    """Reset odometry to 0,0,0 (AMRISim extension: int16 x, y, th after a type byte)."""
    MOVE = 8
    ROTATE = 9
    SETRV = 10
    VEL = 11
    HEAD = 12
    DHEAD = 13
    DROTATE = 14
    """Listed by a Saphira-era header; ArCommands says it "does not really exist"."""
    SAY = 15
    VISION = 16
    """Saphira-era header only."""
    JOYINFO = 17
    VWINDOW = 17
    """Saphira-era header name for 17."""
    CONFIG = 18
    ENCODER = 19
    SETRVDIR = 20
    UDP = 20
    """Saphira-era header name for 20."""
    RVEL = 21
    DCHEAD = 22
    SETRA = 23
    IMUREQUEST = 26
    SEEKURIMU = 26
    SONAR = 28
    STOP = 29
    DIGOUT = 30
    TIMER = 31
    """PSOS user input timer; AMRISim calls 31 SETPBIOPORT (unsupported)."""
    VEL2 = 32
    """Two signed bytes in one int: high byte = left wheel, low byte = right wheel."""
    GRIPPER = 33
    KICK = 34
    """Commented out in ArCommands."""
    ADSEL = 35
    OLD_SIM_LRF_ENABLE = 35
    """AMRISim: old SRISim laser enable (used by ARIA's ArSimulatedLaser)."""
    GRIPPERVAL = 36
    OLD_SIM_LRF_START = 36
    GRIPPERPACREQUEST = 37
    OLD_SIM_LRF_END = 37
    OLD_SIM_LRF_INCREMENT = 38
    """AMRISim: old SRISim laser increment, in 1/100 degree."""
    IOREQUEST = 40
    PTUVEL = 40
    """Saphira-era header name for 40."""
    PTUPOS = 41
    TTY2 = 42
    PTUNOD = 42
    """Saphira-era header name for 42."""
    GETAUX = 43
    PTUAPOS = 43
    """Saphira-era header name for 43."""
    BUMPSTALL = 44
    TCM2 = 45
    JOYDRIVE = 47
    MOVINGBLINK = 49
    HOSTBAUD = 50
    AUX1BAUD = 51
    AUX2BAUD = 52
    ESTOP = 55
    ESTALL = 56
    QSTOP = 57
    """AMRISim treats 57 like ESTOP ("ESTOP/QSTOP")."""
    GYRO = 58
    MESSAGE = 59
    """AMRISim: type, length, 3 code bytes, text → log. Not in ArCommands."""
    TTY4 = 60
    GETAUX3 = 61
    LOADPARAM = 61
    BATTERYINFO = 62
    ENDSIM = 62
    """SRISim exit; AMRISim exits on 62 only with ``--srisim-compat``."""
    LOADWORLD = 63
    STEP = 64
    """Single-step mode, SRISim only."""
    CALCOMP = 65
    TTY3 = 66
    SETSIMORIGINX = 66
    GETAUX2 = 67
    SETSIMORIGINY = 67
    SETSIMORIGINTH = 68
    RESETSIMTOORIGIN = 69
    SOUND = 90
    PLAYLIST = 91
    SOUNDTOG = 92
    POWER_PC = 95
    POWER_LRF = 96
    POWER_5V = 97
    POWER_12V = 98
    POWER_24V = 98
    LATVEL = 110
    LATACCEL = 113
    RECENTERWHEELS = 120
    ACCELINFO = 123
    TORQUEINFO = 124
    POWER_AUX_PC = 125
    POWER_TOUCHSCREEN = 126
    POWER_PTZ = 127
    POWER_AUDIO = 128
    POWER_LRF2 = 129
    HEADINGINFO = 149
    ROTVEL_CLOSEDLOOP_ENABLE = 150
    SRECORD = 210
    MARCDEBUG = 211
    WHEEL_LIGHT = 212
    ABSOLUTE_MAXES = 213
    SAFETY_STATE_INFO = 214
    SAFETY_SET_STATE = 215
    SAFETY_DISABLE_POWER_OFF_TIMER = 216
    SAFETY_ZONE_ACTIVE = 217
    WHEELINFO_REQUEST = 218
    MARC_CONFIG_SET = 219
    MARC_CONFIG_GET = 220
    # --- simulator only (§4) ---
    SIM_SET_POSE = 224
    """Type byte (0), then int32 x mm, y mm, th deg: move the true pose, odometry unchanged."""
    SIM_RESET = 225
    SIM_MODEL_CONFIG = 226
    SIM_LRF_ENABLE = 230
    SIM_LRF_SET_FOV_START = 231
    SIM_LRF_SET_FOV_END = 232
    SIM_LRF_SET_RES = 233
    SIM_CTRL = 236
    SIM_STAT = 237
    SIM_MESSAGE = 238
    SIM_EXIT = 239
    BATTEST = 250
    DIGTEMPTEST = 251
    SPOOFANALOGTEMP = 252
    POWERONLIKE_RESET = 253
    """AMRISim calls abort(): never send it to the simulator."""
    ABORT = 255
    """Unnamed in ArCommands; AMRISim calls abort() on it."""


class SimCtrlOp(IntEnum):
    """The int16 operation code that follows SIM_CTRL's type byte (§2)."""

    LOAD_MAP = 1
    MASTER_LOAD_MAP = 2
    CLEAR_MASTER_MAP = 3
    ROTATE_LOGS = 4
    LOG_STATE = 5
    SIM_INFO = 6
    SET_GHOST = 7


def command_name(number: int) -> str:
    """The canonical name of a command number, or ``"UNKNOWN_<n>"``."""
    try:
        return Command(number).name
    except ValueError:
        return f"UNKNOWN_{number}"
