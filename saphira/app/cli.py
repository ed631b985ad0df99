"""The ``saphira`` command: run activities, the simulator, the Colbert shell, checks and listings.

Each subcommand is a :class:`~saphira.app.commands.Command` its ``app/<cmd>.py`` exports; :func:`commands`
is the table. :func:`main` parses, makes the checks between options, and runs the command with the exit
statuses every command shares (2 for a usage or load error, 130/143 on a signal, 141 on a closed pipe).
"""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from saphira import __version__
from saphira.app.commands import Command, command_list
from saphira.app.robot_options import robot_misuse
from saphira.core.interrupts import signalled
from saphira.ui.options import check_speed


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr (the usage itself is in ``--help``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def commands() -> tuple[Command, ...]:
    """Every subcommand, in the order ``saphira --help`` lists them: each module's :class:`Command`. A new
    command is its ``app/<cmd>.py`` and one line here."""
    from saphira.app import check, export, map, params, replay, run, shell, sim, worlds
    from saphira.app.batch import command as batch
    from saphira.app.batch import tune

    return (run.COMMAND, sim.COMMAND, shell.COMMAND, check.COMMAND, params.COMMAND, worlds.COMMAND,
            replay.COMMAND, export.COMMAND, map.COMMAND, batch.COMMAND, tune.COMMAND)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    table = commands()
    parser = _Parser(
        prog="saphira",
        description="Saphira for Python: Colbert activities and fuzzy behaviors for Pioneer robots.",
        epilog=command_list(table),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"saphira {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in table:
        command.add_to(sub)
    return parser


def configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("saphira")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


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

    command = next(command for command in commands() if command.name == args.command)
    misuse = check_speed(args) or robot_misuse(args) or ros2_misuse(args)
    if misuse is None and command.check is not None:  # before the robot or the recording ('sim' says it itself)
        misuse = command.check(args)
    if misuse is not None:
        parser.exit(2, f"saphira {args.command}: {misuse}\n")
    configure_logging(getattr(args, "verbose", 0), getattr(args, "quiet", False))
    try:
        return command.run(args)
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
