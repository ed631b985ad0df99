"""``saphira replay REC --ui``: a recording played in the live view, with play/pause, step, speed, a slider.

The page is the live view's (:mod:`saphira.ui.server`: the same token, Origin checks and headers); its
hello says ``"replay"`` with the recording's length, and the page shows the player's controls instead of
the Colbert prompt. A player thread owns the :class:`~saphira.record.playback.Playback`: while playing it plays
a cycle every period divided by the speed and sends each as a frame (the LPS, the information area and
the behaviors' rules and truths as recorded: version 3; the activities: version 4); a page's request
only sets what the player does next. The wake starts where the recorded robot first was, once connected.
Going back replays from the start to the cycle asked for, as fast as it goes, showing only that one.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.display.drawing import drawing_for
from saphira.display.state import DisplayState
from saphira.record.playback import Playback
from saphira.ui.liveview import page_hello
from saphira.ui.requests import RequestError, display_setting, integer, number, text
from saphira.ui.server import ServedView
from saphira.ui.snapshot import Wake, capture

if TYPE_CHECKING:
    from saphira.world.world import World

__all__ = ["MAX_SPEED", "ReplayView", "serve_replay"]

MAX_SPEED = 64.0
"""The fastest a page may play a recording (times real time)."""
ACTIONS = ("play", "pause", "step", "speed", "seek")


class _Frame:
    """A frame built once, in the player thread, for the pages and for the next page's hello."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self.frame = frame

    def to_json(self) -> str:
        return json.dumps(self.frame, separators=(",", ":"))


class ReplayView(ServedView):
    """Serves a page that plays one recording (see the module docstring)."""

    def __init__(self, playback: Playback, world: World | None = None) -> None:
        self.playback = playback
        self.world = world
        self.display = DisplayState()
        self.display.global_view = True  # the run as it went through its world
        self.wake = Wake()
        self._drawing = drawing_for(playback.robot.scheduler)
        self.playing = False
        self.speed = 1.0
        self._steps = 0
        self._seek: int | None = None
        self._wake_up = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.frames = 0
        self._last: dict[str, Any] | None = None
        """The last frame sent, which a new page's hello carries (the player may be paused)."""

    # ------------------------------------------------------------------ what a page gets
    def hello(self) -> dict[str, Any]:
        return {
            **page_hello(self.playback.robot, self.world, self._drawing, self.display, []),
            "replay": self._status(),
            **({"frame": self._last} if self._last is not None else {}),  # a page shows where the player is
        }  # fmt: skip

    def _status(self) -> dict[str, Any]:
        return {"source": self.playback.info.source, "cycle": self.playback.cycle,
                "cycles": self.playback.cycles, "playing": self.playing, "speed": self.speed,
                "behaviors": self.playback.info.has_behaviors}  # fmt: skip

    def _publish(self) -> None:
        server, playback = self.server, self.playback
        if server is None:
            return
        robot = playback.robot
        snapshot = capture(robot, self.wake, [], {"CPU": 0.0, "Scrn": 0.0})
        snapshot.tasks = [(str(n), str(s), int(d), str(k), bool(r)) for n, s, d, k, r in playback.tasks]
        recorded = playback.behaviors
        snapshot.extra.update({
            "display": self.display.as_dict(),
            "behaviors": recorded.get("rows", []),
            "summation": [recorded.get("turn"), recorded.get("speed")],
            "replay": self._status(),
        })  # fmt: skip
        self.frames += 1
        self._last = snapshot.to_dict()
        server.publish(_Frame(self._last))

    # ------------------------------------------------------------------ what a page asks for
    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "view":
            return  # the page reports its view: nothing here depends on it
        if kind == "display":  # the Display menu: wake, local view, update period, as in the live view
            self.display.set(*display_setting(message))
            return
        if kind != "replay":
            raise RequestError(f"{kind}: a replay plays what was recorded; it takes only its player's requests")
        action = text(message, "action", 10)
        with self._wake_up:
            if action == "play":
                self.playing = True
            elif action == "pause":
                self.playing = False
            elif action == "step":
                self.playing = False
                self._steps += 1
            elif action == "speed":
                self.speed = number(message, "speed", 0.05, MAX_SPEED)
            elif action == "seek":
                self._seek = integer(message, "cycle", 0, self.playback.cycles)
            else:
                raise RequestError(f"replay: unknown action {action!r} (one of {', '.join(ACTIONS)})")
            self._wake_up.notify_all()

    # ------------------------------------------------------------------ the player
    def start(self, host: str, port: int, *, say: Callable[[str], None]) -> str:
        url = super().start(host, port, say=say)
        self._thread = threading.Thread(target=self._play, name="saphira-replay", daemon=True)
        self._thread.start()
        return url

    def stop(self) -> None:
        with self._wake_up:
            self._stopped = True
            self._wake_up.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
        super().stop()

    def _play(self) -> None:
        self._publish()  # cycle 0: the page shows where the recording starts
        while True:
            with self._wake_up:
                if self._stopped:
                    return
                seek, self._seek = self._seek, None
                stepping = self._steps > 0
                self._steps = max(0, self._steps - 1)
                playing = self.playing and not self.playback.done
                if seek is None and not stepping and not playing:
                    self._wake_up.wait(timeout=1.0)
                    continue
                pause = self.playback.robot.clock.period / self.speed
            if seek is not None:
                self._go_to(seek)
            else:
                self._advance()
            if self.playback.done:
                with self._wake_up:
                    self.playing = False  # the end: the page's button says Play again
            self._publish()
            if playing and seek is None and not stepping:
                with self._wake_up:  # the pace of the recording, times the speed; a request cuts it short
                    self._wake_up.wait(timeout=pause)

    def _advance(self) -> None:
        playback = self.playback
        playback.step()
        state = playback.robot.state
        if self.display.wake and playback.robot.connected:  # before, the pose is no place the robot was
            self.wake.add(playback.robot.clock.now(), state.ax, state.ay)
        for _level, name, line in playback.messages:
            if self.server is not None:
                self.server.message(line if name == "sfMessage" else f"{name}: {line}")

    def _go_to(self, cycle: int) -> None:
        if cycle < self.playback.cycle:
            self.playback = self.playback.restart()
            self.wake = Wake()
        while self.playback.cycle < cycle and not self.playback.done:
            self.playback.step()
            state = self.playback.robot.state
            if self.playback.robot.connected:
                self.wake.add(self.playback.robot.clock.now(), state.ax, state.ay)


def serve_replay(playback: Playback, world: World | None, address: tuple[str, int]) -> int:
    """Serve the replay on ``address`` until Ctrl-C or SIGTERM; exit status 0."""
    from saphira.core.interrupts import StopSignals, signalled

    view = ReplayView(playback, world)
    with StopSignals():  # a signal raises Interrupted here: the page is closed, the status says which
        try:
            view.start(*address, say=lambda line: print(line, flush=True))
            print(f"replaying {playback.info.source}: {playback.cycles} cycles; Ctrl-C ends", flush=True)
            while True:
                time.sleep(1.0)
        except KeyboardInterrupt as stop:
            return signalled(getattr(stop, "signum", signal.SIGINT))  # 130 for Ctrl-C, 143 for SIGTERM
        finally:
            view.stop()
