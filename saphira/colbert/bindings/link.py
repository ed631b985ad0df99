"""Bindings that talk to the robot server itself: turning commands, raw-packet waits, simulator control.

Installed by :func:`saphira.colbert.bindings.table.install_bindings` after its table. Choices the manual
leaves open, documented here:

* ``sfHasDCHead`` reads 1 when heading setpoints go out as DCHEAD. Assigning 1 sends
  them as DCHEAD, 0 (the manual's default) as DHEAD, with each generation's meaning of the two (the
  manual's for PSOS, ArCommands' for ARCOS). A relative command that is resent turns the robot twice,
  so it is sent once per change and a lost packet loses the turn, as on the original.
* ``sfWaitClientPacket(ms)`` waits up to ``ms`` (at least one 100 ms cycle) for a packet from the
  robot: inside an activity the activity gives up its cycle and runs the statement again the next
  one, so the wait is counted in cycles (lock-step as well as real time); at the prompt cycles run
  until then. It returns 1 with the packet made current, 0 on timeout. Calls written before it in
  the same statement run again each cycle it waits: keep it first (``if (sfWaitClientPacket(…))``).
  Only packets of this cycle or the last are handed out: older ones (the handshake replies of a
  connection made before anyone waited) are dropped.
* ``sfSetDisplayState(sfSTEP, TRUE/FALSE)`` sends STEP 1 / STEP 0: the simulator enters or leaves
  single-step mode, where the world stands still until a step is asked for with
  ``sfRobotCom(sfCOMSTEP)`` (the original's S key). Other settings are only recorded, for a UI.
* ``sfLoadWorldFile(name)`` sends LOADWORLD: the simulator loads the world (a bundled name, or a
  path on its host; a relative path that exists under the load directory is sent absolute) and puts
  the robot at its start pose. 0 when the request went out, -1 when there is no connection: the
  protocol has no reply, so a world the simulator cannot load is reported in its log only.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saphira.colbert.compile.symbols import ColbertRuntimeError
from saphira.colbert.runtime import WaitNextCycle
from saphira.core.tasks import Task
from saphira.display.state import DisplayError, display_for
from saphira.perception.occupancy import start_occupancy_grid
from saphira.protocol.commands import Command

if TYPE_CHECKING:
    from saphira.colbert.bindings.context import BindingContext
    from saphira.colbert.bindings.table import Bindings

__all__ = ["install_link_bindings"]


class _LinkBindings:
    """The state the waiting and display bindings keep between calls."""

    def __init__(self, session: Bindings) -> None:
        self.s = session
        self._waits: weakref.WeakKeyDictionary[Task, tuple[int, int]] = weakref.WeakKeyDictionary()
        self.step_setting = int(session.ctx.value("sfSTEP"))
        self.occgrid_setting = int(session.ctx.value("sfOCCGRID"))

    def has_dchead(self) -> int:
        return int(self.s.motion.turn_command == Command.DCHEAD)

    def set_has_dchead(self, value: Any) -> None:
        self.s.motion.turn_command = Command.DCHEAD if value else Command.DHEAD

    def wait_packet(self, ms: int) -> int:
        """``sfWaitClientPacket``: 1 once a packet is current, 0 after ``ms`` (at least one cycle)."""
        s = self.s
        scheduler = s.ctx.scheduler
        clock = scheduler.clock
        cycles = max(1, clock.cycles_for(ms / 1000.0))
        task = scheduler.current
        if task is None:  # at the prompt or while loading: let the cycles run here
            deadline = clock.cycle + cycles
            while not s.have_packet():
                if clock.cycle >= deadline:
                    return 0
                scheduler.pause(0)
            return 1
        if s.have_packet():
            self._waits.pop(task, None)
            return 1
        deadline, last = self._waits.get(task, (clock.cycle + cycles, clock.cycle))
        if last < clock.cycle - 1:  # not the same wait as last cycle's: a fresh one
            deadline = clock.cycle + cycles
        if clock.cycle >= deadline:
            self._waits.pop(task, None)
            return 0
        self._waits[task] = (deadline, clock.cycle)
        raise WaitNextCycle

    def set_display(self, setting: int, value: int) -> None:
        """The display state of every page (sticky, :mod:`saphira.display.state`); sfSTEP also reaches the simulator."""
        s = self.s
        try:
            display_for(s.ctx.scheduler).set(setting, value)
        except DisplayError as exc:
            raise ColbertRuntimeError(str(exc)) from None
        if setting == self.occgrid_setting and value:
            start_occupancy_grid(s.robot.reflector, s.robot.scheduler)  # the grid must exist to be shown
        if setting == self.step_setting:
            robot = s.robot
            if not robot.connected:
                raise ColbertRuntimeError("sfSTEP: single-step mode needs a connected simulator")
            s.send(Command.STEP, 1 if value else 0)

    def load_world(self, name: str) -> int:
        s = self.s
        robot = s.ctx.robot
        if robot is None or not robot.connected:
            s.ctx.say("sfLoadWorldFile: no simulator connected")
            return -1
        local = s.ctx.resolve(name)
        wire_name = str(local.resolve()) if not Path(name).is_absolute() and local.is_file() else name
        s.send(Command.LOADWORLD, robot.link.string_arg(wire_name))
        return 0


def install_link_bindings(ctx: BindingContext, session: Bindings) -> None:
    """Register ``sfHasDCHead``, ``sfWaitClientPacket``, ``sfSetDisplayState`` and ``sfLoadWorldFile``."""
    b = _LinkBindings(session)
    ctx.add_variable(
        "sfHasDCHead", "int", getter=b.has_dchead, setter=b.set_has_dchead,
        help="1: turn with DCHEAD, 0 (the default): with DHEAD",
    )  # fmt: skip
    functions = (
        ("sfWaitClientPacket", "int", ["int"], b.wait_packet, "wait up to ms for a packet: 1 got one, 0 timeout"),
        ("sfSetDisplayState", "void", ["int", "int"], b.set_display, "display setting; sfSTEP: single-step sim"),
        ("sfLoadWorldFile", "int", ["string"], b.load_world, "the simulator loads a world; 0 sent, -1 failed"),
    )
    for name, ret, args, fn, text in functions:
        ctx.add_function(name, fn, ret, args, help=text)
