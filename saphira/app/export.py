"""``saphira export REC -o RUN.mcap``: a recording replayed and written as MCAP (Foxglove) or a ROS 2 bag.

The parser imports neither foxglove-sdk nor the ROS 2 libraries: the export does, when it runs.
"""

from __future__ import annotations

import argparse
import sys

from saphira.app.commands import Command
from saphira.app.replay import params_option
from saphira.core.outfile import EXISTING_OUTPUT

__all__ = ["COMMAND", "add_arguments", "run"]


def add_arguments(export: argparse.ArgumentParser) -> None:
    """The ``export`` arguments."""
    export.add_argument("file", metavar="REC")
    export.add_argument(
        "-o", "--output", metavar="RUN.mcap", required=True, help=f"the MCAP file to write; {EXISTING_OUTPUT}"
    )
    export.add_argument("--world", metavar="W", help="the world whose walls to write (default: the recording's)")
    export.add_argument("--params", metavar="P", help="parameter file, if the recording's robot had none bundled")
    export.add_argument(
        "--ros2", action="store_true",
        help="write a ROS 2 bag instead: ros2msg schemas and CDR messages, the topics 'run --ros2' publishes "
        "(docs/ros2.md), for ros2 bag and any ROS 2 bag reader. Needs: pip install 'saphira[ros2]'",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """``saphira export``: the recording written as MCAP, or as a ROS 2 bag with ``--ros2``."""
    if args.ros2:
        from saphira.app.ros2 import INSTALL, installed

        if not installed():
            print(f"saphira export: {INSTALL.replace('--ros2', 'export --ros2')}", file=sys.stderr)
            return 2
        from saphira.ros2.bag import export_bag

        cycles, count = export_bag(args.file, args.output, world=args.world, params=params_option(args))
        print(f"exported {cycles} cycles ({count} ROS 2 messages) to {args.output}")
        return 0
    from saphira.record.mcap_export import export

    cycles = export(args.file, args.output, world=args.world, params=params_option(args))
    print(f"exported {cycles} cycles to {args.output}")
    return 0


COMMAND = Command(
    "export",
    help="write a recording as MCAP (Foxglove, ROS 2)",
    arguments="FILE",
    summary="write a recording as MCAP (-o RUN.mcap) for Foxglove and ROS 2 tools",
    description="Replay a recording (made with 'saphira run --record') through the link and the reflector "
    "and write what the run saw as MCAP, with Foxglove's well-known schemas: /pose, /odom, /tf, /sonar, "
    "/laser, /world, /artifacts, /behaviors and /log (docs/replay.md). Needs foxglove-sdk: pip install "
    "'saphira[foxglove]'. Exit status 0 when written, 2 if the recording cannot be read or is empty (no "
    "event), or for a bad option.",
    add_arguments=add_arguments,
    run=run,
)
