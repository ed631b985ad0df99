"""``saphira replay REC``: check a recording against its replay, or draw it (``--plot PNG``) or play it (``--ui``).

The parser imports neither matplotlib, aiohttp nor foxglove-sdk: they are imported when one of these is asked for.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from saphira.app.commands import Command
from saphira.core.argtypes import plot_file
from saphira.core.outfile import EXISTING_OUTPUT
from saphira.ui.options import DEFAULT_HOST, ui_address, ui_port_problem

FOXGLOVE_PORT = 8765
"""The port Foxglove's viewers try first."""

if TYPE_CHECKING:
    from saphira.params.robot_params import RobotParams

__all__ = [
    "COMMAND",
    "add_arguments",
    "add_foxglove_option",
    "add_replay_options",
    "params_option",
    "run",
    "view_replay",
]


def add_replay_options(parser: argparse.ArgumentParser) -> None:
    """``--plot``, ``--ui`` and ``--world`` on ``saphira replay``."""
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


def params_option(args: argparse.Namespace) -> RobotParams | None:
    from saphira.params.robot_params import find_params_file, load_params

    return load_params(find_params_file(args.params)) if args.params else None


def view_replay(args: argparse.Namespace) -> int:
    """``--plot`` and/or ``--ui``: the recording drawn, or played in the live view."""
    from saphira.record.playback import Playback, recorded_world

    playback = Playback.open(args.file, params_option(args))
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``replay`` arguments."""
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--params", metavar="P", help="parameter file, if the recording's robot had none bundled")
    add_replay_options(parser)


def run(args: argparse.Namespace) -> int:
    """``saphira replay``: the reflector states compared cycle by cycle (exit 0 when all match), or
    :func:`view_replay` with ``--plot`` or ``--ui``."""
    from saphira.record.recording import replay

    if args.plot or args.ui is not None:
        return view_replay(args)
    report = replay(args.file, params_option(args))
    print(f"replayed {report.cycles} cycles; compared {report.compared} reflector states; {report.differ} differ")
    for cycle, expected, got in report.mismatches[:10]:
        print(f"  cycle {cycle}: recorded {expected} / replayed {got}")
    if report.problem:
        print(f"recording ended early: {report.problem}")
    return 0 if report.matches and not report.problem else 1


COMMAND = Command(
    "replay",
    help="replay a recorded session",
    arguments="FILE",
    summary="replay a --record'ed session through the link and reflector, comparing states; or\n"
    "draw it (--plot PNG) or play it in the live view (--ui)",
    description="Feed a recording (made with 'saphira run --record') back through the link and the state "
    "reflector with no robot attached, and compare the reflector state with the recorded one, cycle by "
    "cycle. A recording that ended early (cut mid-line, or without the end line a clean close writes) is "
    "replayed up to its last complete line and the place it ends is reported. Exit status 0 when every "
    "cycle matches, 1 if one differs or the recording ended early, 2 if it is empty (no event: a run that "
    "never reached its robot) or not a recording, or for a --ui port another program holds or a bad option.",
    epilog="With --plot or --ui the recording is drawn or played instead of checked; --ui serves until "
    "Ctrl-C or SIGTERM (status 130 or 143). docs/replay.md says what a recording holds.",
    add_arguments=add_arguments,
    run=run,
    check=lambda args: ui_port_problem(args.ui),
)
