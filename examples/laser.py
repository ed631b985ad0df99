"""ARIA's lasers example: connect to a robot that carries a laser and print what it sees, once a second.

A laser is declared by the robot's parameter file (``LaserPossessed``); ``p3dx-laser`` is a P3-DX with a
SICK LMS-200, laid here over what the robot reports. A simulator streams the scans to such a client
(``saphira sim --laser``; MobileSim does it too). Each scan holds the ranges (mm) at their angles
(degrees, 0 ahead, positive to the left).

    python examples/laser.py [--robot tcp://127.0.0.1:8101] [--duration S]
"""

from __future__ import annotations

import numpy as np
from example_args import connect, main_guard, parse_args

from saphira.robot import Robot


def main() -> None:
    args = parse_args("print the closest laser reading once a second")
    with Robot() as robot:
        connect(robot, args, world="room", params="p3dx-laser")
        robot.motion.set_rvelocity(20)  # turn slowly on the spot, so the view changes
        start = robot.clock.now()
        while robot.connected and (args.duration is None or robot.clock.now() - start < args.duration):
            robot.run(seconds=1.0)
            scan = robot.reflector.laser.scan  # the latest complete scan (None until one came)
            if scan is None:
                print("no scan yet")
                continue
            i = int(np.argmin(scan.ranges))
            print(f"scan {scan.sequence}: {scan.count} readings, closest {scan.ranges[i]:.0f} mm at "
                  f"{scan.angles[i]:.0f}°, straight ahead {scan.ranges[scan.count // 2]:.0f} mm")  # fmt: skip


if __name__ == "__main__":
    main_guard(main)
