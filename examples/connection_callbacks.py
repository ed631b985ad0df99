"""ARIA's robotConnectionCallbacks: hooks called when the robot connects, fails to, is lost, or disconnects.

First a connection that fails (``--first``, by default a port nothing listens on): ``on_connect_failed``
says why. Then the real one: ``on_connect``; while it runs, a robot that goes silent or away (stop
``saphira sim``) fires ``on_lost`` with the reason and ends the run; at the end the program's own
disconnect fires ``on_disconnect`` (a loss fires it too, after ``on_lost``).

    python examples/connection_callbacks.py [--robot tcp://127.0.0.1:8101] [--duration S] [--first URL]
"""

from __future__ import annotations

import argparse
from contextlib import suppress

from example_args import connect, main_guard, parse_args, run_for

from saphira.client.link.base import ConnectError
from saphira.robot import Robot


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--first", default="tcp://127.0.0.1:1", metavar="URL", help="a connection that fails first")


def main() -> None:
    args = parse_args("report connection events", extra=options)
    with Robot() as robot:
        robot.on_connect.connect(lambda: print("hook: connected"))
        robot.on_connect_failed.connect(lambda reason: print(f"hook: connection failed: {reason}"))
        robot.on_lost.connect(lambda reason: print(f"hook: lost the robot: {reason}"))
        robot.on_disconnect.connect(lambda reason: print(f"hook: disconnected: {reason}"))
        with suppress(ConnectError):  # the hook says why
            robot.connect(args.first, timeout=5.0)
        connect(robot, args)
        run_for(robot, args.duration)  # until --duration, Ctrl-C, or the robot is lost
    print("done")


if __name__ == "__main__":
    main_guard(main)
