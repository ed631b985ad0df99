"""ARIA's sonar example: print the range of every sonar in the ring, once a second, while the robot turns.

Each bucket holds the latest reading of one transducer (mm; ``NO_ECHO``, 5000, when it heard nothing),
with the transducer's place and heading on the body (``pose.th``: 90° is straight left).

    python examples/sonar.py [--robot tcp://127.0.0.1:8101] [--duration S]
"""

from __future__ import annotations

from example_args import connect, main_guard, parse_args

from saphira.client.sensors.sonar import NO_ECHO
from saphira.robot import Robot


def main() -> None:
    args = parse_args("print the sonar ring once a second", duration=None)
    with Robot() as robot:
        connect(robot, args, world="room")
        robot.motion.set_rvelocity(20)  # turn slowly on the spot, so the readings change
        start = robot.clock.now()
        while robot.connected and (args.duration is None or robot.clock.now() - start < args.duration):
            robot.run(seconds=1.0)
            ring = " ".join("  -  " if b.range >= NO_ECHO else f"{b.range:5d}" for b in robot.sonar.buckets)
            print(f"{robot.clock.now() - start:5.1f} s  {ring}")


if __name__ == "__main__":
    main_guard(main)
