"""Colbert bindings for the Pioneer accessories: gripper, RC servos and FTVS vision; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. The manual names the vision API
(manual §9, Saphira Vision: ``sfVaInfo``, ``sfVbInfo``, ``sfVcInfo`` of ``struct vinfo``, ``VISION_COM``, the
modes, ``DEG_TO_PIXELS``); it has no gripper functions, so saphira adds ``sfGripperOpen``,
``sfGripperClose``, ``sfGripperUp``, ``sfGripperDown``, ``sfGripperStop`` (commands) and
``sfGripperState``, ``sfGripperBeams``, ``sfGripperLiftMaxed`` (the reported switches, read as ARIA's
``ArGripper`` reads them). ``found_blob(channel, delta)`` is the manual's sample function (chroma.c),
built in so that ``colbert/ftvs.act`` is plain Colbert. The RC servo is driven as the manual does it,
``sfRobotCom2Bytes(sfCOMPTUPOS, servo, width)``; ``sfRobot.ptu`` reads the pulse width back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from saphira.colbert.bindings.table import BindingTable
from saphira.colbert.compile.symbols import ColbertRuntimeError, Slot, parse_type
from saphira.protocol.commands import Command
from saphira.protocol.gripper import GripperCommand
from saphira.protocol.vision import DEG_TO_PIXELS, VISION_COM, VisionMode

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["NO_BLOB", "VINFO_SLOTS", "table"]

NO_BLOB = -1000
"""What ``found_blob`` returns when the channel has no blob near the image centre."""


def _vinfo_slot(name: str) -> Slot:
    return Slot(name, parse_type("int"), getter=lambda info: int(getattr(info, name)))


VINFO_SLOTS = [_vinfo_slot(name) for name in ("type", "x", "y", "area", "h", "w", "first", "num")]


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""

    def state() -> Any:
        return s.robot.reflector.accessories.state

    def channel(index: int) -> Any:
        return lambda: state().vision[index]

    def grip(code: GripperCommand) -> Any:
        return lambda: s.send(Command.GRIPPER, int(code))

    def found_blob(channel: int, delta: int) -> int:
        if not 0 <= channel < 3:
            raise ColbertRuntimeError(f"found_blob: channel {channel} is not 0 (A), 1 (B) or 2 (C)")
        info = state().vision[channel]
        return int(info.x) if info.area > 0 and abs(info.x) <= delta else NO_BLOB

    return BindingTable(
        structs=[("vinfo", VINFO_SLOTS, None, "one FTVS channel's report (sfVaInfo...)")],
        constants=[
            ("VISION_COM", "int", VISION_COM, "the command that carries FTVS strings (sfRobotComStr)"),
            ("BLOB_MODE", "int", int(VisionMode.BLOB), "FTVS channel mode: largest blob"),
            ("LINE_MODE", "int", int(VisionMode.LINE), "FTVS channel mode: a line on the floor"),
            ("BLOB_BB_MODE", "int", int(VisionMode.BLOB_BB), "FTVS channel mode: blob and bounding box"),
            ("DEG_TO_PIXELS", "float", DEG_TO_PIXELS, "FTVS image pixels per degree"),
        ],
        variables=[
            ("sfVaInfo", "vinfo", channel(0), None, "FTVS channel A's last report"),
            ("sfVbInfo", "vinfo", channel(1), None, "FTVS channel B's last report"),
            ("sfVcInfo", "vinfo", channel(2), None, "FTVS channel C's last report"),
        ],
        functions=[
            ("sfGripperOpen", "void()", grip(GripperCommand.OPEN), "open the gripper's paddles"),
            ("sfGripperClose", "void()", grip(GripperCommand.CLOSE), "close the paddles (they hold what is between)"),
            ("sfGripperUp", "void()", grip(GripperCommand.LIFT_UP), "raise the gripper's lift"),
            ("sfGripperDown", "void()", grip(GripperCommand.LIFT_DOWN), "lower the lift"),
            ("sfGripperStop", "void()", grip(GripperCommand.HALT), "stop the paddles and the lift"),
            ("sfGripperState", "int()", lambda: int(state().grip), "paddles: 0 between, 1 open, 2 closed"),
            ("sfGripperBeams", "int()", lambda: state().beams, "break beams: 0 none, 1 inner, 2 outer, 3 both"),
            ("sfGripperLiftMaxed", "int()", lambda: int(state().lift_maxed), "1 when the lift is at its top or bottom"),
            ("found_blob", "int(int, int)", found_blob, "blob x if within delta px of centre, else -1000"),
        ],
    )
