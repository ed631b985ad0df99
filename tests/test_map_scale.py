"""``saphira map`` merges in linear time with the same results as a scan of every line (issue 37, N12).

The merge used to compare each segment with every line found so far (30,000 distinct walls: 80 s).
It now files lines by direction and offset; these tests check the results against that scan, written
here in its plain form, on seeded worlds made to hit the filing's edges: pieces of one line in both
directions, directions on both sides of 0/180 degrees and of a direction cell's border, offsets at the
tolerance, many directions in one cell. ``bench/bench_map.py`` measures the time per wall.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from saphira.app.cli import main
from saphira.perception.worldmap import ANGLE_TOLERANCE, JOIN_GAP, MIN_LENGTH, OFFSET_TOLERANCE, merge_segments
from saphira.world.world import load_world


def scan_merge(segments: np.ndarray) -> np.ndarray:
    """The merge as first written: every segment against every line found so far."""
    lines: list[list] = []
    for x1, y1, x2, y2 in segments.tolist():
        if not math.hypot(x2 - x1, y2 - y1) >= MIN_LENGTH:
            continue
        th = math.degrees(math.atan2(y2 - y1, x2 - x1)) % 180.0
        for line in lines:
            diff = abs(th - line[0])
            if (
                min(diff, 180.0 - diff) <= ANGLE_TOLERANCE
                and abs(-line[2] * x1 + line[1] * y1 - line[3]) <= OFFSET_TOLERANCE
                and abs(-line[2] * x2 + line[1] * y2 - line[3]) <= OFFSET_TOLERANCE
            ):
                break
        else:
            ux, uy = math.cos(math.radians(th)), math.sin(math.radians(th))
            line = [th, ux, uy, -uy * x1 + ux * y1, []]
            lines.append(line)
        a, b = line[1] * x1 + line[2] * y1, line[1] * x2 + line[2] * y2
        line[4].append((min(a, b), max(a, b)))
    merged = []
    for _th, ux, uy, offset, spans in lines:
        spans.sort()
        lo, hi = spans[0]
        joined = []
        for a, b in spans[1:]:
            if a <= hi + JOIN_GAP:
                hi = max(hi, b)
            else:
                joined.append((lo, hi))
                lo, hi = a, b
        joined.append((lo, hi))
        nx, ny = -uy * offset, ux * offset
        merged.extend((nx + a * ux, ny + a * uy, nx + b * ux, ny + b * uy) for a, b in joined)
    return np.array(merged, dtype=np.float64).reshape(-1, 4)


def tricky_world(rng: random.Random, count: int) -> np.ndarray:
    rows = []
    for _ in range(count):
        x, y = rng.uniform(-30_000, 30_000), rng.uniform(-30_000, 30_000)
        th = rng.choice([0.0, 90.0, 179.99, 0.01, 45.0, 0.1, 0.1001, 0.0999, rng.uniform(0, 180)])
        th += rng.choice([0.0, 0.0, ANGLE_TOLERANCE * rng.uniform(-1.2, 1.2)])
        length = rng.uniform(100, 3000)
        ux, uy = math.cos(math.radians(th)), math.sin(math.radians(th))
        piece = (x, y, x + length * ux, y + length * uy)
        rows.append(piece if rng.random() < 0.5 else piece[2:] + piece[:2])
        for _ in range(rng.choice([0, 0, 1, 3])):  # more pieces of this line, some a little off it
            start = rng.uniform(-5000, 5000)
            off = rng.choice([0.0, 0.5, 0.99, 1.01, 3.0]) * OFFSET_TOLERANCE
            a = (x + start * ux - off * uy, y + start * uy + off * ux)
            b = (a[0] + rng.uniform(-2000, 2000) * ux, a[1] + rng.uniform(-2000, 2000) * uy)
            rows.append(a + b)
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize("seed", range(4))
def test_the_merge_gives_what_a_scan_of_every_line_gives(seed: int) -> None:
    segments = tricky_world(random.Random(seed), 600)
    merged = merge_segments(segments)
    assert np.array_equal(merged, scan_merge(segments))
    assert 0 < len(merged) < len(segments)  # the pieces did merge


def test_saphira_map_of_thousands_of_distinct_walls(tmp_path: Path, capsys) -> None:
    rng = random.Random(37)
    walls = [(rng.uniform(0, 50_000), rng.uniform(0, 50_000)) for _ in range(3000)]
    lines = ["width 60000", "height 60000"]
    lines += [f"{x:.1f} {y:.1f} {x + 300 + i % 7:.1f} {y + (i % 11) * 37:.1f}" for i, (x, y) in enumerate(walls)]
    lines += ["0 100 1000 100", "1000 100 2500 100", "2600 100 3000 100"]  # two pieces touch, a doorway stays
    world = tmp_path / "many.wld"
    world.write_text("\n".join(lines) + "\n")
    out = tmp_path / "many.smap"
    assert main(["map", str(world), "-o", str(out)]) == 0
    text = out.read_text()
    assert "3003 segments -> 3002 WALL artifacts" in text
    rows = [" ".join(line.split()) for line in text.splitlines()]
    assert "WALL 1250 100 0 2500" in rows and "WALL 2800 100 0 400" in rows
    assert capsys.readouterr().out.strip() == f"{out}: 3002 walls"


def test_a_large_aria_map_is_read_in_blocks_with_the_same_values_and_errors(tmp_path: Path, capsys) -> None:
    """A 14 MiB map took 650 MB to report a count mismatch (its rows as lists of strings); the rows are now
    read a few thousand at a time. Behaviour across the blocks' borders is what this checks."""
    rng = random.Random(12)
    points = [(rng.randrange(-50_000, 50_000), rng.randrange(-50_000, 50_000)) for _ in range(10_000)]
    body = "\n".join(f"{x} {y}" for x, y in points)
    path = tmp_path / "big.map"
    path.write_text(f"2D-Map\nNumLines: 1\nNumPoints: 10000\nLINES\n0 0 1000 0\nDATA\n{body}\n")
    world = load_world(path)
    assert np.array_equal(world.points, np.array(points, dtype=np.float64))

    path.write_text(f"2D-Map\nNumLines: 1\nNumPoints: 5\nLINES\n0 0 1000 0\nDATA\n{body}\n")
    assert main(["map", str(path)]) == 2
    assert f"{path}:3:1: NumPoints is 5 but the DATA section (line 6) has 10000" in capsys.readouterr().err

    lines = body.split("\n")
    lines[9000] = "12 x4"  # in the third block of rows
    path.write_text("2D-Map\nDATA\n" + "\n".join(lines) + "\n")
    assert main(["map", str(path)]) == 2
    assert f"{path}:9003:4:" in capsys.readouterr().err
