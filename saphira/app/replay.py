"""``saphira replay REC --plot PNG | --ui [ADDR]`` and ``saphira export REC -o RUN.mcap``.

Kept apart from :mod:`saphira.app.cli` so that the command line's parser stays small and imports neither
matplotlib, aiohttp nor foxglove-sdk until one of these is asked for.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from saphira.core.argtypes import plot_file
from saphira.core.outfile import EXISTING_OUTPUT
from saphira.ui.options import DEFAULT_HOST, ui_address

FOXGLOVE_PORT = 8765
"""The port Foxglove's viewers try first."""

if TYPE_CHECKING:
    from saphira.params.robot_params import RobotParams

__all__ = ["add_export_parser", "add_foxglove_option", "add_replay_options", "run_export", "view_replay"]


def add_replay_options(parser: argparse.ArgumentParser) -> None:
    """``--plot``, ``--ui`` and ``--world`` on ``saphira replay``."""
    parser.epilog = ("With --plot or --ui the recording is drawn or played instead of checked; --ui serves until "
                     "Ctrl-C or SIGTERM (status 130 or 143). docs/replay.md says what a recording holds.")  # fmt: skip
    parser.add_argument(
        "--plot", metavar="PNG", type=plot_file,
        help="draw the replayed run as 'run --plot' does (path, sonar hits, last laser scans) over its world; "
        f"{EXISTING_OUTPUT}",
    )  # fmt: skip
    parser.add_argument(
        "--ui", metavar="[HOST:]PORT", type=ui_address, nargs="?", const=(DEFAULT_HOST, 0),
        help="play the recording in the live view (play/pause, step, speed, a time slider), on HOST:PORT "
        "(default 127.0.0.1 and a free port); the URL with its secret token is printed on start",
    )  # fmt: skip
    parser.add_argument(
        "--world", metavar="W",
        help="the world to draw under the run (default: the one the recording names, if the run was simulated)",
    )  # fmt: skip


def add_foxglove_option(parser: argparse.ArgumentParser) -> None:
    """``saphira run --foxglove [HOST:]PORT``: serve the run's channels live (:mod:`saphira.record.mcap_export`)."""
    parser.add_argument(
        "--foxglove", metavar="[HOST:]PORT", type=ui_address, nargs="?", const=(DEFAULT_HOST, FOXGLOVE_PORT),
        help=f"serve the run to Foxglove (its WebSocket protocol) on HOST:PORT (default 127.0.0.1:{FOXGLOVE_PORT}; "
        "port 0 picks one): the channels 'saphira export' writes but /log; a non-loopback HOST is warned about. "
        "The embedded simulator then runs in real time (--speed F: F times), as with --ui, so Foxglove sees the "
        "run as it happens. Any page in a browser that reaches the server can read it (Foxglove's server cannot "
        "check the page or a token), so /log and control are opt-in. Needs foxglove-sdk: "
        "pip install 'saphira[foxglove]'",
    )  # fmt: skip
    parser.add_argument(
        "--foxglove-log", action="store_true",
        help="serve /log too (the log records and the activities' messages: any page that reaches the server reads "
        "them)",
    )  # fmt: skip
    parser.add_argument(
        "--foxglove-control", action="store_true",
        help="let Foxglove's Teleop panel drive the robot (/cmd_vel, geometry_msgs/Twist in JSON), with the limits "
        "and 600 ms watchdog of --ros2's /cmd_vel (docs/ros2.md): any page that reaches the server can drive too",
    )  # fmt: skip


def add_export_parser(sub: argparse._SubParsersAction[Any]) -> None:
    export = sub.add_parser(
        "export",
        help="write a recording as MCAP (Foxglove, ROS 2)",
        description="Replay a recording (made with 'saphira run --record') through the link and the reflector "
        "and write what the run saw as MCAP, with Foxglove's well-known schemas: /pose, /odom, /tf, /sonar, "
        "/laser, /world, /artifacts, /behaviors and /log (docs/replay.md). Needs foxglove-sdk: pip install "
        "'saphira[foxglove]'. Exit status 0 when written, 2 if the recording cannot be read or is empty (no "
        "event), or for a bad option.",
    )
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


def _params(args: argparse.Namespace) -> RobotParams | None:
    from saphira.params.robot_params import find_params_file, load_params

    return load_params(find_params_file(args.params)) if args.params else None


def run_export(args: argparse.Namespace) -> int:
    if args.ros2:
        from saphira.app.ros2 import INSTALL, installed

        if not installed():
            print(f"saphira export: {INSTALL.replace('--ros2', 'export --ros2')}", file=sys.stderr)
            return 2
        from saphira.ros2.bag import export_bag

        cycles, count = export_bag(args.file, args.output, world=args.world, params=_params(args))
        print(f"exported {cycles} cycles ({count} ROS 2 messages) to {args.output}")
        return 0
    from saphira.record.mcap_export import export

    cycles = export(args.file, args.output, world=args.world, params=_params(args))
    print(f"exported {cycles} cycles to {args.output}")
    return 0


def view_replay(args: argparse.Namespace) -> int:
    """``--plot`` and/or ``--ui``: the recording drawn, or played in the live view."""
    from saphira.record.playback import Playback, recorded_world

    playback = Playback.open(args.file, _params(args))
    world = recorded_world(playback.info, args.world)
    if args.plot:
        from saphira.app.plot import plot_run
        from saphira.app.trace import PLOT_SCANS, RunTrace

        trace = RunTrace(playback.robot, hits=True, scans=PLOT_SCANS)
        playback.robot.scheduler.add(trace)
        while not playback.done:
            playback.step()
        out = plot_run(args.plot, trace.path, trace.hits, world, title=f"replay of {args.file}",
                       radius=playback.robot.params.robot_radius, scans=trace.scans)  # fmt: skip
        print(f"replayed {playback.cycles} cycles; plot written to {out}")
    if args.ui is not None:
        from saphira.ui.replay_view import serve_replay

        try:
            return serve_replay(playback.restart(), world, args.ui)
        except OSError as exc:  # the port was taken after the command line's check
            print(f"saphira replay: {exc}", file=sys.stderr)
            return 2
    return 0
