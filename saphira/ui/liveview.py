"""The live view of a robot session: the display task, the page's commands and the keyboard drive.

:class:`LiveView` joins a :class:`~saphira.robot.Robot`, its Colbert :class:`~saphira.colbert.evaluator.Evaluator`
and (optionally) the embedded simulator to a :class:`~saphira.ui.server.UiServer`:

* a ``display`` micro-task (observe phase, after everything else in the cycle) keeps the wake and,
  every display period (``sfDISPLAY`` cycles), captures a :class:`~saphira.ui.snapshot.Snapshot` and
  hands it to the server — only while a page is connected, and never waiting for one;
* everything the evaluator prints also goes to every page's interaction area;
* a page's requests (a Colbert line, INT/RES to a task, a key, a display setting, its view) run in a
  server worker thread and touch the robot only between cycles (``scheduler.lock``), as the shell does.

Keys (the sample client's, §11.9): every key pressed on the map goes first to a key handler set with
:attr:`DisplayState.key_handler` (a character, or a key's name: ``F1``, ``Escape``, ``ArrowUp``), which
overrides the built-in meaning by returning True; the built-in keys: Up/Down change the velocity
setpoint by :data:`SPEED_STEP` mm/s, Left/Right the heading setpoint by :data:`TURN_STEP` degrees
(direct motion, taking the channels from the behaviors), space stops the robot, ``c`` starts or removes
a constant-velocity behavior (:data:`CRUISE_SPEED` mm/s; the channels go back to the behaviors), ``s``
steps one cycle in single-step mode.

The occupancy grid (``sfOCCGRID`` on, from Colbert or the Display menu, which also starts the grid's
task) is the heaviest part of a frame (a few kB to tens of kB), so a frame carries its image
(``"occgrid"``) only when the grid has taken in new readings since the last image went out, and at most
every :data:`GRID_EVERY` frames; a page keeps drawing the last image it got. A newly connected page, or
turning the menu item on again, gets the next one without waiting for a change.

Behaviors draw their lanes and sensitivity boxes (a ``draw`` on their definition, given an LPS pen) into
each frame while a page watches; with no page they are never asked, so they cost the cycle nothing.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.core.clock import DEFAULT_PERIOD, RealTimeClock
from saphira.core.errors import SaphiraError
from saphira.core.tasks import Phase, TaskState
from saphira.display.drawing import COLORS, Drawing, LocalPen, drawing_for
from saphira.display.state import DisplayMenu, DisplayState, View, display_for
from saphira.perception.occupancy import occupancy_grid_for, start_occupancy_grid
from saphira.ui.requests import COORDINATE_MM, PageExit, display_setting, integer, number, text
from saphira.ui.server import ServedView, UiServer
from saphira.ui.snapshot import GridCopy, Snapshot, Wake, capture, world_outline

if TYPE_CHECKING:
    from saphira.colbert.evaluator import Evaluator
    from saphira.robot import Robot
    from saphira.sim.embedded import EmbeddedSim
    from saphira.world.world import World

__all__ = ["CRUISE_SPEED", "GRID_EVERY", "SPEED_STEP", "TURN_STEP", "LiveView", "SteppedClock", "serve"]

MAX_KEY_NAME = 16
"""The longest key name a page may send (the browser's names, ``ArrowRight``, ``PageDown``, are shorter)."""
SPEED_STEP = 50.0
TURN_STEP = 10.0
CRUISE_SPEED = 300.0
CRUISE_TASK = "keys.cruise"
GRID_EVERY = 5
"""Frames between two occupancy-grid images at most (1 s at the default display period of 2 cycles)."""
HISTORY = 200
"""Interaction-area lines a newly opened page is shown."""


class SteppedClock(RealTimeClock):
    """Real time scaled by ``speed`` (2.0: twice as fast), held between cycles in single-step mode.

    While ``display.step`` is on, each cycle waits for :meth:`step_once` (the S key) after its slot,
    then the cadence restarts from now, so the held time is not counted as overruns.
    """

    def __init__(self, display: DisplayState | None = None, period: float = DEFAULT_PERIOD, speed: float = 1.0) -> None:
        super().__init__(period, speed=speed)
        self.display = display
        self.on_boundary: Callable[[], None] | None = None
        """Called at every cycle boundary, before the wait (the live view hands its frame over here)."""
        self._steps = 0
        self._gate = threading.Condition()

    def wait_next(self) -> None:
        boundary = self.on_boundary
        if boundary is not None:
            boundary()
        self._wait_slot()

    def step_once(self) -> None:
        with self._gate:
            self._steps += 1
            self._gate.notify_all()

    def _wait_slot(self) -> None:
        super().wait_next()
        with self._gate:
            display = self.display
            if display is None or not display.step:
                self._steps = 0
                return
            while display.step and self._steps == 0:
                self._gate.wait(timeout=0.25)
            self._steps = max(0, self._steps - 1)
        self._slot = int(self.now() / self.period)


class LiveView(ServedView):
    """Serves a page that shows and drives one robot session (see the module docstring)."""

    def __init__(self, robot: Robot, evaluator: Evaluator, *, sim: EmbeddedSim | None = None) -> None:
        self.robot = robot
        self.evaluator = evaluator
        self.sim = sim
        self.display = display_for(robot.scheduler)
        self.drawing = drawing_for(robot.scheduler)
        self.wake = Wake()
        self.server: UiServer | None = None
        self.history: deque[str] = deque(maxlen=HISTORY)
        self._history_lock = threading.Lock()
        self._cycles = 0
        self._inputs = 0
        self._cpu = (time.monotonic(), time.process_time(), 0)
        self._info: dict[str, Any] = {"CPU": 0.0, "Scrn": 0.0}
        self._pending: Snapshot | None = None
        self._frames = 0
        self.behaviors_drawn = 0
        """How many times a behavior drew itself for a frame (stays 0 while no page watches)."""
        self._draw_failed: set[str] = set()
        self._world = sim.simulation.world if sim is not None else None
        """The simulator's world the pages were last given (a frame carries the walls when it changes)."""
        self._palette = self.drawing.palette_css()
        """The colour variables the pages were last given (a frame carries them when Colbert changes one)."""
        self._grid_sent: tuple[int, int, int] | None = None
        """(frame, grid readings, server connections) when the last grid image went out."""
        self.exit = PageExit()
        """The page's Connect→Exit (the command that serves the view says whether and how it ends)."""
        self.deferred = False
        """True when the clock calls :meth:`flush` at every cycle boundary (see :func:`serve`)."""
        original = evaluator.output

        def tee(text: str) -> None:
            original(text)
            self._line(text)

        evaluator.output = tee
        self.task = robot.scheduler.add(self._step, robot.scheduler.unique_name("display"), phase=Phase.OBSERVE)

    # ------------------------------------------------------------------ life
    def _line(self, text: str) -> None:
        with self._history_lock:  # written from the cycle and from requests, read by a page's hello
            self.history.append(text)
        if self.server is not None:
            self.server.message(text)

    # ------------------------------------------------------------------ the display task
    def _step(self, state: int) -> int:
        robot = self.robot
        s = robot.state
        if self.display.wake and robot.connected:  # before the handshake the pose is nowhere the robot was
            self.wake.add(robot.clock.now(), s.ax, s.ay)
        self._cycles += 1
        period = self.display.period
        if period > 0 and self._cycles % period == 0:
            server = self.server
            watching = server is not None and server.pages > 0
            if watching:
                self._draw_behaviors()
            drawing = self.drawing.take()
            if server is not None and watching:
                self._update_rates(server)
                snapshot = capture(robot, self.wake, drawing, self._info, self.sim)
                snapshot.extra["display"] = self.display.as_dict()
                self._frames += 1
                snapshot.grid = self._grid_update(server)
                world = self.sim.simulation.world if self.sim is not None else None
                if world is not self._world:  # sfLoadWorldFile: the pages redraw the new world's walls
                    self._world = world
                    snapshot.extra.update(world_outline(world))
                palette = self.drawing.palette_css()
                if palette != self._palette:  # sfRobotColor = ...: watching pages recolour at once
                    self._palette = palette
                    snapshot.extra["palette"] = palette
                self._pending = snapshot
                if not self.deferred:
                    self.flush()
        return TaskState.RESUME

    def _draw_behaviors(self) -> None:
        """Each running behavior with a ``draw`` draws its lanes and sensitivity boxes into this frame.

        Done here, once per frame and only while a page watches, rather than in the executive every
        cycle: drawing costs the control cycle nothing when nobody looks. A behavior whose ``draw``
        fails is reported once and not drawn again."""
        s = self.robot.state
        pen = LocalPen(self.drawing, s.global_pose, width=2)
        for task in self.robot.executive.behaviors:
            draw = task.defn.draw
            if draw is None or not task.active or task.finished or task.name in self._draw_failed:
                continue
            try:
                draw(task.ctx, pen)
            except Exception as exc:  # a user's drawing must not stop the display
                self._draw_failed.add(task.name)
                self.evaluator.output(f"behavior {task.name}: its drawing failed: {type(exc).__name__}: {exc}")
            self.behaviors_drawn += 1

    def _grid_update(self, server: UiServer) -> GridCopy | None:
        """The occupancy grid's arrays when this frame should carry its image (see the module docstring)."""
        if not self.display.occgrid:
            self._grid_sent = None
            return None
        grid = occupancy_grid_for(self.robot.reflector)
        sent = self._grid_sent
        if sent is not None:
            frame, readings, connections = sent
            if self._frames - frame < GRID_EVERY or (readings, connections) == (grid.readings, server.connections):
                return None
        self._grid_sent = (self._frames, grid.readings, server.connections)
        return grid.log_odds.copy(), grid.seen.copy(), grid.origin, grid.resolution

    def flush(self) -> None:
        """Hand the captured frame to the server. Called at the cycle boundary when :attr:`deferred`:
        the server thread then builds and sends the JSON while the control thread waits for its next
        slot, instead of competing with the rest of the cycle for the interpreter."""
        snapshot, self._pending = self._pending, None
        if snapshot is not None and self.server is not None:
            self.server.publish(snapshot)

    def _update_rates(self, server: UiServer) -> None:
        wall, cpu, frames = self._cpu
        now, now_cpu = time.monotonic(), time.process_time()
        if now - wall >= 0.5:
            self._info = {"CPU": round(100.0 * (now_cpu - cpu) / (now - wall), 1),
                          "Scrn": round((server.frames_published - frames) / (now - wall), 1)}  # fmt: skip
            self._cpu = (now, now_cpu, server.frames_published)

    # ------------------------------------------------------------------ what a page gets first
    def hello(self) -> dict[str, Any]:
        world = self.sim.simulation.world if self.sim is not None else None
        return page_hello(self.robot, world, self.drawing, self.display, self._history())

    def _history(self) -> list[str]:
        with self._history_lock:
            return list(self.history)

    # ------------------------------------------------------------------ what a page asks for
    def handle(self, message: dict[str, Any]) -> None:
        """One request from a page (runs in a server worker thread)."""
        kind = message.get("type")
        if kind == "eval":
            self.evaluate(str(message.get("text", "")))
        elif kind == "signal":
            self.toggle_task(str(message.get("task", "")))
        elif kind == "key":
            self.key(text(message, "key", MAX_KEY_NAME))
        elif kind == "display":
            menu, state = display_setting(message)
            self.display.set(menu, state)
            if menu == DisplayMenu.OCCGRID and state:
                with self.robot.scheduler.lock:
                    start_occupancy_grid(self.robot.reflector, self.robot.scheduler)  # the grid must exist to be shown
        elif kind == "view":
            far = COORDINATE_MM
            rotation = number(message, "rotation", -720.0, 720.0) if "rotation" in message else 0.0
            local = integer(message, "local", 0, 1) == 1 if "local" in message else False
            self.display.set_view(View(number(message, "scale", 1e-9, 1e6), number(message, "cx", -far, far),
                                       number(message, "cy", -far, far), rotation,
                                       integer(message, "width", 1, 100_000),
                                       integer(message, "height", 1, 100_000),
                                       local))  # fmt: skip
        elif kind == "button":
            handler = self.display.button_handler
            if handler is not None:
                mods = integer(message, "mods", 0, 7) if "mods" in message else 0
                handler(integer(message, "x", -100_000, 100_000), integer(message, "y", -100_000, 100_000),
                        integer(message, "button", 1, 3), mods)  # fmt: skip
        elif kind == "clear_sonar":
            with self.robot.scheduler.lock:
                self.robot.sonar.clear()
        elif kind == "exit":
            self.exit(message)
            self._line("Exit: the run ends (the robot is stopped)")
        else:
            raise ValueError(f"unknown request type {kind!r}")

    def evaluate(self, text: str) -> None:
        """Run a line of Colbert as ``saphira shell`` does; the result and errors go to the pages."""
        if not text.strip():
            return
        self._inputs += 1
        self._line(f"colbert> {text}")
        try:
            self.evaluator.eval_text(text, f"<page {self._inputs}>", interactive=True)
        except Exception as exc:  # the page, like the shell, survives anything a line can do
            self.evaluator.output(f"error: {type(exc).__name__}: {exc}")

    def toggle_task(self, name: str) -> None:
        """The Processes/Activities windows' Enter or double-click: INT a running task, RES an interrupted one."""
        scheduler = self.robot.scheduler
        with scheduler.lock:
            task = scheduler.find(name)
            if task is None:
                self.evaluator.output(f"no task named {name!r}")
            elif task.suspended or task.state == TaskState.INTERRUPT:
                scheduler.resume(task)
            elif task.active:
                scheduler.interrupt(task)

    def key(self, key: str) -> None:
        """A key pressed on the page (see the module docstring)."""
        handler = self.display.key_handler
        if handler is not None and handler(key):
            return
        clock = self.robot.clock
        if key in ("s", "S"):
            if isinstance(clock, SteppedClock):
                clock.step_once()
            return
        motion = self.robot.motion
        with self.robot.scheduler.lock:
            if key == "ArrowUp":
                motion.set_velocity(motion.target_vel() + SPEED_STEP)
            elif key == "ArrowDown":
                motion.set_velocity(motion.target_vel() - SPEED_STEP)
            elif key == "ArrowLeft":
                motion.set_dheading(TURN_STEP)
            elif key == "ArrowRight":
                motion.set_dheading(-TURN_STEP)
            elif key == " ":
                motion.halt()
            elif key in ("c", "C"):
                self._toggle_cruise()

    def _toggle_cruise(self) -> None:
        scheduler = self.robot.scheduler
        if CRUISE_TASK in scheduler:
            scheduler.remove(CRUISE_TASK)
            self.evaluator.output("constant velocity off")
            return
        from saphira.behavior.library import find_behavior

        self.robot.motion.release()
        self.robot.start_behavior(find_behavior("constant_velocity"), CRUISE_SPEED, name=CRUISE_TASK, priority=2)
        self.evaluator.output(f"constant velocity on ({CRUISE_SPEED:.0f} mm/s)")


def page_hello(
    robot: Robot, world: World | None, drawing: Drawing, display: DisplayState, history: list[str]
) -> dict[str, Any]:
    """What a robot page gets first: the body to draw, the world's outline, the palette, the display
    settings, the interaction area's history and the cycle period (the live view and the replay's)."""
    params = robot.params
    return {
        "mode": "client",
        "robot": {"radius": params.robot_radius, "diagonal": params.robot_diagonal,
                  "holonomic": params.holonomic, "width": params.robot_width, "length": params.robot_length,
                  "front": params.robot_length_front, "rear": params.robot_length_rear},
        **world_outline(world),
        "palette": drawing.palette_css(),
        "colors": {name: value for name, (value, _) in COLORS.items()},
        "display": display.as_dict(),
        "history": history,
        "period": robot.clock.period,
    }  # fmt: skip


def serve(
    robot: Robot,
    evaluator: Evaluator,
    address: tuple[str, int],
    *,
    sim: EmbeddedSim | None = None,
    say: Callable[[str], None] = print,
) -> LiveView:
    """Start the live view of a session on ``address`` and ``say`` its URL (with the token).

    Raises :class:`SaphiraError` (one line, exit status 2) when the address cannot be served: ``run``
    and ``shell`` try it before connecting (:func:`saphira.ui.options.ui_port_problem`), but another
    program may take the port in between.
    """
    view = LiveView(robot, evaluator, sim=sim)
    if isinstance(robot.clock, SteppedClock):
        robot.clock.display = view.display
        robot.clock.on_boundary = view.flush
        view.deferred = True
    try:
        view.start(*address, say=say)
    except OSError as exc:
        raise SaphiraError(str(exc)) from exc
    return view
