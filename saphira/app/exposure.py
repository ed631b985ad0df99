"""What ``saphira sim`` lets a client do, by where it listens: exits and world files.

A server on loopback, a unix socket or a pseudo-terminal is reached only from this host, and ARIA
and AMRISim users rely on ending it from a client (SIM_EXIT, Flat's ``e``). On any other address
whoever reaches the port could stop the simulator, so exits are then honoured only with
``--allow-exit`` (docs/servers-security.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from pathlib import Path

from saphira.core.hosts import is_loopback
from saphira.sim.world_requests import WorldAccess


def exit_allowed(args: argparse.Namespace, host: str | None) -> bool:
    """Whether a client may end the program: ``--allow-exit`` / ``--no-exit`` when given, else only
    where no other host reaches it (``host`` None: a unix socket or a pseudo-terminal)."""
    if getattr(args, "allow_exit", False) or getattr(args, "no_exit", False):
        return bool(args.allow_exit)
    return host is None or is_loopback(host)


def world_access(args: argparse.Namespace, listed: Collection[Path] = ()) -> WorldAccess:
    """What clients may have loaded: bundled worlds and files under ``--world-dir``."""
    return WorldAccess(folder=getattr(args, "world_dir", None), listed=frozenset(listed))
