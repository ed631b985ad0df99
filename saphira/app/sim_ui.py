"""The ``--ui`` window of ``saphira sim``: started the same way by every mode, and Flat's panel.

:func:`start_view` serves a :class:`~saphira.ui.simview.SimView` on the command's ``--ui`` address, or
says why it cannot (exit status 2, after the front end is closed). :class:`FlatView` is the window for
``saphira sim --flat PORT --ui``: the Flat server's world and robot, one frame per step (the Flat server
has no cycle of its own: it steps when its controller sends a line), and the control panel's
START / STOP / STEP buttons, pressed through :meth:`~saphira.flat.server.listener.FlatServer.press` as the
standard input's lines are. A robot placed with the mouse moves at the next step (the step loop owns
the world). It lives here, with the commands, so the live view's package names no wire protocol.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from saphira.app.exposure import exit_allowed
from saphira.core.interrupts import StopSignals
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.ui.requests import PageExit, text
from saphira.ui.simview import SimView

__all__ = ["FlatView", "start_view", "window_menus"]


def window_menus(view: SimView, args: argparse.Namespace, signals: StopSignals) -> None:
    """The window's Connect→Exit: a Ctrl-C (``signals``), allowed by the servers' exit rules for the
    page's address (loopback, or ``--allow-exit``; ``--no-exit`` refuses it too)."""
    view.exit = PageExit(signals.request, exit_allowed(args, args.ui[0]))


def start_view(
    view: SimView, address: tuple[str, int], close: Callable[[], None], say: Callable[[str], None]
) -> int | None:
    """Serve ``view`` on ``address``, giving ``say`` the lines to print (its URL): the caller prints them once
    its stop signals are handled, as the "listening on" lines, so a supervisor that signals as soon as it
    reads them gets the documented status. None when it listens, else 2 after ``close()`` and the reason
    on stderr."""
    try:
        view.start(*address, say=say)
    except OSError as exc:
        close()
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    return None


class FlatView(SimView):
    """The live view of ``saphira sim --flat PORT --ui`` (see the module docstring)."""

    def __init__(self, flat: FlatSimulation, server: FlatServer) -> None:
        super().__init__(flat.simulation)
        self.flat = flat
        self.flat_server = server
        self.display.period = 1  # a frame per step: a STEP pressed on the page shows its one step
        server.on_step = self._stepped

    def _stepped(self) -> None:
        self.cycle(self.flat.simulation.time)

    def status(self) -> dict[str, Any]:
        server = self.flat_server
        host, port = server.address
        panel = {"address": [host, port], "running": server.running, "held": server.held.is_set(),
                 "steps": server.steps, "map": self.flat.map_name, "controller": server.controller}  # fmt: skip
        return {**super().status(), "flat": panel}

    def hello(self) -> dict[str, Any]:
        # The page gets the robot at once: a stopped server, or one with no controller, sends no frames.
        return {**super().hello(), "frame": self.frame(self.flat.simulation.time).to_dict()}

    def handle(self, message: dict[str, Any]) -> None:
        if message.get("type") != "panel":
            super().handle(message)
            return
        self.flat_server.press(text(message, "command", 40))
        server = self.server
        if server is not None:  # show the new state now: while stopped no step will
            server.publish(self.frame(self.flat.simulation.time))
