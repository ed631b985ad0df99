"""ARIA's gotoActionExample: visit the corners of a square in turn, avoiding obstacles on the way.

Each goal is a point artifact in the global frame; the predefined ``go_to_pos`` behavior drives to it
and ends in success within its radius, while ``avoid_collision`` (more important: priority 0) keeps the
robot off walls. ``--side`` sets the square's side (mm), ``--laps`` how many times round.

    python examples/goto_action.py [--robot tcp://127.0.0.1:8101] [--duration S] [--side MM] [--laps N]
"""

from __future__ import annotations

import argparse

from example_args import connect, main_guard, parse_args

from saphira.behavior.library import find_behavior
from saphira.client.artifacts import Artifact, create_global_point
from saphira.robot import Robot


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--side", type=float, default=1500.0, metavar="MM", help="the square's side (mm)")
    parser.add_argument("--laps", type=int, default=1, metavar="N", help="times round the square")


def main() -> None:
    args = parse_args("visit the corners of a square in turn", extra=options)
    with Robot() as robot:
        connect(robot, args, world="room")
        robot.start_behavior(find_behavior("avoid_collision"), priority=0)
        x0, y0, _ = robot.state.global_pose  # the square starts where the robot stands, along the axes
        d = args.side
        corners = [(d, 0.0), (d, d), (0.0, d), (0.0, 0.0)] * args.laps
        deadline = None if args.duration is None else robot.clock.now() + args.duration
        for n, (forward, left) in enumerate(corners, 1):
            goal = create_global_point(robot.state.global_pose, x0 + forward, y0 + left)
            if not drive_to(robot, goal, None if deadline is None else deadline - robot.clock.now()):
                print(f"goal {n} not reached in time")
                break
            s = robot.state
            print(f"goal {n} reached at ({s.ax:.0f}, {s.ay:.0f}) after {robot.clock.now():.1f} s")


def drive_to(robot: Robot, goal: Artifact, seconds: float | None) -> bool:
    """Run ``go_to_pos`` to ``goal`` until it succeeds (True), the robot is lost or ``seconds`` pass."""
    go = robot.start_behavior(find_behavior("go_to_pos"), speed=300.0, goal=goal, radius=150.0, priority=1)
    cycles = None if seconds is None else robot.clock.cycles_for(seconds)
    robot.run_until(lambda: go.finished or not robot.connected, max_cycles=cycles)
    return go.finished


if __name__ == "__main__":
    main_guard(main)
