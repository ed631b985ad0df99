"""``saphira map`` on worlds of many distinct walls: time and memory per wall at two sizes (issue 37, N12).

The converter merged collinear pieces by scanning every line found so far for every segment, so it
was quadratic: 30,000 distinct walls took 80 s and 60,000 took 213 s. It now files the lines by
direction and offset (saphira/perception/worldmap.py), which should make the time per wall the same at
any size. This writes two kinds of world at a small size (the baseline, measured in this run) and at
``--factor`` times it: walls in random directions, and parallel walls 3 mm apart in one direction (the
case filing by exact direction handles), converts each as ``saphira map`` does (read the world, merge,
format the map text), and prints the ratio of time per wall and of peak traced memory per wall,
large against small. Linear ⇒ about 1; quadratic ⇒ about ``--factor``. Last, the traced peak of
reading a large ARIA map whose ``NumPoints`` is wrong, as a multiple of the file's size.

Run from the project root: ``python bench/bench_map.py`` (about a minute on a loaded machine;
``--walls 1000`` for a quicker look).
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from saphira.core.errors import SaphiraError
from saphira.perception.worldmap import world_map_text
from saphira.world.world import load_world


def random_walls(count: int, rng: random.Random) -> list[tuple[float, float, float, float]]:
    """Walls 0.2-2 m long in random directions, anywhere in a 100 m square."""
    walls = []
    for _ in range(count):
        x, y = rng.uniform(0, 100_000), rng.uniform(0, 100_000)
        length, th = rng.uniform(200, 2000), rng.uniform(0, 6.283)
        walls.append((x, y, x + length * math.cos(th), y + length * math.sin(th)))
    return walls


def parallel_walls(count: int, rng: random.Random) -> list[tuple[float, float, float, float]]:
    """Horizontal walls, each on its own line, 3 mm apart (nothing to merge, one direction)."""
    return [(rng.uniform(0, 1000), 3.0 * i, rng.uniform(2000, 3000), 3.0 * i) for i in range(count)]


def write_world(path: Path, walls: list[tuple[float, float, float, float]]) -> None:
    lines = ["width 200000", "height 200000"] + [f"{a:.1f} {b:.1f} {c:.1f} {d:.1f}" for a, b, c, d in walls]
    path.write_text("\n".join(lines) + "\n")


def convert(path: Path) -> tuple[float, int, int]:
    """Seconds and peak traced bytes to convert ``path`` as ``saphira map`` does, and the walls written
    (timed untraced, then converted again under tracemalloc, which slows Python down several times)."""
    start = time.perf_counter()
    text = world_map_text(load_world(path))
    seconds = time.perf_counter() - start
    tracemalloc.start()
    world_map_text(load_world(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, text.count("\nWALL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walls", type=int, default=3000, help="walls of the small (baseline) world")
    parser.add_argument("--factor", type=int, default=4, help="the large world has this many times more")
    args = parser.parse_args()
    rng = random.Random(37)
    kinds: dict[str, Callable[[int, random.Random], list[tuple[float, float, float, float]]]] = {
        "random directions": random_walls,
        "parallel, 3 mm apart": parallel_walls,
    }
    with tempfile.TemporaryDirectory() as folder:
        for kind, make in kinds.items():
            rows = []
            for count in (args.walls, args.walls * args.factor):
                path = Path(folder) / f"w{count}.wld"
                write_world(path, make(count, rng))
                seconds, peak, written = convert(path)
                rows.append((count, seconds, peak, written))
                print(
                    f"{kind:>22}: {count:6d} walls -> {written:6d} WALLs in {seconds:6.2f} s "
                    f"({seconds / count * 1e6:6.1f} us/wall), peak {peak / 1e6:6.1f} MB ({peak / count:6.0f} B/wall)"
                )
            (small, t_small, m_small, _), (large, t_large, m_large, _) = rows
            time_ratio = (t_large / large) / (t_small / small)
            memory_ratio = (m_large / large) / (m_small / small)
            print(
                f"{kind:>22}: time per wall x{time_ratio:.2f}, memory per wall x{memory_ratio:.2f} "
                f"at {args.factor}x the walls (linear: ~1; quadratic: ~{args.factor})"
            )
        aria_mismatch(Path(folder), args.walls * 100, rng)


def aria_mismatch(folder: Path, rows: int, rng: random.Random) -> None:
    """The traced peak of reading an ARIA map whose NumPoints is wrong, against the file's size (a 14 MiB
    map took 650 MB before its rows were read a block at a time)."""
    path = folder / "big.map"
    body = "\n".join(f"{rng.randrange(-50_000, 50_000)} {rng.randrange(-50_000, 50_000)}" for _ in range(rows))
    path.write_text(f"2D-Map\nNumPoints: 5\nDATA\n{body}\n")
    tracemalloc.start()
    try:
        load_world(path)
    except SaphiraError as exc:
        message = str(exc).split(": ", 1)[1]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size = path.stat().st_size
    print(
        f"ARIA map, {size / 2**20:.1f} MiB, {rows} rows: {message}; "
        f"peak {peak / 1e6:.0f} MB ({peak / size:.1f}x the file)"
    )


if __name__ == "__main__":
    main()
