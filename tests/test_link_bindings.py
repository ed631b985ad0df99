"""Bindings that talk to the robot server, against the simulator in lock-step: ``sfHasDCHead``,
``sfSetDisplayState(sfSTEP, …)``, ``sfLoadWorldFile``, ``sfWaitClientPacket`` and the SPac count."""

from __future__ import annotations

import math

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.protocol.command_packet import decode_command
from saphira.protocol.commands import Command
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator

PSOS, ARCOS = "pion1m", "p3dx"


class Session:
    """A robot (on the embedded simulator unless ``params`` is None) with a Colbert evaluator."""

    def __init__(self, params: str | None = ARCOS, world: str = "simple") -> None:
        self.robot = Robot()
        self.sim: EmbeddedSim | None = None
        if params is not None:
            self.sim = attach_simulator(self.robot, world, params, seed=5, odometry_error=False)
        self.lines: list[str] = []
        self.ev = Evaluator(self.robot, output=self.lines.append, read_init=False)
        self.sent: list[tuple[int, int | None]] = []
        self.robot.link.on_packet_out.connect(self._sent)

    def _sent(self, packet: bytes) -> None:
        command = decode_command(packet[3:-2])
        self.sent.append((command.command, command.int_arg))

    def do(self, text: str) -> list[str]:
        start = len(self.lines)
        assert self.ev.eval_text(text), self.lines
        return self.lines[start:]

    @property
    def true_pose(self) -> tuple[float, float, float]:
        assert self.sim is not None
        pose = self.sim.true_pose
        return pose.x, pose.y, pose.th

    def turns(self) -> list[tuple[int, int | None]]:
        heading = (Command.HEAD, Command.DHEAD, Command.DCHEAD)
        return [(c, a) for c, a in self.sent if c in heading]


def _turned(before: float, after: float) -> float:
    return (after - before + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize("params", [PSOS, ARCOS])
def test_by_default_headings_go_out_as_dhead_once_per_change_as_the_manual_says(params: str) -> None:
    s = Session(params)
    assert s.do("sfHasDCHead") == ["0 (int)"]
    start = s.true_pose[2]
    s.do("sfSetDHeading(90)")
    s.robot.run(cycles=30)
    assert s.turns() == [(Command.DHEAD, 90)]  # sent once, never resent
    assert _turned(start, s.true_pose[2]) == pytest.approx(90.0, abs=2.0)


def test_head_sends_the_absolute_heading_resent_every_refresh() -> None:
    s = Session(PSOS)
    s.robot.motion.turn_command = Command.HEAD
    s.do("sfSetHeading(90)")
    s.robot.run(cycles=30)
    turns = s.turns()
    assert {c for c, _ in turns} == {Command.HEAD} and len(turns) >= 5  # resent every 0.5 s


@pytest.mark.parametrize("params", [PSOS, ARCOS])
@pytest.mark.parametrize(("flag", "command"), [(1, Command.DCHEAD), (0, Command.DHEAD)])
def test_sfhasdchead_turns_with_the_relative_command(params: str, flag: int, command: Command) -> None:
    s = Session(params)
    s.do(f"sfHasDCHead = {flag}")
    assert s.do("sfHasDCHead") == [f"{flag} (int)"]
    s.do("sfSetHeading(30)")
    s.robot.run(cycles=20)
    s.do("sfSetDHeading(60)")
    start = s.true_pose[2]
    s.robot.run(cycles=40)
    assert _turned(start, s.true_pose[2]) == pytest.approx(60.0, abs=2.0)
    assert s.do("sfDoneHeading(2)") == ["1 (int)"]
    # one relative command per change of the setpoint, never resent: 30 then 60 degrees
    assert s.turns() == [(command, 30), (command, 60)]


def test_sfstep_holds_the_simulated_world_until_a_step_is_asked_for() -> None:
    s = Session(ARCOS)
    s.do("sfSetVelocity(300)")
    s.robot.run(cycles=20)
    s.do("sfSetDisplayState(sfSTEP, 1)")
    s.robot.run(cycles=1)
    held = s.true_pose
    s.robot.run(cycles=10)
    assert s.true_pose == held
    assert s.robot.connected and s.robot.state.motor_packet_count >= 9  # SIPs keep coming
    s.do("sfRobotCom(sfCOMSTEP)")
    s.robot.run(cycles=3)
    assert math.hypot(s.true_pose[0] - held[0], s.true_pose[1] - held[1]) == pytest.approx(30.0, abs=1.0)
    s.do("sfSetDisplayState(sfSTEP, 0)")
    s.robot.run(cycles=10)
    assert math.hypot(s.true_pose[0] - held[0], s.true_pose[1] - held[1]) > 250.0


def test_sfstep_needs_a_simulator() -> None:
    s = Session(None)
    assert not s.ev.eval_text("sfSetDisplayState(sfSTEP, 1)")
    assert any("single-step mode needs a connected simulator" in line for line in s.lines)


@pytest.mark.parametrize("params", [PSOS, ARCOS])
def test_sfloadworldfile_makes_the_simulator_load_the_world(params: str) -> None:
    s = Session(params)
    assert s.sim is not None and s.sim.simulation.world.name == "simple"
    assert s.do('sfLoadWorldFile("room")') == ["0 (int)"]
    s.robot.run(cycles=2)
    world = s.sim.simulation.world
    assert world.name == "room"
    assert world.start_pose is not None and s.true_pose[:2] == pytest.approx(world.start_pose[:2])
    assert s.do('sfLoadWorldFile("no-such-world")') == ["0 (int)"]  # the protocol has no reply
    s.robot.run(cycles=2)
    assert s.sim.simulation.world.name == "room"
    assert s.sim.stats.ignored[Command.LOADWORLD] == 1 and s.sim.stats.handler_errors == 0


def test_sfloadworldfile_without_a_simulator_fails() -> None:
    s = Session(None)
    assert s.do('sfLoadWorldFile("room")') == ["sfLoadWorldFile: no simulator connected", "-1 (int)"]


def test_sfwaitclientpacket_waits_in_cycles_inside_an_activity() -> None:
    s = Session(None)  # nothing connected: no packet comes
    s.do("act w { int got; got = 7; got = sfWaitClientPacket(500); }")
    s.do("start w")
    activity = s.ev.activity("w")
    assert activity is not None
    started = s.robot.clock.cycle
    s.robot.run(cycles=5)
    assert activity.local("got") == 7  # still waiting
    assert s.robot.run_until(lambda: activity.finished, max_cycles=20)
    assert activity.local("got") == 0
    assert s.robot.clock.cycle - started == 6  # its first cycle, then 500 ms = 5 cycles of waiting


def test_sfwaitclientpacket_returns_a_packet_as_it_comes() -> None:
    s = Session(ARCOS)
    s.do("act w { int got; int kind; remove packets; got = sfWaitClientPacket(1000); kind = sfReadClientByte(); }")
    s.do("start w")
    activity = s.ev.activity("w")
    assert activity is not None
    s.robot.run(cycles=3)
    assert s.robot.scheduler.outcomes.get("w") == TaskState.SUCCESS
    assert activity.local("got") == 1 and activity.local("kind") in (0x32, 0x33)


def test_sfwaitclientpacket_hands_out_fresh_sips_not_the_handshake_seconds_later() -> None:
    robot = Robot()
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)  # there before the connection, as in a run
    attach_simulator(robot, "simple", ARCOS, seed=5, odometry_error=False)
    robot.run(3.0)
    ev.eval_text("act w { int i; remove packets; i = 0; while (i < 5) { if (sfWaitClientPacket(1000))"
                 ' { sfSMessage("%d", sfReadClientByte()); i = i + 1; } } }')  # fmt: skip
    ev.eval_text("start w")
    assert robot.run_until(lambda: len(lines) == 5, max_cycles=20), lines
    assert {int(kind) for kind in lines} <= {0x32, 0x33}, lines  # SIPs, no SYNC replies nor CONFIG


def test_sfwaitclientpacket_at_the_prompt_lets_the_cycles_run() -> None:
    s = Session(None)
    cycle = s.robot.clock.cycle
    assert s.do("sfWaitClientPacket(300)") == ["0 (int)"]
    assert s.robot.clock.cycle - cycle == 3
    s = Session(ARCOS)
    s.do("remove packets")
    assert s.do("sfWaitClientPacket(1000)") == ["1 (int)"]


def test_spac_counts_sonar_readings_per_second() -> None:
    s = Session(ARCOS)
    s.robot.run(cycles=30)
    mpac, spac = s.robot.state.motor_packet_count, s.robot.state.sonar_packet_count
    assert mpac == 10  # one SIP per 100 ms cycle
    assert spac == pytest.approx(50, abs=2)  # the simulator fires one transducer every 20 ms
    assert s.do("sfRobot.sonar_packet_count") == [f"{spac} (int)"]
