"""Pyro's brain API (the ``pyrobot`` package): brains written in Pyro's style run unchanged on every link.

The brains in tests/data/pyro_brains/ are written as Pyro's examples read after ``2to3`` (Pyro's imports,
``INIT(engine)``, camelCase hooks). They run through ``saphira run`` on the embedded simulator, and one
of them over the Pioneer protocol (``tcp://``), Flat (``flat://``) and Gamebots (``usarsim://``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyrobot.brain import Brain, avg
from pyrobot.brain.behaviors import Behavior, BehaviorBasedBrain, FSMBrain, State
from pyrobot.brain.fuzzy import Fuzzy
from pyrobot.geometry import angleAdd, angleEqual, distance
from saphira.brain import BrainEngine, BrainError, load_brain
from saphira.core.tasks import TaskState
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.params.robot_params import SonarUnit, params_for_file
from saphira.pyro_robot import PIONEER16_GROUPS
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.world import load_world
from tests.flat_controller import robot_on_flat
from tests.gamebots_support import connect_usarsim
from tests.sim_process import Program

PROJECT = Path(__file__).resolve().parents[1]
BRAINS = PROJECT / "tests" / "data" / "pyro_brains"
OFFICE = PROJECT / "maps" / "AMROffice.map"
START = (-8176.0, -3151.0, 0.0)
"""A corridor of AMROffice."""


def saphira(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "saphira", *args], cwd=PROJECT, capture_output=True, text=True, timeout=180
    )


def summary_number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in {text}"
    return float(match[1])


# ------------------------------------------------------------------------------------------ whole brains
@pytest.mark.parametrize(
    ("brain", "world", "printed", "least_travel"),
    [
        ("range_avoid.py", "AMROffice", "RangeAvoid stepped 5", 6.0),
        ("fuzzy_wander.py", "AMROffice", "", 4.0),
        ("fsm_square.py", "room", "corner 4 at", 4.0),
        ("fsm_named_square.py", "room", "corner 4", 4.0),
        ("wheels.py", "room", "robot Pioneer sonar True gripper False", 0.5),
    ],
)
def test_a_pyro_style_brain_runs_unchanged_with_saphira_run(
    brain: str, world: str, printed: str, least_travel: float
) -> None:
    done = saphira("run", str(BRAINS / brain), "--world", world, "--duration", "60")
    assert done.returncode == 0, done.stdout + done.stderr
    assert printed in done.stdout
    assert summary_number(r"travelled ([\d.]+) m", done.stdout) >= least_travel
    assert "simulator: 0 wall contacts" in done.stdout


def test_the_fsm_brain_drives_a_square_by_odometry() -> None:
    done = saphira("run", str(BRAINS / "fsm_square.py"), "--world", "room", "--duration", "45")
    assert done.returncode == 0, done.stderr
    corners = [(float(x), float(y)) for x, y in re.findall(r"corner \d+ at (\S+) (\S+)", done.stdout)]
    assert len(corners) >= 4
    sides = [math.dist(a, b) for a, b in itertools.pairwise(corners)]
    assert all(1.0 <= side <= 1.3 for side in sides), sides  # 1 m edges plus the turns' drift
    assert math.dist(corners[0], corners[4 % len(corners)] if len(corners) > 4 else corners[3]) < 1.6


def run_lock_step(robot: Robot, seconds: float, body: object) -> float:
    """Step ``robot`` for ``seconds``; the metres the simulated body (a callable giving x, y in mm) moved."""
    travelled, last = 0.0, body()  # type: ignore[operator]
    for _ in range(robot.clock.cycles_for(seconds)):
        robot.step()
        now = body()  # type: ignore[operator]
        travelled += math.dist(now, last)
        last = now
    return travelled / 1000.0


WANDER = BRAINS / "fuzzy_wander.py"


def test_the_fuzzy_brain_wanders_on_the_embedded_simulator() -> None:
    robot = Robot()
    sim = attach_simulator(robot, OFFICE, "p3dx", seed=1, pose=START)
    task = load_brain(WANDER, robot)
    travelled = run_lock_step(robot, 90.0, lambda: (sim.true_pose.x, sim.true_pose.y))
    assert task.state == TaskState.RESUME
    assert travelled > 6.0 and sim.wall_contacts == 0


def test_the_fuzzy_brain_wanders_over_flat() -> None:
    flat = FlatSimulation(load_world(OFFICE), options=FlatOptions(lasers=0), pose=START)
    with robot_on_flat(flat) as robot:
        task = load_brain(WANDER, robot)
        travelled = run_lock_step(robot, 90.0, lambda: (flat.pose.x, flat.pose.y))
        assert task.state == TaskState.RESUME
        assert travelled > 6.0 and flat.wall_contacts == 0


def test_the_fuzzy_brain_wanders_over_usarsim() -> None:
    run = connect_usarsim(OFFICE, START)
    try:
        task = load_brain(WANDER, run.robot)
        for _ in range(run.robot.clock.cycles_for(90.0)):
            run.step()
        assert task.state == TaskState.RESUME and run.stalled_steps == 0
        assert run.travelled / 1000.0 > 6.0 and run.server.contacts == 0
    finally:
        run.close()


def test_the_fuzzy_brain_drives_over_the_pioneer_protocol_on_a_second_process_server() -> None:
    sim = Program("--world", "AMROffice", "--port", "0")
    try:
        done = saphira("run", str(WANDER), "--robot", f"tcp://{sim.addresses[0]}", "--duration", "4")
    finally:
        sim.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary_number(r"travelled ([\d.]+) m", done.stdout) > 0.1  # it drove, from the map's dock
    assert 25 <= summary_number(r"link: (\d+) SIPs", done.stdout) <= 45  # 10 Hz for 4 s, in real time


# ------------------------------------------------------------------------------------------ the robot
def test_an_avoider_with_pyros_thresholds_in_pyros_default_units_keeps_off_the_walls() -> None:
    """Pyro's Avoid turns when ``front < 0.5`` and veers when a side is ``< 0.8``, in its default units
    (0.75 m each): read as robot diameters from the parameter file, it touched walls 3 times in 30 s."""
    done = saphira("run", str(BRAINS / "avoid_default_units.py"), "--world", "AMROffice", "--duration", "30")
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary_number(r"travelled ([\d.]+) m", done.stdout) >= 5.0
    assert "simulator: 0 wall contacts" in done.stdout


def test_sonar_ranges_are_the_numbers_pyros_pioneer_driver_gave() -> None:
    """Clamped to 0..2.99 m; ROBOTS is metres / 0.75, SCALED metres / 2.99, RAW metres (Pyro's ARIA driver)."""
    robot = Robot()
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0), odometry_error=False)
    robot.run(seconds=1.0)
    sonar = BrainEngine(robot).robot.range
    assert sonar.units == "ROBOTS"
    near = min(range(16), key=robot.sonar.range)
    far = max(range(16), key=robot.sonar.range)
    assert robot.sonar.range(near) < 2990 < robot.sonar.range(far)  # the room has both
    metres = robot.sonar.range(near) / 1000.0
    assert sonar[near].value == pytest.approx(metres / 0.75)
    assert sonar[near].distance("SCALED") == pytest.approx(metres / 2.99)
    assert sonar[near].distance("RAW") == pytest.approx(metres)
    assert sonar[near].distance("CM") == pytest.approx(metres * 100.0)
    assert sonar[far].distance("METERS") == 2.99 and sonar[far].distance("SCALED") == 1.0
    assert sonar.getMaxvalue() == pytest.approx(2.99 / 0.75)
    sonar.robot_unit_mm = 2.0 * robot.params.robot_radius  # the option: the parameter file's diameter
    assert sonar[near].value == pytest.approx(metres * 1000.0 / (2.0 * robot.params.robot_radius))


def test_a_pioneer_ring_has_pyros_sonar_groups() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0))
    engine = BrainEngine(robot)
    sonar = engine.robot.range
    assert sonar.groups == PIONEER16_GROUPS
    assert [s.pos for s in sonar["front-all"]] == [1, 2, 3, 4, 5, 6]
    assert [s.pos for s in sonar["left-back"]] == [15] and [s.pos for s in sonar["back-left"]] == [12, 13, 14]
    assert [s.pos for s in sonar[2:5]] == [2, 3, 4] and [s.pos for s in sonar[0, 8]] == [0, 8]
    assert sonar.getGroupNames(0) == ["all", "left", "left-front"]
    robot.run(seconds=1.0)
    reading = sonar[4]
    assert reading.angle() == pytest.approx(-10.0) and reading.angle(unit="radians") == pytest.approx(math.radians(-10))
    sonar.units = "MM"
    assert reading.value == reading.distance() == min(robot.sonar.range(4), 2990)
    assert sonar.getMaxvalue() == 2990.0
    sonar.units = "METERS"
    sonar.setMaxvalue(2.0)
    assert max(sonar.value) <= 2.0 and sonar.getMaxvalue() == 2.0
    assert sonar[0].distance("SCALED") <= 1.0
    with pytest.raises(ValueError, match="'degrees' or 'radians'"):
        reading.angle(unit="grads")


def test_another_ring_gets_the_group_names_by_bearing() -> None:
    ring = ((100, 100, 90), (120, 80, 45), (140, 20, 15), (140, -20, -15), (120, -80, -45), (100, -100, -90),
            (-100, -100, -90), (-120, 0, 180), (-100, 100, 90))  # fmt: skip
    params = params_for_file(PROJECT / "params" / "p3dx.p")
    params = dataclasses.replace(params, sonar_units=tuple(SonarUnit(i, x, y, th) for i, (x, y, th) in enumerate(ring)))
    robot = Robot(params=params)
    groups = BrainEngine(robot).robot.range.groups
    assert groups["front"] == (2, 3)
    assert groups["front-left"] == (1, 2) and groups["front-right"] == (3, 4)
    assert groups["left"] == (0, 8) and groups["left-front"] == (0,) and groups["left-back"] == (8,)
    assert groups["right-back"] == (6,) and groups["back"] == (7,) and groups["all"] == tuple(range(9))


def test_the_robot_describes_itself_and_drives_its_wheels() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx", pose=(2000.0, 2000.0, 0.0))
    pyro = BrainEngine(robot).robot
    assert pyro.type == "Pioneer" and pyro.subtype == "p3dx" and pyro.radius == pytest.approx(0.25)
    assert pyro.hasA("sonar") and pyro.hasA("odometry") and not pyro.hasA("gripper")
    assert pyro.requires("continuous-movement") is True
    pyro.motors(0.2, 0.6)
    assert robot.motion.velocity == pytest.approx(0.4 * 750.0)
    assert robot.motion.rvelocity == pytest.approx(0.2 * 100.0)
    assert pyro.thr == pytest.approx(math.radians(pyro.th))


def test_a_brain_that_requires_what_the_robot_lacks_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "needs_ptz.py"
    path.write_text(
        textwrap.dedent("""
        from pyrobot.brain import Brain

        class Look(Brain):
            def step(self):
                pass

        def INIT(engine):
            engine.robot.requires("ptz")
            return Look("Look", engine)
        """)
    )
    robot = Robot()
    attach_simulator(robot, "room", "p3dx")
    with pytest.raises(BrainError, match=r"line 9: PyroError: this brain requires 'ptz'"):
        load_brain(path, robot)


# ------------------------------------------------------------------------------------------ the brain API
def test_fuzzy_values_ramp_and_combine_as_pyros() -> None:
    assert float(Fuzzy(0.0, 2.0) >> 0.5) == 0.25 and float(Fuzzy(0.0, 2.0) << 0.5) == 0.75
    assert float(Fuzzy(1.0, 3.0) >> 9.0) == 1.0 and float(Fuzzy(1.0, 3.0) << 9.0) == 0.0
    assert Fuzzy().Value == 0.5 and Fuzzy(0.3).Value == pytest.approx(0.3) and Fuzzy(0, 10, 2).Value == 0.2
    low, high = Fuzzy(0, 1, 0.2), Fuzzy(0, 1, 0.7)
    assert (low & high).Value == 0.2 and (low | high).Value == 0.7 and (~low).Value == pytest.approx(0.8)
    assert bool(high) and not bool(low) and low < high and low + 1 == pytest.approx(1.2)
    assert float(Fuzzy(5, 5) >> 1) == 1.0 and float(Fuzzy(5, 5) << 1) == 0.0


def test_geometry_as_pyros() -> None:
    assert distance(0, 0, 3, 4) == 5.0
    assert angleAdd(350, 20) == 10.0 and angleAdd(10, -20) == 350.0
    assert angleEqual(359, 2) and not angleEqual(10, 20)
    assert avg([1, 2, 3, 6]) == 3.0
    with pytest.raises(ValueError, match="empty"):
        avg([])


class Setter:
    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {"translate": [], "rotate": []}

    def controls(self) -> dict[str, object]:
        return {name: values.append for name, values in self.values.items()}


class Fixed(Behavior):
    """Fires the rules it is given, every step."""

    def __init__(self, rules: list[tuple[float, str, float]], effects: dict[str, float], name: str = "") -> None:
        super().__init__(1, effects, name)
        self.fixed = rules

    def update(self) -> None:
        for truth, controller, value in self.fixed:
            self.IF(truth, controller, value)


def test_rules_blend_by_truth_and_effect_and_states_switch_after_the_step() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx")
    engine = BrainEngine(robot)
    out = Setter()
    brain = BehaviorBasedBrain(out.controls(), engine)  # type: ignore[arg-type]
    events: list[str] = []

    class Cruise(State):
        def setup(self) -> None:
            self.add(Fixed([(1.0, "translate", 0.8), (0.5, "rotate", 0.4)], {"translate": 1.0, "rotate": 1.0}))
            self.add(Fixed([(0.5, "translate", 0.2)], {"translate": 0.5}, "Slow"))

        def onActivate(self) -> None:
            events.append("cruise on")

        def update(self) -> None:
            if len(out.values["translate"]) == 2:
                self.goto("Halt", "why")
                events.append("goto asked")

    class Halt(State):
        def onGoto(self, args: tuple[object, ...] = ()) -> None:
            events.append(f"goto {args}")

        def onActivate(self) -> None:
            events.append("halt on")

    brain.add(Cruise(1))
    brain.add(Halt())
    brain.step()
    # translate: (1.0*1.0*0.8 + 0.5*0.5*0.2) / (1.0 + 0.25); rotate: the one rule, whatever its truth
    assert out.values["translate"] == [pytest.approx(0.68)] and out.values["rotate"] == [pytest.approx(0.4)]
    brain.step()
    brain.step()
    assert events == ["cruise on", "goto ('why',)", "goto asked", "halt on"]
    assert brain.states["Cruise"].status == 0 and brain.states["Halt"].status == 1
    assert brain.activeState is brain.states["Halt"]
    assert len(out.values["translate"]) == 3  # the step that asked for the goto still blended Cruise's rules
    brain.step()
    assert len(out.values["translate"]) == 3  # Halt fires no rules: the controllers are left alone


def test_a_rule_on_a_controller_the_behavior_does_not_affect_says_so() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx")
    brain = FSMBrain(BrainEngine(robot))

    class Lost(State):
        def setup(self) -> None:
            self.add(Fixed([(1.0, "rotate", 0.3)], {"translate": 1.0}))

    brain.add(Lost(1))
    with pytest.raises(KeyError, match="fires a rule on 'rotate' but has no effect on it"):
        brain.step()


def test_brains_are_made_in_every_shape_pyro_accepted() -> None:
    robot = Robot()
    attach_simulator(robot, "room", "p3dx")
    engine = BrainEngine(robot)
    named = FSMBrain("Square Brain", engine)  # Pyro's FSM square example
    assert named.name == "Square Brain" and set(named.controls) == {"translate", "rotate"}
    assert FSMBrain(engine).name == "FSMBrain" and FSMBrain(engine=engine).engine is engine
    controls = {"translate": engine.robot.translate, "rotate": engine.robot.rotate, "update": engine.robot.update}
    assert BehaviorBasedBrain(controls, engine).controls == controls
    assert BehaviorBasedBrain(controllers=controls, engine=engine).controls == controls
    with pytest.raises(TypeError, match="a dict of name → setter, not int"):
        BehaviorBasedBrain(3, engine)  # type: ignore[arg-type]


def test_pyro_brains_are_saphira_brains() -> None:
    assert issubclass(BehaviorBasedBrain, Brain) and issubclass(FSMBrain, BehaviorBasedBrain)


def test_the_docs_example_brain_runs(tmp_path: Path) -> None:
    text = (PROJECT / "docs" / "pyro.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert example, "docs/pyro.md shows a brain"
    path = tmp_path / "Avoid.py"
    path.write_text(example[1])
    robot = Robot()
    sim = attach_simulator(robot, OFFICE, "p3dx", seed=2, pose=START)
    task = load_brain(path, robot)
    travelled = run_lock_step(robot, 30.0, lambda: (sim.true_pose.x, sim.true_pose.y))
    assert task.state == TaskState.RESUME and travelled > 2.0 and sim.wall_contacts == 0
