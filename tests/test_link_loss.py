"""A lost robot link in lock-step: the embedded simulator's server behind a fault-injecting transport.

Every fault (close, black hole, mute, delay, drop, corrupt) is switched on at a known cycle, so when
the loss is seen — and what the client sends, the activities see and the watch does then — is counted
in cycles, not waited for.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from saphira.client.link.base import DEFAULT_LINK_TIMEOUT, ConnectError, LinkOptions
from saphira.client.link.watch import LinkWatch
from saphira.client.transport import Transport
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import LockStepClock
from saphira.flat.server.listener import FlatServer
from saphira.flat.server.simulation import FlatSimulation
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.world.world import load_world
from tests.fault_link import FaultyTransport
from tests.gamebots_support import connect_usarsim
from tests.realtime import WAIT

WATCHER = """
act watcher { waitfor !sfIsConnected; sfSMessage("watcher saw the link go"); }
start watcher;
start sfConstantVelocity(300) priority 2;
"""


class Rig:
    """A robot on the embedded simulator, its line wrapped in a :class:`FaultyTransport`, and a watch."""

    def __init__(self, timeout: float | None = None, reconnect: float | None = None) -> None:
        self.robot = Robot(LockStepClock(), link_options=LinkOptions(loss_timeout=timeout) if timeout else None)
        self.sim: EmbeddedSim = attach_simulator(self.robot, "simple")
        self.faulty = self._wrap()
        self.said: list[str] = []
        self.evaluator = Evaluator(self.robot, output=self.said.append, read_init=False)
        self.refusals = 0
        self.watch = LinkWatch(self.robot, "sim:client", self.said.append, reconnect=reconnect,
                               connector=self._come_back)  # fmt: skip
        self.watch.nap = lambda seconds: None
        self.hooks: list[int] = []
        self.robot.scheduler.on_disconnect.connect(lambda: self.hooks.append(int(self.robot.connected)))

    def _wrap(self) -> FaultyTransport:
        transport = self.robot.link.transport
        assert isinstance(transport, Transport)
        self.robot.link.transport = FaultyTransport(transport)
        return self.robot.link.transport  # type: ignore[return-value]

    def _come_back(self) -> None:
        if self.refusals > 0:
            self.refusals -= 1
            raise ConnectError("connection refused")
        self.sim.connect(wait=False)

    def cycles_until_lost(self, limit: int) -> int:
        for n in range(1, limit + 1):
            self.robot.step()
            if self.watch.lost or self.watch.waiting:
                return n
        raise AssertionError(f"no loss within {limit} cycles: {self.said}")


def test_a_closed_line_is_lost_at_once_and_activities_and_hooks_see_it() -> None:
    rig = Rig()
    assert rig.evaluator.eval_text(WATCHER)
    rig.robot.run(cycles=10)
    assert rig.robot.state.vel > 100  # the behavior drives
    rig.sim.server.hang_up("switched off")
    assert rig.cycles_until_lost(5) == 1
    # Seen by the read of the next cycle, or by a write before it: either way at once, and said so.
    assert rig.watch.lost is not None and rig.watch.lost.startswith("lost the robot link (sim:client: ")
    assert rig.watch.lost.endswith("sim:client is closed)") and rig.said[-1] == rig.watch.lost
    assert rig.hooks == [0]  # the disconnect hook ran, with sfIsConnected already 0
    rig.robot.step()  # the loss is seen by a read (before the activities) or a write (after them)
    assert "watcher saw the link go" in rig.said
    assert not rig.robot.connected
    sent = rig.robot.link.counters.packets_sent
    rig.robot.run(cycles=20)  # the behaviors go on, but nothing is commanded any more
    assert rig.robot.link.counters.packets_sent == sent and rig.hooks == [0]


@pytest.mark.parametrize(("fault", "timeout"), [("blackhole", None), ("mute", 1.5)])
def test_silence_is_lost_after_the_link_timeout(fault: str, timeout: float | None) -> None:
    rig = Rig(timeout)
    assert rig.evaluator.eval_text(WATCHER)
    rig.robot.run(cycles=10)
    rig.faulty.fault = fault
    limit = timeout or DEFAULT_LINK_TIMEOUT
    cycles = rig.cycles_until_lost(200)
    assert limit * 10 <= cycles <= limit * 10 + 2
    assert rig.watch.lost is not None and rig.watch.lost.endswith(f": no SIP for {limit:.1f} s)")
    assert "watcher saw the link go" in rig.said
    if fault == "mute":  # a robot that still hears the client is stopped and closed
        rig.robot.run(cycles=2)
        assert not rig.sim.server.is_open and rig.sim.server.stats.sessions_ended == 1


def test_arias_connection_timeout_is_the_default() -> None:
    assert LinkOptions().loss_timeout == DEFAULT_LINK_TIMEOUT == 8.0


def test_a_slow_or_lossy_line_is_not_a_lost_robot_but_a_corrupt_one_is() -> None:
    rig = Rig(timeout=1.0)
    assert rig.evaluator.eval_text(WATCHER)
    for fault in ("delay", "drop"):
        rig.faulty.fault = fault
        sips = rig.robot.link.counters.sips
        rig.robot.run(cycles=50)
        assert rig.robot.connected and not rig.watch.lost, fault
        assert rig.robot.link.counters.sips > sips + 15, fault
    rig.faulty.fault = "corrupt"
    assert 10 <= rig.cycles_until_lost(30) <= 12
    assert rig.robot.link.receiver.stats.dropped > 0
    assert rig.watch.lost is not None and "no SIP for 1.0 s" in rig.watch.lost


def test_reconnect_suspends_waits_reloads_the_parameters_and_resumes() -> None:
    rig = Rig(reconnect=10.0)
    assert rig.evaluator.eval_text("act mover { speed 200; waitfor sfIsStalled(); }\nstart mover;")
    rig.robot.run(cycles=10)
    assert rig.robot.params.source.endswith("p3dx.p")
    rig.refusals = 2  # the robot is away for the first two tries
    rig.sim.server.hang_up("switched off")
    rig.robot.link.user_params = "p3at"  # what the robot brings back is read afresh
    assert rig.cycles_until_lost(5) == 1 and rig.watch.lost is None
    lost_at = rig.robot.clock.cycle
    mover = rig.robot.scheduler.get("mover")
    assert mover.suspended
    assert rig.said[-1].startswith("lost the robot link (sim:client: ") and "waiting up to 10 s" in rig.said[-1]
    for _ in range(60):
        rig.robot.step()
        if not rig.watch.waiting:
            break
    assert rig.robot.connected and rig.watch.reconnects == 1 and rig.watch.lost is None
    assert 30 <= rig.robot.clock.cycle - lost_at <= 36  # two refusals a second apart, then the handshake
    assert rig.said[-1].startswith("reconnected to sim:client; parameters from ") and "p3at" in rig.said[-1]
    assert rig.robot.params.source.endswith("p3at.p")
    assert mover.active
    rig.robot.run(cycles=15)
    assert rig.robot.state.vel > 100  # driving again


def test_reconnect_gives_up_after_its_time() -> None:
    rig = Rig(reconnect=2.0)
    assert rig.evaluator.eval_text("act mover { speed 200; waitfor sfIsStalled(); }\nstart mover;")
    rig.robot.run(cycles=5)
    rig.refusals = 1000
    rig.sim.server.hang_up("switched off")
    rig.cycles_until_lost(5)
    lost_at = rig.robot.clock.cycle
    for _ in range(40):
        rig.robot.step()
        if rig.watch.lost:
            break
    assert rig.watch.lost is not None and rig.watch.lost.endswith("; no robot within 2 s")
    assert 19 <= rig.robot.clock.cycle - lost_at <= 21
    assert rig.robot.scheduler.get("mover").suspended and not rig.robot.connected


def _lost_within(robot: Robot, watch: LinkWatch, cycles: int) -> str:
    for _ in range(cycles):
        robot.step()
        if watch.lost:
            return watch.lost
    raise AssertionError(f"no loss within {cycles} cycles")


@pytest.mark.parametrize("fault", ["close", "blackhole"])
def test_a_lost_flat_server_is_a_lost_link(maps_dir: Path, fault: str) -> None:
    server = FlatServer(FlatSimulation(load_world(maps_dir / "room.wld"), pose=(5000.0, 1000.0, 0.0)))
    thread = server.serve_in_thread()
    robot = Robot(link_options=LinkOptions(loss_timeout=1.0))
    url = "flat://{}:{}".format(*server.address)
    said: list[str] = []
    try:
        robot.connect(url)
        watch = LinkWatch(robot, url, said.append)
        robot.run(cycles=5)
        assert robot.connected
        started = time.monotonic()
        if fault == "close":
            server.close()
        else:
            transport = robot.link.transport
            assert transport is not None
            robot.link.transport = FaultyTransport(transport)
            robot.link.transport.fault = "blackhole"  # type: ignore[attr-defined]
        lost = _lost_within(robot, watch, 5)
        assert time.monotonic() - started < 5 * 1.0 + WAIT / 4  # 5 cycles, each waiting at most the link timeout
        assert lost.startswith(f"lost the robot link ({url}: ") and said == [lost]
        assert lost.endswith("no step output for 1 s)" if fault == "blackhole" else "closed by peer)")
    finally:
        robot.disconnect()
        server.close()
        thread.join(timeout=WAIT)


def test_a_lost_gamebots_server_is_a_lost_link(maps_dir: Path) -> None:
    pair = connect_usarsim(maps_dir / "room.wld", (1000.0, 1000.0, 0.0))
    said: list[str] = []
    try:
        watch = LinkWatch(pair.robot, "usarsim://", said.append)
        for _ in range(5):
            pair.step()
        assert pair.robot.connected
        pair.robot.clock.remove_listener(pair.server.cycle)  # type: ignore[attr-defined]
        pair.server.close()  # the server goes: every robot's line is closed
        lost = _lost_within(pair.robot, watch, 3)
        assert lost == f"lost the robot link (usarsim://127.0.0.1:{pair.server.port}: connection closed by peer)"
    finally:
        pair.close()


def test_a_flat_server_that_falls_silent_but_still_hears_is_sent_a_stop(maps_dir: Path) -> None:
    flat = FlatSimulation(load_world(maps_dir / "room.wld"), pose=(3000.0, 3000.0, 0.0))
    server = FlatServer(flat)
    thread = server.serve_in_thread()
    robot = Robot(link_options=LinkOptions(loss_timeout=1.0))
    url = "flat://{}:{}".format(*server.address)
    try:
        robot.connect(url)
        watch = LinkWatch(robot, url, lambda line: None)
        robot.motion.set_velocity(300.0)
        robot.run(cycles=5)
        assert flat.robot.drive.vel_target == 300.0
        transport = robot.link.transport
        assert transport is not None
        robot.link.transport = FaultyTransport(transport)
        robot.link.transport.fault = "mute"  # type: ignore[attr-defined]
        assert _lost_within(robot, watch, 5).endswith("no step output for 1 s)")
        deadline = time.monotonic() + WAIT
        while flat.robot.drive.vel_target != 0.0 and time.monotonic() < deadline:  # the server's own thread
            time.sleep(0.01)
        assert flat.robot.drive.vel_target == 0.0  # the last control line it heard: zero velocities
    finally:
        robot.disconnect()
        server.close()
        thread.join(timeout=WAIT)
