"""Monte Carlo localization (issue 27): the manual's wander stack in office maps, lock-step with the
embedded simulator, odometry error on, the truth from the simulator; tracking, global localization
(Python and Colbert), a kidnapped robot, a pose set by hand, the live view's frame and ``saphira run``."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from saphira.app.cli import main
from saphira.behavior.library import start_wander_stack
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import Pose
from saphira.perception import LOCALIZE, TEST_MATCHING, Perception, perception_for
from saphira.perception.truth import pose_error
from saphira.perception.worldmap import world_walls
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.ui.snapshot import Wake, capture
from saphira.world.world import load_world
from tests.sim_process import PROJECT

ARIA_MAPS = Path(__file__).parent / "data" / "aria-maps"


def office(
    world: str, seed: int, *, globally: bool | None = False, with_map: bool = True
) -> tuple[Robot, EmbeddedSim, Perception]:
    """A P3-DX in ``world`` with its lines as the map (``with_map``) and the wander stack started;
    ``localize`` running (``globally``: from no idea where it is; None: not started)."""
    the_world = load_world(world)
    robot = Robot()
    sim = attach_simulator(robot, the_world, "p3dx", seed=seed)
    for wall in world_walls(the_world) if with_map else []:
        robot.reflector.pointlist.add(wall)
    per = perception_for(robot.reflector, robot.scheduler)
    if globally is not None:
        per.start_localization(globally)
    start_wander_stack(robot)
    return robot, sim, per


def errors(robot: Robot, sim: EmbeddedSim, seconds: float) -> list[tuple[float, float]]:
    """Run ``seconds``; the global pose's error against the truth after every cycle (mm, deg). The truth
    is taken before the cycle: the simulator steps at its end, after the client read the SIP."""
    found = []
    for _ in range(robot.clock.cycles_for(seconds)):
        truth = sim.true_pose
        robot.step()
        found.append(pose_error(robot.state.global_pose, truth))
    return found


@pytest.mark.parametrize(
    ("world", "seed"),
    [("AMROffice", 1), ("columbia", 2), (str(ARIA_MAPS / "MapLab.map"), 3), (str(ARIA_MAPS / "office.map"), 4)],
)
def test_tracking_holds_in_office_maps(world: str, seed: int) -> None:
    """Every cycle after the first 30 s within 300 mm and 10° of the truth, p95 under 150 mm (dead
    reckoning alone, the same 90 s: AMROffice seed 1 ends 1.6 m and 19° off)."""
    robot, sim, per = office(world, seed)
    found = errors(robot, sim, 90.0)[300:]
    worst = max(d for d, _ in found), max(a for _, a in found)
    p95 = float(np.percentile([d for d, _ in found], 95))
    print(f"{Path(world).name} seed {seed}: p95 {p95:.0f} mm, worst {worst[0]:.0f} mm {worst[1]:.1f} deg")
    assert worst[0] <= 300.0 and worst[1] <= 10.0
    assert p95 < 150.0
    assert per.localizer.localized and per.localizer.updates > 100


def test_tracking_holds_while_circling_in_the_open_area_off_amroffice() -> None:
    """AMROffice seed 3 drives out of the building's lines after 90 s and circles for minutes in open
    space where, once per lap, a few sonars hear the building's outer wall 3–5 m off at oblique angles.
    Those echoes must not pull the estimate towards the wall (a pose nearer it, whose cone crosses the
    wall short of the range, used to fit as well: 350 mm off at worst, p95 206 mm), nor the laps
    without any echo let the heading wander."""
    robot, sim, per = office("AMROffice", 3)
    found = errors(robot, sim, 600.0)[300:]
    p95 = float(np.percentile([d for d, _ in found], 95))
    print(f"p95 {p95:.0f} mm, worst {max(d for d, _ in found):.0f} mm {max(a for _, a in found):.1f} deg")
    assert all(d <= 300.0 and a <= 10.0 for d, a in found)
    assert p95 < 150.0
    assert per.localizer.localized


def test_dead_reckoning_alone_is_lost_in_the_same_wander() -> None:
    """The tracking test's baseline: the same wander without ``localize`` leaves the 300 mm bound."""
    robot, sim, _ = office("AMROffice", 1, globally=None)
    found = errors(robot, sim, 90.0)
    assert max(d for d, _ in found) > 300.0 or max(a for _, a in found) > 10.0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_global_localization_from_python_finds_the_pose_in_amroffice(seed: int) -> None:
    """``start_localization(globally=True)`` on a robot whose global pose says nothing (0, 0, 0 while it
    stands at the map's home): within 60 s of wandering the global pose is the true one, and stays."""
    robot, sim, per = office("AMROffice", seed, globally=None)
    robot.reflector.set_global_pose(0.0, 0.0, 0.0)
    truth = sim.true_pose
    assert pose_error(robot.state.global_pose, truth)[0] > 1000.0
    per.start_localization(globally=True)
    assert not per.localizer.localized and len(per.localizer.samples) > 10000
    found = errors(robot, sim, 60.0)
    assert per.localizer.localized
    assert all(d <= 300.0 and a <= 10.0 for d, a in found[-100:]), found[-100:]


def test_global_localization_from_colbert() -> None:
    """``sfGlobalLocalize()`` in Colbert, the map loaded with ``sfLoadMapFile``: the pose is found."""
    robot, sim, per = office("AMROffice", 4, globally=None, with_map=False)
    robot.reflector.set_global_pose(2000.0, -3000.0, 90.0)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text('sfLoadMapFile("AMROffice"); sfGlobalLocalize();'), lines
    assert LOCALIZE in robot.scheduler and not per.localizer.localized
    found = errors(robot, sim, 60.0)
    assert per.localizer.localized
    assert all(d <= 300.0 and a <= 10.0 for d, a in found[-100:]), found[-100:]


def test_a_kidnapped_robot_is_found_again() -> None:
    """After 40 s of tracking the simulator carries the robot back to where it was 25 s before, turned
    by 90° (the client is not told): within 60 s the global pose is the true one again."""
    robot, sim, per = office("AMROffice", 2)
    trail = []
    for _ in range(robot.clock.cycles_for(40.0)):
        robot.step()
        trail.append(sim.true_pose)
    back = trail[-robot.clock.cycles_for(25.0)]
    sim.sim_robot.set_pose(back.x, back.y, back.th + 90.0)
    robot.step()
    assert pose_error(robot.state.global_pose, sim.true_pose)[0] > 1500.0
    found = errors(robot, sim, 60.0)
    assert per.localizer.injected > 0
    assert all(d <= 300.0 and a <= 10.0 for d, a in found[-100:]), found[-100:]


def test_a_pose_set_by_hand_restarts_tracking_there() -> None:
    """``sfRobot.ax = …`` (here from Colbert) is the user placing the robot: the samples gather there."""
    robot, _, per = office("AMROffice", 1)
    robot.run(seconds=5.0)
    ev = Evaluator(robot, output=lambda _: None, read_init=False)
    assert ev.eval_text("sfRobot.ax = 1234.0; sfRobot.ay = -2345.0; sfRobot.ath = 45.0;")
    robot.step()
    est = per.localizer.estimate
    assert est is not None and pose_error(est, Pose(1234.0, -2345.0, 45.0))[0] < 100.0
    assert float(np.hypot(*(per.localizer.samples[:, :2].mean(axis=0) - (1234.0, -2345.0)))) < 100.0


def test_registration_leaves_the_pose_to_localization() -> None:
    """With both started, ``test matching`` runs but corrects nothing: the localizer keeps the pose."""
    robot, sim, per = office("AMROffice", 1)
    per.start_registration()
    assert TEST_MATCHING in robot.scheduler
    found = errors(robot, sim, 60.0)
    assert sum(per.registration.matches.values()) == 0
    assert max(d for d, _ in found[300:]) <= 300.0


def test_the_live_view_frame_carries_the_samples_and_the_estimate() -> None:
    robot, _, per = office("AMROffice", 1)
    robot.run(seconds=10.0)
    frame = json.loads(capture(robot, Wake(), [], {}).to_json())
    loc = frame["localization"]
    assert 0 < len(loc["samples"]) <= 300 and len(loc["samples"][0]) == 3
    est = per.localizer.estimate
    assert est is not None and loc["estimate"] == [round(est.x), round(est.y), round(est.th, 1)]
    assert loc["localized"] is True
    plain, _, _ = office("AMROffice", 1, globally=None)
    assert "localization" not in json.loads(capture(plain, Wake(), [], {}).to_json())


def test_saphira_run_summary_pose_error_with_localization(tmp_path: Path) -> None:
    """``saphira run`` in AMROffice with the map and ``sfInitLocalizationProcs``: the summary's pose error
    stays small after 3 simulated minutes of wandering."""
    act = tmp_path / "loc.act"
    act.write_text(
        'sfLoadMapFile("AMROffice");\nsfInitLocalizationProcs();\n'
        "act Wander\n{\n"
        "  start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) priority 0 noblock;\n"
        "  start sfKeepOff(100.0, 0.25) priority 1 noblock;\n"
        "  start sfConstantVelocity(300.0) priority 2 noblock;\n"
        "  start sfStop priority 3 noblock;\n"
        "  waitfor 0;\n}\nstart Wander;\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "saphira", "run", str(act), "--world", "AMROffice", "--duration", "180"],
        cwd=PROJECT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    m = re.search(r"^    pose error (\d+) mm, ([\d.]+) deg", result.stdout, re.M)
    assert m, result.stdout
    assert int(m[1]) <= 300 and float(m[2]) <= 10.0, result.stdout


def test_the_shipped_localization_experiment_compares_mcl_with_registration(tmp_path: Path) -> None:
    """experiments/localization/columbia.toml as shipped, cut to 60 s and one seed: both localizers run,
    and the hook's metrics are columns; Monte Carlo localization ends localized and near the truth."""
    shipped = PROJECT / "experiments" / "localization"
    text = (shipped / "columbia.toml").read_text()
    for key, short in (("duration = 600", "duration = 60"), ("seeds = [1, 2, 3, 4]", "seeds = [1]")):
        assert key in text, key
        text = text.replace(key, short)
    text = text.replace('"loc_wander.act"', f'"{shipped / "loc_wander.act"}"')
    exp = tmp_path / "columbia.toml"
    exp.write_text(text.replace('"metrics.py:collect"', f'"{shipped / "metrics.py"}:collect"'))
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 0
    with (out / "trials.csv").open(encoding="utf-8", newline="") as f:
        rows = {r["mcl"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"0", "1"} and all(r["status"] == "ok" for r in rows.values()), rows
    mcl = rows["1"]
    assert mcl["localized"] == "1.0" and float(mcl["pose_error"]) <= 300.0 and float(mcl["heading_error"]) <= 10.0
    assert 0.0 < float(mcl["localizer_ms"]) < 5.0 and rows["0"]["localized"] == "0.0"


def test_after_the_warm_up_a_minute_of_localization_compiles_no_kernel() -> None:
    """The localizer's kernels are warmed up with the others (their examples have the run's types)."""
    from tests.test_jit import compilations

    warm, after = compilations("AMROffice", "experiments/localization/loc_wander.act")
    assert after == warm
