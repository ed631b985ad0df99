"""``saphira sim``'s other front ends, found by entry point as links are by URL scheme.

The Pioneer server is ``saphira sim``'s own. Any other protocol's front end is a module declared in the
entry-point group ``saphira.simulators`` (``flat = "saphira.app.sim_flat"`` in ``pyproject.toml``) that has

* ``add_options(parser)``: its options on ``saphira sim``, among them ``--NAME PORT`` (``NAME`` the entry point's
  name), which chooses it instead of the Pioneer server;
* ``check(args) -> str | None``: the misuse of its options, as a one-line reason (``--flat-world needs --flat
  PORT``), whether it was chosen or not, so no option of another protocol is silently ignored;
* ``serve(args) -> int``: serve as the options say until stopped; the exit status.

So :mod:`saphira.app.sim` names no protocol, and a package adds a simulator with no edit there.
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Protocol, cast

from saphira.core.plugins import loaded_entry_points

__all__ = ["ENTRY_POINT_GROUP", "FrontEnd", "Simulator", "chosen", "front_ends"]

ENTRY_POINT_GROUP = "saphira.simulators"


class Simulator(Protocol):
    """What a ``saphira.simulators`` module provides (see the module docstring)."""

    def add_options(self, parser: argparse.ArgumentParser) -> None: ...

    def check(self, args: argparse.Namespace) -> str | None: ...

    def serve(self, args: argparse.Namespace) -> int: ...


@dataclass(frozen=True)
class FrontEnd:
    """One declared simulator: the entry point's name (its ``--NAME`` option) and its module."""

    name: str
    module: Simulator

    def chosen(self, args: argparse.Namespace) -> bool:
        """Whether ``--NAME PORT`` was given."""
        return getattr(args, self.name, None) is not None


@functools.cache
def front_ends() -> tuple[FrontEnd, ...]:
    """Every declared front end, by name. One whose module cannot be imported is left out, said on stderr
    (a broken plug-in must not take ``saphira`` down with it)."""

    def cannot_load(entry: EntryPoint, exc: Exception) -> None:
        print(f"saphira sim: the simulator {entry.name!r} ({entry.value}) cannot be loaded: {exc}", file=sys.stderr)

    loaded = loaded_entry_points(ENTRY_POINT_GROUP, cannot_load)
    return tuple(FrontEnd(entry.name, cast(Simulator, module)) for entry, module in loaded)


def chosen(args: argparse.Namespace) -> tuple[FrontEnd | None, str | None]:
    """The front end the options choose (None: the Pioneer server) and the first misuse found, or None."""
    picked = [front for front in front_ends() if front.chosen(args)]
    if len(picked) > 1:
        first, second = picked[:2]
        return None, f"--{first.name} and --{second.name} exclude each other: one simulator speaks one protocol"
    for front in front_ends():
        problem = front.module.check(args)
        if problem is not None:
            return None, problem
    return (picked[0] if picked else None), None
