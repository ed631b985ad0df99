"""What ``--ros2`` costs a run: on the cycle, in the DDS process, and a lock-step run with and without it.

One run measures, on the embedded simulator with a P3-DX carrying 16 sonars and a laser scanning every
cycle (10 Hz at the 100 ms cycle), driving in the corridor world:

* lock-step — the same ``--cycles`` cycles with and without the bridge, best of ``--repeats`` rounds
  interleaved: the ratio's target is at most 1.5x. The run's own processor time is compared too: on a
  shared machine the wall clock moves with the other processes' load. The DDS process runs beside the cycle at a lower
  priority; snapshots it has no time for are dropped (counted), never waited for;
* on the cycle — the bridge task's own time per cycle (taking the snapshot, pickling it, writing it to
  the DDS process's pipe, reading what came back, applying it), mean, 99th percentile and max, in
  real time at 10 Hz and in the lock-step runs: the target is at most 1 ms. Both the processor time
  of the cycle's thread (what the bridge costs) and the wall-clock time (that, plus whatever the
  operating system gave other processes meanwhile: on a loaded machine, preemption) are printed;
* in the DDS process — its processor time per snapshot (messages, Cyclone DDS's own serializer
  through ``DataWriter.write``, the writes).

Measured on the 2-core machine shared with other jobs, see docs/ros2.md ("What it costs") for the numbers.

The bridge joins a domain of its own on loopback only (a random ``ROS_DOMAIN_ID``), so nothing else on
the network hears it. Run from the project root: ``python bench/bench_ros2.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from dataclasses import dataclass, field

from saphira.app.ros2 import frame_source
from saphira.core.clock import Clock, RealTimeClock
from saphira.params.robot_params import find_params_file, load_params
from saphira.robot import Robot
from saphira.ros2.bridge import Ros2Bridge
from saphira.ros2.discovery import discovery_from
from saphira.sim.embedded import EmbeddedSim, attach_simulator

PARAMS = "p3dx-laser"


@dataclass
class Costs:
    """The bridge task's time per cycle (ms): wall clock and the cycle thread's processor time."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    snapshots: int = 0
    dropped: int = 0
    published: int = 0
    dds_cpu: float = 0.0

    def add(self, bridge: Ros2Bridge) -> None:
        self.snapshots += bridge.snapshots
        self.dropped += bridge.dropped
        self.published += bridge.published
        self.dds_cpu += bridge.publish_cpu_seconds * 1000


def session(with_bridge: bool, clock: Clock | None = None) -> tuple[Robot, EmbeddedSim, Ros2Bridge | None]:
    params = load_params(find_params_file(PARAMS))
    robot = Robot(clock, params=params)
    sim = attach_simulator(robot, "corridor", params, seed=1)
    bridge = None
    if with_bridge:
        discovery = discovery_from({"ROS_DOMAIN_ID": os.environ["ROS_DOMAIN_ID"],
                                    "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})  # fmt: skip
        bridge = Ros2Bridge(robot, discovery, frame_source(robot, lambda: sim), set_pose=lambda x, y, th: None)
        robot.scheduler.add(bridge, "ros2")
    robot.motion.set_velocity(300)
    robot.motion.set_rvelocity(5)
    return robot, sim, bridge


def timed_run(cycles: int, costs: Costs | None, clock: Clock | None = None) -> tuple[float, float]:
    """Seconds for ``cycles`` cycles (lock-step unless ``clock``), wall clock and the run's processor time, with
    the bridge when ``costs`` collects its times."""
    robot, _, bridge = session(costs is not None, clock)
    if bridge is not None and costs is not None:
        step = bridge.step

        def timed_step(state: int) -> int:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return step(state)
            finally:
                costs.cpu.append((time.thread_time() - cpu) * 1000)
                costs.wall.append((time.perf_counter() - wall) * 1000)

        bridge.step = timed_step  # type: ignore[method-assign]
    t0, cpu0 = time.perf_counter(), time.process_time()
    robot.run(cycles=cycles)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    if bridge is not None and costs is not None:
        bridge.close()
        costs.add(bridge)
    robot.disconnect()
    return seconds, cpu


def _spread(ms: list[float]) -> str:
    ms = sorted(ms)
    return f"mean {statistics.fmean(ms):.3f}, p99 {ms[int(len(ms) * 0.99)]:.3f}, max {ms[-1]:.3f} ms"


def _report(costs: Costs) -> None:
    print(f"  on the cycle, processor time: {_spread(costs.cpu)} (target <= 1 ms)")
    print(f"  on the cycle, wall clock:     {_spread(costs.wall)}")
    sent = costs.dropped + costs.snapshots
    print(f"  DDS process: {costs.dds_cpu / max(1, costs.snapshots):.3f} ms of processor per snapshot; "
          f"{costs.dropped} of {sent} snapshots dropped, {costs.published} messages")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--realtime-cycles", type=int, default=100, help="cycles of the real-time run (10 Hz)")
    args = parser.parse_args()
    os.environ["ROS_DOMAIN_ID"] = str(random.randrange(1, 200))
    timed_run(20, Costs())  # imports, compiled kernels, DDS start-up: outside the clock
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    real = Costs()
    timed_run(args.realtime_cycles, real, RealTimeClock())
    print(f"{args.realtime_cycles} real-time cycles (10 Hz), laser every cycle, 16 sonars ({PARAMS}):")
    _report(real)
    without: list[tuple[float, float]] = []
    with_: list[tuple[float, float]] = []
    lockstep = Costs()
    for _ in range(args.repeats):
        without.append(timed_run(args.cycles, None))
        with_.append(timed_run(args.cycles, lockstep))
    wall0, wall1 = min(w for w, _ in without), min(w for w, _ in with_)
    cpu0, cpu1 = min(c for _, c in without), min(c for _, c in with_)
    print(f"{args.cycles} lock-step cycles, best of {args.repeats}:")
    print(f"  without --ros2: {wall0:.3f} s ({wall0 / args.cycles * 1000:.2f} ms/cycle), {cpu0:.3f} s of processor")
    print(f"  with --ros2:    {wall1:.3f} s ({wall1 / args.cycles * 1000:.2f} ms/cycle), {cpu1:.3f} s of processor")
    print(f"  ratio: {wall1 / wall0:.2f}x (target <= 1.5x); the run's processor time {cpu1 / cpu0:.2f}x (the load "
          "of other processes moves it less)")  # fmt: skip
    _report(lockstep)


if __name__ == "__main__":
    main()
