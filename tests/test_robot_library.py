"""The library a Python program imports: :class:`Robot` right by default.

The clock is chosen at connect from what is connected to (real time for a robot that lives in real
time; lock-step kept for the embedded simulator and a link that paces the clock), an explicit lock-step
clock against a real-time robot is refused with a reason, ``with Robot()`` stops the robot on every way
out, and a handshake that runs out of time says what it tried.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from saphira.client.link.base import ConnectError
from saphira.client.link.pioneer import PioneerLink
from saphira.client.link.registry import register_link
from saphira.core.clock import LockStepClock, RealTimeClock
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from tests.sim_process import Program


class PacedLink(PioneerLink):
    """A link whose peer paces the clock (as Flat's does), over the Pioneer protocol on TCP."""

    paces_clock = True

    def connect(self, target: object) -> None:
        super().connect("tcp://" + str(target).split("://", 1)[1])


register_link("paced-test", PacedLink)


@pytest.fixture
def silent() -> Iterator[str]:
    """A TCP server that accepts and never answers: the address."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield f"127.0.0.1:{server.getsockname()[1]}"


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    program = Program("--port", "0")
    yield f"tcp://{program.addresses[0]}"
    program.stop()


def test_a_robot_that_lives_in_real_time_gets_a_real_time_clock_carrying_on_the_count(silent: str) -> None:
    robot = Robot()
    robot.run(cycles=5)  # lock-step until connected
    robot.connect(f"tcp://{silent}", wait=False)
    assert isinstance(robot.clock, RealTimeClock) and robot.link.clock is robot.clock
    assert robot.clock.cycle == 5 and robot.clock.now() >= 0.5  # the timers set so far keep their meaning
    robot.disconnect()


def test_a_link_that_paces_the_clock_keeps_lock_step(silent: str) -> None:
    robot = Robot()
    robot.connect(f"paced-test://{silent}", wait=False)
    assert type(robot.link) is PacedLink and isinstance(robot.clock, LockStepClock)
    robot.disconnect()


def test_the_embedded_simulator_keeps_lock_step() -> None:
    robot = Robot()
    attach_simulator(robot, "room")
    assert robot.connected and isinstance(robot.clock, LockStepClock)


def test_an_explicit_lock_step_clock_is_refused_for_a_real_time_robot_with_the_fix(silent: str) -> None:
    robot = Robot(LockStepClock())
    failures: list[str] = []
    robot.on_connect_failed.connect(failures.append)
    with pytest.raises(ConnectError) as refused:
        robot.connect(f"tcp://{silent}")
    message = str(refused.value)
    assert message.startswith(
        f"cannot connect to tcp://{silent} on a lock-step clock: the robot there lives in real time"
    )
    assert "use Robot() (it runs in real time against such a robot) or Robot(RealTimeClock())" in message
    assert failures == [message] and not robot.connected


def test_a_handshake_that_runs_out_of_time_says_what_it_tried(silent: str) -> None:
    robot = Robot()
    failures: list[str] = []
    robot.on_connect_failed.connect(failures.append)
    with pytest.raises(ConnectError) as failed:
        robot.connect(f"tcp://{silent}", timeout=0.5)
    assert str(failed.value).startswith(
        f"no connection to tcp://{silent} within 0.5 s of real-time clock time (syncing: 1 SYNC attempts, "
        "0 unanswered within 1 s, 0 stale sessions closed)"
    )
    assert failures == [str(failed.value)]


def test_an_exception_inside_with_leaves_the_robot_stopped_and_disconnected(sim: str) -> None:
    lost: list[str] = []
    with pytest.raises(RuntimeError, match="the program failed"), Robot() as robot:
        robot.on_lost.connect(lost.append)
        robot.connect(sim)
        robot.motion.set_velocity(300)
        robot.motion.set_rvelocity(20)
        robot.run(seconds=1.0)
        assert robot.state.vel > 100
        raise RuntimeError("the program failed")
    assert not robot.connected and lost == []  # the program's own disconnect is no loss
    with Robot() as observer:  # the simulator's robot, as the next client finds it
        observer.connect(sim)
        observer.run(seconds=0.5)
        before = observer.state.global_pose
        observer.run(seconds=1.0)
        assert (observer.state.vel, observer.state.rvel) == (0, 0) and observer.state.global_pose == before
