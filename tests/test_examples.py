"""examples/: each program runs against a real ``saphira sim`` over TCP, in real time, and ends cleanly.

One simulator per module serves the examples one session after another; each example starts with the
robot put back at the world's start (SIM_RESET), so none depends on where the previous one left it.
Durations are short; every wait is on what the program prints, with a generous deadline.
"""

from __future__ import annotations

import math
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator

import pytest

from saphira.protocol.commands import Command
from saphira.robot import Robot
from tests.sim_process import PROJECT, Program

EXAMPLES = PROJECT / "examples"
DEADLINE = 120.0
"""Seconds an example may take on a loaded machine (each runs for a few seconds of real time)."""


@pytest.fixture(scope="module")
def room() -> Iterator[str]:
    program = Program("--port", "0", "--world", "room", "--laser")
    yield f"tcp://{program.addresses[0]}"
    alive = program.proc.poll() is None
    status, output = program.stop()
    assert alive, f"the simulator ended under the examples (status {status}): {output.decode(errors='replace')}"


@pytest.fixture
def fresh_room(room: str) -> str:
    """The room's robot back at the start pose, odometry zeroed."""
    with Robot() as robot:
        robot.connect(room)
        robot.link.send_command(Command.SIM_RESET)
        robot.run(cycles=2)
    return room


def run_example(name: str, url: str, *args: str) -> str:
    """Run ``examples/NAME --robot URL ARGS``; its output, once it ended with status 0 and no traceback."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), "--robot", url, *args],
        cwd=PROJECT, capture_output=True, text=True, timeout=DEADLINE, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    return done.stdout


def poses(text: str) -> list[tuple[float, float, float]]:
    return [(float(x), float(y), float(th)) for x, y, th in re.findall(r"pose \((-?\d+)\D+(-?\d+)\D+?(-?[\d.]+)", text)]


def test_simple_connect_prints_name_pose_and_battery(fresh_room: str) -> None:
    out = run_example("simple_connect.py", fresh_room)
    assert out.startswith("connected to P3DX (Pioneer p3dx)\n") and out.endswith("disconnected\n")
    standing = poses(out)
    assert len(standing) == 3 and len(set(standing)) == 1  # the same pose three times: nothing drives it
    assert len(re.findall(r"battery 1\d\.\d V", out)) == 3


def test_simple_motion_commands_drive_the_sequence(fresh_room: str) -> None:
    out = run_example("simple_motion_commands.py", fresh_room, "--time-scale", "0.1")
    (x0, y0, th0), (x1, y1, th1) = poses(out)
    assert out.count("stopping") == 2 and "rotating at -10 deg/s" in out
    # 250 mm/s and 150 mm/s for 0.5 s each, less what accelerating takes (about 100-200 mm); 0.5 s left
    # and 1 s right at 10 deg/s: about -5 degrees
    assert 30 < math.hypot(x1 - x0, y1 - y0) < 300 and -12 < th1 - th0 < 0


def test_wander_moves_without_hitting_the_room(fresh_room: str) -> None:
    out = run_example("wander.py", fresh_room, "--duration", "3")
    m = re.search(r"from \((-?\d+), (-?\d+)\) to \((-?\d+), (-?\d+)\)", out)
    assert m, out
    x0, y0, x1, y1 = map(float, m.groups())
    assert math.hypot(x1 - x0, y1 - y0) > 300


def test_goto_action_reaches_its_first_goals(fresh_room: str) -> None:
    out = run_example("goto_action.py", fresh_room, "--side", "600", "--duration", "12")
    assert "goal 1 reached" in out and "goal 2 reached" in out, out


def test_laser_prints_scans(fresh_room: str) -> None:
    out = run_example("laser.py", fresh_room, "--duration", "3")
    closest = [float(d) for d in re.findall(r"scan \d+: 181 readings, closest (\d+) mm", out)]
    assert closest and all(200 < d < 4000 for d in closest), out


def test_the_pyro_brain_runs_and_is_destroyed(fresh_room: str) -> None:
    out = run_example("pyro_brain.py", fresh_room, "--duration", "3")
    assert re.search(r"brain Avoid: \d+ cycles spent turning", out), out


def test_connection_callbacks_report_a_failed_connect_and_the_programs_disconnect(fresh_room: str) -> None:
    out = run_example("connection_callbacks.py", fresh_room, "--duration", "1")
    assert out.splitlines() == [
        "hook: connection failed: cannot connect to tcp://127.0.0.1:1: Connection refused",
        "hook: connected",
        "hook: disconnected: disconnected by the client",
        "done",
    ]


def test_connection_callbacks_report_a_lost_robot() -> None:
    """The simulator stops under the running example: the lost hook says why and the example ends."""
    program = Program("--port", "0")
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "connection_callbacks.py"), "--robot", f"tcp://{program.addresses[0]}"],
        cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[1] == "hook: connected\n", lines
        program.stop()
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        program.stop()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert re.match(r"hook: lost the robot: .+\nhook: disconnected: .+\ndone\n$", out), out


def test_sonar_prints_the_ring_until_ctrl_c_ends_it_quietly_with_the_robot_stopped(fresh_room: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "sonar.py"), "--robot", fresh_room],
        cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        rings = [proc.stdout.readline().split() for _ in range(2)]
        times = [float(ring[0]) for ring in rings]  # seconds since the start: about 1 and 2
        assert [ring[1] for ring in rings] == ["s", "s"] and 0.9 < times[0] < times[1], rings
        assert all(len(ring) == 2 + 16 for ring in rings)  # a P3-DX: 16 sonars
        assert any(int(r) < 3000 for r in rings[-1][2:] if r != "-")  # the room's walls are within 3 m somewhere
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:  # a failed check: the program must not hold the simulator's robot
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and out.endswith("interrupted\n") and "Traceback" not in err, (out, err)
    with Robot() as robot:  # the example turned the robot; it left it stopped
        robot.connect(fresh_room)
        robot.run(seconds=1.0)
        assert robot.state.rvel == 0 and robot.state.vel == 0


def test_gripper_picks_up_the_box() -> None:
    program = Program("--port", "0", "--world", str(EXAMPLES / "gripper.wld"))
    try:
        out = run_example("gripper.py", f"tcp://{program.addresses[0]}")
    finally:
        program.stop()
    steps = re.findall(r"^(.+): (done|not done) \(grip (\w+), beams (\d)\)$", out, re.M)
    assert [s[:2] for s in steps] == [
        (what, "done") for what in ("open", "box between the paddles", "closed on the box", "lifted", "backed away",
                                    "put down")
    ], out  # fmt: skip
    assert steps[2][2] == "CLOSED" and steps[2][3] != "0"  # the paddles closed on the box, not on nothing


# --------------------------------------------------------------------------- teleop through a terminal
class Terminal:
    """``examples/teleop.py`` on a pseudo-terminal of its own (its controlling terminal, as over ssh)."""

    def __init__(self, url: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec at once
            os.chdir(PROJECT)
            os.execv(sys.executable, [sys.executable, str(EXAMPLES / "teleop.py"), "--robot", url, "--duration", "60"])
        self.modes = termios.tcgetattr(self.fd)  # the terminal as the program found it
        self.output = ""

    def expect(self, pattern: str) -> re.Match[str]:
        """Read until ``pattern`` matches a line printed after the last match."""
        deadline = time.monotonic() + DEADLINE
        while True:
            m = re.search(pattern, self.output, re.M)
            if m:
                self.output = self.output[m.end() :]
                return m
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.output!r}"
            if select.select([self.fd], [], [], left)[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # EIO: the program ended, closing the terminal
                    chunk = b""
                assert chunk, f"the program ended before {pattern!r}: {self.output!r} {self.finish()}"
                self.output += chunk.decode()

    def send(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def finish(self) -> tuple[int, str]:
        """Read to the end; the exit status and the rest of the output (the terminal's modes are checked after)."""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # EIO: the program ended and closed the terminal
                break
            if not chunk:
                break
            self.output += chunk.decode()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        return os.waitstatus_to_exitcode(status), self.output

    def kill(self) -> None:
        """End a program the test gave up on."""
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


STATUS = r"^set (-?\d+) mm/s (-?\d+) deg/s; robot at \((-?\d+), (-?\d+), (-?\d+)°\) moving (-?\d+) mm/s (-?\d+) deg/s"


def test_teleop_drives_with_the_arrow_keys_and_restores_the_terminal(fresh_room: str) -> None:
    term = Terminal(fresh_room)
    try:
        term.expect("^arrows drive, space stops, q quits")
        modes_while_driving = None
        term.send(b"\x1b[A\x1b[A\x1b[A")  # up x3: 150 mm/s
        term.expect(r"^set 150 mm/s 0 deg/s")
        moving = term.expect(r"^set 150 mm/s 0 deg/s; robot at \((\d+).*moving 1[45]\d mm/s")
        x_moving = int(moving[1])
        term.send(b"\x1b[D\x1bOD")  # left x2, the second as a terminal in application mode sends it: 20 deg/s
        term.expect(r"^set 150 mm/s 20 deg/s; .* moving \d+ mm/s (1[5-9]|2\d) deg/s")
        modes_while_driving = termios.tcgetattr(term.fd)
        term.send(b" ")  # space: stop
        term.expect(r"^set 0 mm/s 0 deg/s; .* moving 0 mm/s 0 deg/s")
        stopped = term.expect(STATUS)
        assert int(stopped[3]) > x_moving + 50  # it drove on between the two reports
        term.send(b"q")
        status, rest = term.finish()
    finally:
        term.kill()
    assert status == 0 and "Traceback" not in rest and rest.rstrip().endswith("stopped"), rest
    assert modes_while_driving is not None and modes_while_driving[3] & termios.ICANON == 0  # cbreak while driving
    assert termios.tcgetattr(term.fd) == term.modes  # and the terminal as it was afterwards
    os.close(term.fd)


def test_teleop_restores_the_terminal_on_ctrl_c_and_leaves_the_robot_stopped(fresh_room: str) -> None:
    term = Terminal(fresh_room)
    try:
        term.expect("^arrows drive, space stops, q quits")
        term.send(b"\x1b[A\x1b[A")
        term.expect(r"^set 100 mm/s 0 deg/s; .* moving \d+ mm/s")
        term.send(b"\x03")  # the terminal's interrupt key: SIGINT to the program
        status, rest = term.finish()
    finally:
        term.kill()
    assert status == 0 and "Traceback" not in rest and rest.rstrip().endswith("interrupted"), rest
    assert termios.tcgetattr(term.fd) == term.modes
    os.close(term.fd)
    with Robot() as robot:
        robot.connect(fresh_room)
        robot.run(seconds=1.0)
        assert robot.state.vel == 0
