"""``saphira sim --gamebots PORT``: the command-line side of the Gamebots server (options checked, assembly).

A ``saphira.simulators`` entry point (:mod:`saphira.app.simulators`): the options are part of ``saphira sim``
(:func:`add_options`, their misuse :func:`check`); :func:`serve` loads ``--world``,
listens on ``--host``:PORT with :class:`~saphira.gamebots.server.listener.GamebotsServer` and serves it in the
one real-time serve loop (:func:`saphira.sim.serve.serve`) until Ctrl-C or SIGTERM (130, 143).
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from saphira.core.argtypes import port, positive_int
from saphira.core.errors import SaphiraError
from saphira.gamebots.models import known_classes
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import INIT_TIMEOUT, GamebotsServer
from saphira.gamebots.server.session import MAX_ROBOTS
from saphira.sim.serve import serve as serve_loop
from saphira.sim.simulation import Simulation
from saphira.world.world import load_world


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--gamebots PORT`` and its limits to ``saphira sim``."""
    parser.add_argument(
        "--gamebots",
        type=port,
        metavar="PORT",
        help="serve USARSim's Gamebots protocol on PORT "
        "instead (one socket per robot, spawned by INIT; docs/gamebots.md)",
    )
    parser.add_argument(
        "--max-robots",
        type=positive_int,
        metavar="N",
        help=f"with --gamebots: spawn at most N robots (default {MAX_ROBOTS}); each slows every robot's cycle",
    )
    parser.add_argument(
        "--max-robots-per-host",
        type=positive_int,
        metavar="N",
        help="with --gamebots: one host (IP address) spawns at most N robots and keeps at most 2N sockets "
        "(default: half of --max-robots), so one host cannot take every place",
    )


def check(args: argparse.Namespace) -> str | None:
    """The Gamebots limits given without ``--gamebots``."""
    if args.gamebots is None:
        if args.max_robots is not None:
            return "--max-robots needs --gamebots PORT (Pioneer: --robots)"
        if args.max_robots_per_host is not None:
            return "--max-robots-per-host needs --gamebots PORT"
    return None


def serve(args: argparse.Namespace) -> int:
    """``saphira sim --gamebots PORT``: serve the world until Ctrl-C or SIGTERM; the exit status."""
    try:
        world = load_world(args.world)
    except (SaphiraError, OSError) as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    max_robots = MAX_ROBOTS if args.max_robots is None else args.max_robots
    per_host = args.max_robots_per_host
    simulation = Simulation(world, args.seed, odometry_error=not args.no_odometry_error)
    laser = RangeScanner() if getattr(args, "laser", False) else None
    try:
        server = GamebotsServer(
            simulation,
            args.host,
            args.gamebots,
            period=args.period,
            laser=laser,
            max_robots=max_robots,
            max_per_host=per_host,
            init_timeout=getattr(args, "handshake_timeout", INIT_TIMEOUT) or None,
        )
    except OSError as exc:
        print(f"saphira sim: cannot listen on {args.host}:{args.gamebots}: {exc.strerror or exc}", file=sys.stderr)
        return 2

    def announce() -> None:
        print(f"gamebots listening on {server.address} (world {world.name}; INIT {known_classes()})", flush=True)

    status = serve_loop(server, args.period, announce=announce)
    with contextlib.suppress(OSError, ValueError):
        turned = server.refused + server.dropped
        print(
            f"simulator stopped{f' ({turned} socket(s) closed: over the cap or no INIT)' if turned else ''}", flush=True
        )
    return status
