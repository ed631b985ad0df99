"""ARIA's actionExample / wander: behaviors instead of commands — keep away from obstacles, cruise on.

Two predefined fuzzy behaviors share the robot: ``avoid_collision`` (priority 0, the most important)
turns away from what the sonars see ahead; ``constant_velocity`` (priority 1) asks for 300 mm/s. Each
cycle the executive blends what they recommend, the more important one first (ARIA's action group).

    python examples/wander.py [--robot tcp://127.0.0.1:8101] [--duration S]
"""

from __future__ import annotations

from example_args import connect, main_guard, parse_args, run_for

from saphira.behavior.library import find_behavior
from saphira.robot import Robot


def main() -> None:
    args = parse_args("wander: avoid obstacles at a constant velocity")
    with Robot() as robot:
        connect(robot, args, world="room")
        robot.start_behavior(find_behavior("avoid_collision"), priority=0)
        robot.start_behavior(find_behavior("constant_velocity"), 300.0, priority=1)
        start, (x, y, _) = robot.clock.now(), robot.state.global_pose
        run_for(robot, args.duration)  # until --duration, Ctrl-C, or the robot is lost
        s = robot.state
        print(f"wandered {robot.clock.now() - start:.1f} s from ({x:.0f}, {y:.0f}) to ({s.ax:.0f}, {s.ay:.0f})")


if __name__ == "__main__":
    main_guard(main)
