"""How many times real time the demo runs: colbert/demo.act (4 behaviors + 2 acts + interpretation,
registration and awareness) against the embedded simulator, lock-step, in AMROffice.

The real-time factor is simulated seconds over the process's CPU seconds (``time.process_time``, so
the load of other processes on the machine matters less than with wall time), best of ``repeats``
after a warm-up run (the first cycles of a process load the compiled kernels, saphira/core/jit.py).

The baseline, measured in the same run, is the code the target was set against: main when issue 16
was filed (commit :data:`REFERENCE`), running its own colbert/demo.act (the same behaviors and acts,
without perception, which did not exist yet) in a git worktree made for the run, in a subprocess.
The issue measured that demo at about 170x on its machine and asked for 300x, so the target is the
ratio 300 / 170 = 1.76 to the baseline; ``x 170`` gives the figure on the issue's machine. Without
the git history (a source archive) the baseline is skipped and only the absolute figure printed.

It also checks that the per-state caches change the cost, never a result: the same demo with
:meth:`saphira.client.sensors.sonar.Sonar.cached` disabled must give the same trajectory (a hash of every cycle's
odometric and true pose); and it times the robot and the simulator alone (no activity file: link,
reflector, sonar, simulated physics and sensors), the floor under any demo.

Run: ``python bench/bench_demo.py [seconds] [repeats]`` (default 30 simulated seconds, best of 7: this
machine has bursts of load lasting seconds that slow every process 10-25 %; many short interleaved runs
find the quiet windows, where best of 3 of 60 s once read 1.71x for a state that reads 1.89x).
Measured on the 2-core machine: 60 s best of 3, three runs, 229-234x against the baseline's 120-125x,
1.89x-1.91x; 30 s best of 9, 237x against 125x, 1.89x (about 320x on the issue's machine); robot and
simulator alone about 850x. Before the compiled
kernels the same machine ran the demo at 105x (0.85x the baseline): the sonar's ray casting, the
side-wall line fits, the blend and the obstacle clearances were numpy calls on 5-100 elements, where
each call's fixed cost was the time.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saphira.app.console import Console
from saphira.app.run import Session
from saphira.client.sensors.sonar import Sonar

DEMO = Path(__file__).resolve().parents[1] / "colbert" / "demo.act"
WORLD = "AMROffice"
TARGET = 300.0
ISSUE_BASELINE = 170.0
"""Real-time factors issue 16 states: the target, and what the demo ran at on its machine when filed."""
TARGET_RATIO = TARGET / ISSUE_BASELINE
REFERENCE = "eb428c0434b9b887db03bfbce59344afbc5fa77b"
"""main when issue 16 was filed: the code the 170x was measured on."""
T = TypeVar("T")


def run_demo(seconds: float, world: str = WORLD, seed: int = 0, *, trace: bool = False) -> tuple[float, str]:
    """(CPU seconds, trajectory hash or "") of ``seconds`` of the demo, lock-step. The hash of every
    cycle's poses is computed only with ``trace`` (its cost is not the demo's)."""
    args = argparse.Namespace(
        robot=None, world=world, params=None, seed=seed, pose=None, files=[str(DEMO)], duration=seconds,
        record=None, quiet=True, realtime=False, plot=None,
    )  # fmt: skip
    session = Session(args, Console(quiet=True))
    session.connect()
    if not session.load():
        raise SystemExit(f"{DEMO} did not load")
    robot, sim = session.robot, session.sim
    assert sim is not None
    poses = hashlib.sha256()
    end = robot.clock.cycles_for(seconds)
    start = time.process_time()
    while robot.scheduler.cycle < end:
        robot.step()
        if trace:
            s, t = robot.state, sim.true_pose
            poses.update(repr((s.ax, s.ay, s.ath, t.x, t.y, t.th)).encode())
    return time.process_time() - start, poses.hexdigest() if trace else ""


def run_robot_and_sim(seconds: float, world: str = WORLD, seed: int = 0) -> float:
    """CPU seconds of ``seconds`` of the robot and the embedded simulator with nothing loaded."""
    args = argparse.Namespace(
        robot=None, world=world, params=None, seed=seed, pose=None, files=[], duration=seconds,
        record=None, quiet=True, realtime=False, plot=None,
    )  # fmt: skip
    session = Session(args, Console(quiet=True))
    session.connect()
    robot = session.robot
    end = robot.clock.cycles_for(seconds)
    start = time.process_time()
    while robot.scheduler.cycle < end:
        robot.step()
    return time.process_time() - start


@contextmanager
def caches_disabled() -> Iterator[None]:
    """Every :meth:`Sonar.cached` call computes afresh: the stack as it ran before the caches."""
    cached = Sonar.cached

    def uncached(self: Sonar, key: Hashable, compute: Callable[[], T]) -> T:
        return compute()

    Sonar.cached = uncached  # type: ignore[method-assign]
    try:
        yield
    finally:
        Sonar.cached = cached  # type: ignore[method-assign]


_REFERENCE_RUN = """
import argparse, sys, time
sys.path.insert(0, sys.argv[1])
from saphira.app import Session  # the reference tree's own module names (before the layout of issue 25)
from saphira.console import Console
for seconds in (1.0, float(sys.argv[2])):  # a warm-up, then the timed run
    args = argparse.Namespace(
        robot=None, world=sys.argv[3], params=None, seed=0, pose=None, files=[sys.argv[1] + "/colbert/demo.act"],
        duration=seconds, record=None, quiet=True, realtime=False, plot=None,
    )
    session = Session(args, Console(quiet=True))
    session.connect()
    assert session.load()
    robot = session.robot
    end = robot.clock.cycles_for(seconds)
    start = time.process_time()
    while robot.scheduler.cycle < end:
        robot.step()
print(time.process_time() - start)
"""


@contextmanager
def reference_checkout() -> Iterator[Path | None]:
    """A temporary git worktree of :data:`REFERENCE`, or None (with the reason printed) without one."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "reference"
        made = subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), REFERENCE],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if made.returncode != 0:
            print(f"  (no baseline: git could not check out {REFERENCE[:12]}: {made.stderr.strip()})")
            yield None
            return
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], check=False)


def run_reference(tree: Path, seconds: float) -> float:
    """CPU seconds of the reference checkout's own demo, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _REFERENCE_RUN, str(tree), str(seconds), WORLD],
        capture_output=True, text=True, check=True, cwd=tree,
    )  # fmt: skip
    return float(done.stdout.split()[-1])


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    print(f"demo.act in {WORLD}, {seconds:g} simulated s, lock-step, best of {repeats} (CPU time)")
    run_demo(1.0)  # warm-up: the first cycles of a process load the compiled kernels
    best: dict[str, float] = {"demo": math.inf, "reference": math.inf, "sim": math.inf}
    with reference_checkout() as tree:
        for _ in range(repeats):  # interleaved, so a burst of load hits all alike
            best["demo"] = min(best["demo"], run_demo(seconds)[0])
            best["sim"] = min(best["sim"], run_robot_and_sim(seconds))
            if tree is not None:
                best["reference"] = min(best["reference"], run_reference(tree, seconds))
    rtf = {name: seconds / cpu for name, cpu in best.items()}
    print(f"  the demo:           {best['demo']:.3f} s CPU = {rtf['demo']:.0f}x real time")
    print(f"  robot + sim alone:  {best['sim']:.3f} s CPU = {rtf['sim']:.0f}x real time (no activity file)")
    if tree is not None:
        ratio = rtf["demo"] / rtf["reference"]
        print(f"  baseline:           {best['reference']:.3f} s CPU = {rtf['reference']:.0f}x real time "
              f"(main at {REFERENCE[:7]}, its own demo)")  # fmt: skip
        print(
            f"  speed-up: {ratio:.2f}x (target {TARGET_RATIO:.2f}x: {'met' if ratio >= TARGET_RATIO else 'NOT met'}); "
            f"on the issue's machine about {ratio * ISSUE_BASELINE:.0f}x real time (target {TARGET:.0f}x)"
        )
    cached = run_demo(seconds, trace=True)[1]
    with caches_disabled():
        uncached = run_demo(seconds, trace=True)[1]
    same = cached == uncached
    print(f"  trajectory with the caches disabled identical: {'yes' if same else 'NO'} ({cached[:16]})")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
