"""Flat World files: the seed's sample and the four transition kinds read as written; errors name line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.core.geometry import Pose
from saphira.world.flat_world import WorldFileError, load_world_file, parse_world_file

# The seed's "four types" block, uncommented, and part of its sample file.
FOUR_TYPES = """# ----- type 1: all arguments specified
WORLD Taylor-Hall map-1
MAP  map-1
TRANSITION (29800 9700 500 test1) map-1a (1 2 3)
MAP  map-2
TRANSITION (29800 9700 500 test2) map-2a
MAP  map-3
TRANSITION (29800 9700 500) map-3a
MAP  map-4
TRANSITION (29800 9700 500) map-4a (1 2 3)

MAP  /u/robot/flat-root/flat5/env/taylor-elevator.env
TRANSITION (29800 9700 500 GOTO-1) /u/robot/flat-root/flat5/env/taylor-1.env
TRANSITION (29800 9700 500 GOTO-2) /u/robot/flat-root/flat5/env/taylor-2.env
"""


def test_the_seeds_four_kinds_of_transition_read_as_written() -> None:
    world = parse_world_file(FOUR_TYPES, "taylor.world")
    assert (world.name, world.default_map) == ("Taylor-Hall", "map-1")
    kinds = {name: [(t.kind, t.command, t.target, t.new_pose) for t in ts] for name, ts in world.maps.values()}
    assert kinds["map-1"] == [(1, "test1", "map-1a", Pose(1, 2, 3))]
    assert kinds["map-2"] == [(2, "test2", "map-2a", None)]
    assert kinds["map-3"] == [(3, None, "map-3a", None)]
    assert kinds["map-4"] == [(4, None, "map-4a", Pose(1, 2, 3))]
    elevator = world.transitions("/u/robot/flat-root/flat5/env/taylor-elevator.env")
    assert [t.command for t in elevator] == ["GOTO-1", "GOTO-2"] and elevator[0].line == 13
    assert elevator[0].covers(29800 + 300, 9700 + 400) and not elevator[0].covers(29800 + 400, 9700 + 400)
    assert world.warnings == []


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        ("MAP a.wld\n", "w:1:1", "MAP before the WORLD line"),
        ("WORLD W a.wld\nTRANSITION (1 2 3) b\n", "w:2:1", "TRANSITION before any MAP line"),
        ("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2) b\n", "w:3:12", "has 3 or 4 items, not 2"),
        ("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2 -5) b\n", "w:3:13", "the radius must be positive"),
        ("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2 3) b (1 2)\n", "w:3:22", "expected (new-x new-y new-theta)"),
        ("WORLD W a.wld\nMAP a.wld\nTRANSITION (1 2 3)\n", "w:3:19", "needs a new map"),
        ("WORLD W a.wld\nmap a.wld\n", "w:2:1", "unknown keyword 'map'"),
        ("# nothing\n", "w:1", "no WORLD line"),
    ],
)
def test_bad_world_files_name_line_and_column(text: str, where: str, fragment: str) -> None:
    with pytest.raises(WorldFileError) as err:
        parse_world_file(text, "w")
    assert str(err.value).startswith(where + ":") and fragment in str(err.value)


def test_map_names_resolve_beside_the_world_file(maps_dir: Path) -> None:
    world = load_world_file(maps_dir / "flat" / "building.world")
    assert world.locate("floor2.wld") == maps_dir / "flat" / "floor2.wld"
    assert world.load_map("elevator.wld").segments.shape == (4, 4)
    assert world.locate("room") == maps_dir / "room.wld"  # not beside it: a bundled world
