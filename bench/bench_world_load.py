"""World loading is linear in its walls, up to the most a world may have (``MAX_WALLS``).

Reads (and indexes, as the simulator does before the first beam) worlds of 10,000 and of ``MAX_WALLS``
random walls written to a temporary folder, and prints the time per wall of the large one against the
small one measured in this run: about 1 for a linear loader. Before the wall index was built in one
vectorised pass, indexing alone cost ~0.15 ms a wall (minutes for the ~900,000 walls a 16 MiB file can
hold). Run from the project root: ``python bench/bench_world_load.py``.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from saphira.world.world import MAX_WALLS, parse_world_data

SMALL = 10_000


def write_world(folder: Path, walls: int) -> Path:
    rng = random.Random(walls)
    lines = ["width 100000", "height 100000"]
    for _ in range(walls):
        x, y = rng.uniform(0, 99000), rng.uniform(0, 99000)
        lines.append(f"{x:.0f} {y:.0f} {x + rng.uniform(-900, 900):.0f} {y + rng.uniform(-900, 900):.0f}")
    path = folder / f"w{walls}.wld"
    path.write_text("\n".join(lines) + "\n")
    return path


def seconds_to_load(path: Path) -> tuple[float, float]:
    """(parse seconds, index seconds), the best of three."""
    best = (float("inf"), float("inf"))
    raw = path.read_bytes()
    for _ in range(3):
        start = time.perf_counter()
        world = parse_world_data(raw, path)
        parsed = time.perf_counter()
        world.index  # noqa: B018 - built as the simulator builds it
        best = min(best, (parsed - start, time.perf_counter() - parsed), key=sum)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        small = seconds_to_load(write_world(folder, SMALL))
        large = seconds_to_load(write_world(folder, MAX_WALLS))
    for name, walls, (parse, index) in (("small", SMALL, small), ("large", MAX_WALLS, large)):
        per_wall = 1e6 * (parse + index) / walls
        print(f"{name}: {walls} walls: parse {parse:.2f} s, index {index:.2f} s ({per_wall:.1f} us/wall)")
    ratio = (sum(large) / MAX_WALLS) / (sum(small) / SMALL)
    print(f"time per wall, {MAX_WALLS} walls against {SMALL}: {ratio:.2f} (1 = linear)")


if __name__ == "__main__":
    main()
