"""Cost of one executive cycle: update + rules + blend + setpoints, against scikit-fuzzy's control API.

Ten behaviors of six rules each (three turn rules, three speed rules, the consequents of
``bench_blend.py``), spread over four priority levels. Each behavior's ``update`` reads its "sensors"
for the cycle (a seeded random walk, as in ``bench_blend.py``) into fuzzy variables; its rules and
activities are expressions of those variables. One cycle is :meth:`BehaviorExecutive.run_once`:
every update, every rule, the blend and the two setpoints written to the reflector.

The baseline is the same rules as one ``skfuzzy.control.ControlSystem`` (``bench_blend.SkfuzzySystem``)
fed the same truths and activities, ``compute()`` timed per cycle; it does neither the updates nor the
setpoints, so the ratio is, if anything, flattering to scikit-fuzzy.

Run: ``python bench/bench_executive.py [cycles]``. Targets: under 1 ms per cycle, at least 50x faster.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_blend import N_BEHAVIORS, PRIORITIES, SkfuzzySystem, make_inputs, make_rules

from saphira.behavior.behavior import (
    Activity,
    BehaviorContext,
    BehaviorDef,
    FuzzyVars,
    Rule,
    behavior,
    f_and,
    f_not,
)
from saphira.behavior.blend import Consequent
from saphira.behavior.executive import ExecutiveRecord
from saphira.robot import Robot


@dataclass(kw_only=True)
class SensorParams:
    index: int = 0


@dataclass
class SensorVars(FuzzyVars[SensorParams]):
    """Six fuzzy variables and two activities, refreshed from the sensors by ``update``."""

    t: list[float] = field(default_factory=lambda: [0.0] * 6)
    a_turn: float = 0.0
    a_speed: float = 0.0


class Sensors:
    """This cycle's raw inputs for every behavior (what the LPS would hold)."""

    def __init__(self) -> None:
        self.truths: list[list[float]] = []
        self.acts: list[list[float]] = []


SENSORS = Sensors()


def update(ctx: BehaviorContext[SensorParams, SensorVars]) -> None:
    """Read this behavior's sensors into its fuzzy variables (with a little fuzzy logic, as usual)."""
    v = ctx.v
    raw = SENSORS.truths[ctx.p.index]
    t = v.t
    for i in range(6):
        t[i] = f_and(raw[i], f_not(0.0))
    act = SENSORS.acts[ctx.p.index]
    v.a_turn, v.a_speed = act[0], act[1]


def make_behavior(index: int, consequents: list[Consequent]) -> BehaviorDef[SensorParams, SensorVars]:
    def truth(i: int) -> Rule[SensorVars]:
        c = consequents[i]
        return Rule(f"r{i}", when=lambda v: v.t[i], then=c)

    return behavior(
        f"b{index}",
        params=SensorParams,
        vars=SensorVars,
        update=update,
        rules=[truth(i) for i in range(6)],
        activity=Activity(turn=lambda v: v.a_turn, speed=lambda v: v.a_speed),
    )


def main() -> None:
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rules = make_rules()
    truths, acts = make_inputs(cycles)
    t_list, a_list = truths.tolist(), acts.tolist()

    robot = Robot()
    executive = robot.executive
    for b in range(N_BEHAVIORS):
        robot.start_behavior(make_behavior(b, rules[b]), b, priority=PRIORITIES[b])

    def run(n: int) -> tuple[float, list[ExecutiveRecord]]:
        records = []
        start = time.perf_counter()
        for k in range(n):
            SENSORS.truths, SENSORS.acts = t_list[k], a_list[k]
            records.append(executive.run_once())
        return (time.perf_counter() - start) / n, records

    run(min(cycles, 30))  # warm the triangle cache, as after the first cycles on a robot
    per_ours, records = min(run(cycles), run(cycles), key=lambda r: r[0])
    assert all(len(r.ran) == N_BEHAVIORS for r in records)

    sk = SkfuzzySystem(executive.blender, rules, PRIORITIES)
    sk_cycles = max(20, cycles // 10)
    start = time.perf_counter()
    sk_out = [sk.compute(t_list[k], a_list[k]) for k in range(sk_cycles)]
    per_sk = (time.perf_counter() - start) / sk_cycles

    turn_set = sum(1 for r in records if r.turn_written)
    print(
        f"{N_BEHAVIORS} behaviors x 6 rules, {len(set(PRIORITIES))} priority levels; update + rules + blend + setpoints"
    )
    print(f"saphira executive  : {per_ours * 1e3:8.3f} ms/cycle  ({cycles} cycles, turn written in {turn_set})")
    print(f"  per behavior     : {per_ours / N_BEHAVIORS * 1e6:8.1f} us")
    print(f"skfuzzy compute()  : {per_sk * 1e3:8.3f} ms/cycle  ({sk_cycles} cycles, inference only)")
    print(f"ratio              : {per_sk / per_ours:8.1f}x faster  (target >= 50x, < 1 ms/cycle)")
    last = records[sk_cycles - 1].result
    turn_sk, speed_sk = sk_out[-1]
    print(
        f"cycle {sk_cycles - 1} blended: saphira turn {last.turn:.2f} speed {last.speed:.1f}; "
        f"skfuzzy turn {turn_sk:.2f} speed {speed_sk:.1f}"
    )
    print("  (skfuzzy clips a level at its remaining weight where saphira scales it; see bench_blend.py)")


if __name__ == "__main__":
    main()
