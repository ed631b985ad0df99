"""A failing Python part stops what it drives and the run says so (issue 23, item 1).

Each fault is injected by a file this test writes: a brain whose ``step`` raises, a behavior whose
``update`` or rule raises, a plugin task that raises, a plugin whose ``load_init`` raises at run time.
Runs are lock-step against the embedded simulator in ``room`` (a 6 x 6 m box: a robot that drives on
hits a wall within seconds), through the CLI (exit status, summary) and through ``Robot`` (the
simulator's true velocity once the part has failed).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from saphira.app.batch.experiment import load_experiment
from saphira.app.batch.trial import run_trial
from saphira.app.cli import main
from saphira.brain import load_brain
from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator

CRASHING_BRAIN = """\
from saphira.brain import Brain
from saphira.behavior.library import find_behavior


class Crash(Brain):
    def setup(self, cruise=0):
        self.steps = 0
        if cruise:
            self.start_behavior(find_behavior("constant_velocity"), cruise, priority=1)

    def step(self):
        self.steps += 1
        self.robot.move(0.5, 0.0)
        if self.steps > 5:
            raise RuntimeError("sensor on fire")


def INIT(engine):
    return Crash("Crash", engine, cruise=CRUISE)
"""
"""Drives at half speed (375 mm/s) towards the box's wall 4.5 m ahead, then raises (line 15)."""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def summary_lines(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.startswith("    ")]


def test_a_brain_whose_step_raises_stops_the_robot_and_the_run_fails(tmp_path: Path, capsys) -> None:
    brain = write(tmp_path, "crash.py", CRASHING_BRAIN.replace("CRUISE", "0"))
    status = main(["run", str(brain), "--world", "room", "--duration", "20"])
    lines = summary_lines(capsys.readouterr().out)
    assert status == 1
    assert f"brain Crash: error at {brain}:15: RuntimeError: sensor on fire" in lines
    assert "simulator: 0 wall contacts" in lines  # before the fix it drove on into the wall
    travelled = next(line for line in lines if line.startswith("travelled"))
    assert float(travelled.split()[1]) < 0.5  # 6 steps at 375 mm/s and the braking, not 20 s of driving


def test_a_failed_brain_s_channels_stop_and_go_back_to_the_behaviors(tmp_path: Path) -> None:
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx")
    alone = load_brain(write(tmp_path, "alone.py", CRASHING_BRAIN.replace("CRUISE", "0")), robot)
    robot.run(cycles=30)
    assert alone.state == TaskState.FAILURE or alone.scheduler is None
    assert sim.sim_robot.vel == 0.0 and sim.sim_robot.rvel == 0.0  # nothing else drives: it stands
    assert not robot.motion.direct[next(iter(robot.motion.direct))]

    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx")
    load_brain(write(tmp_path, "cruise.py", CRASHING_BRAIN.replace("CRUISE", "120")), robot)
    robot.run(cycles=40)
    assert sim.sim_robot.vel == pytest.approx(120.0, abs=5.0)  # the behavior drives, not the brain's 375
    assert sim.wall_contacts == 0


BAD_BEHAVIOR = """\
from dataclasses import dataclass

from saphira.behavior.behavior import Activity, FuzzyVars, Rule, behavior, speed
from saphira.behavior.library import find_behavior


@dataclass
class P:
    pass


@dataclass
class V(FuzzyVars[P]):
    n: int = 0


def update(ctx):
    ctx.v.n += 1
    if ctx.v.n > 5 and WHERE == "update":
        raise ValueError("bad update")


def truth(v):
    if v.n > 5 and WHERE == "rule":
        raise ZeroDivisionError("bad rule")
    return 1.0


rush = behavior("rush", params=P, vars=V, update=update, rules=[Rule("Go", when=truth, then=speed(lambda v: 600.0))],
                activity=Activity(turn=0.0, speed=1.0))


def load_init(env):
    env.robot.start_behavior(rush, priority=0)
    env.robot.start_behavior(find_behavior("constant_velocity"), 100.0, priority=1)
"""
"""``rush`` (priority 0) wants 600 mm/s, constant_velocity (priority 1) 100 mm/s; ``rush`` raises at cycle 6."""


@pytest.mark.parametrize(("where", "line"), [("update", 20), ("rule", 25)])
def test_a_python_behavior_that_raises_leaves_the_blend_and_fails_the_run(
    tmp_path: Path, capsys, where: str, line: int
) -> None:
    plugin = write(tmp_path, f"{where}.py", BAD_BEHAVIOR.replace("WHERE", repr(where)))
    status = main(["run", str(plugin), "--world", "room", "--duration", "4"])
    lines = summary_lines(capsys.readouterr().out)
    assert status == 1
    message = "ValueError: bad update" if where == "update" else "ZeroDivisionError: bad rule"
    assert f"behavior rush: error at {plugin}:{line}: {message}" in lines

    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx")
    Evaluator(robot, output=lambda text: None, read_init=False).load(plugin)
    robot.run(cycles=40)
    assert [b.name for b in robot.executive.behaviors] == ["constant_velocity"]  # the other goes on
    assert sim.sim_robot.vel == pytest.approx(100.0, abs=5.0)  # rush's 600 mm/s went with it


def test_a_plugin_task_that_raises_stops_what_it_drove_and_fails_the_run(tmp_path: Path, capsys) -> None:
    plugin = write(
        tmp_path,
        "ticker.py",
        """\
        def load_init(env):
            robot = env.robot
            calls = []

            def ticker(state):
                calls.append(state)
                robot.motion.set_velocity(400)
                if len(calls) > 5:
                    raise KeyError("tick")

            robot.scheduler.add(ticker, "ticker")
        """,
    )
    status = main(["run", str(plugin), "--world", "room", "--duration", "20"])
    lines = summary_lines(capsys.readouterr().out)
    assert status == 1
    assert f"task ticker: error at {plugin}:9: KeyError: 'tick'" in lines
    assert "simulator: 0 wall contacts" in lines
    assert float(next(line for line in lines if line.startswith("travelled")).split()[1]) < 0.5


def test_a_load_init_that_raises_at_run_time_stops_what_it_set_and_fails_the_run(tmp_path: Path, capsys) -> None:
    plugin = write(
        tmp_path,
        "broken.py",
        """\
        def load_init(env):
            env.robot.motion.set_velocity(400)
            raise RuntimeError("init broke")
        """,
    )
    act = write(tmp_path, "loads.act", f'act A {{ int r; r = sfLoadEvalFile("{plugin}"); waitfor 0 timeout 100; }}\n'
                                       "start A;\n")  # fmt: skip
    status = main(["run", str(act), "--world", "room", "--duration", "12"])
    lines = summary_lines(capsys.readouterr().out)
    assert status == 1
    assert "activity A: SUCCESS" in lines
    assert f"plugin broken.py: error at {plugin}:3: RuntimeError: init broke" in lines
    assert "simulator: 0 wall contacts" in lines
    assert float(next(line for line in lines if line.startswith("travelled")).split()[1]) < 0.3


def test_quiet_prints_the_failed_parts_only(tmp_path: Path, capsys) -> None:
    brain = write(tmp_path, "crash.py", CRASHING_BRAIN.replace("CRUISE", "0"))
    assert main(["run", str(brain), "--world", "room", "--duration", "2", "-q"]) == 1
    assert capsys.readouterr().out.strip() == f"brain Crash: error at {brain}:15: RuntimeError: sensor on fire"


def test_batch_calls_the_same_runs_failures(tmp_path: Path) -> None:
    """A trial is an error exactly when ``saphira run`` of the same file exits 1, with the summary's line."""
    brain = write(tmp_path, "crash.py", CRASHING_BRAIN.replace("CRUISE", "0"))
    fails = write(tmp_path, "fails.act", "act f { fail; }\nstart f;\n")
    fine = write(tmp_path, "fine.act", "act ok { move(100); }\nstart ok;\n")
    rows = {}
    for path in (brain, fails, fine):
        exp = write(tmp_path, f"{path.stem}.toml", f'[run]\nactivity = "{path}"\nworld = "room"\nduration = 3\n')
        (spec,) = load_experiment(exp).trials()
        rows[path.stem] = run_trial(spec).row
    assert (rows["crash"]["status"], rows["crash"]["error"]) == (
        "error",
        f"brain Crash: error at {brain}:15: RuntimeError: sensor on fire",
    )
    assert (rows["fails"]["status"], rows["fails"]["error"]) == ("error", "activity f: FAILURE")
    assert (rows["fine"]["status"], rows["fine"]["error"]) == ("ok", "")


CALM_BRAIN = """\
from saphira.brain import Brain


class Calm(Brain):
    def step(self):
        self.robot.move(0.1, 0.0)


def INIT(engine):
    return Calm("Calm", engine)
"""

ARRIVES = """\
from dataclasses import dataclass

from saphira.behavior.behavior import Activity, FuzzyVars, Rule, behavior, speed
from saphira.behavior.library import find_behavior


@dataclass
class P:
    pass


@dataclass
class V(FuzzyVars[P]):
    n: int = 0


def update(ctx):
    ctx.v.n += 1


arrive = behavior("arrive", params=P, vars=V, update=update, rules=[Rule("Go", when=1.0, then=speed(lambda v: 50.0))],
                  activity=Activity(speed=1.0, goal=lambda v: 1.0 if v.n > 5 else 0.0))


def load_init(env):
    env.robot.start_behavior(arrive, priority=0)
    env.robot.start_behavior(find_behavior("constant_velocity"), 100.0, priority=1)
"""
"""``arrive`` reaches its goal at its sixth cycle (SUCCESS); constant_velocity runs to the end of the run."""


def test_the_summary_has_a_line_for_each_brain_and_top_level_behavior_that_did_not_fail(tmp_path: Path, capsys) -> None:
    brain = write(tmp_path, "calm.py", CALM_BRAIN)
    plugin = write(tmp_path, "arrives.py", ARRIVES)
    status = main(["run", str(brain), str(plugin), "--world", "room", "--duration", "2"])
    lines = summary_lines(capsys.readouterr().out)
    assert status == 0
    assert "brain Calm: still running" in lines
    assert "behavior arrive: SUCCESS" in lines
    assert "behavior constant_velocity: still running" in lines
