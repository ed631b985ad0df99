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

The manual's simulator menus: Files→Load Params (``load_params``: a bundled parameter file, or one under
the folder the operator allows, :attr:`SimView.params_folder`, read without following links, for one
robot, which :attr:`SimView.take_params` rebuilds where it stands), Files→Load World (``load_world``:
what a client's LOADWORLD may load, :attr:`SimView.worlds`, read in the request's thread and applied
by the loop), Connect (each robot's listening address and client; ``disconnect`` hangs a client up
and the line listens again; ``listen`` moves a robot's line to another TCP port on the simulator's
own address, a port that cannot be had shown and the old line kept, :attr:`SimView.lines`), Exit (``exit``:
:class:`~saphira.ui.requests.PageExit`, as Ctrl-C, where exits are allowed) and Display→Wake (each
robot's breadcrumbs of the last seconds, drawn while Wake is on).
A simulator front end with a panel of its own (Flat's: :class:`saphira.app.sim_ui.FlatView`) extends
:class:`SimView` with :meth:`~SimView.status` and :meth:`~SimView.handle`; this module knows none of them.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from saphira.core.folderfile import FolderRefused, read_in_folder
from saphira.core.paths import data_dir
from saphira.display.drawing import drawing_for
from saphira.display.state import DisplayState
from saphira.params.robot_params import MAX_PARAMS_BYTES, ParamsError, RobotParams, params_for_data, params_for_file
from saphira.sim.simulation import Simulation
from saphira.sim.world_requests import WorldAccess, WorldRefused
from saphira.ui.requests import PageExit, RequestError, display_setting, integer, number, text
from saphira.ui.server import ServedView, UiServer
from saphira.ui.snapshot import Wake, world_outline
from saphira.world.world import World

__all__ = ["LOWEST_PORT", "MAX_PARAMS_NAME", "MAX_WORLD_NAME", "PLACE_MARGIN", "ClientLines", "SimView"]

MAX_PARAMS_NAME = 1024
"""The longest parameter file name a page may send (a bundled name, ``p3dx-laser``, or a path under
``--params-dir``)."""

LOWEST_PORT = 1024
"""The lowest port a page may have a robot listen on (0: a free one): the ones below are privileged."""

MAX_WORLD_NAME = 1024
"""The longest world name a page may send (a path under ``--world-dir``)."""

PLACE_MARGIN = 5000.0
"""How far (mm) outside the world's bounds a robot may be placed: a click beyond that is a mistake."""


class ClientLines(Protocol):
    """The robots' client lines, for the Connect menu (the Pioneer server's :class:`saphira.sim.lines.PioneerLines`)."""

    def listening(self) -> list[tuple[str, bool]]: ...

    def hang_up(self, index: int) -> bool: ...

    def listen(self, index: int, port: int) -> str: ...


@dataclass(frozen=True, slots=True)
class _Params:
    """A checked ``load_params`` request: robot ``index`` takes ``params``."""

    index: int
    params: RobotParams


@dataclass(frozen=True, slots=True)
class _Disconnect:
    """A checked ``disconnect`` request: hang up robot ``index``'s client."""

    index: int


@dataclass(frozen=True, slots=True)
class _Listen:
    """A checked ``listen`` request: robot ``index`` listens on TCP ``port`` (0: a free one)."""

    index: int
    port: int


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


_Request = _Place | _Params | _Disconnect | _Listen | World


class SimView(ServedView):
    """The live view of a standalone :class:`~saphira.sim.simulation.Simulation`."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self.display = DisplayState()
        self.display.global_view = True
        self.server: UiServer | None = None
        self._cycles = 0
        self._requests: deque[_Request] = deque(maxlen=64)
        self._lock = threading.Lock()
        self._world = simulation.world
        self._loading = threading.Lock()
        self.worlds: WorldAccess | None = None
        """What Files→Load World may load (None: not offered, as for Flat, whose World file owns its maps)."""
        self.take_params: Callable[[int, RobotParams], None] | None = None
        """Files→Load Params: robot ``index`` takes the parameters (simulator thread; None: not offered)."""
        self.params_folder: Path | None = None
        """Files→Load Params also reads files under this folder (``--params-dir``; None: bundled ones only)."""
        self.lines: ClientLines | None = None
        """The robots' lines for the Connect menu (None: not offered)."""
        self.exit = PageExit()
        """Connect→Exit (the command says whether and how it ends the program)."""
        self.wakes: list[Wake] = []
        """Each robot's breadcrumbs while Display→Wake is on."""

    def cycle(self, now: float) -> None:
        """Apply the pages' requests and, every display period, send a frame (simulator thread)."""
        with self._lock:
            requests = list(self._requests)
            self._requests.clear()
        for request in requests:
            if isinstance(request, _Place):
                self._place(request)
            elif isinstance(request, _Params):
                if self.take_params is not None and request.index < len(self.simulation.robots):
                    self.take_params(request.index, request.params)
                    self._say(f"robot {request.index + 1} takes the parameters of {request.params.name}")
            elif isinstance(request, _Disconnect):
                if self.lines is not None and not self.lines.hang_up(request.index):
                    self._say(f"robot {request.index + 1} has no client to disconnect")
            elif isinstance(request, _Listen):
                self._listen(request)
            else:
                self._use_world(request)
        self._track_wakes(now)
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
        """More for the frame: where the robots listen and the wakes (a subclass adds its panel's state)."""
        extra: dict[str, Any] = {}
        if self.lines is not None:
            extra["lines"] = [[address, held] for address, held in self.lines.listening()]
        if self.display.wake:
            extra["wakes"] = [[[round(x), round(y)] for _, x, y in wake.points] for wake in self.wakes]
        return extra

    def _track_wakes(self, now: float) -> None:
        robots = self.simulation.robots
        if not self.display.wake:
            self.wakes.clear()
            return
        while len(self.wakes) < len(robots):
            self.wakes.append(Wake())
        del self.wakes[len(robots) :]
        for wake, robot in zip(self.wakes, robots, strict=True):
            wake.add(now, robot.x, robot.y)

    def _use_world(self, world: World) -> None:
        """Files→Load World, as LOADWORLD: the new world, robot 1 at its start pose when it has one."""
        self.simulation.set_world(world)
        start = world.start_pose
        if start is not None and self.simulation.robots:
            self.simulation.set_pose(self.simulation.robots[0], start.x, start.y, start.th)
        self.wakes.clear()
        self._say(f"world {world.name} loaded")

    def _listen(self, request: _Listen) -> None:
        """Connect→port: the robot's line moves to the port, or the page is told why not (the old one stays)."""
        if self.lines is None:
            return
        robot = f"robot {request.index + 1}"
        wanted = f"port {request.port}" if request.port else "a free port"
        try:
            address = self.lines.listen(request.index, request.port)
        except OSError as exc:
            where = self.lines.listening()[request.index][0]
            self._say(f"{robot} cannot listen on {wanted}: {exc.strerror or exc}; it still listens on {where}")
            return
        self._say(f"{robot} listens on {address}")

    def _say(self, line: str) -> None:
        if self.server is not None:
            self.server.message(line)

    def _load_params(self, message: dict[str, Any]) -> _Params:
        """A ``load_params`` request: a bundled parameter file (as ``saphira params`` lists), read here."""
        if self.take_params is None:
            raise RequestError("load_params: this simulator's robots do not take parameters from its window")
        count = len(self.simulation.robots)
        index = integer(message, "robot", 0, count - 1) if count else 0
        name = text(message, "name", MAX_PARAMS_NAME)
        if count == 0:
            raise RequestError("load_params: the simulator has no robot")
        try:
            opened = self._params_in_folder(name)
            if opened is not None:
                return _Params(index, params_for_data(opened[1], str(opened[0])))
            stem = name.strip().lower().removesuffix(".p")
            folder = data_dir("params")
            found = [p for p in folder.iterdir() if p.suffix.lower() == ".p" and p.stem.lower() == stem and p.is_file()]
            if not found:
                where = (
                    f"nor a file under {self.params_folder}" if self.params_folder else "('saphira params' lists them)"
                )
                raise RequestError(f"load_params: {name[:80]!r} is not a bundled parameter file {where}")
            return _Params(index, params_for_file(found[0]))
        except (ParamsError, FolderRefused) as exc:
            raise RequestError(f"load_params: {exc}") from None

    def _params_in_folder(self, name: str) -> tuple[Path, bytes] | None:
        """The file ``name`` stands for under :attr:`params_folder`, read without following links."""
        if self.params_folder is None:
            return None
        try:
            return read_in_folder(self.params_folder, name, max_bytes=MAX_PARAMS_BYTES, option="--params-dir")
        except OSError as exc:  # the folder itself went away or became unreadable
            raise FolderRefused(f"cannot read {str(self.params_folder)!r}: {exc.strerror or exc}") from exc

    def _load_world(self, message: dict[str, Any]) -> World:
        """Read the world a ``load_world`` request names, if the simulator's clients may load it (this thread)."""
        name = text(message, "name", MAX_WORLD_NAME)
        if self.worlds is None:
            raise RequestError("load_world: this simulator's worlds are not loaded from its window")
        if not self._loading.acquire(blocking=False):
            raise RequestError("load_world: another world is still being loaded")
        try:
            return self.worlds.load(name)
        except WorldRefused as exc:
            raise RequestError(f"load_world: {exc}") from None
        finally:
            self._loading.release()

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

    def _checked_listen(self, message: dict[str, Any]) -> _Listen:
        """A ``listen`` request's robot and port (0, or :data:`LOWEST_PORT` to 65535)."""
        if self.lines is None:
            raise RequestError("listen: this simulator's robots do not change ports from its window")
        index = integer(message, "robot", 0, len(self.lines.listening()) - 1)
        port = integer(message, "port", 0, 65535)
        if 0 < port < LOWEST_PORT:
            raise RequestError(
                f"listen: port {port} is privileged (choose {LOWEST_PORT} to 65535, or 0 for a free one)"
            )
        return _Listen(index, port)

    def _queue(self, request: _Request) -> None:
        with self._lock:
            self._requests.append(request)

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
            self._queue(self._checked_place(message))
        elif kind == "load_params":
            self._queue(self._load_params(message))
        elif kind == "load_world":
            self._queue(self._load_world(message))
        elif kind == "disconnect":
            if self.lines is None:
                raise RequestError("disconnect: this simulator's clients are not disconnected from its window")
            self._queue(_Disconnect(integer(message, "robot", 0, len(self.lines.listening()) - 1)))
        elif kind == "listen":
            self._queue(self._checked_listen(message))
        elif kind == "exit":
            self.exit(message)
            self._say("Exit: the simulator stops")
        elif kind == "display":
            self.display.set(*display_setting(message))
        elif kind in ("view", "button", "key"):
            return
        else:
            raise ValueError(f"unknown request type {kind!r}")
