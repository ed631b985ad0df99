"""The Gamebots server against greedy or extreme clients: robots and sockets capped, spawn points checked.

Lock-step: the test calls :meth:`GamebotsServer.cycle`; loopback TCP delivers each line before the
write returns, so a cycle sees what was sent before it.
"""

from __future__ import annotations

import logging
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from saphira.app import sim as standalone
from saphira.client.link.base import ConnectError
from saphira.gamebots.server.listener import GamebotsServer
from saphira.gamebots.server.session import MAX_ROBOTS
from saphira.robot import Robot
from saphira.sim.simulation import Simulation
from saphira.world.wld import parse_wld
from tests.realtime import WAIT
from tests.test_gamebots_server import OPEN_ROOM, Client


@pytest.fixture
def server() -> Iterator[GamebotsServer]:
    simulation = Simulation(parse_wld(OPEN_ROOM, "<room>"), 0, odometry_error=False)
    gamebots = GamebotsServer(simulation, port=0, max_robots=2, max_per_host=2)  # every client is 127.0.0.1
    yield gamebots
    gamebots.close()


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("1e308,-1e308,0", "must be finite numbers"),
        ("1e300,1,0", "(1e+303, -1000) mm lies outside the world"),
        ("50,-4,0", "(50000, 4000) mm lies outside the world (x 0..10000, y 0..8000 mm)"),
        ("5,4,0", "(5000, -4000) mm lies outside the world"),
    ],
)
def test_init_outside_the_world_is_refused_and_answered(server: GamebotsServer, location: str, why: str) -> None:
    client = Client(server.port)
    client.send(f"INIT {{ClassName USARBot.P2DX}} {{Location {location}}}")
    server.cycle()
    error = client.wait_for("ERR").get("Message") or ""
    assert why.replace(" ", "_") in error
    assert server.simulation.robots == []
    client.send("INIT {ClassName USARBot.P2DX} {Location 5,-4,0}")  # the session goes on
    server.cycle()
    assert client.wait_for("STA").get("Location") == "5.0000,-4.0000,0.0000"
    client.close()


def test_max_robots_caps_the_robots_and_twice_as_many_sockets(server: GamebotsServer) -> None:
    clients = [Client(server.port) for _ in range(4)]
    for k, client in enumerate(clients):
        client.send(f"INIT {{ClassName USARBot.P2DX}} {{Location {2 + 2 * k},-2,0}}")
    server.cycle()
    assert len(server.simulation.robots) == 2
    assert "--max-robots" in (clients[2].wait_for("ERR").get("Message") or "")
    extra = Client(server.port)
    server.cycle()
    extra.sock.settimeout(WAIT)
    assert extra.sock.recv(1) == b""  # a fifth socket is closed at once
    assert server.refused == 1 and len(server.sessions) == 4
    clients[0].close()
    server.cycle()
    server.cycle()
    clients[2].send("INIT {ClassName USARBot.P2DX} {Location 6,-2,0}")  # a place is free again
    server.cycle()
    assert len(server.simulation.robots) == 2
    for client in [*clients, extra]:
        client.close()


def test_a_socket_without_init_is_closed_at_the_deadline() -> None:
    simulation = Simulation(parse_wld(OPEN_ROOM, "<room>"), 0, odometry_error=False)
    server = GamebotsServer(simulation, port=0, max_robots=1, init_timeout=0.3)
    try:
        silent, robot = Client(server.port), Client(server.port)
        robot.send("INIT {ClassName USARBot.P2DX} {Location 5,-4,0}")
        server.cycle()
        held = next(s for s in server.sessions if s.robot is None)
        deadline = time.monotonic() + WAIT
        while not held.closed and time.monotonic() < deadline:
            server.cycle()
        assert "no_INIT_within_0.3_s" in (silent.wait_for("ERR").get("Message") or "")
        server.cycle()
        assert server.dropped == 1 and len(server.sessions) == 1 and len(simulation.robots) == 1
        newcomer = Client(server.port)  # the place the silent socket held is free
        server.cycle()
        assert len(server.sessions) == 2
        for client in (silent, robot, newcomer):
            client.close()
    finally:
        server.close()


def test_saphira_sim_takes_max_robots_with_gamebots_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert standalone.main(["--gamebots", "0", "--max-robots", "0"]) == 2
    assert "argument --max-robots: must be at least 1, not 0" in capsys.readouterr().err
    assert f"(default {MAX_ROBOTS})" in " ".join(standalone.build_parser().format_help().split())


def test_the_client_link_logs_why_its_init_was_refused(caplog: pytest.LogCaptureFixture) -> None:
    simulation = Simulation(parse_wld(OPEN_ROOM, "<room>"), 0, odometry_error=False)
    server = GamebotsServer(simulation, port=0)
    robot = Robot()
    robot.clock.add_listener(server.cycle)  # type: ignore[attr-defined]
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(ConnectError):
            robot.connect(f"usarsim://127.0.0.1:{server.port}?class=P2DX&location=99,-1,0", timeout=WAIT)
        assert any("refused a command: INIT: (99000, 1000) mm lies outside" in r.getMessage() for r in caplog.records)
    finally:
        server.close()


GREEDY_HOST = """
import select, socket, sys, time
port, count, junk = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
socks = []
for k in range(count):
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=60))
    except OSError:
        pass
for k, sock in enumerate(socks):
    try:
        sock.sendall(b"INIT {ClassName USARBot.P2DX} {Location %d,-%g,0}\\r\\n" % (1 + k % 4, 1.5 + 2 * (k // 4)))
    except OSError:
        pass
outcome = {"robots": 0, "refused": 0, "closed": 0}
robots = []
for sock in socks:
    data = b""
    while b"STA" not in data and b"ERR" not in data:
        chunk = sock.recv(65536) if select.select([sock], [], [], 60)[0] else b""
        if not chunk:
            break
        data += chunk
    outcome["robots" if b"STA" in data else "refused" if b"ERR" in data else "closed"] += 1
    robots += [sock] if b"STA" in data else []
print(outcome["robots"], outcome["refused"], outcome["closed"], flush=True)
sys.stdin.readline()  # the test's turn, while every socket is held
flooder, started = robots[0], time.monotonic()
flooder.sendall(b"".join(b"FLY {Up %d}\\r\\n" % n for n in range(junk)))
answers = b""
while answers.count(b"unknown_command_FLY") < junk:  # every line refused, each answered with an ERR
    chunk = flooder.recv(65536) if select.select([flooder], [], [], 60)[0] else b""
    if not chunk or time.monotonic() > started + 120:  # a bound for a broken server: the test then fails
        break
    answers += chunk
for sock in socks:
    sock.close()
print("done", flush=True)
"""


def test_one_host_takes_at_most_its_share_and_its_junk_lines_are_logged_as_a_count() -> None:
    from tests.sim_process import Program

    sim = Program("--gamebots", "0", "--world", "room", "--max-robots", "4", quiet=False)
    try:
        port = int(sim.addresses[0].rsplit(":", 1)[1])
        greedy = subprocess.Popen([sys.executable, "-c", GREEDY_HOST, str(port), "8", "400"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert greedy.stdin is not None and greedy.stdout is not None
        robots, refused, closed = map(int, greedy.stdout.readline().split())
        assert (robots, refused, closed) == (2, 2, 4)  # half of --max-robots; twice as many sockets
        other = socket.socket()
        other.bind(("127.0.0.2", 0))  # another host (loopback: 127.0.0.0/8)
        other.settimeout(WAIT)
        other.connect(("127.0.0.1", port))
        other.sendall(b"INIT {ClassName USARBot.P2DX} {Location 5,-5,0}\r\n")
        seen = b""
        while b"STA" not in seen and b"ERR" not in seen:
            chunk = other.recv(65536)
            assert chunk, seen
            seen += chunk
        other.close()
        assert b"STA" in seen, seen  # before: every place was the greedy host's
        greedy.stdin.write("flood\n")
        greedy.stdin.flush()
        assert greedy.stdout.readline() == "done\n"
        greedy.wait(timeout=WAIT)
    finally:
        _, output = sim.stop()
    log = output.decode(errors="replace").splitlines()
    assert any("gamebots" in line for line in log), output
    junk = [line for line in log if "unknown command FLY" in line or "more lines refused" in line]
    counted = sum(int(re.search(r": (\d+) more lines refused", line)[1]) for line in junk if "more lines" in line)
    assert counted + sum("more lines refused" not in line for line in junk) == 400, junk  # every one accounted
    assert len(junk) <= 10, junk  # before: 400 lines
