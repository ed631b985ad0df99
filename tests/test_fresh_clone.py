"""A fresh clone holds everything it needs: the data tests and users need ship in the project, with
origin and licence beside them, and nothing reads outside the checkout (in particular not the
specification folder beside it)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest

from saphira.world.world import load_world
from tests.sim_process import PROJECT

SHIPPED_MAPS = ("AMROffice", "columbia")


def test_saphira_worlds_lists_the_aria_maps() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "saphira", "worlds"], cwd=PROJECT, capture_output=True, text=True, timeout=120,
        check=True,
    ).stdout  # fmt: skip
    assert re.search(r"^AMROffice\s+\.map\s+243 walls", out, re.M), out
    assert re.search(r"^columbia\s+\.map\s+470 walls", out, re.M), out


@pytest.mark.parametrize("name", SHIPPED_MAPS)
def test_the_maps_load_by_name_like_the_other_worlds(name: str) -> None:
    world = load_world(name)
    assert world.name == name and len(world.segments) > 200 and world.start_pose is not None


def test_every_shipped_data_file_has_its_origin_and_licence_beside_it() -> None:
    for folder, pattern in ((PROJECT / "maps", "*.map"), (PROJECT / "tests" / "data" / "captures", "*.txt")):
        readme = next(p for p in (folder / "README.md", folder.parent / "README.md") if p.is_file())
        notes = readme.read_text(encoding="utf-8")
        files = sorted(folder.glob(pattern))
        assert files
        for path in files:
            row = next((line for line in notes.splitlines() if f"{path.name}`" in line and line.startswith("|")), "")
            assert row.count("|") >= 5 and ("GPL" in row or "MIT" in row or "same" in row), (readme, path.name)


def test_the_licence_ships_and_matches_pyproject() -> None:
    licence = (PROJECT / "LICENSE").read_text(encoding="utf-8")
    declared = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["license"]["text"]
    assert declared == "MIT" and licence.startswith("MIT License") and "the saphira authors" in licence


def test_nothing_reads_outside_the_checkout() -> None:
    offenders = [
        f"{path.relative_to(PROJECT)}:{n}: {line.strip()}"
        for folder in ("saphira", "pyrobot", "behaviors", "bench", "tests", "colbert", ".ci")
        for path in sorted((PROJECT / folder).rglob("*"))
        if path.is_file() and path.suffix in (".py", ".act", ".beh", "") and path.name != "test_fresh_clone.py"
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if re.search(r"""["'/]shared["'/]|\.\./shared|parents\[\d\]\.parent\b""", line)
    ]
    assert not offenders, offenders
