"""The ``saphira`` command: run activities, the simulator, the Colbert shell, checks and listings."""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from saphira import __version__
from saphira.app.robot_options import Given, robot_misuse
from saphira.core.argtypes import plot_file, positive_seconds, seed
from saphira.core.interrupts import signalled
from saphira.core.outfile import EXISTING_OUTPUT
from saphira.ui.options import add_ui_options, check_speed, ui_port_problem

COMMANDS_HELP = """\
commands:
  run FILE...     run Colbert activities (.act), behaviors (.beh), Python plugins and Pyro-style brains
                  (.py) against a robot (--robot URL) or, by default, the embedded simulator in lock-step
  sim             run the Pioneer simulator as a server on 127.0.0.1:8101 (or a pseudo-terminal), or
                  serve it to Flat4 controllers (--flat PORT) or Gamebots clients (--gamebots PORT)
  shell           the interactive Colbert evaluator, with or without a robot
  check FILE...   parse and compile .act/.beh files, resolve names; report every error; exit 1 if any
  params [FILE]   list the bundled robot parameter files, or show what FILE resolves to
  worlds          list the bundled simulator worlds and maps
  replay FILE     replay a --record'ed session through the link and reflector, comparing states; or
                  draw it (--plot PNG) or play it in the live view (--ui)
  export FILE     write a recording as MCAP (-o RUN.mcap) for Foxglove and ROS 2 tools
  map WORLD       convert a simulator world into a Saphira map file of WALL artifacts
  batch EXP.toml  run an experiment's many lock-step trials (locally or on a Dask cluster) and summarise them
  tune EXP.toml   search an activity's parameters with Optuna, trials run as batch's (docs/learning.md)

Run 'saphira COMMAND --help' for a command's options.
"""


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr (the usage itself is in ``--help``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _add_logging(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    group.add_argument("-q", "--quiet", action="store_true", help="only errors")


def _add_robot_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--robot",
        metavar="URL",
        help="robot to connect to: tcp://HOST[:PORT] (default port 8101), serial:///dev/ttyUSB0?baud=9600, "
        "unix:///PATH (saphira sim --unix PATH), flat://HOST:PORT (a Flat4 simulator, docs/flat.md), "
        "usarsim://HOST:PORT?class=P2DX&location=x,y,z (a USARSim/Gamebots server, docs/gamebots.md), or any "
        "pyserial URL. Without it, the embedded simulator is used, in lock-step.",
    )
    parser.add_argument(
        "--world",
        metavar="W",
        default="simple",
        action=Given,
        help="simulator world: a bundled name (see 'saphira worlds') or a .wld/.map path (default: simple; "
        "not with --robot)",
    )
    parser.add_argument(
        "--params",
        metavar="P",
        help="robot parameter file, a bundled name (see 'saphira params') or a .p path, laid over "
        "the robot's model as ARIA does; it also configures the embedded simulator (default p3dx)",
    )
    parser.add_argument(
        "--seed", type=seed, default=0, action=Given, help="simulator random seed (default 0; not with --robot)"
    )
    _add_link_options(parser)


def _add_link_options(parser: argparse.ArgumentParser) -> None:
    """What happens when the --robot link is lost (saphira/client/link/watch.py)."""
    from saphira.client.link.base import DEFAULT_LINK_TIMEOUT
    from saphira.client.link.watch import DEFAULT_RECONNECT

    parser.add_argument(
        "--link-timeout",
        type=positive_seconds,
        metavar="S",
        help="with --robot: S seconds without a state report from the robot means the link is lost (default "
        f"{DEFAULT_LINK_TIMEOUT:g}, ARIA's connection timeout); a closed connection or serial port is lost at once",
    )
    parser.add_argument(
        "--reconnect",
        type=positive_seconds,
        nargs="?",
        const=DEFAULT_RECONNECT,
        metavar="S",
        help="with --robot: when the link is lost, suspend the activities, wait up to S seconds (default "
        f"{DEFAULT_RECONNECT:g}) for the robot, reconnect, reload its parameters and resume them. Without it a "
        "lost link ends 'run' (exit status 2) and leaves 'shell' up without a robot",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="saphira",
        description="Saphira for Python: Colbert activities and fuzzy behaviors for Pioneer robots.",
        epilog=COMMANDS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"saphira {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="run activity files",
        description="Load the files into one Colbert environment and run the scheduler. Top-level "
        "activities started by the files run until they finish, --duration runs out, or Ctrl-C or SIGTERM "
        "(either stops the robot at the end of the cycle, closes the recording and prints the summary); "
        "without --duration the run says so at the start and, off a terminal, prints a progress line every "
        "10 minutes of robot time. Every file is compiled before the robot is reached (as 'saphira check'); "
        "the plugins are loaded then, their load_init run once for the run, and the brains imported (INIT is "
        "called once connected); a load_init or an import that raises is an error too, and no robot is reached. "
        "Messages from activities print as plain lines; a live status line shows on a terminal; -q leaves "
        "only the messages and errors.",
        epilog="exit status: 0 when every top-level activity succeeded (or none ran), 1 when one failed "
        "or timed out or a brain, behavior, plugin or task raised during the run (each failure is a line of "
        "the summary), 2 for a load or connection error (a lost robot link included) or a bad option, 130 after "
        "Ctrl-C and 143 after SIGTERM (the robot stopped and the summary printed first), 141 when the reader of "
        "its output went away ('| head': the robot stopped at once).",
    )
    run.add_argument("files", nargs="+", metavar="FILE", help=".act, .beh or .py files, loaded in order")
    _add_robot_options(run)
    run.add_argument(
        "--duration",
        type=positive_seconds,
        metavar="S",
        help="run for S seconds of robot time, connecting and stopping the robot included "
        "(default: until the activities end)",
    )
    run.add_argument(
        "--realtime",
        action="store_true",
        help="pace the embedded simulator in real time instead of as fast as possible",
    )
    run.add_argument(
        "--plot",
        metavar="PNG",
        type=plot_file,
        help="write the trajectory over the world, with sonar hits, as PNG (or any format "
        "matplotlib writes, by extension: .pdf, .svg ...; needs matplotlib: pip install "
        f"'saphira[plot]') when the run ends; {EXISTING_OUTPUT}",
    )
    run.add_argument(
        "--record",
        metavar="FILE",
        help="record every packet, both ways, with cycle stamps, the "
        "behaviors and the messages; a .mcap FILE is written as MCAP instead (saphira export). It is written "
        "beside FILE and moved into place when the run ends (a killed run's too), and only if the robot was "
        "reached: a run that fails before it starts leaves an existing FILE as it was",
    )
    add_ui_options(run, allow_exit=True)
    from saphira.app.replay import add_foxglove_option

    add_foxglove_option(run)
    from saphira.app.ros2 import add_ros2_options

    add_ros2_options(run)
    _add_logging(run)

    from saphira.app import sim as standalone

    sim_parser = standalone.build_parser(add_help=False)
    sim_options = _Parser(add_help=False, parents=[sim_parser])
    sub.add_parser(
        "sim",
        help="run the simulator server",
        parents=[sim_options],
        description=sim_parser.description,
        epilog=sim_parser.epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    shell = sub.add_parser(
        "shell",
        help="interactive Colbert evaluator",
        description="Type Colbert statements, definitions, start/signal commands, load and help. An "
        "expression prints its value and type. Errors never end the shell; 'exit' or Ctrl-D does.",
        epilog="exit status: 0 after 'exit' or the end of input, 2 for a connection error or a bad option, "
        "143 after SIGTERM and 130 after Ctrl-C with input from a file or pipe (at a terminal Ctrl-C only "
        "abandons the line); either signal stops and disconnects the robot first.",
    )
    shell.add_argument("files", nargs="*", metavar="FILE", help="files to load first")
    _add_robot_options(shell)
    shell.add_argument("--no-sim", action="store_true", help="start without a robot or simulator")
    add_ui_options(shell)
    add_ros2_options(shell)
    _add_logging(shell)

    check = sub.add_parser(
        "check",
        help="check .act/.beh/.py files (runs plugins' load_init)",
        description="Parse and compile the files together, in order, as 'saphira run' loads them (what a "
        "file or plugin defines is known to the files after it), and report every error found, as "
        "file:line:col with the offending line and a caret: syntax, types, unknown names (with the closest "
        "known ones), and each 'start' of an act or behavior no file defines. 'saphira run' makes the same "
        "check before it connects. A plugin (.py) is imported and its load_init(env) and load_exit(env) run, "
        "on a robot never connected, to learn its names; a brain is imported, its INIT not called. "
        "Exit status 0 when every file checks, 1 if any error was found (a missing file included), 2 for a "
        "bad option.",
    )
    check.add_argument("files", nargs="+", metavar="FILE")

    from saphira.app.params import add_params_parser

    add_params_parser(sub)
    sub.add_parser(
        "worlds",
        help="list bundled worlds",
        description="List the bundled simulator worlds and maps (use the name with --world).",
    )

    replay = sub.add_parser(
        "replay",
        help="replay a recorded session",
        description="Feed a recording (made with 'saphira run --record') back through the link and the state "
        "reflector with no robot attached, and compare the reflector state with the recorded one, cycle by "
        "cycle. A recording that ended early (cut mid-line, or without the end line a clean close writes) is "
        "replayed up to its last complete line and the place it ends is reported. Exit status 0 when every "
        "cycle matches, 1 if one differs or the recording ended early, 2 if it is empty (no event: a run that "
        "never reached its robot) or not a recording, or for a --ui port another program holds or a bad option.",
    )
    replay.add_argument("file", metavar="FILE")
    replay.add_argument("--params", metavar="P", help="parameter file, if the recording's robot had none bundled")
    from saphira.app.replay import add_export_parser, add_replay_options

    add_replay_options(replay)
    add_export_parser(sub)

    from saphira.app.map import add_map_parser

    add_map_parser(sub)

    from saphira.app.batch.command import add_batch_parser

    add_batch_parser(sub)

    from saphira.app.batch.tune import add_tune_parser

    add_tune_parser(sub)
    return parser


def configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("saphira")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def cmd_params(args: argparse.Namespace) -> int:
    from saphira.app.params import run_params

    return run_params(args)


def cmd_worlds(args: argparse.Namespace) -> int:
    from saphira.core.paths import data_dir
    from saphira.world.world import load_world

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


def cmd_replay(args: argparse.Namespace) -> int:
    from saphira.params.robot_params import find_params_file, load_params
    from saphira.record.recording import replay

    if args.plot or getattr(args, "ui", None) is not None:
        from saphira.app.replay import view_replay

        return view_replay(args)
    params = load_params(find_params_file(args.params)) if args.params else None
    report = replay(args.file, params)
    print(f"replayed {report.cycles} cycles; compared {report.compared} reflector states; {report.differ} differ")
    for cycle, expected, got in report.mismatches[:10]:
        print(f"  cycle {cycle}: recorded {expected} / replayed {got}")
    if report.problem:
        print(f"recording ended early: {report.problem}")
    return 0 if report.matches and not report.problem else 1


def cmd_export(args: argparse.Namespace) -> int:
    from saphira.app.replay import run_export

    return run_export(args)


def cmd_sim(args: argparse.Namespace) -> int:
    from saphira.app import sim as standalone

    return standalone.run(args)


def cmd_run(args: argparse.Namespace) -> int:
    from saphira.app.run import run_files

    return run_files(args)


def cmd_shell(args: argparse.Namespace) -> int:
    from saphira.app.shell import run_shell

    return run_shell(args)


def cmd_batch(args: argparse.Namespace) -> int:
    from saphira.app.batch.command import run_batch

    return run_batch(args)


def cmd_tune(args: argparse.Namespace) -> int:
    from saphira.app.batch.tune import run_tune

    return run_tune(args)


def cmd_check(args: argparse.Namespace) -> int:
    from saphira.app.check import check_files

    return check_files(args.files)


def cmd_map(args: argparse.Namespace) -> int:
    from saphira.app.map import cmd_map as convert

    return convert(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": cmd_run, "sim": cmd_sim, "shell": cmd_shell, "check": cmd_check,
    "params": cmd_params, "worlds": cmd_worlds, "replay": cmd_replay, "batch": cmd_batch,
    "map": cmd_map, "export": cmd_export, "tune": cmd_tune,
}  # fmt: skip


def program() -> int:
    """The ``saphira`` program (``python -m saphira`` too): :func:`main`, then a quick exit.

    The interpreter's last garbage collection walks every object left, numba's compiled kernels included
    (about 1 s after a run); once the command is done nothing needs collecting, so it is skipped. Only the
    program does this: a caller of :func:`main` in a long-lived process keeps its collector.
    """
    status = main()
    gc.freeze()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``saphira`` with ``argv`` (without the program name); returns the exit status."""
    from saphira.core.errors import SaphiraError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from saphira.app.ros2 import ros2_misuse

    misuse = check_speed(args) or robot_misuse(args) or ros2_misuse(args)
    if misuse is None and args.command in (
        "run",
        "shell",
        "replay",
    ):  # before the robot or the recording ('sim' says it itself)
        misuse = ui_port_problem(args.ui)
    if misuse is not None:
        parser.exit(2, f"saphira {args.command}: {misuse}\n")
    configure_logging(getattr(args, "verbose", 0), getattr(args, "quiet", False))
    try:
        return COMMANDS[args.command](args)
    except SaphiraError as exc:
        pretty = getattr(exc, "pretty", None)
        print(f"saphira {args.command}: {pretty() if callable(pretty) else exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"saphira {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of stdout went away (``saphira params | head -3``): end quietly, with the status
        # of a program the closed pipe stopped (128 + SIGPIPE), as a shell pipeline expects.
        from saphira.app.console import discard_output

        discard_output(sys.stdout)
        return signalled(signal.SIGPIPE)
    except KeyboardInterrupt as exc:
        return signalled(getattr(exc, "signum", signal.SIGINT))


if __name__ == "__main__":
    sys.exit(program())
