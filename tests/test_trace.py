"""The run trace stays bounded however long the run: a decimated path, binned hits, an exact distance.

Each run is a real lock-step run of the demo's behavior stack in the embedded simulator; the bounds
are made small (``max_points``, ``max_hits``) so a few simulated minutes exercise what an all-day run
with the defaults would.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pytest

from saphira.app.cli import build_parser
from saphira.app.run import Console, Session
from saphira.app.trace import DecimatedPath, RunTrace
from saphira.behavior.library import start_wander_stack
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator

PROJECT = Path(__file__).resolve().parents[1]


def wandering_robot(seconds: float, *traces_args: dict[str, int | bool]) -> tuple[Robot, EmbeddedSim, list[RunTrace]]:
    """The demo's stack in the room world for ``seconds``, with one trace per keyword set."""
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", seed=3)
    traces = [RunTrace(robot, truth=lambda: sim.true_pose, **kw) for kw in traces_args]  # type: ignore[arg-type]
    for k, trace in enumerate(traces):
        robot.scheduler.add(trace, f"trace{k}")
    start_wander_stack(robot)
    robot.run(seconds)
    return robot, sim, traces


def test_a_long_run_keeps_a_bounded_decimated_path_with_the_exact_distance() -> None:
    seconds = 180.0
    robot, sim, (small, full) = wandering_robot(seconds, {"max_points": 50, "hits": True, "max_hits": 2000},
                                                {"max_points": 4000})  # fmt: skip
    cycles = robot.clock.cycles_for(seconds)
    assert len(full.path) == len(full.true_path) == cycles  # the reference kept every cycle
    # Bounded: 1800 cycles into at most 50 poses (plus the newest): one every 64 cycles.
    assert len(small.path) <= 51 and len(small.true_path) == len(small.path)
    assert small.stride == 64
    # Decimated: evenly spaced samples of the full path, starting where it starts, ending where it ends.
    assert small.true_path[:-1] == full.true_path[:: small.stride]
    assert small.path[:-1] == full.path[:: small.stride]
    assert small.true_path[-1] == full.true_path[-1]
    assert small.path[-1] == (robot.state.ax, robot.state.ay, robot.state.ath)
    # The distance is summed every cycle, so decimating loses none of it.
    walked = sum(math.dist(a[:2], b[:2]) for a, b in zip(full.true_path, full.true_path[1:], strict=False))
    assert walked > 20_000
    assert small.distance == pytest.approx(walked) and full.distance == pytest.approx(walked)
    # Hits: binned, never more cells than asked for, and in the world frame: along the room's walls.
    hits = small.hits
    assert 0 < len(hits) <= 2000
    assert full.hits == []
    assert small.hit_cloud is not None
    world = sim.simulation.world
    nearest = [min(_segment_distance(p, tuple(s)) for s in world.segments.tolist()) for p in hits]
    # The sonar places an echo on its axis, up to a beam's half width off the wall: most lie close.
    assert sorted(nearest)[len(nearest) // 2] < 400


def _segment_distance(p: tuple[float, float], s: tuple[float, ...]) -> float:
    ax, ay, bx, by = s
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def test_a_decimated_path_halves_when_full_and_always_ends_with_the_newest_sample() -> None:
    path = DecimatedPath(1, 4)
    for n in range(11):
        path.append((float(n),))
    # 0..10 offered: 0,1,2,3 fill it, 4 halves to 0,2 (stride 2) and keeps 4, 6; 8 halves to 0,4 (stride 4).
    assert path.stride == 4
    assert path.samples() == [(0.0,), (4.0,), (8.0,), (10.0,)]
    assert len(path) == 4


def session(*options: str) -> Session:
    args: argparse.Namespace = build_parser().parse_args(["run", str(PROJECT / "colbert" / "demo.act"), *options])
    s = Session(args, Console(status=False))
    s.connect()
    assert s.load()
    return s


def test_the_run_keeps_sonar_hits_only_when_a_plot_is_asked_for(tmp_path: Path) -> None:
    plain = session("--world", "room")
    plain.robot.run(20.0)
    assert plain.trace.hits == [] and len(plain.trace.path) > 150
    plotted = session("--world", "room", "--plot", str(tmp_path / "demo.png"))
    plotted.robot.run(20.0)
    assert len(plotted.trace.hits) > 50
    for s in (plain, plotted):
        s.robot.disconnect()
