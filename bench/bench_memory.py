"""Memory over a long run: the demo in AMROffice for 4 simulated hours, measured as it goes.

A robot may run all day, so what a run keeps (the trace for the plot, the recording, the executive's
state, the LPS, caches) must not grow with its length. This runs ``saphira run colbert/demo.act
--world AMROffice`` in lock-step (by default with ``--record`` and ``--plot``, which keep the most)
and prints at 10 simulated minutes, 1 hour and 4 hours:

* the process's resident memory (RSS) now and its peak so far;
* with ``--tracemalloc``, the bytes Python has allocated (slower, but blind to allocator noise).

The growth is against the 10-minute value of the same run. Target (issue 18): within 10 MB over
4 hours. Run from the project root: ``python bench/bench_memory.py`` (about 4 minutes on an idle
core; ``--hours 1`` for a quicker look).
"""

from __future__ import annotations

import argparse
import io
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from saphira.app.cli import build_parser
from saphira.app.run import Console, Session

PROJECT = Path(__file__).resolve().parents[1]
TARGET_MB = 10.0


def rss_mb() -> float:
    """The resident set size now (Linux ``/proc``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return peak_rss_mb()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=4.0, help="simulated hours (default 4)")
    parser.add_argument("--plain", action="store_true", help="without --record and --plot")
    parser.add_argument("--tracemalloc", action="store_true", help="also measure Python's allocations")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        argv = ["run", str(PROJECT / "colbert" / "demo.act"), "--world", "AMROffice", "--seed", str(options.seed)]
        if not options.plain:
            argv += ["--record", str(Path(scratch) / "demo.rec"), "--plot", str(Path(scratch) / "demo.png")]
        session = Session(build_parser().parse_args(argv), Console(io.StringIO(), status=False))
        session.connect()
        if not session.load():
            raise SystemExit("demo.act did not load")
        if options.tracemalloc:
            tracemalloc.start()

        checkpoints = [600.0, 3600.0, options.hours * 3600.0]
        checkpoints = sorted({c for c in checkpoints if c <= options.hours * 3600.0})
        print(f"demo.act in AMROffice, seed {options.seed}, {'plain' if options.plain else '--record --plot'}")
        print(f"{'sim time':>9}  {'wall s':>7}  {'RSS MB':>7}  {'peak MB':>7}  {'growth MB':>9}"
              + (f"  {'traced MB':>9}  {'growth MB':>9}" if options.tracemalloc else ""))  # fmt: skip
        base_rss = base_traced = 0.0
        wall = time.perf_counter()
        done = 0.0
        for at in checkpoints:
            session.robot.run(at - done)
            done = at
            rss = rss_mb()
            traced = tracemalloc.get_traced_memory()[0] / 2**20 if options.tracemalloc else 0.0
            if at == checkpoints[0]:
                base_rss, base_traced = rss, traced
            line = (f"{at / 60:7.0f} m  {time.perf_counter() - wall:7.1f}  {rss:7.1f}  {peak_rss_mb():7.1f}  "
                    f"{rss - base_rss:+9.1f}")  # fmt: skip
            if options.tracemalloc:
                line += f"  {traced:9.1f}  {traced - base_traced:+9.1f}"
            print(line, flush=True)
        growth = rss_mb() - base_rss
        verdict = "ok" if growth <= TARGET_MB else "OVER"
        print(f"growth after the first 10 minutes: {growth:+.1f} MB RSS (target within {TARGET_MB:.0f} MB: {verdict})")
        print(
            f"trace: {len(session.trace.path)} poses kept (one every {session.trace.stride} cycles), "
            f"{len(session.trace.hits)} hit cells; travelled {session.trace.distance / 1000:.0f} m; "
            f"{session.sim.wall_contacts if session.sim else 0} wall contacts"
        )
        if session.recorder is not None:
            session.recorder.close()


if __name__ == "__main__":
    main()
