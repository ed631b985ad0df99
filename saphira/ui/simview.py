"""``saphira sim --ui``: the simulator's window as a web page.

The page shows the true world: its walls and every simulated robot at its true pose, with an info
line giving each robot's x and y in metres and its heading. The manual's left button moves a robot:
a click puts robot 1 there keeping its heading, a drag from the click also turns it to face the point
where the button was released (which is how a robot stuck on a wall is freed).

The simulator loop stays in charge: a page's request is queued and applied by :meth:`SimView.cycle`,
which the loop calls once per cycle, so the world is only ever changed from the simulator's thread.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from saphira.sim.simulation import Simulation
from saphira.ui.display import DisplayState
from saphira.ui.drawing import drawing_for
from saphira.ui.server import UiServer

__all__ = ["SimView"]


@dataclass(frozen=True, slots=True)
class _SimFrame:
    cycle: int
    time: float
    robots: tuple[tuple[str, float, float, float, float], ...]
    display: dict[str, Any]

    def to_json(self) -> str:
        robots = [[n, round(x), round(y), round(th, 1), round(r)] for n, x, y, th, r in self.robots]
        return json.dumps({"type": "frame", "cycle": self.cycle, "time": round(self.time, 2), "robots": robots,
                           "display": self.display}, separators=(",", ":"))  # fmt: skip


class SimView:
    """The live view of a standalone :class:`~saphira.sim.simulation.Simulation`."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self.display = DisplayState()
        self.display.global_view = True
        self.server: UiServer | None = None
        self._cycles = 0
        self._requests: deque[dict[str, Any]] = deque(maxlen=64)
        self._lock = threading.Lock()

    def start(self, host: str, port: int) -> str:
        self.server = UiServer(self, host, port)
        return self.server.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()

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
        robots = tuple((r.name, r.x, r.y, r.th, r.radius) for r in self.simulation.robots)
        server.publish(_SimFrame(self._cycles, now, robots, self.display.as_dict()))

    def _place(self, request: dict[str, Any]) -> None:
        robots = self.simulation.robots
        index = int(request.get("robot", 0))
        if not 0 <= index < len(robots):
            return
        robot = robots[index]
        th = request.get("th")
        self.simulation.set_pose(robot, float(request["x"]), float(request["y"]), robot.th if th is None else float(th))

    # ------------------------------------------------------------------ PageHandler
    def hello(self) -> dict[str, Any]:
        world = self.simulation.world
        palette = drawing_for(self).palette_css()
        return {
            "mode": "sim",
            "robot": None,
            "walls": [[round(v) for v in seg] for seg in world.segments.tolist()],
            "bounds": [round(v) for v in world.bounds],
            "palette": palette,
            "display": self.display.as_dict(),
            "history": [],
        }

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "place":
            float(message["x"]), float(message["y"])  # refuse a malformed request here, not in the loop
            with self._lock:
                self._requests.append(message)
        elif kind == "display":
            self.display.set(int(message["menu"]), int(message["state"]))
        elif kind in ("view", "button", "key"):
            return
        else:
            raise ValueError(f"unknown request type {kind!r}")
