"""``saphira worlds``: the bundled simulator worlds and maps, one line each (the name to give ``--world``)."""

from __future__ import annotations

import argparse

from saphira.app.commands import Command
from saphira.core.paths import data_dir
from saphira.world.world import load_world

__all__ = ["COMMAND", "run"]


def run(args: argparse.Namespace) -> int:
    """Print each bundled world: name, format, walls, size and start pose."""
    for path in sorted(data_dir("maps").iterdir()):
        if path.suffix not in (".wld", ".map"):
            continue
        world = load_world(path)
        x0, y0, x1, y1 = world.bounds
        start = world.start_pose
        where = f"start ({start.x:.0f}, {start.y:.0f}, {start.th:.0f})" if start else "no start pose"
        print(
            f"{path.stem:10s} {path.suffix} {len(world.segments):4d} walls  {(x1 - x0) / 1000:.0f} x "
            f"{(y1 - y0) / 1000:.0f} m  {where}"
        )
    return 0


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """``saphira worlds`` takes none."""


COMMAND = Command(
    "worlds",
    help="list bundled worlds",
    summary="list the bundled simulator worlds and maps",
    description="List the bundled simulator worlds and maps (use the name with --world).",
    add_arguments=_no_arguments,
    run=run,
)
