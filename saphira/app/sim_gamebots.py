"""``saphira sim --gamebots PORT``: the command-line side of the Gamebots server (options checked, assembly).

The options are part of ``saphira sim`` (:mod:`saphira.app.sim`); :func:`run` loads ``--world``,
listens on ``--host``:PORT with :class:`~saphira.gamebots.server.listener.GamebotsServer` and serves it in the
one real-time serve loop (:func:`saphira.sim.serve.serve`) until Ctrl-C or SIGTERM (130, 143).
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from saphira.core.errors import SaphiraError
from saphira.gamebots.models import known_classes
from saphira.gamebots.server.laser import RangeScanner
from saphira.gamebots.server.listener import INIT_TIMEOUT, GamebotsServer
from saphira.gamebots.server.session import MAX_ROBOTS
from saphira.sim.serve import serve
from saphira.sim.simulation import Simulation
from saphira.world.world import load_world


def run(args: argparse.Namespace) -> int:
    """``saphira sim --gamebots PORT``: serve the world until Ctrl-C or SIGTERM; the exit status."""
    try:
        world = load_world(args.world)
    except (SaphiraError, OSError) as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    max_robots = MAX_ROBOTS if getattr(args, "max_robots", None) is None else args.max_robots
    if max_robots < 1:
        print("saphira sim: --max-robots must be at least 1", file=sys.stderr)
        return 2
    per_host = getattr(args, "max_robots_per_host", None)
    if per_host is not None and per_host < 1:
        print("saphira sim: --max-robots-per-host must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.gamebots <= 65535:
        print(f"saphira sim: --gamebots {args.gamebots} is not a port number (0-65535; 0 picks one)", file=sys.stderr)
        return 2
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

    status = serve(server, args.period, announce=announce)
    with contextlib.suppress(OSError, ValueError):
        turned = server.refused + server.dropped
        print(
            f"simulator stopped{f' ({turned} socket(s) closed: over the cap or no INIT)' if turned else ''}", flush=True
        )
    return status
