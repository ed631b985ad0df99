"""How a command assembles its session: the clock, the robot, its parameters file, what it is connected
to (a robot URL, watched for loss; else :func:`~saphira.sim.embedded.attach_simulator`) and the live view.

``saphira run`` (:class:`saphira.app.run.Session`, which ``saphira batch`` trials use too) and
``saphira shell`` build their sessions from these pieces; what differs between them is a parameter
(a shell runs in real time and connects without waiting; a run waits, and may be lock-step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from saphira.client.link.base import ConnectError, LinkOptions
from saphira.client.link.registry import link_type
from saphira.client.link.watch import LinkWatch
from saphira.core.clock import Clock, LockStepClock, RealTimeClock
from saphira.params.robot_params import check_params_file
from saphira.robot import Robot

if TYPE_CHECKING:
    from saphira.colbert.evaluator import Evaluator
    from saphira.sim.embedded import EmbeddedSim
    from saphira.ui.liveview import LiveView

__all__ = ["connect_robot", "lay_params_file", "serve_live_view", "session_clock", "session_robot"]


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
