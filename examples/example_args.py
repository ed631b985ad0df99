"""What every example shares: ``--robot URL`` and ``--duration S``, a robot connected to either, and a quiet end.

Without ``--robot`` an example drives the embedded simulator (a robot simulated in the program's own
process), lock-step unless ``real_time``: it runs as fast as the CPU allows. With ``--robot`` it connects
to that robot — ``tcp://127.0.0.1:8101`` for ``saphira sim`` or MobileSim, ``serial:///dev/ttyUSB0`` for a
Pioneer — and runs in real time (:meth:`saphira.robot.Robot.connect` chooses the clock).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from saphira.client.link.base import ConnectError
from saphira.core.clock import RealTimeClock
from saphira.robot import Robot


def parse_args(description: str, *, duration: float | None = None, extra: Callable[[argparse.ArgumentParser], None]
               | None = None) -> argparse.Namespace:  # fmt: skip
    """The command line: ``--robot URL``, ``--duration S`` (None: until Ctrl-C) and the example's own options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--robot", metavar="URL", help="the robot to drive (default: the embedded simulator)")
    parser.add_argument("--duration", metavar="S", type=float, default=duration, help="stop after S seconds")
    if extra is not None:
        extra(parser)
    return parser.parse_args()


def connect(robot: Robot, args: argparse.Namespace, *, world: str = "room", params: str | None = None) -> None:
    """Connect ``robot`` to ``--robot``, or give it a simulated robot in ``world`` (a bundled name).

    ``params`` (a bundled name or a ``.p`` file) is laid over the parameters of the model the robot
    reports: ``p3dx-laser`` says it carries a laser. The embedded simulator simulates that model."""
    robot.link.user_params = params
    if args.robot:
        robot.connect(args.robot)
    else:
        from saphira.sim.embedded import attach_simulator  # only loaded when simulating

        attach_simulator(robot, world, params or "p3dx")


def new_robot(real_time: bool = False) -> Robot:
    """A robot; ``real_time`` for an example a person interacts with, even on the embedded simulator."""
    return Robot(RealTimeClock()) if real_time else Robot()


def run_for(robot: Robot, seconds: float | None) -> None:
    """Run the robot's cycles for ``seconds`` (None: until Ctrl-C), or until the robot is lost."""
    cycles = None if seconds is None else robot.clock.cycles_for(seconds)
    robot.run_until(lambda: not robot.connected, max_cycles=cycles)


def main_guard(main: Callable[[], None]) -> None:
    """Run ``main``; Ctrl-C ends it quietly, a failed connection with its reason and exit status 1."""
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted")
    except ConnectError as exc:
        sys.exit(f"cannot connect: {exc}")
