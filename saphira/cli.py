"""The ``saphira`` command: run activities, the simulator, the Colbert shell, checks and listings."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

from saphira import __version__

COMMANDS_HELP = """\
commands:
  run FILE...     run Colbert activities (.act), behaviors (.beh) and Python plugins (.py) against a
                  robot (--robot URL) or, by default, the embedded simulator in lock-step
  sim             run the Pioneer simulator as a server on 127.0.0.1:8101 (or a pseudo-terminal)
  shell           the interactive Colbert evaluator, with or without a robot
  check FILE...   parse and compile .act/.beh files; report every error; exit 1 if any
  params          list the bundled robot parameter files
  worlds          list the bundled simulator worlds and maps
  replay FILE     replay a --record'ed session through the link and reflector, comparing states
  map WORLD       convert a simulator world into a Saphira map file of WALL artifacts

Run 'saphira COMMAND --help' for a command's options.
"""


def _add_logging(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    group.add_argument("-q", "--quiet", action="store_true", help="only errors")


def _add_robot_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--robot", metavar="URL",
        help="robot to connect to: tcp://HOST[:PORT] (default port 8101), serial:///dev/ttyUSB0?baud=9600, "
        "or any pyserial URL. Without it, the embedded simulator is used, in lock-step.",
    )
    parser.add_argument("--world", metavar="W", default="simple",
                        help="simulator world: a bundled name (see 'saphira worlds') or a .wld/.map path "
                        "(default: simple)")
    parser.add_argument("--params", metavar="P", default="p3dx",
                        help="robot parameter file for the embedded simulator: a bundled name (see 'saphira "
                        "params') or a .p path (default: p3dx)")
    parser.add_argument("--seed", type=int, default=0, help="simulator random seed (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="saphira",
        description="Saphira for Python: Colbert activities and fuzzy behaviors for Pioneer robots.",
        epilog=COMMANDS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"saphira {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run", help="run activity files",
        description="Load the files into one Colbert environment and run the scheduler. Top-level "
        "activities started by the files run until they finish, --duration runs out, or Ctrl-C. "
        "Messages from activities print as plain lines; a live status line shows on a terminal.",
        epilog="exit status: 0 when every top-level activity succeeded (or none ran), 1 when one failed "
        "or timed out, 2 for a load or connection error.",
    )
    run.add_argument("files", nargs="+", metavar="FILE", help=".act, .beh or .py files, loaded in order")
    _add_robot_options(run)
    run.add_argument("--duration", type=float, metavar="S",
                     help="stop after S seconds of robot time (default: when the activities end)")
    run.add_argument("--realtime", action="store_true",
                     help="pace the embedded simulator in real time instead of as fast as possible")
    run.add_argument("--plot", metavar="PNG", help="write the trajectory over the world, with sonar hits "
                     "(needs matplotlib: pip install 'saphira[plot]')")
    run.add_argument("--record", metavar="FILE", help="record every packet, both ways, with cycle stamps")
    _add_logging(run)

    from saphira.sim import standalone

    sim_parser = standalone.build_parser(add_help=False)
    sub.add_parser("sim", help="run the simulator server", parents=[sim_parser], description=sim_parser.description,
                   epilog=sim_parser.epilog, formatter_class=argparse.RawDescriptionHelpFormatter)

    shell = sub.add_parser(
        "shell", help="interactive Colbert evaluator",
        description="Type Colbert statements, definitions, start/signal commands, load and help. An "
        "expression prints its value and type. Errors never end the shell; 'exit' or Ctrl-D does.",
    )
    shell.add_argument("files", nargs="*", metavar="FILE", help="files to load first")
    _add_robot_options(shell)
    shell.add_argument("--no-sim", action="store_true", help="start without a robot or simulator")
    _add_logging(shell)

    check = sub.add_parser(
        "check", help="check .act/.beh files",
        description="Parse and compile each file and report every error found, as file:line:col with the "
        "offending line and a caret. Exit status 1 if any error was found.",
    )
    check.add_argument("files", nargs="+", metavar="FILE")

    sub.add_parser("params", help="list bundled parameter files", description="List the bundled robot "
                   "parameter files (use the name with --params; SAPHIRA_PARAMS adds directories searched first).")
    sub.add_parser("worlds", help="list bundled worlds", description="List the bundled simulator worlds "
                   "and maps (use the name with --world).")

    replay = sub.add_parser(
        "replay", help="replay a recorded session",
        description="Feed a recording (made with 'saphira run --record') back through the link and the state "
        "reflector with no robot attached, and compare the reflector state with the recorded one, cycle by "
        "cycle. Exit status 1 if any cycle differs.",
    )
    replay.add_argument("file", metavar="FILE")
    replay.add_argument("--params", metavar="P", help="parameter file, if the recording's robot had none bundled")

    from saphira.perception.worldmap import add_map_parser

    add_map_parser(sub)
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
    from saphira.params import bundled_params, find_params_file, load_params

    for name in bundled_params():
        p = load_params(find_params_file(name))
        print(f"{name:10s} {p.robot_class:8s} {p.subclass:10s} {p.sonar_num:2d} sonars  radius {p.robot_radius:.0f} mm")
    return 0


def cmd_worlds(args: argparse.Namespace) -> int:
    from saphira.paths import data_dir
    from saphira.sim.world import load_world

    for path in sorted(data_dir("maps").iterdir()):
        if path.suffix not in (".wld", ".map"):
            continue
        world = load_world(path)
        x0, y0, x1, y1 = world.bounds
        start = world.start_pose
        where = f"start ({start.x:.0f}, {start.y:.0f}, {start.th:.0f})" if start else "no start pose"
        print(f"{path.stem:10s} {path.suffix} {len(world.segments):4d} walls  {(x1 - x0) / 1000:.0f} x "
              f"{(y1 - y0) / 1000:.0f} m  {where}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from saphira.params import find_params_file, load_params
    from saphira.recording import replay

    params = load_params(find_params_file(args.params)) if args.params else None
    report = replay(args.file, params)
    print(f"replayed {report.cycles} cycles; compared {report.compared} reflector states; "
          f"{len(report.mismatches)} differ")
    for cycle, expected, got in report.mismatches[:10]:
        print(f"  cycle {cycle}: recorded {expected} / replayed {got}")
    return 0 if report.matches else 1


def cmd_sim(args: argparse.Namespace) -> int:
    from saphira.sim import standalone

    return standalone.run(args)


def cmd_run(args: argparse.Namespace) -> int:
    from saphira.app import run_files

    return run_files(args)


def cmd_shell(args: argparse.Namespace) -> int:
    from saphira.colbert.repl import run_shell

    return run_shell(args)


def cmd_check(args: argparse.Namespace) -> int:
    from saphira.colbert.check import check_files

    return check_files(args.files)


def cmd_map(args: argparse.Namespace) -> int:
    from saphira.perception.worldmap import cmd_map as convert

    return convert(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": cmd_run, "sim": cmd_sim, "shell": cmd_shell, "check": cmd_check,
    "params": cmd_params, "worlds": cmd_worlds, "replay": cmd_replay,
    "map": cmd_map,
}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    from saphira.errors import SaphiraError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
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
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
