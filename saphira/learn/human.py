"""``render_mode="human"``: the live view of the environment's robot, paced to its 100 ms cycle.

On every reset the first robot of the fleet gets a :class:`~saphira.ui.liveview.LiveView` on
127.0.0.1 (port ``ui_port``, 0 for any free one), with a Colbert evaluator (the page's prompt works) and
the simulator's world, as ``saphira run --ui`` shows a run. :meth:`HumanView.frame` holds each step to
the robot's cycle in wall-clock time, so a person watches the episode at its real speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from saphira.colbert.evaluator import Evaluator
from saphira.learn.fleet import Agent, Fleet
from saphira.sim.embedded import EmbeddedSim
from saphira.ui.liveview import LiveView, serve


class HumanView:
    """One live view per episode, stopped at the next reset or at close."""

    def __init__(self, port: int = 0, say: Callable[[str], None] = print) -> None:
        self.port = port
        self.say = say
        self.view: LiveView | None = None
        self.url = ""
        self._last = 0.0

    def show(self, fleet: Fleet) -> None:
        """Serve the live view of ``fleet``'s first robot (the previous episode's view stops)."""
        self.close()
        agent: Agent = fleet.agents[0]
        # The view reads the world and the true pose through the embedded simulator's interface; this one
        # is never attached to the clock: the fleet steps the simulation.
        sim = EmbeddedSim(agent.robot, fleet.simulation, agent.body, agent.server)
        evaluator = Evaluator(agent.robot, output=lambda line: None, read_init=False)
        urls: list[str] = []

        def say(line: str) -> None:
            urls.append(line)
            self.say(line)

        self.view = serve(agent.robot, evaluator, ("127.0.0.1", self.port), sim=sim, say=say)
        self.url = urls[0].removeprefix("live view: ") if urls else ""
        self._last = time.monotonic()

    def frame(self, period: float) -> None:
        """Wait out the rest of this cycle's ``period`` seconds of wall-clock time."""
        wait = self._last + period - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last = time.monotonic()

    def close(self) -> None:
        if self.view is not None:
            self.view.stop()
            self.view = None
