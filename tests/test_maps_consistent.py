"""The shipped Saphira maps agree with their simulator worlds, and `saphira map` converts worlds to maps.

Every WALL of a map must lie on the world's walls; every CORRIDOR must have the world's walls along
its sides (doors and junctions excepted) and none across its inside; every DOOR and JUNCTION must be a
gap in a corridor side whose ends are the ends of wall segments.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from saphira.app.cli import main
from saphira.client.artifacts import Corridor, Door, Junction, PointList, Wall
from saphira.perception.mapfile import load_map_file, named_goals, parse_map_text
from saphira.perception.worldmap import merge_segments, world_walls
from saphira.world.raycast import point_segment_distances, segment_crosses
from saphira.world.wld import parse_wld
from saphira.world.world import World, load_world

ROOT = Path(__file__).resolve().parent.parent
MAPS = ROOT / "maps"
SHIPPED = [
    ("corridor.smap", "corridor.wld"),
    ("simple.smap", "simple.wld"),
    ("AMROffice.smap", "AMROffice.map"),
    ("columbia.smap", "columbia.map"),
]
TOL = 1.0  # mm


def ends(x: float, y: float, th: float, length: float) -> tuple[tuple[float, float], tuple[float, float]]:
    c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
    return (x - c * length / 2, y - s * length / 2), (x + c * length / 2, y + s * length / 2)


def covered(world: World, a: tuple[float, float], b: tuple[float, float], samples: int = 200) -> float:
    """Fraction of the segment a-b lying on the world's walls (within TOL)."""
    hits = 0
    for k in range(samples + 1):
        t = k / samples
        p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        hits += float(point_segment_distances(p, world.segments).min()) <= TOL
    return hits / (samples + 1)


def check_map(world: World, artifacts: list[object]) -> list[str]:
    """What is inconsistent between a map and its world (empty when they agree)."""
    problems = []
    corridors = [a for a in artifacts if isinstance(a, Corridor)]
    for a in artifacts:
        if isinstance(a, Wall):
            p, q = ends(a.ax, a.ay, a.ath, a.length)
            if covered(world, p, q) < 1.0:
                problems.append(f"WALL at {a.ax:g}, {a.ay:g} is not on the world's walls")
        elif isinstance(a, Corridor):
            c, s = math.cos(math.radians(a.ath)), math.sin(math.radians(a.ath))
            for side in (1, -1):
                ox, oy = -s * side * a.width / 2, c * side * a.width / 2
                p, q = ends(a.ax + ox, a.ay + oy, a.ath, a.length)
                if covered(world, p, q) < 0.5:
                    problems.append(f"CORRIDOR ({a.id}): side {side} is mostly not a wall")
            # Its inside, kept a cell clear of its sides and ends, crosses no wall.
            for frac in np.linspace(-0.45, 0.45, 7):
                ox, oy = -s * frac * a.width, c * frac * a.width
                p, q = ends(a.ax + ox, a.ay + oy, a.ath, a.length - 200.0)
                if segment_crosses(p, q, world.segments):
                    problems.append(f"CORRIDOR ({a.id}): a wall crosses it")
                    break
        elif isinstance(a, Door | Junction):
            along = a.ath + 90.0  # the opening runs across its normal
            p, q = ends(a.ax, a.ay, along, a.width)
            d = point_segment_distances
            if covered(world, p, q) > 0.02:
                problems.append(f"{type(a).__name__} ({a.id}) is not an opening")
            if min(float(d(p, world.segments).min()), float(d(q, world.segments).min())) > TOL:
                problems.append(f"{type(a).__name__} ({a.id}): its edges are not wall ends")
            if not any(_on_side(a, c) for c in corridors):
                problems.append(f"{type(a).__name__} ({a.id}) is on no corridor's side")
    return problems


def _on_side(opening: Door | Junction, corridor: Corridor) -> bool:
    c, s = math.cos(math.radians(corridor.ath)), math.sin(math.radians(corridor.ath))
    dx, dy = opening.ax - corridor.ax, opening.ay - corridor.ay
    along, across = c * dx + s * dy, -s * dx + c * dy
    return abs(abs(across) - corridor.width / 2) <= TOL and abs(along) <= corridor.length / 2


@pytest.mark.parametrize(("map_name", "world_name"), SHIPPED)
def test_shipped_maps_agree_with_their_worlds(map_name: str, world_name: str) -> None:
    world = load_world(MAPS / world_name)
    artifacts = load_map_file(PointList(), MAPS / map_name)
    assert artifacts
    assert check_map(world, list(artifacts)) == []


def test_the_consistency_check_catches_a_displaced_map() -> None:
    world = load_world(MAPS / "corridor.wld")
    text = (MAPS / "corridor.smap").read_text()
    shifted = text.replace("CORRIDOR      (1)   12000    6000", "CORRIDOR      (1)   12000    6300")
    shifted = shifted.replace("DOOR          (2)    3500", "DOOR          (2)    3800")
    shifted = shifted.replace("WALL               7000    3000      90", "WALL               7100    3000      90")
    assert shifted.count("\n") == text.count("\n") and shifted != text
    pointlist = PointList()
    from saphira.perception.mapfile import add_map_entries

    problems = check_map(world, list(add_map_entries(pointlist, parse_map_text(shifted))))
    assert any("side" in p for p in problems)
    assert any("Door (2)" in p for p in problems)
    assert any("WALL at 7100" in p for p in problems)


# ------------------------------------------------------------------------------------------ converter
def test_merge_joins_collinear_touching_pieces_and_keeps_doorways() -> None:
    world = parse_wld(
        "0 0 1000 0\n2000 0 1000 0\n2000 0 2500 0\n3500 0 5000 0\n"  # pieces (one reversed), then a doorway
        "0 0 0 1000\n0 500 0 1500\n"  # overlapping
        "0 100 5000 100\n"  # parallel, 100 mm off: another wall
        "7 7 7 7\n",  # zero length
        "<test>",
    )
    merged = merge_segments(world.segments)
    as_set = {tuple(round(v, 6) + 0.0 for v in row) for row in merged}
    assert as_set == {
        (0.0, 0.0, 2500.0, 0.0),
        (3500.0, 0.0, 5000.0, 0.0),
        (0.0, 0.0, 0.0, 1500.0),
        (0.0, 100.0, 5000.0, 100.0),
    }
    walls = world_walls(world)
    assert sorted((w.ax, w.ay, w.ath, w.length) for w in walls) == sorted(
        [
            (1250.0, 0.0, 0.0, 2500.0),
            (4250.0, 0.0, 0.0, 1500.0),
            (0.0, 750.0, 90.0, 1500.0),
            (2500.0, 100.0, 0.0, 5000.0),
        ]
    )
    assert len(world_walls(world, merge=False)) == 7


@pytest.mark.parametrize(
    "world_name",
    [
        "corridor",
        "simple",
        "room",
        "AMROffice",
        "tests/data/aria-maps/triangle.map",
        "tests/data/pyro-worlds/lab.wld",
        "tests/data/pyro-worlds/office8.wld",
    ],
)
def test_saphira_map_writes_a_map_whose_walls_are_the_worlds(world_name: str, tmp_path: Path) -> None:
    out = tmp_path / "converted.smap"
    source = str(ROOT / world_name) if "/" in world_name else world_name
    assert main(["map", source, "-o", str(out)]) == 0
    world = load_world(source)
    loaded = load_map_file(PointList(), out)
    walls = [a for a in loaded if isinstance(a, Wall)]
    assert walls and named_goals(loaded) == list(world.goals)  # the rest are the world's goals (AMROffice, lab)
    assert check_map(world, list(walls)) == []
    # Every world segment is covered by the map's walls.
    segments = np.array([[*ends(w.ax, w.ay, w.ath, w.length)[0], *ends(w.ax, w.ay, w.ath, w.length)[1]] for w in walls])
    for x1, y1, x2, y2 in world.segments:
        for t in (0.0, 0.5, 1.0):
            p = (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)
            assert float(point_segment_distances(p, segments).min()) <= TOL


def test_saphira_map_to_stdout_and_errors(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "saphira", "map", "room"], capture_output=True, text=True,
                          cwd=ROOT, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(";; Saphira map converted from the simulator world room.wld")
    assert len(parse_map_text(done.stdout)) == 8  # four room walls and the box's four sides
    bad = tmp_path / "bad.wld"
    bad.write_text("0 0 1000 0\n0 0 10x0 5\n")
    failed = subprocess.run([sys.executable, "-m", "saphira", "map", str(bad)], capture_output=True, text=True,
                            cwd=ROOT, check=False)  # fmt: skip
    assert failed.returncode == 2
    assert f"{bad}:2:5" in failed.stderr and "bad number '10x0'" in failed.stderr
