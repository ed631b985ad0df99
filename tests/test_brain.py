"""Pyro-style brains: the robot in Pyro's idiom, the sample avoider over three protocols, destroy() on every ending."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from saphira.behavior.library import find_behavior
from saphira.brain import BrainError, BrainTask, is_brain_file, load_brain
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import RealTimeClock
from saphira.core.tasks import TaskState
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.world import load_world
from tests.flat_controller import robot_on_flat
from tests.gamebots_support import connect_usarsim
from tests.test_run_lifecycle import DEADLINE, read_until, start

PROJECT = Path(__file__).resolve().parents[1]
AVOID = PROJECT / "brains" / "avoid.py"
OFFICE = PROJECT / "maps" / "AMROffice.map"
START = (-8176.0, -3151.0, 0.0)
"""A corridor of AMROffice (the demo stack's wander test starts here too)."""


def write_brain(tmp_path: Path, body: str, name: str = "brain.py") -> Path:
    path = tmp_path / name
    path.write_text("from saphira.brain import Brain\n\n" + textwrap.dedent(body))
    return path


RECORDER = """
class Recorder(Brain):
    def setup(self):
        self.calls = ["setup"]
    def step(self):
        self.calls.append("step")
        self.robot.move(0.5, -0.25)
    def destroy(self):
        self.calls.append("destroy")

def INIT(engine):
    return Recorder("Recorder", engine)
"""


def test_a_brain_steps_every_cycle_in_pyros_normalised_units(tmp_path: Path) -> None:
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0), odometry_error=False)
    task = load_brain(write_brain(tmp_path, RECORDER), robot)
    brain = task.brain
    robot.run(cycles=10)
    assert brain.calls[:1] == ["setup"] and brain.calls.count("step") == 10  # type: ignore[attr-defined]
    assert robot.motion.velocity == 0.5 * 750.0  # p3dx leaves TransVelMax to the robot: 750 mm/s is 1.0
    assert robot.motion.rvelocity == -0.25 * 100.0  # and RotVelMax: 100 deg/s; + turns left
    robot.run(seconds=5.0)
    assert sim.true_pose.th < -45.0  # it turned right
    task_names = [t.name for t in robot.scheduler.tasks]
    assert "brain Recorder" in task_names
    task.destroy()
    task.destroy()
    assert brain.calls.count("destroy") == 1  # type: ignore[attr-defined]


def test_the_robot_reads_ranges_by_index_and_group_in_pyros_units() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0), odometry_error=False)
    robot.run(seconds=1.0)
    task = load_brain(AVOID, robot)
    pyro = task.brain.robot
    assert [r.index for r in pyro.range["front"]] == [3, 4]  # the p3dx's sonars at +-10 degrees
    assert [r.index for r in pyro.range["left"]] == [0, 15]
    assert [r.index for r in pyro.range["right"]] == [7, 8]
    assert [r.index for r in pyro.range["back"]] == [11, 12]
    assert len(pyro.range["all"]) == len(pyro.range) == 16
    mm = min(robot.sonar.range(0), 2990)  # Pyro's Pioneer driver clamped readings at 2.99 m
    assert pyro.range[0].distance("MM") == mm and pyro.range[0].distance("METERS") == mm / 1000.0
    assert pyro.range[0].distance("ROBOTS") == mm / 750.0  # Pyro's default unit: 0.75 m for a Pioneer
    assert pyro.range[-1].index == 15
    assert pyro.x == pytest.approx(robot.state.ax / 1000.0) and 0.0 <= pyro.th < 360.0
    assert pyro.stall is False
    with pytest.raises(KeyError, match="no range group 'up'"):
        pyro.range["up"]
    with pytest.raises(IndexError, match="this robot has 16"):
        pyro.range[16]
    with pytest.raises(ValueError, match="unknown range unit 'FEET'"):
        pyro.range[0].distance("feet")


def test_the_brain_sees_a_stall_when_it_drives_into_a_wall(tmp_path: Path) -> None:
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", pose=(5000.0, 1000.0, 0.0), odometry_error=False)
    path = write_brain(
        tmp_path,
        """
class Ram(Brain):
    def setup(self):
        self.stalls = []
    def step(self):
        self.stalls.append(self.robot.stall)
        self.robot.move(0.3, 0.0)

def INIT(engine):
    return Ram("Ram", engine)
""",
    )
    brain = load_brain(path, robot).brain
    robot.run(seconds=10.0)  # the wall at x = 6000 is 750 mm beyond the robot's front
    stalls: list[bool] = brain.stalls  # type: ignore[attr-defined]
    assert not any(stalls[:10]) and stalls[-1] is True
    assert sim.true_pose.x > 5600.0


def test_a_brain_starts_behaviors_and_colbert_activities(tmp_path: Path) -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0))
    evaluator = Evaluator(robot, output=lambda line: None, read_init=False)
    path = write_brain(
        tmp_path,
        """
        from saphira.behavior.library import find_behavior

        class Starter(Brain):
            def setup(self):
                self.behavior = self.start_behavior(find_behavior("constant_velocity"), 200.0)
                self.started = self.colbert("int said; act hello { said = 7; } start hello;")

        def INIT(engine):
            return Starter("Starter", engine)
    """,
    )
    task = load_brain(path, robot, evaluator)
    brain = task.brain
    assert brain.started is True  # type: ignore[attr-defined]
    robot.run(cycles=30)
    assert brain.behavior.defn is find_behavior("constant_velocity")  # type: ignore[attr-defined]
    assert robot.state.vel == pytest.approx(200.0, abs=10.0)
    assert evaluator.value("said") == 7


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("def INIT(engine):\n    return 42\n", "INIT returned int, not a saphira.brain.Brain"),
        ("def INIT(engine):\n    x = 1\n    return undefined_name\n", "line 5: NameError: name 'undefined_name'"),
        ("INIT = 3\ndef INIT(engine):\n    pass\nINIT = 3\n", "a brain file defines INIT(engine)"),
    ],
)
def test_bad_brain_files_say_what_is_wrong(tmp_path: Path, body: str, expected: str) -> None:
    path = write_brain(tmp_path, body)
    assert is_brain_file(path)
    with pytest.raises(BrainError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        load_brain(path, Robot())


def test_a_brain_whose_step_raises_fails_and_is_destroyed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write_brain(
        tmp_path,
        """
        class Broken(Brain):
            def step(self):
                raise RuntimeError("sensor on fire")
            def destroy(self):
                self.gone = True

        def INIT(engine):
            return Broken("Broken", engine)
    """,
    )
    robot = Robot()
    attach_simulator(robot, "room", "p3dx")
    task = load_brain(path, robot)
    robot.run(cycles=3)
    assert task.state == TaskState.FAILURE and task.destroyed and task.brain.gone  # type: ignore[attr-defined]
    assert any("step failed: RuntimeError: sensor on fire" in r.getMessage() for r in caplog.records)


def test_plugins_without_init_are_not_brains(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text("def load_init(env):\n    pass\n")
    assert not is_brain_file(plugin)
    assert is_brain_file(AVOID)


def wander(step: object, body: object, contacts: object) -> tuple[float, list[tuple[float, float]]]:
    """Ten simulated minutes: (metres travelled, the path)."""
    travelled, path = 0.0, []
    for _ in range(6000):
        step()  # type: ignore[operator]
        x, y = body().x, body().y  # type: ignore[operator]
        if path:
            travelled += math.hypot(x - path[-1][0], y - path[-1][1])
        path.append((x, y))
    assert contacts() == 0  # type: ignore[operator]
    return travelled / 1000.0, path


def assert_stays_round_the_office(path: list[tuple[float, float]]) -> None:
    """Within sonar range (5 m) and a second's drive of the map: AMROffice's map is open to the south."""
    x0, y0, x1, y1 = load_world(OFFICE).bounds
    assert all(x0 - 6000 <= x <= x1 + 6000 and y0 - 6000 <= y <= y1 + 6000 for x, y in path)


@pytest.mark.slow
def test_the_avoid_brain_wanders_the_office_10_minutes_without_contact_over_the_pioneer_protocol() -> None:
    robot = Robot()
    sim = attach_simulator(robot, OFFICE, "p3dx", seed=0, pose=START)
    task = load_brain(AVOID, robot)
    travelled, path = wander(robot.step, lambda: sim.sim_robot, lambda: sim.wall_contacts)
    assert task.state == TaskState.RESUME
    assert travelled > 60.0  # 100 mm/s on average: it kept moving
    assert_stays_round_the_office(path)


def test_the_avoid_brain_runs_unchanged_over_flat() -> None:
    """The same brain file over ``flat://`` (a Flat4 server on a loopback port, stepped in lock-step by
    the client): two simulated minutes in the office, moving, with no wall contact and no stall."""
    flat = FlatSimulation(load_world(OFFICE), options=FlatOptions(lasers=0), pose=START)
    with robot_on_flat(flat) as robot:
        task = load_brain(AVOID, robot)
        travelled, stalled, last = 0.0, 0, flat.pose
        for _ in range(robot.clock.cycles_for(120.0)):
            robot.step()
            travelled += math.hypot(flat.pose.x - last.x, flat.pose.y - last.y)
            last = flat.pose
            stalled += flat.robot.stalled
        assert task.state == TaskState.RESUME
        assert flat.wall_contacts == 0 and stalled == 0
        assert travelled > 12_000.0  # 100 mm/s on average: it kept moving


@pytest.mark.slow
def test_the_avoid_brain_wanders_the_office_10_minutes_without_contact_over_gamebots() -> None:
    run = connect_usarsim(OFFICE, START)
    try:
        task = load_brain(AVOID, run.robot)
        travelled, path = wander(run.step, lambda: run.sim_robot, lambda: run.server.contacts)
        assert task.state == TaskState.RESUME and run.stalled_steps == 0
        assert travelled > 60.0  # 100 mm/s on average: it kept moving
        assert_stays_round_the_office(path)
    finally:
        run.close()


def test_saphira_run_destroys_the_brain_at_the_end_of_the_run() -> None:
    proc = start("run", str(AVOID), "--world", "room", "--duration", "3")
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    assert "brain Avoid destroyed after 2" in out.decode()  # ~27 steps: connecting and stopping take the rest


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_saphira_run_destroys_the_brain_on_a_stop_signal(tmp_path: Path, sig: signal.Signals) -> None:
    path = write_brain(
        tmp_path,
        """
        class Talker(Brain):
            def setup(self):
                self.steps = 0
            def step(self):
                self.steps += 1
                if self.steps == 5:
                    print("stepping", flush=True)
            def destroy(self):
                print(f"destroyed after {self.steps} steps", flush=True)

        def INIT(engine):
            return Talker("Talker", engine)
    """,
    )
    proc = start("run", str(path), "--world", "room")
    assert proc.stdout is not None
    before = read_until(proc.stdout.fileno(), b"stepping\n")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=DEADLINE)
    stdout = (before + out).decode()
    assert proc.returncode == 128 + sig, err  # 143 or 130: an interrupted run, not a finished one
    assert "destroyed after" in stdout and f"--- interrupted ({sig.name})" in stdout
    assert stdout.index("destroyed after") < stdout.index("--- interrupted")


def test_brain_task_is_an_activities_phase_task(tmp_path: Path) -> None:
    robot = Robot()
    task = load_brain(write_brain(tmp_path, RECORDER), robot)
    assert isinstance(task, BrainTask) and task.phase.name == "ACTIVITIES"


SLEEPY = PROJECT / "tests" / "data" / "pyro_brains" / "sleepy_subsumption.py"


def test_a_brain_that_sleeps_in_step_takes_robot_time_in_lock_step() -> None:
    """Pyro's brains may sleep in ``step``: in lock-step the sleep is robot time, the cycle never waits."""
    done = subprocess.run(
        [sys.executable, "-m", "saphira", "run", str(SLEEPY), "--world", "room", "--duration", "30"],
        cwd=PROJECT, capture_output=True, text=True, timeout=DEADLINE,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cycles asleep 10 to 10" in done.stdout  # each time.sleep(1) let ten cycles pass
    assert "Sleepy stepped 27 times" in done.stdout  # a step, 1 s asleep, finished: the next cycle steps again
    assert "--- done: 300 cycles, 30.0 s robot time" in done.stdout


def test_a_sleeping_brain_steps_beside_the_cycle_in_real_time(tmp_path: Path) -> None:
    """In real time the brain's thread sleeps and the cycle goes on: cycles pass during the brain's sleep."""
    robot = Robot(RealTimeClock())
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0), odometry_error=False)
    task = load_brain(SLEEPY, robot)
    robot.run(seconds=2.5)
    task.terminate(TaskState.SUCCESS)
    brain = task.brain
    assert 1 <= brain.steps <= 3  # type: ignore[attr-defined]  # a step a second at most
    assert brain.cycles_asleep and min(brain.cycles_asleep) >= 1  # type: ignore[attr-defined]
