"""The ``saphira`` subcommands as one table: each ``app/<cmd>.py`` exports a :class:`Command`.

A command is its name, the texts of its parser, ``add_arguments(parser)`` for its options and ``run(args)``
for what it does (the exit status). :mod:`saphira.app.cli` builds every subparser the same way from
:data:`COMMANDS` and lists them in ``saphira --help``; adding a command is its module and one line there.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Command", "add_verbosity", "command_list"]


@dataclass(frozen=True)
class Command:
    """One ``saphira`` subcommand (see the module docstring)."""

    name: str
    help: str
    """The one line beside its name in ``saphira --help``'s COMMAND list."""
    summary: str
    """What it does, its row of ``saphira --help``'s "commands:" table (a newline starts a continuation line)."""
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    arguments: str = ""
    """Its arguments as that table shows them after the name (``FILE...``)."""
    epilog: str | None = None
    check: Callable[[argparse.Namespace], str | None] | None = None
    """The misuse of its options found only once all are read (a rule between two options), or None."""
    raw_text: bool = False
    """Its description and epilog printed as written, not rewrapped (``saphira sim``'s)."""

    def add_to(self, commands: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
        """Its parser, added to ``saphira``'s subparsers."""
        formatter = argparse.RawDescriptionHelpFormatter if self.raw_text else argparse.HelpFormatter
        parser: argparse.ArgumentParser = commands.add_parser(
            self.name, help=self.help, description=self.description, epilog=self.epilog, formatter_class=formatter
        )
        self.add_arguments(parser)
        return parser


ROW = 16
"""Width of the name-and-arguments column of the commands table."""


def command_list(commands: Sequence[Command]) -> str:
    """The "commands:" table of ``saphira --help``."""
    rows = []
    for command in commands:
        lines = command.summary.split("\n")
        rows.append(f"  {f'{command.name} {command.arguments}'.strip():<{ROW}}{lines[0]}")
        rows += [" " * (ROW + 2) + line for line in lines[1:]]
    return "commands:\n" + "\n".join(rows) + "\n\nRun 'saphira COMMAND --help' for a command's options.\n"


def add_verbosity(parser: argparse.ArgumentParser) -> None:
    """``-v`` / ``-vv`` and ``-q``, one or the other."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    group.add_argument("-q", "--quiet", action="store_true", help="only errors")
