"""ARIA's ArKeyHandler teleop: drive the robot with the arrow keys in a terminal (works over ssh).

Up and down change the speed by 50 mm/s, left and right the turn rate by 10 deg/s, space stops, q
quits. The terminal is put in cbreak mode (keys arrive one at a time, unechoed; Ctrl-C still
interrupts) with the standard library's termios and tty, no X needed, and restored on every way out:
q, ``--duration``, Ctrl-C, a lost robot. The robot's state is printed once a second and on every key.
The embedded simulator runs in real time here: a person is driving.

    python examples/teleop.py [--robot tcp://127.0.0.1:8101] [--duration S]
"""

from __future__ import annotations

import os
import select
import sys
import termios
import tty

from example_args import connect, main_guard, new_robot, parse_args

from saphira.robot import Robot

SPEED_STEP = 50.0  # mm/s per up/down
TURN_STEP = 10.0  # deg/s per left/right
KEYS = {"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left", " ": "space", "q": "quit"}
"""What a terminal sends for each key (cursor keys come as ESC O A.. in application mode too: see ``Keys``)."""


class Keys:
    """The keys typed on a terminal, read without waiting. A cursor key's three bytes may arrive in two
    reads (over ssh they often do): an unfinished sequence waits for the next read."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = ""

    def read(self) -> list[str]:
        data = self.pending
        while select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 64).decode(errors="replace")
            if not chunk:
                return ["quit"]  # the terminal went away
            data += chunk
        stale = data == self.pending  # nothing new came since the last read
        found: list[str] = []
        while data:
            sequence = data[:3].replace("\x1bO", "\x1b[") if data[0] == "\x1b" else data[0]
            if data[0] == "\x1b" and len(sequence) < 3 and not stale:
                break  # an unfinished cursor key: the rest comes with the next read
            found.append(KEYS.get(sequence, "other"))
            data = data[len(sequence) if sequence in KEYS else 1 :]
        self.pending = data
        return found


def status(robot: Robot, speed: float, turn: float) -> None:
    s = robot.state
    print(f"set {speed:.0f} mm/s {turn:.0f} deg/s; robot at ({s.ax:.0f}, {s.ay:.0f}, {s.ath:.0f}°) "
          f"moving {s.vel:.0f} mm/s {s.rvel:.0f} deg/s", flush=True)  # fmt: skip


def drive(robot: Robot, fd: int, duration: float | None) -> None:
    keys = Keys(fd)
    speed = turn = 0.0
    start = last_status = robot.clock.now()
    while robot.connected and (duration is None or robot.clock.now() - start < duration):
        robot.step()  # one cycle, paced by the real-time clock
        pressed = keys.read()
        if "quit" in pressed:
            break
        for key in pressed:
            speed += {"up": SPEED_STEP, "down": -SPEED_STEP}.get(key, 0.0)
            turn += {"left": TURN_STEP, "right": -TURN_STEP}.get(key, 0.0)
            if key == "space":
                speed = turn = 0.0
        robot.motion.set_velocity(speed)
        robot.motion.set_rvelocity(turn)
        if pressed or robot.clock.now() - last_status >= 1.0:
            status(robot, speed, turn)
            last_status = robot.clock.now()


def main() -> None:
    args = parse_args("drive the robot with the arrow keys")
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        sys.exit("teleop reads the keys of a terminal: run it in one (ssh -t for a remote one)")
    with new_robot(real_time=True) as robot:
        connect(robot, args, world="room")
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)  # keys one at a time, not echoed; Ctrl-C still interrupts
            print("arrows drive, space stops, q quits", flush=True)  # only now: keys typed earlier wait for Enter
            drive(robot, fd, args.duration)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    print("stopped")


if __name__ == "__main__":
    main_guard(main)
