"""How a command assembles its session: the clock, the robot, its parameters file, what it is connected
to (a robot URL, watched for loss; else :func:`~saphira.sim.embedded.attach_simulator`), the connection
Colbert's ``connect`` reaches (:class:`ColbertConnection`) and the live view.

``saphira run`` (:class:`saphira.app.run.Session`, which ``saphira batch`` trials use too) and
``saphira shell`` build their sessions from these pieces; what differs between them is a parameter
(a shell runs in real time and connects without waiting; a run waits, and may be lock-step).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from saphira.client.link.base import ConnectError, LinkOptions
from saphira.client.link.registry import link_type
from saphira.client.link.watch import LinkWatch
from saphira.colbert.compile.symbols import ColbertRuntimeError
from saphira.core.clock import Clock, LockStepClock, RealTimeClock
from saphira.params.robot_params import check_params_file
from saphira.robot import Robot

if TYPE_CHECKING:
    from saphira.colbert.evaluator import Evaluator
    from saphira.sim.embedded import EmbeddedSim
    from saphira.ui.liveview import LiveView

__all__ = [
    "ColbertConnection",
    "connect_robot",
    "lay_params_file",
    "serve_live_view",
    "session_clock",
    "session_robot",
]

CONNECT_TIMEOUT = 30.0
"""Seconds Colbert's ``connect`` waits for the handshake before giving up."""


def session_clock(
    robot_url: str | None, speed: float | None, ui: tuple[str, int] | None, *, real_time: bool = False
) -> Clock:
    """The session's clock. With the live view, real time (× ``speed``) paced by its page's steps; else
    ``real_time`` (the shell: a person types) or a robot URL runs in real time, except a link that paces
    the run itself (a Flat server: lock-step, as fast as both go); the embedded simulator is lock-step
    unless ``speed`` paces it."""
    if ui is not None:  # a person watches: real time (x --speed with the simulator)
        from saphira.ui.liveview import SteppedClock

        return SteppedClock(speed=speed or 1.0)
    if real_time:
        return RealTimeClock(speed=speed or 1.0)
    if robot_url and not _paces_clock(str(robot_url)):
        return RealTimeClock()
    return RealTimeClock(speed=speed) if speed is not None else LockStepClock()


def _paces_clock(url: str) -> bool:
    """Whether the link for ``url`` paces the run (a Flat server steps with the controller): lock-step then."""
    try:
        return link_type(url).paces_clock
    except ConnectError:  # no link for the URL: connecting reports it, with every other connection error
        return False


def session_robot(clock: Clock, link_timeout: float | None) -> Robot:
    """The robot on ``clock``, its link declaring the robot lost after ``link_timeout`` s of silence."""
    return Robot(clock, link_options=LinkOptions(loss_timeout=link_timeout) if link_timeout else None)


def lay_params_file(robot: Robot, params: str | None) -> bool:
    """Lay a parameters file over the model the robot reports (a bad file raises before connecting);
    False when ``params`` is no file (None, or a bundled model's name)."""
    if params is None or check_params_file(params) is None:
        return False
    robot.link.user_params = params
    return True


def connect_robot(
    robot: Robot,
    url: str,
    say: Callable[[str], None],
    *,
    reconnect: float | None,
    wait: bool = True,
    still_up: str = "",
    connector: Callable[[], None] | None = None,
) -> LinkWatch:
    """Connect to the robot at ``url`` (the URL chooses the link) and watch the link for loss."""
    robot.connect(url, wait=wait)
    return LinkWatch(robot, url, say, reconnect=reconnect, still_up=still_up, connector=connector)


def serve_live_view(
    robot: Robot,
    evaluator: Evaluator,
    ui: tuple[str, int] | None,
    sim: EmbeddedSim | None,
    say: Callable[[str], None],
) -> LiveView | None:
    """Serve the live view on ``ui`` (None: no live view; aiohttp is then never imported)."""
    if ui is None:
        return None
    from saphira.ui.liveview import serve

    return serve(robot, evaluator, ui, sim=sim, say=say)


class ColbertConnection:
    """What Colbert's ``connect``, ``disconnect``, ``set`` and ``sfCom*`` reach: the session's robot.

    The defaults come from the environment as the manual's (``SAPHIRA_COMSERIAL``, ``SAPHIRA_SERIALBAUD``,
    ``SAPHIRA_COMPIPE``, ``SAPHIRA_COMSERVER``); ``connect kind [address]`` builds a transport URL from them
    (:meth:`url`) and hands it to ``connector`` (default: ``robot.connect(url, wait=False)``), which
    returns the URL really used, or None for the one given. Give it to the evaluator
    (``Evaluator(robot, connection=ColbertConnection(robot))``).
    """

    def __init__(
        self,
        robot: Robot | None,
        connector: Callable[[str], str | None] | None = None,
        *,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.robot = robot
        self.connector = connector
        self.settings: dict[str, str] = {
            "serial": environ.get("SAPHIRA_COMSERIAL", "/dev/ttyS0"),
            "baud": environ.get("SAPHIRA_SERIALBAUD", "9600"),
            "local": environ.get("SAPHIRA_COMPIPE", "tcp://127.0.0.1:8101"),
            "server": environ.get("SAPHIRA_COMSERVER", "localhost"),
        }
        self.connected_url = ""
        """The URL the last ``connect`` used (what ``disconnect`` names)."""

    def url(self, kind: str, address: str | None) -> str:
        """The transport URL for ``connect kind [address]`` (docs/colbert.md §6, docs/architecture.md §4)."""
        if kind == "local":
            # The manual's local pipe (SAPHIRA_COMPIPE): a port number on this host, a unix-domain
            # socket path (what 'saphira sim --unix PATH' listens on), or any URL.
            value = address or self.settings["local"]
            if value.isdigit():
                return f"tcp://127.0.0.1:{value}"
            if "://" in value:
                return value
            if "/" in value:
                return f"unix://{Path(value).expanduser()}"
            raise ColbertRuntimeError(f"connect local: {value!r} is neither a URL, a socket path nor a port number")
        if kind == "server":
            value = address or self.settings["server"]
            return value if "://" in value else f"tcp://{value}"
        value = address or self.settings["serial"]
        return value if "://" in value else f"serial://{value}?baud={self.settings['baud']}"

    def connect(self, kind: str, address: str | None, say: Callable[[str], None]) -> None:
        """``connect``: start the connection, then wait for the handshake unless inside an activity.

        The wait releases the scheduler's lock (see :meth:`Robot.wait_connected`), so a background
        scheduler keeps running the cycles that carry the handshake; it ends after
        :data:`CONNECT_TIMEOUT` seconds. Inside an activity (a running task) the connection is only
        started, as the manual's ``sfConnectToRobot`` then ``waitfor sfIsConnected`` pattern expects:
        blocking there would stop the very cycles the handshake needs. An existing connection is
        closed once the new line is open (``connect server X`` while connected moves to X; if X
        cannot be opened, the old connection stays).
        """
        url = self.url(kind, address)
        robot = self.robot
        if self.connector is None and robot is None:
            raise ColbertRuntimeError("there is no robot session to connect")
        previous = ""
        line = robot.link.transport if robot is not None else None
        if robot is not None and (robot.connected or robot.link.connecting):
            previous = self.connected_url or robot.link.url
        used = url
        try:
            if self.connector is not None:
                used = self.connector(url) or url
            elif robot is not None:
                robot.connect(url, wait=False)
            if previous and robot is not None and robot.link.transport is not line:
                say(f"disconnected from {previous}")
            if robot is not None and robot.link.connecting and robot.scheduler.current is None:
                robot.wait_connected(CONNECT_TIMEOUT)
        except ConnectError as exc:
            raise ColbertRuntimeError(f"connect {used}: {exc}") from exc
        self.connected_url = used
        if robot is not None and robot.link.connecting:
            say(f"connecting to {used}")
            return
        identity = robot.link.identity if robot is not None else None
        who = f" ({identity.name}, {identity.robot_class} {identity.subclass})" if identity else ""
        say(f"connected to {used}{who}")

    def disconnect(self, say: Callable[[str], None]) -> None:
        """``disconnect``: stop the robot, send CLOSE and close the line (the robot session stays)."""
        robot = self.robot
        if robot is None or not (robot.connected or robot.link.connecting):
            say("not connected")
            return
        url = self.connected_url or robot.link.url
        robot.disconnect()
        say(f"disconnected from {url}")
