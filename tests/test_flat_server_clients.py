"""The Flat server against one bad controller: silence, floods, long lines, bad maps, ``e``.

The server object runs in a thread on a free loopback port (one test starts the real program); every
wait is a socket timeout or a deadline on an observable condition, never a sleep.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from flat_controller import Controller

from saphira.flat.codec import LaserReply, MapChanged, StepOutput
from saphira.flat.server.listener import MAX_LINE, FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.sim.world_requests import WorldAccess
from saphira.world.flat_world import parse_world_file
from saphira.world.wld import parse_wld
from saphira.world.world import World
from tests.realtime import WAIT

PROJECT = Path(__file__).resolve().parents[1]
HALL = "width 30000\nheight 6000\n0 0 30000 0\n30000 0 30000 6000\n30000 6000 0 6000\n0 6000 0 0\n"
ROOM = "width 8000\nheight 8000\n0 0 8000 0\n8000 0 8000 8000\n8000 8000 0 8000\n0 8000 0 0\n"


def hall() -> World:
    return parse_wld(HALL, "<hall>")


def serving(server: FlatServer) -> FlatServer:
    server.serve_in_thread()
    return server


def first_line(sock: socket.socket) -> bytes:
    """Read up to the first newline (the step output a controller gets on connecting)."""
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        data += chunk
    return data


def test_a_silent_controller_is_dropped_at_the_handshake_deadline_and_the_next_is_served() -> None:
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0)), handshake_timeout=0.5))
    try:
        with socket.create_connection(server.address, timeout=WAIT) as silent:
            first_line(silent)
            next_one = Controller(*server.address)  # greeted at once, with its own deadline
            assert isinstance(next_one.step(100.0), StepOutput)  # served while the silent one still waits
            assert silent.recv(1) == b""  # dropped at its deadline (before the fix: it held the server for ever)
        next_one.close()
        assert server.dropped == 1
    finally:
        server.close()


def test_a_controller_silent_between_lines_is_dropped_at_the_idle_timeout() -> None:
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0)), idle_timeout=0.5))
    try:
        first = Controller(*server.address)
        first.step(100.0)
        start = time.monotonic()
        second = Controller(*server.address)
        assert time.monotonic() - start < WAIT  # before the fix it waited for ever
        assert first.file.read(1) == b""  # dropped
        second.step(100.0)
        first.close()
        second.close()
    finally:
        server.close()


def test_a_controller_that_floods_queries_and_never_reads_is_dropped() -> None:
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0)), write_timeout=0.5))
    try:
        flooder = socket.create_connection(server.address, timeout=WAIT)
        flooder.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        flooder.setblocking(False)
        burst = b"l\n" * 4096
        start = time.monotonic()
        while time.monotonic() - start < WAIT:  # write until the server stops reading
            try:
                flooder.send(burst)
            except BlockingIOError:
                break
            except OSError:
                break  # already dropped
        controller = Controller(*server.address)
        assert time.monotonic() - start < 2 * WAIT
        assert isinstance(controller.ask("l"), LaserReply)
        controller.close()
        flooder.close()
        assert server.dropped == 1
    finally:
        server.close()


def test_a_line_without_end_costs_bounded_memory_and_is_skipped() -> None:
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0))))
    try:
        controller = Controller(*server.address)
        chunk = b"x" * (1 << 20)
        tracemalloc.start()
        try:
            for _ in range(32):  # a 32 MB line
                controller.sock.sendall(chunk)
            controller.send("")  # its end
            reply = controller.ask("l")  # answered once the long line is consumed
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert isinstance(reply, LaserReply)
        assert peak < 8 * MAX_LINE + (4 << 20), peak
        controller.close()
    finally:
        server.close()


def test_m_loads_only_bundled_worlds_and_world_dir_files_and_survives_bad_ones(tmp_path: Path) -> None:
    folder = tmp_path / "worlds"
    folder.mkdir()
    (tmp_path / "outside.wld").write_text(ROOM)
    (folder / "inside.wld").write_text(ROOM)
    (folder / "overflow.wld").write_text("width 6000\nheight 6000\npush 1e308 1e308 0\n1e308 0 1e308 10\npop\n")
    (folder / "big.wld").write_text(ROOM + "1 1 2 2\n" * 200)
    access = WorldAccess(folder=folder, max_bytes=1000)
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0), access=access)))
    try:
        flat = Controller(*server.address)
        time_ms = flat.output.time
        names = (str(tmp_path / "outside.wld"), "../outside.wld", "overflow.wld", "big.wld", "/dev/zero", "x" * 5000)
        for refused in names:
            assert flat.ask(f"m {refused} 1000 1000 0") == MapChanged(time_ms, None), refused[:80]
        assert flat.ask("m inside.wld 1000 1000 0") == MapChanged(time_ms, "inside.wld")
        assert flat.ask("m room 1500 1500 0") == MapChanged(time_ms, "room")
        assert flat.step(0.0).pose[:2] == (1500.0, 1500.0)
        flat.close()
    finally:
        server.close()


def test_a_command_transition_to_a_missing_map_is_answered(tmp_path: Path) -> None:
    (tmp_path / "a.wld").write_text(HALL)
    text = "WORLD W a.wld\nMAP a.wld\nTRANSITION (2000 3000 500 GO) missing.wld\n"
    flat_world = parse_world_file(text, str(tmp_path / "w.world"))
    server = serving(FlatServer(FlatSimulation(flat_world=flat_world, pose=(2000.0, 3000.0, 0.0))))
    try:
        flat = Controller(*server.address)
        assert flat.ask("t GO") == MapChanged(flat.output.time, None)
        assert isinstance(flat.step(0.0), StepOutput)  # still served
        flat.close()
    finally:
        server.close()


def test_e_ends_only_the_connection_when_exits_are_not_allowed() -> None:
    server = serving(FlatServer(FlatSimulation(hall(), pose=(2000.0, 3000.0, 0.0)), allow_exit=False))
    try:
        first = Controller(*server.address)
        first.send("e")
        assert first.file.read(1) == b""
        second = Controller(*server.address)
        assert isinstance(second.step(100.0), StepOutput)
        assert not server.ended
        first.close()
        second.close()
    finally:
        server.close()


def test_saphira_sim_flat_with_no_exit_and_a_handshake_deadline() -> None:
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    argv = [sys.executable, "-m", "saphira.app.sim", "--flat", "0", "--no-exit", "--handshake-timeout", "0.5"]
    pipe = subprocess.PIPE
    proc = subprocess.Popen(argv, cwd=PROJECT, env=env, stdin=pipe, stdout=pipe, stderr=pipe)
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline().decode()
        host, port = banner.split()[2].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=WAIT) as silent:
            first_line(silent)
            assert silent.recv(1) == b""  # dropped at the deadline
        quitter = Controller(host, int(port))
        quitter.send("e")
        assert quitter.file.read(1) == b""
        quitter.close()
        served = Controller(host, int(port))  # the program goes on
        assert isinstance(served.step(100.0), StepOutput)
        served.close()
        assert proc.poll() is None
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 143, err  # ended by SIGTERM (terminate)
    assert b"connection ended (the program goes on" in err
    assert b"simulator stopped after 1 steps (1 controller(s) dropped)" in out


SILENT_HOLDER = """
import socket, sys
host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held = [socket.create_connection((host, port)) for _ in range(count)]
print("connected", flush=True)
sys.stdin.read()  # hold them, silent, until the test closes this pipe
"""


def test_ten_queued_silent_connections_do_not_delay_a_controller_beyond_one_deadline() -> None:
    from sim_process import Program

    deadline = 5.0  # the default handshake deadline; before the fix the controller waited 10 of them
    sim = Program("--flat", "0", "--handshake-timeout", str(deadline))
    try:
        host, port = sim.addresses[0].rsplit(":", 1)

        def served_after() -> float:
            start = time.monotonic()
            controller = Controller(host, int(port))
            assert isinstance(controller.step(100.0), StepOutput)
            controller.close()
            return time.monotonic() - start

        baseline = served_after()
        attacker = subprocess.Popen([sys.executable, "-c", SILENT_HOLDER, host, port, "10"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True)  # fmt: skip
        try:
            assert attacker.stdout is not None and attacker.stdout.readline() == "connected\n"
            attacked = served_after()  # queued behind the ten silent connections
        finally:
            attacker.communicate(timeout=WAIT)
        assert attacked < baseline + deadline, (baseline, attacked)
    finally:
        status, out = sim.stop()
    assert status == 143, out
