"""``saphira map``: convert a simulator world into a Saphira map file (:mod:`saphira.perception.worldmap`)."""

from __future__ import annotations

import argparse
import sys

from saphira.app.commands import Command
from saphira.core.errors import SaphiraError
from saphira.core.outfile import EXISTING_OUTPUT, OutputFile
from saphira.perception.worldmap import world_map_text
from saphira.world.world import load_world

__all__ = ["COMMAND", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``map`` options."""
    parser.add_argument("world", metavar="WORLD", help="world file or bundled world name")
    parser.add_argument(
        "-o", "--output", metavar="OUT", help=f"map file to write (default: standard output); {EXISTING_OUTPUT}"
    )
    parser.add_argument("--no-merge", action="store_true", help="one WALL per segment, as in the world")


def run(args: argparse.Namespace) -> int:
    """``saphira map``: exit 0 on success; a missing or broken world is reported by the caller (exit 2)."""
    text = world_map_text(load_world(args.world), merge=not args.no_merge)
    if args.output:
        try:
            out = OutputFile(args.output).write_text(text)
        except SaphiraError as exc:
            print(f"saphira map: {exc}", file=sys.stderr)
            return 2
        print(f"{out}: {text.count(chr(10) + 'WALL')} walls")
    else:
        sys.stdout.write(text)
    return 0


COMMAND = Command(
    "map",
    help="convert a simulator world into a Saphira map file",
    arguments="WORLD",
    summary="convert a simulator world into a Saphira map file of WALL artifacts",
    description="Convert a simulator world (.wld, ARIA 2D-Map .map, or a bundled world name, see 'saphira "
    "worlds') into a Saphira map file of WALL artifacts and the world's named goals as GOAL lines, for "
    "sfLoadMapFile. Collinear wall segments that overlap or touch become one wall. Written to OUT, or to "
    "standard output.",
    epilog="exit status: 0 when written, 2 for a world that cannot be read or a bad option.",
    add_arguments=add_arguments,
    run=run,
)
