"""Display state, key and mouse hooks, and the view transform.

:class:`DisplayState` is what ``sfSetDisplayState(menu, state)`` sets and the page's Display menu
shows. It belongs to the session (one per scheduler, :func:`display_for`), not to a connection or a
page, so it is "sticky": set before connecting, it holds for every later connection and every browser.

Defaults (the manual's bold defaults were lost): an update every 2 cycles (5 Hz, the manual's own
example), local view, wake on, no single-step, no occupancy grid. Turning the occupancy grid on forces
the global view, as the manual says.

Hooks (the manual's ``sfKeyProcFn`` / ``sfButtonProcFn``, Python only): a key handler gets the
page's key name (``"ArrowUp"``, ``" "``, ``"c"``), a button handler the screen position, button and
modifier mask; either returns True to say "handled" and override the built-in meaning.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from saphira.core.attached import Attached
from saphira.core.geometry import Pose

__all__ = [
    "BUTTON_LEFT",
    "BUTTON_MIDDLE",
    "BUTTON_RIGHT",
    "DisplayError",
    "DisplayMenu",
    "DisplayState",
    "View",
    "display_for",
]

MAX_PERIOD = 10
"""The update-rate menu's slowest setting: once per 10 cycles (1 s)."""

BUTTON_LEFT, BUTTON_MIDDLE, BUTTON_RIGHT = 1, 2, 3
SHIFT_MASK, CONTROL_MASK, ALT_MASK = 1, 2, 4

KeyHandler = Callable[[str], bool]
ButtonHandler = Callable[[int, int, int, int], bool]


class DisplayMenu(IntEnum):
    """The first argument of ``sfSetDisplayState`` (the Colbert constants sfDISPLAY … sfOCCGRID)."""

    DISPLAY = 0
    GLOBAL = 1
    WAKE = 2
    STEP = 3
    OCCGRID = 4


class DisplayError(ValueError):
    """A display setting out of range; the message names the menu and the allowed values."""


@dataclass
class View:
    """How the page last drew the LPS: pixels per mm, the world point at the canvas centre, the
    rotation and the canvas size. Used by screen-to-world. In ``local`` mode the page centres the robot
    and turns it to point up every frame, so the centre and rotation are the robot's pose now, not
    what the page reported when it last resized or zoomed."""

    scale: float = 0.05
    cx: float = 0.0
    cy: float = 0.0
    rotation: float = 0.0
    width: int = 800
    height: int = 600
    local: bool = False

    def screen_to_world(self, x: float, y: float, robot: Pose | None = None) -> tuple[float, float]:
        """Global mm of the canvas pixel (x, y) (origin top left, y down); ``robot`` the global pose
        (x, y, th) a local view is drawn around."""
        cx, cy, rotation = self.cx, self.cy, self.rotation
        if self.local and robot is not None:
            cx, cy, rotation = robot[0], robot[1], robot[2] - 90.0
        dx = (x - self.width / 2) / self.scale
        dy = -(y - self.height / 2) / self.scale
        rad = math.radians(rotation)
        c, s = math.cos(rad), math.sin(rad)
        return cx + c * dx - s * dy, cy + s * dx + c * dy


class DisplayState:
    """The session's display settings and UI hooks; thread-safe (set from Colbert or from a page)."""

    def __init__(self) -> None:
        self.period = 2
        self.global_view = False
        self.wake = True
        self.step = False
        self.occgrid = False
        self.key_handler: KeyHandler | None = None
        self.button_handler: ButtonHandler | None = None
        self.view = View()
        self.version = 0
        """Bumped by every change, so a page knows its menus are out of date."""
        self._lock = threading.Lock()

    def set(self, menu: int, state: int) -> None:
        """``sfSetDisplayState(menu, state)``; raises :class:`DisplayError` for a bad menu or value."""
        try:
            which = DisplayMenu(menu)
        except ValueError:
            names = ", ".join(f"sf{m.name} ({m.value})" for m in DisplayMenu)
            raise DisplayError(f"sfSetDisplayState: no display menu {menu}; use one of {names}") from None
        with self._lock:
            if which is DisplayMenu.DISPLAY:
                if not 0 <= state <= MAX_PERIOD:
                    raise DisplayError(
                        f"sfSetDisplayState(sfDISPLAY, {state}): the period is 0 (off) to {MAX_PERIOD} cycles"
                    )
                self.period = int(state)
            elif which is DisplayMenu.GLOBAL:
                self.global_view = bool(state) or self.occgrid
            elif which is DisplayMenu.WAKE:
                self.wake = bool(state)
            elif which is DisplayMenu.STEP:
                self.step = bool(state)
            else:
                self.occgrid = bool(state)
                self.global_view = self.global_view or self.occgrid
            self.version += 1

    def get(self, menu: int) -> int:
        """The current value of a menu (``sfDISPLAY`` gives the period in cycles)."""
        which = DisplayMenu(menu)
        values = {
            DisplayMenu.DISPLAY: self.period,
            DisplayMenu.GLOBAL: self.global_view,
            DisplayMenu.WAKE: self.wake,
            DisplayMenu.STEP: self.step,
            DisplayMenu.OCCGRID: self.occgrid,
        }
        return int(values[which])

    def as_dict(self) -> dict[str, Any]:
        return {"period": self.period, "global": self.global_view, "wake": self.wake, "step": self.step,
                "occgrid": self.occgrid, "version": self.version}  # fmt: skip

    def set_view(self, view: View) -> None:
        with self._lock:
            self.view = view

    def screen_to_world(self, x: float, y: float, robot: Pose | None = None) -> tuple[float, float]:
        """``sfScreenToWorldX/Y``: global mm under a pixel of the page's LPS display (``robot``: the
        robot's global pose now, which a local view follows)."""
        return self.view.screen_to_world(x, y, robot)


_DISPLAYS: Attached[object, DisplayState] = Attached()


def display_for(owner: object) -> DisplayState:
    """The display state of a session, keyed by its scheduler (created on first use)."""
    return _DISPLAYS.get(owner, DisplayState)
