"""ARIA's simpleConnect: connect to the robot, print its name, pose and battery a few times, disconnect.

python examples/simple_connect.py [--robot tcp://127.0.0.1:8101]
"""

from __future__ import annotations

from example_args import connect, main_guard, parse_args

from saphira.robot import Robot


def main() -> None:
    args = parse_args("connect, report the robot's state three times, disconnect")
    with Robot() as robot:  # leaving the block stops the robot and disconnects
        connect(robot, args)
        identity = robot.link.identity
        assert identity is not None  # set by the handshake
        print(f"connected to {identity.name} ({identity.robot_class} {identity.subclass})")
        for _ in range(3):
            robot.run(seconds=1.0)  # one second of the robot's cycles: SIPs come in, the state follows
            s = robot.state
            print(f"pose ({s.ax:.0f} mm, {s.ay:.0f} mm, {s.ath:.1f}°), battery {s.battery:.1f} V")
    print("disconnected")


if __name__ == "__main__":
    main_guard(main)
