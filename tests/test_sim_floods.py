"""Issue 37: one client's flood, or idle connections to the live view, cost no other robot its cycle.

The budget itself is checked in lock-step (exact bytes and packets per cycle). The rest runs ``saphira
sim`` as a real program with the attacker in a second process: robot 2's client times 20 SIPs before
the attack (the baseline) and 20 during it, so the check is a ratio measured in the same test, never a
fixed time. Memory and descriptors are read from ``/proc``. Nothing sleeps to synchronise: every wait
is on a line the attacker prints or a packet the simulator sends, with a deadline.
"""

from __future__ import annotations

import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections import deque
from pathlib import Path

import pytest

from saphira.protocol import Command, PacketReceiver, encode_command, encode_sync
from saphira.sim.session import ServerOptions
from tests.realtime import WAIT
from tests.sim_process import PROJECT, Program
from tests.test_sim_server import Rig

SIPS = 20
"""SIPs timed before and during an attack (2 s of the simulator's clock)."""


# --------------------------------------------------------------------------- the budget, in lock-step


def test_a_cycle_reads_at_most_its_byte_budget_and_handles_at_most_its_packet_budget() -> None:
    rig = Rig(options=ServerOptions(flood_limit=None))
    rig.open()
    stats, framing = rig.server.stats, rig.server.receiver

    def fed() -> int:
        return framing.stats.packet_bytes + framing.stats.garbage_bytes + framing.buffered

    before, bytes_before = stats.packets, fed()
    rig.client.write(encode_command(Command.PULSE) * 1000)  # 6,000 bytes of valid packets at once
    rig.cycle()
    assert stats.packets - before == 64  # the packet budget; the rest of what was read waits decoded
    assert fed() - bytes_before == 4096  # the byte budget: the rest waits in the line
    rig.cycle(20)
    assert stats.packets - before == 1000  # every packet handled, none lost, in later cycles
    assert stats.throttled_cycles > 0 and rig.server.connected


def test_a_client_over_its_budget_for_five_seconds_is_hung_up_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    rig = Rig()
    rig.open()
    garbage = bytes(range(256)) * 20  # 5,120 bytes a cycle: over the 4,096-byte budget
    for _ in range(45):
        rig.client.write(garbage)
        rig.cycle()
    assert rig.server.connected  # 4.5 s over budget: still served (what waits, waits)
    for _ in range(10):
        if not rig.client.closed:
            rig.client.write(garbage)
        rig.cycle()
    assert not rig.server.connected and rig.server.stats.floods == 1
    said = [r.getMessage() for r in caplog.records]
    assert sum("sends more than 4096 bytes or 64 packets a cycle" in m for m in said) == 1, said
    assert any(re.search(r"hung up the client .*over its input budget for 5\.\d s", m) for m in said), said


# --------------------------------------------------------------------------- real processes


class SipClock:
    """A robot's client on a blocking socket: opens the session and times SIPs."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=WAIT)
        self.receiver = PacketReceiver(255)
        self.queue: deque[bytes] = deque()
        for n in range(3):
            self.sock.sendall(encode_sync(n))
            assert self._packet()[0] == n
        self.sock.sendall(encode_command(Command.OPEN))

    def _packet(self) -> bytes:
        while not self.queue:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the simulator closed the connection")
            self.queue.extend(self.receiver.feed(data))
        return self.queue.popleft()

    def time_sips(self, n: int = SIPS) -> float:
        """Seconds between the next SIP and the ``n``-th after it (a PULSE for each keeps the line alive)."""
        first = None
        count = 0
        while count <= n:
            if self._packet()[0] in (0x32, 0x33):
                first = time.monotonic() if first is None else first
                count += 1
                self.sock.sendall(encode_command(Command.PULSE))
        assert first is not None
        return time.monotonic() - first

    def close(self) -> None:
        self.sock.close()


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid`` (``/proc``), KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None, status
    return int(found.group(1))


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Attacker:
    """A second Python process running ``script`` (given the target address as ``ADDRESS`` and the tests'
    real-time deadline as ``WAIT``); it says
    ``ready`` on stdout once the attack is under way."""

    def __init__(self, script: str, address: str, nofile: int | None = None) -> None:
        def limits() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        source = f"ADDRESS = {address!r}\nWAIT = {WAIT!r}\n" + textwrap.dedent(script)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", source], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limits
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == b"ready", line + self.proc.stdout.read()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.communicate(timeout=WAIT)


FLOOD = """
import socket
from saphira.protocol import Command, encode_command, encode_sync
host, port = ADDRESS.rsplit(":", 1)
sock = socket.create_connection((host, int(port)), timeout=30)
for n in range(3):  # a correct handshake on robot 1's line, then PULSEs as fast as TCP takes them
    sock.sendall(encode_sync(n))
    sock.recv(256)
sock.sendall(encode_command(Command.OPEN))
flood = encode_command(Command.PULSE) * 20000
print("ready", flush=True)
sock.settimeout(None)
try:
    while True:
        sock.sendall(flood)
except OSError as exc:
    print("dropped:", exc, flush=True)
"""


def test_one_clients_flood_costs_the_other_robot_no_sips_and_the_simulator_no_memory() -> None:
    sim = Program("--port", "0", "--robots", "2", robots=2)
    clock = SipClock(sim.addresses[1])
    try:
        baseline = clock.time_sips()
        rss_before = rss_kib(sim.proc.pid)
        flood = Attacker(FLOOD, sim.addresses[0])
        try:
            attacked = clock.time_sips()
            grown = rss_kib(sim.proc.pid) - rss_before
            assert flood.proc.poll() is None  # still flooding while robot 2 was timed
        finally:
            flood.stop()
        assert attacked < 1.5 * baseline, f"robot 2's {SIPS} SIPs took {attacked:.2f} s, {baseline:.2f} s before"
        assert grown < 32 * 1024, f"the simulator grew by {grown} KiB under the flood"
        assert clock.time_sips(5) > 0 and sim.proc.poll() is None  # still serving
    finally:
        clock.close()
        sim.stop()


IDLE = """
import socket
host, port = ADDRESS.rsplit(":", 1)
held = []
for _ in range(1100):  # idle connections that never send a byte (nor the token)
    held.append(socket.create_connection((host, int(port)), timeout=WAIT))
print("ready", flush=True)
input()
"""


class SimWithView:
    """``saphira sim --ui`` with one robot, its descriptor limit set to ``nofile``, its log in a file."""

    def __init__(self, log: Path, nofile: int) -> None:
        def limits() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.log = log
        with log.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "saphira.app.sim", "--port", "0", "--ui", "127.0.0.1:0"],
                cwd=PROJECT,
                env=dict(os.environ, PYTHONPATH=str(PROJECT)),
                stdout=subprocess.PIPE,
                stderr=err,
                preexec_fn=limits,
            )
        assert self.proc.stdout is not None
        out = b""
        deadline = time.monotonic() + WAIT
        while b"listening on" not in out:
            assert time.monotonic() < deadline and self.proc.poll() is None, out + log.read_bytes()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                out += os.read(self.proc.stdout.fileno(), 4096)
        found = re.search(rb"live view: http://([\d.]+:\d+)/", out)
        address = re.search(rb"listening on (\S+)", out)
        assert found is not None and address is not None, out
        self.view, self.robot = found.group(1).decode(), address.group(1).decode()

    def log_lines(self) -> int:
        return len(self.log.read_bytes().splitlines())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.communicate(timeout=WAIT)


def test_idle_connections_to_the_live_view_leave_a_new_robot_client_its_ten_sips_a_second(tmp_path: Path) -> None:
    sim = SimWithView(tmp_path / "sim.log", nofile=4096)  # room for 1,100 sockets: select() would overflow
    try:
        clock = SipClock(sim.robot)
        baseline = clock.time_sips()
        clock.close()
        idle = Attacker(IDLE, sim.view, nofile=4096)
        try:
            clock = SipClock(sim.robot)  # a socket opened after the idle ones
            attacked = clock.time_sips()
            clock.close()
            held = open_fds(sim.proc.pid)  # the 1,100 are all in by now (connected 2 s before)
        finally:
            idle.stop()
        assert held < 100, f"the simulator holds {held} descriptors for 1,100 idle connections"
        assert 0.5 * baseline < attacked < 1.5 * baseline, f"{SIPS} SIPs: {attacked:.2f} s, {baseline:.2f} s before"
        assert sim.proc.poll() is None
    finally:
        sim.stop()


CROWD = """
import socket
view, robot = ADDRESS.split(" ")
held = []
for where in [view] * 100 + [robot] * 4:  # within both listen backlogs: every connect returns at once
    host, port = where.rsplit(":", 1)
    try:
        held.append(socket.create_connection((host, int(port)), timeout=2))
    except OSError:
        pass
print("ready", flush=True)
input()
"""


def test_out_of_descriptors_the_log_stays_short_and_the_robot_keeps_its_cycle(tmp_path: Path) -> None:
    sim = SimWithView(tmp_path / "sim.log", nofile=4096)
    try:
        clock = SipClock(sim.robot)
        baseline = clock.time_sips()
        resource.prlimit(sim.proc.pid, resource.RLIMIT_NOFILE, (open_fds(sim.proc.pid) + 4, 4096))
        lines = sim.log_lines()
        crowd = Attacker(CROWD, f"{sim.view} {sim.robot}")
        try:
            attacked = clock.time_sips()
        finally:
            crowd.stop()
        clock.close()
        said = sim.log.read_bytes().decode(errors="replace").splitlines()[lines:]
        assert len(said) < 40, f"{len(said)} new log lines, the first: {said[:12]}"
        assert attacked < 1.5 * baseline, f"{SIPS} SIPs: {attacked:.2f} s, {baseline:.2f} s before"
        assert sim.proc.poll() is None
    finally:
        sim.stop()
