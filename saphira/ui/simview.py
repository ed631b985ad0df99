"""``saphira sim --ui``: the simulator's window as a web page.

The page shows the true world: its walls and every simulated robot at its true pose, with an info
line giving each robot's x and y in metres and its heading. The manual's left button moves a robot:
a click puts robot 1 there keeping its heading, a drag from the click also turns it to face the point
where the button was released (which is how a robot stuck on a wall is freed).

The simulator loop stays in charge: a page's request is checked where it arrives (every field: its
type, finite, in range, the robot exists; an error goes back to the page), then queued and applied by
:meth:`SimView.cycle`, which the loop calls once per cycle, so the world is only ever changed from the
simulator's thread and nothing a page sends can stop it.
When the world changes (a LOADWORLD, a Flat map transition) the next frame carries its walls.
A simulator front end with a panel of its own (Flat's: :class:`saphira.app.sim_ui.FlatView`) extends
:class:`SimView` with :meth:`~SimView.status` and :meth:`~SimView.handle`; this module knows none of them.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from saphira.display.drawing import drawing_for
from saphira.display.state import DisplayState
from saphira.sim.simulation import Simulation
from saphira.ui.requests import RequestError, display_setting, integer, number
from saphira.ui.server import ServedView, UiServer
from saphira.ui.snapshot import world_outline

__all__ = ["PLACE_MARGIN", "SimView"]

PLACE_MARGIN = 5000.0
"""How far (mm) outside the world's bounds a robot may be placed: a click beyond that is a mistake."""


@dataclass(frozen=True, slots=True)
class _Place:
    """A checked ``place`` request: robot ``index`` to (x, y), turned to ``th`` (None: keep its heading)."""

    index: int
    x: float
    y: float
    th: float | None


@dataclass(frozen=True, slots=True)
class _SimFrame:
    cycle: int
    time: float
    robots: tuple[tuple[str, float, float, float, float], ...]
    display: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        robots = [[n, round(x), round(y), round(th, 1), round(r)] for n, x, y, th, r in self.robots]
        return {"type": "frame", "cycle": self.cycle, "time": round(self.time, 2), "robots": robots,
                "display": self.display, **self.extra}  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


class SimView(ServedView):
    """The live view of a standalone :class:`~saphira.sim.simulation.Simulation`."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self.display = DisplayState()
        self.display.global_view = True
        self.server: UiServer | None = None
        self._cycles = 0
        self._requests: deque[_Place] = deque(maxlen=64)
        self._lock = threading.Lock()
        self._world = simulation.world

    def cycle(self, now: float) -> None:
        """Apply the pages' requests and, every display period, send a frame (simulator thread)."""
        with self._lock:
            requests = list(self._requests)
            self._requests.clear()
        for request in requests:
            self._place(request)
        self._cycles += 1
        period = self.display.period
        server = self.server
        if server is None or not server.pages or period <= 0 or self._cycles % period:
            return
        server.publish(self.frame(now))

    def frame(self, now: float) -> _SimFrame:
        """What the page shows now: every robot, the display state, the walls when the world changed."""
        robots = tuple((r.name, r.x, r.y, r.th, r.radius) for r in self.simulation.robots)
        extra = self.status()
        world = self.simulation.world
        if world is not self._world:
            self._world = world
            extra.update(world_outline(world))
        return _SimFrame(self._cycles, now, robots, self.display.as_dict(), extra)

    def status(self) -> dict[str, Any]:
        """More for the frame (the Flat panel's state)."""
        return {}

    def _place(self, request: _Place) -> None:
        robots = self.simulation.robots
        if request.index >= len(robots):  # checked on arrival; a robot may have gone since
            return
        robot = robots[request.index]
        self.simulation.set_pose(robot, request.x, request.y, robot.th if request.th is None else request.th)

    def _checked_place(self, message: dict[str, Any]) -> _Place:
        """A ``place`` request's fields, each checked (:class:`RequestError` names the bad one)."""
        count = len(self.simulation.robots)
        if count == 0:
            raise RequestError("place: the simulator has no robot")
        index = integer(message, "robot", 0, count - 1) if "robot" in message else 0
        xmin, ymin, xmax, ymax = self.simulation.world.bounds
        x = number(message, "x", xmin - PLACE_MARGIN, xmax + PLACE_MARGIN)
        y = number(message, "y", ymin - PLACE_MARGIN, ymax + PLACE_MARGIN)
        th = None if message.get("th") is None else number(message, "th", -360.0, 360.0)
        return _Place(index, x, y, th)

    # ------------------------------------------------------------------ PageHandler
    def hello(self) -> dict[str, Any]:
        palette = drawing_for(self).palette_css()
        return {
            "mode": "sim",
            "robot": None,
            **world_outline(self.simulation.world),
            "palette": palette,
            "display": self.display.as_dict(),
            "history": [],
        }

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "place":
            place = self._checked_place(message)
            with self._lock:
                self._requests.append(place)
        elif kind == "display":
            self.display.set(*display_setting(message))
        elif kind in ("view", "button", "key"):
            return
        else:
            raise ValueError(f"unknown request type {kind!r}")
