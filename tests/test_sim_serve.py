"""The one serve loop of ``saphira sim`` (saphira.sim.serve) and the one stop-signal mechanism (StopSignals).

In-process, on real loopback sockets: the signals are raised in the test's own (main) thread, at a
cycle the test chooses, so what the loop does next is exact; the one real-time wait is bounded.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from saphira.core.interrupts import Interrupted, StopSignals
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.gamebots.server.listener import GamebotsServer
from saphira.params.robot_params import find_params_file, load_params
from saphira.protocol import encode_sync
from saphira.sim.lines import PioneerLines, TcpLine
from saphira.sim.serve import ServeLoop, serve
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.simulation import Simulation
from saphira.world.wld import parse_wld
from saphira.world.world import load_world
from tests.realtime import WAIT

PERIOD = 0.05


@pytest.fixture
def pioneer() -> Iterator[tuple[PioneerLines, str]]:
    """A Pioneer front end with one robot on a free loopback port, and that port's address."""
    simulation = Simulation(load_world("room"), 0)
    host = ServedSimulation(simulation, period=PERIOD)
    server = host.add(PioneerServer(simulation, simulation.add_robot(load_params(find_params_file("p3dx")))))
    line = TcpLine(server, "127.0.0.1", 0)
    front = PioneerLines(host, [line])
    try:
        yield front, line.address
    finally:
        front.close()


def _connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=WAIT)


def test_the_first_stop_signal_ends_the_serve_loop_after_its_cycle_and_hangs_up_the_clients(
    pioneer: tuple[PioneerLines, str],
) -> None:
    front, address = pioneer
    cycles: list[float] = []

    def on_cycle(now: float) -> None:
        cycles.append(now)
        if len(cycles) == 3:
            signal.raise_signal(signal.SIGTERM)  # as a supervisor's kill, in the middle of the run

    with _connect(address) as client:
        status = serve(front, PERIOD, on_cycle=on_cycle)
        assert status == 143  # 128 + SIGTERM, as a shell reports it
        assert len(cycles) == 3  # the loop ended before another cycle began
        assert front.host.servers[0].transport is None  # the client was hung up ...
        client.settimeout(WAIT)
        assert client.recv(64) == b""  # ... and sees the end of the stream


def test_a_second_signal_while_serving_raises_at_once_and_keeps_the_first_ones_status(
    pioneer: tuple[PioneerLines, str],
) -> None:
    front, _ = pioneer
    cycles = 0

    def on_cycle(now: float) -> None:
        nonlocal cycles
        cycles += 1
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)  # the second one cannot wait for the end of the cycle

    assert serve(front, PERIOD, on_cycle=on_cycle) == 130  # the first: Ctrl-C
    assert cycles == 1


def test_a_stop_request_from_another_thread_ends_a_gamebots_serve_loop_within_one_period() -> None:
    period = 1.0  # long beside a loaded machine's scheduling delays: a further cycle would add a whole one
    server = GamebotsServer(Simulation(load_world("room"), 0), port=0, period=period)
    loop = ServeLoop(server, period)
    statuses: list[int] = []
    thread = threading.Thread(target=lambda: statuses.append(loop.run()), daemon=True)
    thread.start()
    try:
        with socket.create_connection((server.host, server.port), timeout=WAIT) as client:
            assert client.recv(64).startswith(b"NFO")  # accepted and greeted between cycles
            asked = time.monotonic()
            loop.request_stop()
            thread.join(WAIT)
            stopped = time.monotonic() - asked
    finally:
        loop.request_stop()
        thread.join(WAIT)
        server.close()
    assert not thread.is_alive() and statuses == [0]
    assert stopped < 1.75 * period, stopped  # the wait it was in, not a further cycle's


def test_stop_signals_raise_defer_or_interrupt_only_the_line_as_each_command_asks() -> None:
    with StopSignals() as signals:  # batch, replay --ui, a run while it connects: raise at once
        with pytest.raises(Interrupted) as raised:
            signal.raise_signal(signal.SIGTERM)
        assert raised.value.signum == signal.SIGTERM and signals.status == 143
    with StopSignals(deferring=True) as signals:  # a run's cycle loop, the simulator's serve loop
        signal.raise_signal(signal.SIGINT)
        assert signals.received == signal.SIGINT and signals.name == "SIGINT"
        with pytest.raises(Interrupted):
            signals.raise_received()  # for a caller whose first exception was swallowed
    with StopSignals(line_interrupts=True) as signals:  # an interactive shell: Ctrl-C ends only the line
        with pytest.raises(KeyboardInterrupt) as line:
            signal.raise_signal(signal.SIGINT)
        assert not isinstance(line.value, Interrupted) and signals.received is None
        with pytest.raises(Interrupted):
            signal.raise_signal(signal.SIGTERM)
    assert signals.status == 143


def test_a_flat_server_in_the_serve_loop_stops_on_the_first_signal_and_ends_the_controllers_stream() -> None:
    """The Flat front end: the controller's lines pace the steps; a signal at the third step ends the loop
    while the controller, still connected, sends nothing more."""
    world = parse_wld("width 8000\nheight 8000\n0 0 8000 0\n8000 0 8000 8000\n8000 8000 0 8000\n0 8000 0 0\n", "<room>")
    server = FlatServer(FlatSimulation(world, pose=(2000.0, 2000.0, 0.0)))

    signalled: list[int] = []

    def at_each_step() -> None:  # also called when the controller comes and goes
        if server.steps == 3 and not signalled:
            signalled.append(signal.SIGTERM)
            signal.raise_signal(signal.SIGTERM)

    server.on_step = at_each_step
    with socket.create_connection(server.address, timeout=WAIT) as controller:
        controller.sendall(b"c 100 0 1\n" * 3)
        assert serve(server, PERIOD) == 143
        assert server.steps == 3 and server.controller is None
        received = b""
        while chunk := controller.recv(65536):  # the step outputs, then the end of the stream
            received += chunk
        assert received.count(b"\n") == 4  # the first output on connecting, one per step


def test_a_flat_controller_whose_step_is_held_is_not_read_until_the_panel_lets_it_step() -> None:
    """While STOP holds its step, what the controller sends stays in TCP's buffers (bounded), not the server's."""
    world = parse_wld("width 8000\nheight 8000\n0 0 8000 0\n8000 0 8000 8000\n8000 8000 0 8000\n0 8000 0 0\n", "<room>")
    server = FlatServer(FlatSimulation(world, pose=(2000.0, 2000.0, 0.0)), running=False)
    thread = server.serve_in_thread()
    try:
        with socket.create_connection(server.address, timeout=WAIT) as controller:
            controller.sendall(b"c 100 0 1\n")
            assert server.held.wait(WAIT)
            controller.settimeout(1.0)
            sent = 0
            with pytest.raises(TimeoutError):  # the buffers fill: the server reads nothing more
                for _ in range(256):
                    sent += controller.send(b"l\n" * 32768)
            assert sent < 64 << 20
            server.start()  # the held step goes on, then every query is answered
            controller.settimeout(WAIT)
            received = b""
            while received.count(b"\n") < 2:  # the output on connecting, then the held step's
                chunk = controller.recv(65536)
                assert chunk, "the server closed the connection"
                received += chunk
    finally:
        server.close()
        thread.join(WAIT)
    assert not thread.is_alive() and server.steps == 1


def test_a_client_on_a_descriptor_above_1024_is_waited_on_not_spun_on(pioneer: tuple[PioneerLines, str]) -> None:
    """``select`` cannot take a descriptor above 1,023 (a process with many open files, issue 37): the
    loop waits with ``poll`` and keeps its period. Baseline: the same cycles with the client on a low one."""
    front, address = pioneer
    cycles = 10

    def timed_cycles() -> float:
        loop = ServeLoop(front, PERIOD)
        seen: list[float] = []
        loop.on_cycle = lambda now: seen.append(now) if len(seen) < cycles else loop.request_stop()
        start = time.monotonic()
        loop.run()
        return time.monotonic() - start

    with _connect(address) as client:
        client.sendall(encode_sync(0))
        baseline = timed_cycles()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard == resource.RLIM_INFINITY or hard > 1200, f"the test needs a descriptor limit above 1,200 ({hard})"
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    fillers = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # the next sockets get numbers above them
    try:
        with _connect(address) as client:
            front.poll(0.0)  # the line takes it: its socket is numbered above 1,024
            assert max(fd for fd, _ in front.wait_handles()) > 1024
            client.sendall(encode_sync(0))
            high = timed_cycles()
            client.settimeout(WAIT)
            assert client.recv(64)[3] == 0  # its SYNC0 was echoed: the loop read the socket
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert high > 0.5 * baseline, f"{cycles} cycles took {high:.3f} s, {baseline:.3f} s with a low descriptor"
