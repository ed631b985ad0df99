"""A Pyro-style brain: a ``Brain`` whose ``step`` runs ten times a second, driving with ``move``.

Pyro's avoider: straight on while the front sonars see nothing near, turning on the spot when they do.
The brain sees the robot in Pyro's idiom (``self.robot.range["front-all"]``, ``self.robot.move(t, r)``
in -1..1 of the top speeds; ranges in metres here). The file is a brain for ``saphira run`` too
(``saphira run examples/pyro_brain.py --robot URL``): that loads ``INIT`` and ignores the rest.

    python examples/pyro_brain.py [--robot tcp://127.0.0.1:8101] [--duration S]
"""

from __future__ import annotations

from typing import Any

from saphira.brain import Brain, BrainEngine, load_brain


class Avoid(Brain):
    def setup(self, **kwargs: Any) -> None:
        self.robot.range.units = "METERS"
        self.turns = 0

    def step(self) -> None:
        ahead = min(s.distance() for s in self.robot.range["front-all"])
        if ahead < 0.7:
            self.robot.move(0.0, 0.4)  # turn left on the spot
            self.turns += 1
        else:
            self.robot.move(0.4, 0.0)

    def destroy(self) -> None:
        self.robot.stop()
        print(f"brain {self.name}: {self.turns} cycles spent turning")


def INIT(engine: BrainEngine) -> Brain:
    return Avoid("Avoid", engine)


def main() -> None:
    from example_args import connect, parse_args, run_for

    from saphira.robot import Robot

    args = parse_args("run a Pyro-style avoiding brain")
    with Robot() as robot:
        connect(robot, args, world="room")
        task = load_brain(__file__, robot)  # INIT(engine) makes the brain; a micro-task steps it
        try:
            run_for(robot, args.duration)
        finally:
            robot.scheduler.remove(task)  # the brain's destroy() runs (also on Ctrl-C), what it drove stops


if __name__ == "__main__":
    from example_args import main_guard

    main_guard(main)
