"""Statements per second executed by the Colbert FSM executive, against plain Python doing the same work.

An act runs a ``while`` loop whose body is a run of simple assignments with arithmetic. Every loop
iteration costs one scheduler cycle (the manual's model), so the measurement includes the scheduler's
per-cycle work. Statements are counted honestly: the assignments actually executed (checked against
the act's own counter at the end), plus one ``while`` test per iteration. The baseline is the same
arithmetic written as a plain Python loop, timed in the same run.

Run: ``python bench/bench_colbert_exec.py``. Target: at least 500,000 simple statements per second.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saphira.colbert.evaluator import Evaluator

ITERATIONS = 20_000
REPEAT = 1
BODY = [
    "a = a + 1;",
    "b = b + a * 2;",
    "c = (a + b) % 7;",
    "x = x + 0.5;",
    "y = x * 2.0 - c;",
    "b = b - a;",
    "c = c + 1;",
    "a = a - 1;",
    "x = x - 0.25;",
    "n = n + 1;",
]


def act_text(repeat: int) -> str:
    """The act: ``repeat`` copies of the body per loop iteration (the counter advances once per copy)."""
    return f"""
int n;
act work(int iterations)
{{ int a; int b; int c; float x; float y;
  while (n < iterations)
  {{ {" ".join(BODY * repeat)} }}
}}
"""


def run_colbert(repeat: int = REPEAT) -> tuple[float, int]:
    ev = Evaluator(output=lambda line: None, read_init=False)
    assert ev.eval_text(act_text(repeat), "bench.act", interactive=False)
    assert ev.eval_text(f"start work({ITERATIONS})")
    sched = ev.scheduler
    t0 = time.perf_counter()
    while "work" in sched and not sched.find("work").finished:  # type: ignore[union-attr]
        sched.run_cycle()
    elapsed = time.perf_counter() - t0
    done = ev.value("n")
    assert done == ITERATIONS, done
    cycles = -(-ITERATIONS // repeat)
    statements = done * len(BODY) + cycles + 1  # the bodies, each while test, and the final false test
    return elapsed, statements


def run_python() -> tuple[float, int]:
    t0 = time.perf_counter()
    n = a = b = c = 0
    x = y = 0.0
    while n < ITERATIONS:
        a = a + 1
        b = b + a * 2
        c = (a + b) % 7
        x = x + 0.5
        y = x * 2.0 - c
        b = b - a
        c = c + 1
        a = a - 1
        x = x - 0.25
        n = n + 1
    elapsed = time.perf_counter() - t0
    assert y == y
    return elapsed, n * (len(BODY) + 1) + 1


def main() -> None:
    best_colbert = min((run_colbert() for _ in range(3)), key=lambda r: r[0])
    best_python = min((run_python() for _ in range(3)), key=lambda r: r[0])
    long_body = min((run_colbert(20) for _ in range(3)), key=lambda r: r[0])
    colbert_rate = best_colbert[1] / best_colbert[0]
    python_rate = best_python[1] / best_python[0]
    print(
        f"Colbert FSM executive: {best_colbert[1]:,} statements in {best_colbert[0]:.3f} s "
        f"= {colbert_rate:,.0f} statements/s (one cycle per {len(BODY)}-assignment iteration)"
    )
    print(
        f"plain Python baseline: {best_python[1]:,} statements in {best_python[0]:.4f} s "
        f"= {python_rate:,.0f} statements/s"
    )
    print(
        f"same act with 20 bodies per iteration (less scheduler work per statement): "
        f"{long_body[1] / long_body[0]:,.0f} statements/s"
    )
    print(
        f"ratio Colbert / plain Python: {colbert_rate / python_rate:.3f} "
        f"(target >= 500,000 statements/s: {'met' if colbert_rate >= 500_000 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
