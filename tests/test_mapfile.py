"""Saphira map files (the Saphira manual §8.10): Listing 8.6, save/load round trips, broken files, and the
Colbert calls sfLoadMapFile, sfSaveMapFile, sfDeleteMapArtifacts and sfMapDir on a simulated robot."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from saphira.client.artifacts import (
    Artifact,
    ArtifactType,
    Category,
    Corridor,
    Door,
    Junction,
    PointList,
    Wall,
    create_corridor,
    create_door,
    create_global_point,
    create_junction,
    create_wall,
)
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import Pose
from saphira.perception.mapfile import (
    MapFileError,
    MapNotFoundError,
    delete_map_artifacts,
    load_map_file,
    map_artifacts,
    parse_map_text,
    save_map_file,
)
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator

MAPS = Path(__file__).resolve().parent.parent / "maps"


def signature(a: Artifact) -> tuple[object, ...]:
    """What makes two map artifacts the same: type, category, id, global pose, dimensions."""
    return (a.type, a.cat, a.id, a.ax, a.ay, a.ath, getattr(a, "width", None), getattr(a, "length", None))


# ------------------------------------------------------------------------------------------ Listing 8.6
def test_listing_8_6_loads_the_manuals_artifacts() -> None:
    pointlist = PointList(Pose(1000.0, 0.0, 90.0))
    made = load_map_file(pointlist, "listing_8_6", MAPS)
    assert [type(a) for a in made] == [Corridor, Corridor, Door, Door, Junction, Junction, Wall, Wall]
    assert all(a.cat == Category.ARTIFACT and a in pointlist for a in made)
    c1, c2, d3, d4, j5, j6, w1, w2 = made
    assert (c1.id, c1.ax, c1.ay, c1.ath, c1.length, c1.width) == (1, 2000.0, 3000.0, 0.0, 3500.0, 800.0)
    assert (c2.id, c2.ax, c2.ay, c2.ath, c2.length, c2.width) == (2, 1000.0, 2000.0, 90.0, 6000.0, 1000.0)
    assert (d3.id, d3.ax, d3.ay, d3.ath, d3.width) == (3, 3000.0, 2600.0, 90.0, 1000.0)
    assert (d4.id, d4.ax, d4.ay, d4.ath, d4.width) == (4, 1500.0, 1000.0, 180.0, 1000.0)
    assert (j5.id, j5.ax, j5.ay, j5.ath, j5.width) == (5, 1500.0, 3000.0, 0.0, 800.0)
    assert (j6.id, j6.ax, j6.ay, j6.width) == (6, 1000.0, 4000.0, 1000.0)
    assert [(w.id, w.ax, w.ay, w.ath, w.length) for w in (w1, w2)] == [(0, 800.0, 3500.0, 90.0, 400.0),
                                                                       (0, 800.0, 4500.0, 90.0, 400.0)]  # fmt: skip
    # Local coordinates follow the robot (at 1000, 0 facing +y): corridor 2's centre is 2 m ahead.
    assert (c2.x, c2.y, c2.th) == pytest.approx((2000.0, 0.0, 0.0), abs=1e-9)


def _on_side(opening: Door | Junction, corridor: Corridor, inward: bool = True) -> bool:
    """The opening lies on one of the corridor's sides, within its length, its normal pointing in (or out)."""
    c, s = math.cos(math.radians(corridor.ath)), math.sin(math.radians(corridor.ath))
    dx, dy = opening.ax - corridor.ax, opening.ay - corridor.ay
    along, across = c * dx + s * dy, -s * dx + c * dy
    inward = math.radians(opening.ath)
    into = -(math.cos(inward) * -s + math.sin(inward) * c) * math.copysign(1.0, across)
    pointing = into > 0.99 if inward else into < -0.99
    return abs(abs(across) - corridor.width / 2) < 1e-6 and abs(along) <= corridor.length / 2 and pointing


def test_listing_8_6_ocr_resolution_is_consistent_with_its_corridors() -> None:
    made = {a.id: a for a in load_map_file(PointList(), MAPS / "listing_8_6.smap") if a.id}
    c1, c2, d3, d4, j5 = (made[i] for i in (1, 2, 3, 4, 5))
    assert isinstance(c1, Corridor) and isinstance(c2, Corridor)
    assert isinstance(d3, Door) and isinstance(d4, Door) and isinstance(j5, Junction)
    assert _on_side(d3, c1)  # "SO" read as 90: the door opens up into corridor 1
    assert _on_side(d4, c2)
    # Corridor 1 leaves corridor 2 here: the junction opens out of corridor 2, along corridor 1's axis.
    assert _on_side(j5, c2, inward=False) and j5.width == c1.width and j5.ay == c1.ay
    assert not _on_side(d3, c2)  # and the check can fail


# ------------------------------------------------------------------------------------------ round trips
def test_save_then_load_gives_the_same_artifacts_one_for_one(tmp_path: Path) -> None:
    robot = Pose(123.0, -45.0, 33.0)
    source = PointList(robot)
    for artifact in (
        create_corridor(robot, 2000.125, -3000.5, 359.75, 1800.0, 12345.678, global_coords=True, id=7),
        create_door(robot, 1.0 / 3.0, 1e-7, -90.0, 900.5, global_coords=True, id=12),
        create_junction(robot, -5000.0, 4000.0, 180.0, 2000.0, global_coords=True, id=3),
        create_wall(robot, 800.0, 3500.0, 90.0, 400.0, global_coords=True),
        create_wall(robot, 10.0, 20.0, 45.5, 0.25, global_coords=True, id=99),  # an id on a wall survives
        create_corridor(robot, 100.0, 200.0, 12.3456789, 1000.0, 4000.0, global_coords=False),  # from LPS
    ):
        source.add(artifact)
    goal = create_global_point(robot, 5.0, 5.0)
    source.add(goal)  # a goal point is not part of the map
    source.create_local_artifact(ArtifactType.DOOR, 40, 500.0, 0.0, 0.0, 800.0).cat = Category.PERCEPT
    written = save_map_file(source, "built.smap", tmp_path)
    assert written == tmp_path / "built.smap"
    reloaded = PointList(Pose(-7.0, 8.0, -100.0))
    made = load_map_file(reloaded, "built", tmp_path)  # the suffix may be left off
    assert [signature(a) for a in made] == [signature(a) for a in map_artifacts(source)]
    assert len(made) == 6
    save_map_file(reloaded, tmp_path / "again.smap")
    assert (tmp_path / "again.smap").read_text() == written.read_text()


def test_loading_is_additive_and_delete_removes_only_the_map(tmp_path: Path) -> None:
    pointlist = PointList()
    goal = create_global_point(pointlist.robot, 1.0, 2.0)
    pointlist.add(goal)
    load_map_file(pointlist, MAPS / "listing_8_6.smap")
    load_map_file(pointlist, MAPS / "corridor.smap")
    assert len(pointlist) == 1 + 8 + len(parse_map_text((MAPS / "corridor.smap").read_text()))
    before = len(pointlist)
    assert delete_map_artifacts(pointlist) == before - 1
    assert list(pointlist) == [goal]


# ------------------------------------------------------------------------------------------ broken files
@pytest.mark.parametrize(
    ("line", "where", "message"),
    [
        ("CORIDOR (1) 0 0 0 100 100", (1,), "unknown artifact 'CORIDOR'"),
        ("DOOR (0) 0 0 90 100", (6,), "positive integer"),
        ("DOOR (x) 0 0 90 100", (6,), "positive integer"),
        ("DOOR (3 0 0 90 100", (6,), "positive integer"),
        ("DOOR (²) 0 0 90 100", (6,), "positive integer"),
        ("CORRIDOR (1) 0 0 0 100", (23,), "needs 5 numbers"),
        ("WALL 0 0 90 400 7", (17,), "unexpected '7'"),
        ("JUNCTION (2) 10 1O00 0 800", (17,), "bad number '1O00'"),
        ("DOOR (2) 10 10 90 -800", (19,), "width must be positive"),
        ("WALL 0 0 nan 400", (10,), "bad number 'nan'"),
    ],
)
def test_a_broken_line_names_file_line_and_column(line: str, where: tuple[int], message: str) -> None:
    text = f"; a map\nCORRIDOR (9) 0 0 0 1000 1000\n{line}   ; trailing comment\n"
    with pytest.raises(MapFileError) as info:
        parse_map_text(text, "m.smap")
    assert (info.value.file, info.value.line, info.value.column) == ("m.smap", 3, where[0])
    assert message in info.value.message
    assert str(info.value).startswith(f"m.smap:3:{where[0]}: ")


def test_a_broken_file_loads_nothing_and_a_duplicate_id_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.smap"
    bad.write_text("CORRIDOR (1) 0 0 0 1000 1000\nDOOR (2) 0 500 90 800\nDOOR (1) 10 500 90 800\n")
    pointlist = PointList()
    with pytest.raises(MapFileError, match=r"bad\.smap:3:6: id 1 given twice \(first on line 1\)"):
        load_map_file(pointlist, bad)
    assert len(pointlist) == 0
    with pytest.raises(MapNotFoundError, match="no map file 'nowhere'"):
        load_map_file(pointlist, "nowhere", tmp_path)


# ------------------------------------------------------------------------------------------ Colbert
def test_colbert_map_calls_on_a_simulated_robot(tmp_path: Path) -> None:
    robot = Robot()
    attach_simulator(robot, "corridor", "p3dx", seed=0, odometry_error=False)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    (tmp_path / "broken.smap").write_text("; fine\nDOOR (4) 100 200 90\n")

    def say(text: str) -> list[str]:
        start = len(lines)
        assert ev.eval_text(text), lines
        return lines[start:]

    assert say('sfLoadMapFile("listing_8_6")') == ["0 (int)"]
    assert say("sfFindArtifact(5)->type == JUNCTION") == ["1 (int)"]
    assert say(f'sfMapDir = "{tmp_path}"') == []
    assert say("sfMapDir") == [f'"{tmp_path}" (string)']
    assert say('sfSaveMapFile("saved")') == ["0 (int)"]
    assert len(parse_map_text((tmp_path / "saved").read_text())) == 8
    out = say('sfLoadMapFile("broken")')
    assert out[-1] == "-1 (int)"
    assert f"{tmp_path / 'broken.smap'}:2:" in out[0] and "DOOR needs 4 numbers" in out[0]
    assert say('sfLoadMapFile("absent")')[-1] == "-1 (int)"
    assert say("sfDeleteMapArtifacts()") == ["8 (int)"]
    assert say("sfFindArtifact(5) == NULL") == ["1 (int)"]
    assert say('sfLoadMapFile("saved")') == ["0 (int)"]
    assert len(map_artifacts(robot.reflector.pointlist)) == 8
    assert say(f'sfSaveMapFile("{tmp_path}/no/such/dir/x.smap")')[-1] == "-1 (int)"
