"""Monte Carlo localization (issue 27) in office maps: tracking, global localization, kidnapping, cost.

The manual's wander stack (sfAvoidCollision, sfKeepOff, sfConstantVelocity 300 mm/s, sfStop) drives a
P3-DX (16 sonars) in lock-step with the embedded simulator, odometry error on, from the map's home; the
map is the world's lines as Saphira ``WALL`` artifacts (what ``saphira map`` writes). Measured in one run
and printed:

* tracking — every map × seed: the pose error (``sfRobot.ax, ay, ath`` against the simulator's truth)
  at every cycle after the first 30 s: the runs that hold within 300 mm and 10° throughout, the p95 of
  the position error over all runs and per map, the worst;
* global — AMROffice, started with ``sfGlobalLocalize`` (no idea where it is): the runs whose estimate
  comes and stays within 300 mm and 10° within 60 s of wandering;
* kidnapped — AMROffice, tracking; after 60 s the simulator moves the robot 4–8 m elsewhere (the
  client is not told): the runs whose estimate is back within 300 mm and 10° within 60 s;
* cost — the localizer's processor time per 100 ms cycle while tracking (mean over the tracking runs)
  and over the global runs, and the speed of the whole stack against real time with and without it.

Run from the project root: ``python bench/bench_localization.py`` (the full targets: 10-minute
tracking runs on 4 maps × 4 seeds, 10 seeds of global and kidnapped runs; several minutes of CPU);
``--quick`` for 2-minute runs, 2 seeds, 3 global and kidnapped seeds.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from saphira.behavior.library import start_wander_stack
from saphira.core.geometry import Pose
from saphira.perception import perception_for
from saphira.perception.mcl import Localizer
from saphira.perception.truth import pose_error
from saphira.perception.worldmap import world_walls
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.world import load_world

ROOT = Path(__file__).resolve().parent.parent
MAPS = {
    "AMROffice": "AMROffice",
    "columbia": "columbia",
    "MapLab": str(ROOT / "tests/data/aria-maps/MapLab.map"),
    "ActivMediaLab": str(ROOT / "tests/data/aria-maps/ActivMediaLab.map"),
}
HOLD = (300.0, 10.0)
SETTLE = 30.0


@dataclass
class Run:
    """One wander: the pose error every cycle (mm, deg), the localizer, seconds of wall time."""

    errors: list[tuple[float, float]] = field(default_factory=list)
    estimates: list[tuple[float, float]] = field(default_factory=list)
    localizer: Localizer | None = None
    wall: float = 0.0
    cpu: float = 0.0
    simulated: float = 0.0


def wander(
    world: str,
    seed: int,
    seconds: float,
    *,
    globally: bool = False,
    kidnap: float | None = None,
    localize: bool = True,
) -> Run:
    """The wander stack with ``localize`` running for ``seconds`` simulated; at ``kidnap`` s the
    simulated robot is carried, without telling the client, back to where it truly was 40 s before,
    turned by 90° (a free place, some metres away)."""
    the_world = load_world(world)
    robot = Robot()
    sim = attach_simulator(robot, the_world, "p3dx", seed=seed)
    for wall in world_walls(the_world):
        robot.reflector.pointlist.add(wall)
    per = perception_for(robot.reflector, robot.scheduler)
    if localize:
        per.start_localization(globally)
    start_wander_stack(robot)
    run = Run(localizer=per.localizer)
    cycles = robot.clock.cycles_for(seconds)
    kidnap_cycle = robot.clock.cycles_for(kidnap) if kidnap else -1
    truths: list[Pose] = []
    started, cpu = time.perf_counter(), time.process_time()
    for k in range(cycles):
        if k == kidnap_cycle:
            before = truths[k - robot.clock.cycles_for(40.0)]
            sim.sim_robot.set_pose(before.x, before.y, before.th + 90.0)
        truth = sim.true_pose  # what the SIP this cycle reads describes (the simulator steps after the cycle)
        robot.step()
        truths.append(truth)
        run.errors.append(pose_error(robot.state.global_pose, truth))
        est = per.localizer.estimate
        run.estimates.append(pose_error(est, truth) if est is not None else (math.inf, 180.0))
    run.wall = time.perf_counter() - started
    run.cpu = time.process_time() - cpu
    run.simulated = cycles * robot.clock.period
    return run


def held(errors: list[tuple[float, float]], start: int) -> bool:
    return all(d <= HOLD[0] and a <= HOLD[1] for d, a in errors[start:])


def found_within(estimates: list[tuple[float, float]], start: int, cycles: int) -> float | None:
    """Seconds after ``start`` from which the estimate stays within the hold bounds to the end (None: never
    within ``cycles``)."""
    last_bad = start - 1
    for k in range(start, len(estimates)):
        d, a = estimates[k]
        if d > HOLD[0] or a > HOLD[1]:
            last_bad = k
    found = last_bad + 1 - start
    return found / 10.0 if found <= cycles and last_bad + 1 < len(estimates) else None


def _found(seconds: float | None) -> str:
    return "NOT found in 60 s" if seconds is None else f"found after {seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2-minute runs, fewer seeds")
    parser.add_argument("--only", choices=("tracking", "global", "kidnapped"), help="one part only")
    args = parser.parse_args()
    minutes, seeds, others = (2.0, [1, 2], [1, 2, 3]) if args.quick else (10.0, [1, 2, 3, 4], list(range(1, 11)))
    if args.only in (None, "tracking"):
        all_errors: list[float] = []
        ok = total = 0
        cost = 0.0
        steps = 0
        per_map: dict[str, float] = {}
        for name, world in MAPS.items():
            map_errors: list[float] = []
            for seed in seeds:
                run = wander(world, seed, minutes * 60.0)
                start = int(SETTLE * 10)
                after = run.errors[start:]
                good = held(run.errors, start)
                ok += good
                total += 1
                map_errors += [d for d, _ in after]
                assert run.localizer is not None
                cost += run.localizer.seconds
                steps += run.localizer.steps
                worst = max(after, key=lambda e: e[0])
                print(
                    f"  {name:14s} seed {seed}: {'holds' if good else 'LOST '} max {worst[0]:.0f} mm "
                    f"{max(a for _, a in after):.1f} deg, end {run.errors[-1][0]:.0f} mm {run.errors[-1][1]:.1f} deg, "
                    f"{run.localizer.updates} updates, {len(run.localizer.samples)} samples",
                    flush=True,
                )
            per_map[name] = float(np.percentile(map_errors, 95))
            all_errors += map_errors
        p95 = float(np.percentile(all_errors, 95))
        print(f"tracking: {ok}/{total} runs hold within {HOLD[0]:.0f} mm and {HOLD[1]:.0f} deg after {SETTLE:.0f} s")
        print(f"tracking: p95 {p95:.0f} mm (target < 150), max {max(all_errors):.0f} mm")
        print("tracking: p95 per map " + ", ".join(f"{name} {v:.0f} mm" for name, v in per_map.items()))
        print(f"cost: {1000.0 * cost / steps:.3f} ms wall time per cycle in localize while tracking (target < 2)")
        cpus = {True: math.inf, False: math.inf}
        walls = {True: math.inf, False: math.inf}
        for _ in range(3):  # interleaved, best of 3: the machine is shared
            for on in (False, True):
                run = wander("AMROffice", 1, 120.0, localize=on)
                cpus[on], walls[on] = min(cpus[on], run.cpu), min(walls[on], run.wall)
        per_cycle = 1000.0 * (cpus[True] - cpus[False]) / 1200
        print(
            f"stack: {120.0 / cpus[True]:.0f}x real time per CPU second with localize, {120.0 / cpus[False]:.0f}x "
            f"without (wall: {120.0 / walls[True]:.0f}x, {120.0 / walls[False]:.0f}x); localize {per_cycle:.3f} ms "
            f"CPU per cycle (AMROffice, 120 s, best of 3; targets > 200x, < 2 ms)"
        )
    if args.only in (None, "global"):
        found = 0
        cost = 0.0
        steps = 0
        for seed in others:
            run = wander("AMROffice", seed, 90.0, globally=True)
            t = found_within(run.estimates, 0, 600)
            found += t is not None
            assert run.localizer is not None
            cost += run.localizer.seconds
            steps += run.localizer.steps
            print(f"  global seed {seed}: {_found(t)}", flush=True)
        print(f"global: {found}/{len(others)} seeds localized within 60 s (target >= 9 of 10)")
        print(f"global: {1000.0 * cost / steps:.3f} ms wall time per cycle in localize over the 90 s runs")
    if args.only in (None, "kidnapped"):
        found = 0
        for seed in others:
            run = wander("AMROffice", seed, 130.0, kidnap=60.0)
            t = found_within(run.estimates, 600, 600)
            found += t is not None
            print(f"  kidnapped seed {seed}: {_found(t)}", flush=True)
        print(f"kidnapped: {found}/{len(others)} seeds found again within 60 s")


if __name__ == "__main__":
    main()
