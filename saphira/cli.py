"""The ``saphira`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from saphira import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="saphira",
        description="Saphira for Python: Colbert activities and fuzzy behaviors for Pioneer robots.",
    )
    parser.add_argument("--version", action="version", version=f"saphira {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run activity files against a robot or the embedded simulator")
    run.add_argument("files", nargs="+", metavar="FILE")
    run.add_argument("--plot", metavar="PNG")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "run":
        print("saphira run: the activity runner arrives with a later issue; nothing was run.")
        return 0
    build_parser().print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
