"""ARIA's simpleMotionCommands: direct motion commands in sequence, no behaviors and no sensing.

Forward at 250 mm/s for 5 s, stop, turn at 10°/s for 5 s, then at -10°/s for 10 s, forward at 150 mm/s
for 5 s, stop; the pose, velocities and battery printed before and after. The robot WILL hit whatever
is in its way: give it 3 m of free space. ``--time-scale 0.2`` runs every step for a fifth of its time.

    python examples/simple_motion_commands.py [--robot tcp://127.0.0.1:8101] [--time-scale F]
"""

from __future__ import annotations

import argparse

from example_args import connect, main_guard, parse_args

from saphira.robot import Robot

# (what it says, translational mm/s, rotational deg/s, seconds): ARIA's sequence
STEPS = [
    ("driving forward at 250 mm/s", 250.0, 0.0, 5.0),
    ("stopping", 0.0, 0.0, 1.0),
    ("rotating at 10 deg/s", 0.0, 10.0, 5.0),
    ("rotating at -10 deg/s", 0.0, -10.0, 10.0),
    ("driving forward at 150 mm/s", 150.0, 0.0, 5.0),
    ("stopping", 0.0, 0.0, 1.0),
]


def report(robot: Robot) -> None:
    s = robot.state
    print(f"pose ({s.ax:.0f}, {s.ay:.0f}, {s.ath:.1f}), vel {s.vel:.0f} mm/s, rot. vel {s.rvel:.1f} deg/s, "
          f"battery {s.battery:.1f} V")  # fmt: skip


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--time-scale", type=float, default=1.0, metavar="F", help="each step lasts F times as long")


def main() -> None:
    args = parse_args("drive a fixed sequence of direct motion commands", extra=options)
    with Robot() as robot:
        connect(robot, args, world="simple")  # room to move
        report(robot)
        for what, vel, rvel, seconds in STEPS:
            print(what)
            robot.motion.set_velocity(vel)  # setpoints: the reflect phase sends them each cycle they change
            robot.motion.set_rvelocity(rvel)
            robot.run(seconds=seconds * args.time_scale)
        report(robot)


if __name__ == "__main__":
    main_guard(main)
