"""saphira.app.session: the one assembly of a session that ``saphira run`` (and batch trials) and ``saphira
shell`` share; each command's differences are its arguments."""

from __future__ import annotations

import ast

import pytest

from saphira.app.session import lay_params_file, session_clock, session_robot
from saphira.core.clock import Clock, LockStepClock, RealTimeClock
from saphira.core.errors import SaphiraError
from saphira.ui.liveview import SteppedClock
from tests.sim_process import PROJECT


def _kind(clock: Clock) -> tuple[str, float | None]:
    return type(clock).__name__, getattr(clock, "speed", None)


@pytest.mark.parametrize(
    ("robot", "speed", "ui", "real_time", "expected"),
    [
        (None, None, None, False, ("LockStepClock", None)),  # saphira run, the embedded simulator
        (None, 4.0, None, False, ("RealTimeClock", 4.0)),  # run --speed 4
        ("tcp://127.0.0.1:8101", None, None, False, ("RealTimeClock", 1.0)),  # a robot runs in its own time
        ("FLAT://127.0.0.1:9000", None, None, False, ("LockStepClock", None)),  # a Flat server paces the run
        (None, 2.0, ("127.0.0.1", 0), False, ("SteppedClock", 2.0)),  # the live view: a person watches
        (None, None, None, True, ("RealTimeClock", 1.0)),  # the shell
        (None, 3.0, None, True, ("RealTimeClock", 3.0)),  # shell --speed 3
        ("tcp://127.0.0.1:8101", None, ("127.0.0.1", 0), True, ("SteppedClock", 1.0)),  # shell --ui
    ],
)
def test_the_session_clock_follows_the_commands_rules(
    robot: str | None, speed: float | None, ui: tuple[str, int] | None, real_time: bool, expected: tuple[str, float]
) -> None:
    clock = session_clock(robot, speed, ui, real_time=real_time)
    assert _kind(clock) == expected
    assert isinstance(clock, LockStepClock | RealTimeClock | SteppedClock)


def test_the_session_robot_takes_the_link_timeout_and_a_parameters_file() -> None:
    robot = session_robot(LockStepClock(), 2.5)
    assert robot.link.options.loss_timeout == 2.5
    assert session_robot(LockStepClock(), None).link.options.loss_timeout == type(robot.link.options)().loss_timeout
    assert lay_params_file(robot, None) is False and robot.link.user_params is None
    assert lay_params_file(robot, "amigo") is False and robot.link.user_params is None  # a model's name, no file
    path = PROJECT / "params" / "p3dx.p"
    assert lay_params_file(robot, str(path)) is True and robot.link.user_params == str(path)
    with pytest.raises(SaphiraError):
        lay_params_file(robot, str(PROJECT / "no-such.p"))


def test_run_shell_and_batch_build_no_robot_clock_or_link_watch_of_their_own() -> None:
    own = {"Robot", "RealTimeClock", "LockStepClock", "SteppedClock", "LinkWatch", "LinkOptions", "serve"}
    for name in ("run.py", "shell.py", "batch/trial.py"):
        tree = ast.parse((PROJECT / "saphira" / "app" / name).read_text())
        calls = {
            node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
        }
        assert calls & own == set(), name
