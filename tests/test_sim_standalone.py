"""``saphira sim`` as a real program: a subprocess on loopback TCP ports or a pseudo-terminal.

The tests wait for the program's "listening on" lines, then talk to it with blocking sockets (with
timeouts) or with the real client over ``tcp://`` and ``serial://``. Nothing sleeps to synchronise.
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import socket
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saphira.app import sim as standalone
from saphira.core.clock import RealTimeClock
from saphira.protocol import (
    Command,
    PacketReceiver,
    RobotIdentity,
    decode_sip,
    decode_sync2_reply,
    encode_command,
    encode_sync,
)
from saphira.robot import Robot
from tests.realtime import WAIT
from tests.sim_process import Program, with_and_without

PROJECT = Path(__file__).resolve().parents[1]


class RawClient:
    """A bare-bytes client on a blocking socket with timeouts."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=WAIT)
        self.receiver = PacketReceiver(255)
        self.queue: deque[bytes] = deque()

    def send(self, command: int, arg: int | bytes | None = None) -> None:
        self.sock.sendall(encode_command(command, arg))

    def packet(self) -> bytes:
        """The next packet; EOFError when the server closed the connection."""
        while not self.queue:
            data = self.sock.recv(4096)
            if not data:
                raise EOFError
            self.queue.extend(self.receiver.feed(data))
        return self.queue.popleft()

    def wait_for(self, wanted: Callable[[bytes], bool], limit: int = 200) -> bytes:
        for _ in range(limit):
            payload = self.packet()
            if wanted(payload):
                return payload
        raise AssertionError("the expected packet never came")

    def handshake(self) -> RobotIdentity:
        for n in range(3):
            self.sock.sendall(encode_sync(n))
            reply = self.packet()
            assert reply[0] == n
        return decode_sync2_reply(reply)

    def open(self) -> bytes:
        identity = self.handshake()
        assert identity.subclass == "p3dx"
        self.send(Command.OPEN, 1)
        return self.wait_for(lambda p: p[0] in (0x32, 0x33), limit=2)

    def expect_eof(self) -> None:
        with pytest.raises(EOFError):
            for _ in range(100):
                self.packet()

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture(scope="module")
def sim() -> Iterator[Program]:
    program = Program("--port", "0", "--robots", "2", "--seed", "3", robots=2)
    yield program
    status, output = program.stop()
    assert status == 128 + signal.SIGTERM, output
    assert b"simulator stopped" in output


def test_a_client_drives_the_robot_over_tcp(sim: Program) -> None:
    with RawClient(sim.addresses[0]) as client:
        first = decode_sip(client.open())
        assert (first.x, first.y) == (0, 0)
        client.send(Command.ENABLE, 1)
        client.send(Command.VEL, 400)
        sip = decode_sip(client.wait_for(lambda p: p[0] in (0x32, 0x33) and decode_sip(p).x > 200))
        assert sip.right_vel > 0 and sip.flags & 1
        client.send(Command.CLOSE, 1)
        client.expect_eof()


def test_a_second_client_on_a_busy_port_is_turned_away(sim: Program) -> None:
    with RawClient(sim.addresses[0]) as first:
        first.open()
        with RawClient(sim.addresses[0]) as second:
            second.sock.sendall(encode_sync(0))
            second.expect_eof()
        for _ in range(3):  # the first client is still served
            assert first.wait_for(lambda p: p[0] in (0x32, 0x33), limit=3)
        with RawClient(sim.addresses[1]) as other:  # the other robot has its own port
            assert other.handshake().name == "P3DX-2"
        first.send(Command.CLOSE, 1)
        first.expect_eof()


def test_ten_sessions_in_a_row_on_one_port(sim: Program) -> None:
    for k in range(10):
        with RawClient(sim.addresses[0]) as client:
            sip = decode_sip(client.open())
            assert (sip.x, sip.y, sip.th) == (0, 0, 0)  # every session starts with fresh odometry
            client.send(Command.VEL, 300)
            client.wait_for(lambda p: p[0] in (0x32, 0x33), limit=3)
            if k % 2 == 0:  # odd sessions just vanish without CLOSE
                client.send(Command.CLOSE, 1)
                client.expect_eof()


def test_garbage_and_a_client_vanishing_mid_packet_do_not_hurt_the_server(sim: Program) -> None:
    rng = random.Random(5)
    with RawClient(sim.addresses[1]) as noisy:
        noisy.sock.sendall(bytes(rng.randrange(256) for _ in range(3000)))
        noisy.sock.sendall(b"\xfa\xfb\xff" + bytes(255))  # over-length
        noisy.handshake()
        noisy.sock.sendall(bytes(rng.randrange(256) for _ in range(500)))
        noisy.sock.sendall(encode_command(Command.VEL, 300)[:4])  # and vanish mid-packet
    with RawClient(sim.addresses[1]) as client:
        client.open()
        client.send(Command.CLOSE, 1)
        client.expect_eof()


def test_the_real_client_connects_and_drives_over_tcp(sim: Program) -> None:
    robot = Robot(RealTimeClock())
    robot.connect(f"tcp://{sim.addresses[1]}", timeout=WAIT)
    assert robot.link.identity is not None and robot.link.identity.name == "P3DX-2"
    assert robot.link.config is not None and robot.link.config.serial_number == "SIM"
    robot.motion.set_velocity(400)
    assert robot.run_until(lambda: robot.state.odo_x > 100.0, max_cycles=50)
    robot.disconnect()


def test_sim_exit_ends_the_program_with_its_status() -> None:
    program = Program("--port", "0")
    with RawClient(program.addresses[0]) as client:
        client.open()
        client.send(Command.SIM_EXIT, 3)
        status, output = program.wait()
    assert status == 3
    assert b"simulator stopped" in output


def test_the_serial_path_through_a_pseudo_terminal() -> None:
    program = Program("--pty", "--seed", "1")
    path = program.addresses[0]
    assert path.startswith("/dev/")
    for _ in range(2):  # session after session on the same terminal
        robot = Robot(RealTimeClock())
        robot.connect(f"serial://{path}?baud=9600", timeout=WAIT)
        assert robot.link.identity is not None and robot.link.identity.subclass == "p3dx"
        robot.motion.set_velocity(300)
        assert robot.run_until(lambda: robot.state.odo_x > 60.0, max_cycles=50)  # noqa: B023
        robot.disconnect()
    status, output = program.stop(signal.SIGINT)
    assert status == 128 + signal.SIGINT, output


def test_the_local_pipe_on_a_unix_socket(tmp_path: Path) -> None:
    path = tmp_path / "pioneer.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a socket file left by a simulator that died: replaced
    stale.close()
    program = Program("--unix", str(path), "--robots", "2", "--seed", "1", robots=2)
    assert program.addresses == [f"unix://{path}", f"unix://{path}-2"]
    for address in program.addresses:
        robot = Robot(RealTimeClock())
        robot.connect(address, timeout=WAIT)
        robot.motion.set_velocity(300)
        assert robot.run_until(lambda: robot.state.odo_x > 60.0, max_cycles=50)  # noqa: B023
        robot.disconnect()
    status, output = program.stop()
    assert status == 128 + signal.SIGTERM, output
    assert not path.exists() and not Path(f"{path}-2").exists()


def test_a_unix_socket_path_in_use_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("not a socket")
    assert standalone.main(["--unix", str(plain)]) == 2
    assert f"cannot listen on {plain}: {plain} exists and is not a socket" in capsys.readouterr().err
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as live:
        live.bind(str(tmp_path / "live.sock"))
        live.listen()
        assert standalone.main(["--unix", str(tmp_path / "live.sock")]) == 2
    assert "another simulator is listening on" in capsys.readouterr().err
    assert standalone.main(["--unix", str(tmp_path / "x.sock"), "--pty"]) == 2
    assert "--pty and --unix exclude each other" in capsys.readouterr().err


def test_unix_without_a_path_takes_saphira_compipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SAPHIRA_COMPIPE", "tcp://127.0.0.1:8101")
    assert standalone.main(["--unix"]) == 2
    assert "--unix needs a socket PATH (or SAPHIRA_COMPIPE set to one)" in capsys.readouterr().err
    plain = tmp_path / "notes.txt"
    plain.write_text("not a socket")
    monkeypatch.setenv("SAPHIRA_COMPIPE", str(plain))
    assert standalone.main(["--unix"]) == 2  # it did choose that path
    assert f"cannot listen on {plain}: {plain} exists and is not a socket" in capsys.readouterr().err


def test_bad_arguments_give_a_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert standalone.main(["--world", "no-such-world"]) == 2
    assert "no-such-world" in capsys.readouterr().err
    assert standalone.main(["--params", "no-such-robot"]) == 2
    assert "no-such-robot" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert standalone.main(["--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--flat", "0", "--gamebots", "0"], "--flat and --gamebots exclude each other"),
        (["--flat-world", "maps/flat/building.world"], "--flat-world needs --flat PORT"),
        (["--gamebots", "0", "--flat-stopped"], "--flat-stopped needs --flat PORT"),
        (["--flat-steps", "3"], "--flat-steps needs --flat PORT"),
        (["--flat", "0", "--laser"], "--laser is for the Pioneer and Gamebots servers"),
    ],
)
def test_options_of_another_protocol_are_refused_not_ignored(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert standalone.main(argv) == 2
    assert f"saphira sim: {message}" in capsys.readouterr().err


def test_the_options_work_as_a_parent_parser(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="saphira")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("sim", parents=[standalone.build_parser(add_help=False)])
    args = parser.parse_args(["sim", "--robots", "2", "--port", "65535"])
    assert standalone.run(args) == 2
    assert "--port 65535 with --robots 2 runs past port 65535" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "65535", "--robots", "2"], "runs past port 65535"),
        (["--period", "nan"], "argument --period: must be a finite number of seconds greater than 0, got nan"),
        (["--idle-timeout", "-1"], "argument --idle-timeout: must be a number of seconds >= 0, got -1"),
        (["--watchdog", "-1"], "argument --watchdog: must be a number of seconds >= 0, got -1"),
        (["--handshake-timeout", "inf"], "argument --handshake-timeout: must be a number of seconds >= 0, got inf"),
        (["--port", "70000"], "argument --port: 70000 is not a port number (0-65535; 0 picks one)"),
        (["--robots", "0"], "argument --robots: must be at least 1, not 0"),
        (["--world-dir", "no/such/folder"], "argument --world-dir: no/such/folder: not a folder"),
        (["--flat", "65536"], "argument --flat: 65536 is not a port number"),
        (["--flat", "0", "--flat-steps", "-1"], "argument --flat-steps: must be at least 0, not -1"),
        (["--gamebots", "x"], "argument --gamebots: 'x' is not a port number"),
        (["--gamebots", "0", "--max-robots-per-host", "0"], "argument --max-robots-per-host: must be at least 1"),
    ],
)
def test_bad_option_values_are_usage_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each value is checked as the command line is read (saphira.core.argtypes), before anything listens."""
    assert standalone.main(args) == 2
    assert message in capsys.readouterr().err


def test_sim_laser_gives_pioneer_robots_a_laser_their_file_denies(tmp_path: Path) -> None:
    """``saphira sim --laser`` on the Pioneer protocol: a robot whose file says it has no laser carries one,
    and a client whose file declares one gets its scans; without ``--laser`` the same robot has none.
    The two runs, each against its own simulator, go at once: they wait in real time."""
    with_and_without("--laser", _count_scans, tmp_path)


def _count_scans(folder: Path, laser: bool) -> None:
    folder.mkdir()
    no_laser = folder / "nolaser.p"
    no_laser.write_text("Subclass p3dx\nSection Laser parameters\nLaserPossessed false\n")
    count = folder / "count.act"
    count.write_text('act count { waitfor 0 timeout 20; sfMessage("scans %d", sfLaserScans()); }\nstart count;\n')
    sim = Program("--params", str(no_laser), "--port", "0", "--world", "room", *(["--laser"] if laser else []))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "saphira", "run", str(count), "--robot", f"tcp://{sim.addresses[0]}",
             "--params", "p3dx-laser", "--duration", "4"],
            cwd=PROJECT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    finally:
        sim.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    scans = int(re.search(r"scans (\d+)", done.stdout)[1])  # type: ignore[index]
    assert (scans >= 3) if laser else (scans == 0)  # 10 a second once enabled; fewer on a loaded machine
