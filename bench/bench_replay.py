"""Replay is linear in time and bounded in memory: recordings of two lengths, measured in one run.

Records ``colbert/demo.act`` in ``room`` for ``--seconds`` (default 30) and for ``--factor`` (default 4)
times as long (``saphira run --record``, the embedded simulator in lock-step), then for each recording
and each of ``saphira replay REC``, ``saphira replay REC --plot PNG`` and ``saphira export REC -o MCAP``
measures, in a fresh process:

* the time per replayed cycle (the command called in-process, after a warm-up replay of the short
  recording, so imports and compiled kernels are not counted);
* the peak memory Python allocated while it ran (tracemalloc, in a second call);
* the process's peak resident memory (imports included).

and prints the long recording's figures against the short one's: a time-per-cycle ratio near 1 is
linear; a peak ratio well under the size ratio is bounded memory. Before a replay read its recording
as it played it, the traced peak was about three times the recording's size (a 70 MB recording:
863 MB RSS in the security review). ``--rec A --rec B`` measures two given recordings instead
(the first is the baseline); ``--source DIR`` runs another checkout's ``saphira`` (for a before/after).
Run from the project root: ``python bench/bench_replay.py`` (about 1 to 2 minutes on an idle core).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
COMMANDS = ("replay", "plot", "export")


def argv_for(command: str, rec: Path, scratch: Path) -> list[str]:
    if command == "replay":
        return ["replay", str(rec)]
    if command == "plot":
        return ["replay", str(rec), "--plot", str(scratch / "replay.png")]
    return ["export", str(rec), "-o", str(scratch / "replay.mcap")]


def child(command: str, rec: Path, warm: Path) -> None:
    """In the measured process: warm up, time the command, then trace its allocations; print JSON."""
    import contextlib
    import io

    from saphira.app.cli import main

    try:
        from saphira.record.reader import scan_recording
    except ImportError:  # --source: a checkout from before the reader read as it played
        from saphira.record.recording import read_recording as scan_recording  # type: ignore[assignment]

    scratch = Path(tempfile.mkdtemp())
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        main(argv_for(command, warm, scratch))
        start = time.perf_counter()
        main(argv_for(command, rec, scratch))
        seconds = time.perf_counter() - start
        tracemalloc.start()
        main(argv_for(command, rec, scratch))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    cycles = scan_recording(rec).last_cycle + 1
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(json.dumps({"cycles": cycles, "seconds": seconds, "peak": peak, "rss_mb": rss_mb}))


def measure(command: str, rec: Path, warm: Path, source: Path) -> dict[str, float]:
    """Run :func:`child` in a fresh interpreter; its JSON and its peak RSS (MB)."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    args = [sys.executable, str(Path(__file__).resolve()), "--child", command, str(rec), str(warm)]
    done = subprocess.run(args, stdout=subprocess.PIPE, cwd=tempfile.gettempdir(), env=env, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{command} {rec} failed (status {done.returncode})")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def record(folder: Path, seconds: float) -> Path:
    path = folder / f"demo{seconds:g}.rec"
    subprocess.run(
        [sys.executable, "-m", "saphira", "run", str(PROJECT / "colbert" / "demo.act"), "--world", "room",
         "--duration", f"{seconds:g}", "--record", str(path), "-q"],
        cwd=PROJECT, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="robot seconds of the short recording")
    parser.add_argument("--factor", type=float, default=4.0, help="how much longer the long recording is")
    parser.add_argument("--rec", type=Path, action="append", help="measure these two recordings instead")
    parser.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--source", type=Path, default=PROJECT, help="the checkout whose saphira to measure")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        command, rec, warm = options.child
        child(command, Path(rec), Path(warm))
        return

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if options.rec:
            if len(options.rec) != 2:
                parser.error("--rec takes two recordings: the baseline, then the one measured against it")
            short, long = options.rec
        else:
            short, long = record(folder, options.seconds), record(folder, options.seconds * options.factor)
        sizes = short.stat().st_size, long.stat().st_size
        print(f"recordings: {short.name} {sizes[0] / 1e6:.2f} MB, {long.name} {sizes[1] / 1e6:.2f} MB "
              f"(size ratio {sizes[1] / sizes[0]:.2f}); saphira from {options.source}")  # fmt: skip
        print(f"{'command':8} {'cycles':>15} {'ms/cycle':>15} {'ratio':>6} {'traced peak MB':>17} {'ratio':>6} "
              f"{'peak RSS MB':>15} {'ratio':>6}")  # fmt: skip
        for command in options.commands:
            a, b = (measure(command, rec, short, options.source) for rec in (short, long))
            per = [m["seconds"] * 1000 / m["cycles"] for m in (a, b)]
            print(f"{command:8} {a['cycles']:7.0f} {b['cycles']:7.0f} {per[0]:7.3f} {per[1]:7.3f} "
                  f"{per[1] / per[0]:6.2f} {a['peak'] / 1e6:8.2f} {b['peak'] / 1e6:8.2f} {b['peak'] / a['peak']:6.2f} "
                  f"{a['rss_mb']:7.0f} {b['rss_mb']:7.0f} {b['rss_mb'] / a['rss_mb']:6.2f}")  # fmt: skip
        print("linear: ms/cycle ratio ~1; bounded: traced peak ratio well under the size ratio")


if __name__ == "__main__":
    main()
