"""``saphira sim``: the simulator as a real-time server on TCP ports or pseudo-terminals.

Each robot gets one line: a TCP port on ``--host`` (``--port``, ``--port`` + 1, …; port 0 lets the
system choose), with ``--unix PATH`` a unix-domain socket (the manual's local pipe, ``unix://PATH``),
or, with ``--pty``, a pseudo-terminal whose path is printed, so a client's serial code path
(``serial:///dev/pts/5``) is exercised with no hardware. Each line serves one client at a time;
a second TCP client is accepted and closed at once, and the first keeps working. When a client closes
or vanishes its robot stops and the line serves the next client, session after session.

Timing: a drift-free 100 ms cycle (the one serve loop, :mod:`saphira.sim.serve`; the lines are
:mod:`saphira.sim.lines`). The time between cycles is spent waiting on the sockets with ``select``, so
handshake replies and CONFIG go out as soon as the client's packet arrives; at each cycle boundary the
world advances and every open session gets its
SIP. Ctrl-C, SIGTERM or a client's SIM_EXIT end the program cleanly; SIM_EXIT only when exits are
allowed (:func:`~saphira.app.exposure.exit_allowed`: on loopback, a unix socket or a pseudo-terminal
unless ``--no-exit``; on any other address only with ``--allow-exit``). A client that does not complete its handshake
within ``--handshake-timeout`` is hung up; LOADWORLD reads only bundled worlds and files under
``--world-dir`` (:mod:`saphira.sim.world_requests`). docs/servers-security.md says what each server
accepts from a client.
``--ui [HOST:]PORT`` also serves the simulator's window as a web page (:mod:`saphira.ui.simview`).

Run it as ``saphira sim …`` or ``python -m saphira.app.sim …``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
from collections.abc import Sequence

from saphira.app.commands import Command, add_verbosity
from saphira.app.exposure import exit_allowed, world_access
from saphira.app.simulators import chosen, front_ends
from saphira.core.argtypes import folder, non_negative_seconds, port, positive_int, positive_seconds, seed
from saphira.core.errors import SaphiraError
from saphira.core.interrupts import StopSignals
from saphira.core.jit import warm_up
from saphira.params.laser import with_laser
from saphira.params.robot_params import RobotParams, params_for_file
from saphira.sim.lines import CannotListen, LinePlan, PioneerLines, open_lines
from saphira.sim.serve import serve
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.session import ServerOptions
from saphira.sim.simulation import Simulation
from saphira.ui.options import add_ui_options
from saphira.world.world import World, load_world

log = logging.getLogger("saphira.sim")

DEFAULT_PORT = 8101
DEFAULT_HANDSHAKE_TIMEOUT = 5.0
"""Seconds a client has to complete its handshake (Flat: to send its first line) before it is hung up."""


DESCRIPTION = (
    "Run the Pioneer simulator as a real-time server. Each robot listens on its own TCP port (or pseudo-terminal) "
    "and serves one client at a time, session after session; ARIA-based clients and Saphira clients connect as to "
    "a real robot."
)
EPILOG = (
    "Stop with Ctrl-C or SIGTERM (exit status 130 or 143; with --flat and --gamebots too), or from a "
    "client with SIM_EXIT (its code; Flat: 'e'), which only a server on loopback, a unix socket or a "
    "pseudo-terminal obeys by default: on another --host give --allow-exit. Exit status 2 for a bad option "
    "or a port in use. What each server accepts from a client: docs/servers-security.md."
)


def build_parser(*, add_help: bool = True) -> argparse.ArgumentParser:
    """The ``saphira sim`` options as a program of their own (``python -m saphira.app.sim``). ``add_help=False``
    makes it usable as a parent parser (``sub.add_parser("sim", parents=[build_parser(add_help=False)])``,
    then :func:`run`)."""
    parser = argparse.ArgumentParser(prog="saphira sim", add_help=add_help, description=DESCRIPTION, epilog=EPILOG)
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``saphira sim`` options, the other front ends' (:mod:`saphira.app.simulators`) among them."""
    parser.add_argument(
        "--world",
        metavar="W",
        default="simple",
        help="world: a bundled name (see 'saphira worlds') or a .wld/.map path (default: simple)",
    )
    parser.add_argument(
        "--params",
        metavar="P",
        default="p3dx",
        help="robot parameter file: a bundled name (see 'saphira params') or a .p path, read over its model's "
        "built-in parameters as ARIA does (default: p3dx)",
    )
    parser.add_argument(
        "--port",
        type=port,
        default=DEFAULT_PORT,
        help=f"TCP port of the first robot; robot k listens on PORT+k-1 (default {DEFAULT_PORT}; 0 picks free ports)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--robots", type=positive_int, default=1, metavar="N", help="number of robots (default 1)")
    parser.add_argument(
        "--pty",
        action="store_true",
        help="serve each robot on a pseudo-terminal instead of TCP (prints its path)",
    )
    parser.add_argument(
        "--unix",
        metavar="PATH",
        nargs="?",
        const="",
        help="serve on a unix-domain socket at PATH (default: $SAPHIRA_COMPIPE) instead of TCP (robot "
        "k > 1: PATH-k), the manual's local pipe: clients reach it with 'connect local' and "
        "SAPHIRA_COMPIPE=PATH, or unix://PATH",
    )
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--period", type=positive_seconds, default=0.1, metavar="S", help="cycle time in seconds (default 0.1)"
    )
    parser.add_argument(
        "--watchdog",
        type=non_negative_seconds,
        default=2.0,
        metavar="S",
        help="stop a robot whose client is silent this long (default 2; 0 = off)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=non_negative_seconds,
        default=60.0,
        metavar="S",
        help="drop a client that sends no valid packet (Flat: no line) for this long (default 60; 0 = never)",
    )
    parser.add_argument(
        "--handshake-timeout",
        type=non_negative_seconds,
        default=DEFAULT_HANDSHAKE_TIMEOUT,
        metavar="S",
        help=f"hang up a client that has not completed its handshake (Flat: sent its first line; Gamebots: "
        f"INIT) this long after connecting (default {DEFAULT_HANDSHAKE_TIMEOUT:g}; 0 = never)",
    )
    parser.add_argument(
        "--world-dir",
        metavar="DIR",
        type=folder,
        help="let clients load world files under DIR (LOADWORLD, Flat's 'm'); without it only bundled worlds",
    )
    parser.add_argument(
        "--params-dir",
        metavar="DIR",
        type=folder,
        help="with --ui: let the window's Files→Load Params read parameter files under DIR (no links "
        "followed); without it only bundled ones",
    )
    exits = parser.add_mutually_exclusive_group()
    exits.add_argument(
        "--allow-exit",
        action="store_true",
        help="let any client end the program (SIM_EXIT, Flat's 'e'); the default only on loopback, "
        "--unix and --pty: with another --host anyone who reaches the port could stop the simulator",
    )
    exits.add_argument(
        "--no-exit", action="store_true", help="ignore SIM_EXIT (Flat: 'e' only ends that connection), on any address"
    )
    parser.add_argument("--no-odometry-error", action="store_true", help="report exact odometry")
    parser.add_argument(
        "--laser",
        action="store_true",
        help="every robot carries a laser: on the Pioneer protocol the SICK LMS-200 its parameter file describes "
        "(even one that says LaserPossessed false), streamed to clients whose parameter file declares a laser "
        "(saphira run --params p3dx-laser); with --gamebots a RangeScanner",
    )
    for front in front_ends():
        front.module.add_options(parser)
    add_ui_options(parser, speed=False)
    add_verbosity(parser)


def _load(args: argparse.Namespace) -> tuple[World, RobotParams]:
    world = load_world(args.world)
    params = params_for_file(args.params)
    if args.laser:
        params = with_laser(params)
    return world, params


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``saphira sim`` with ``argv`` (without the program name); returns the exit status (2 for a bad
    option, as argparse exits)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    return run(args)


def _check(args: argparse.Namespace) -> str | None:
    """The rules between options (each option's value is checked as it is read: :mod:`saphira.core.argtypes`)."""
    if args.unix == "":  # --unix without a path: the socket SAPHIRA_COMPIPE names, as clients read it
        args.unix = os.environ.get("SAPHIRA_COMPIPE", "").removeprefix("unix://")
        if "/" not in args.unix or "://" in args.unix:
            return "--unix needs a socket PATH (or SAPHIRA_COMPIPE set to one)"
    if args.pty and args.unix is not None:
        return "--pty and --unix exclude each other: choose one kind of line"
    if args.port and args.port + args.robots - 1 > 65535:
        return f"--port {args.port} with --robots {args.robots} runs past port 65535"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the simulator with parsed :func:`build_parser` options until it is stopped; the exit status."""
    simulator, problem = chosen(args)
    problem = problem or _check(args)
    if problem is not None:
        print(f"saphira sim: {problem}", file=sys.stderr)
        return 2
    level = logging.ERROR if args.quiet else (logging.INFO, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    # Before any line listens: a client's handshake must not wait for the kernels to compile (seconds,
    # the first time after an install) or load.
    warm_up()
    if simulator is not None:
        return simulator.module.serve(args)
    try:
        world, params = _load(args)
    except (SaphiraError, OSError) as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    options = ServerOptions(
        watchdog=args.watchdog or None,
        # A pseudo-terminal is local, and hanging it up only resets it: no deadline there.
        handshake_timeout=None if args.pty else args.handshake_timeout or None,
        idle_timeout=args.idle_timeout or None,
        allow_exit=exit_allowed(args, None if args.pty or args.unix is not None else args.host),
        hangup_on_close=not args.pty,
        worlds=world_access(args),
        load_in_background=True,
    )
    simulation = Simulation(world, args.seed, odometry_error=not args.no_odometry_error)
    host = ServedSimulation(simulation, period=args.period)
    for k in range(args.robots):
        robot = simulation.add_robot(params, name=f"{params.name}-{k + 1}" if args.robots > 1 else None)
        host.add(PioneerServer(simulation, robot, options=options, period=args.period, label=f"robot {k + 1}"))
    plan = LinePlan(pty=args.pty, unix=args.unix, host=args.host, port=args.port)
    try:
        lines = open_lines(host.servers, plan)
    except CannotListen as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    front = PioneerLines(host, lines, "127.0.0.1" if args.pty or args.unix is not None else args.host)
    view = None
    view_lines: list[str] = []  # the live view's URL, printed with the "listening on" lines
    signals = StopSignals(deferring=True)
    if getattr(args, "ui", None) is not None:
        from saphira.app.sim_ui import start_view, window_menus
        from saphira.ui.simview import SimView

        view = SimView(simulation)
        window_menus(view, args, signals)
        view.worlds = options.worlds
        view.lines = front
        view.take_params = functools.partial(_take_params, host, args)
        view.params_folder = args.params_dir
        failed = start_view(view, args.ui, front.close, view_lines.append)
        if failed is not None:
            return failed

    def announce() -> None:
        for said in view_lines:
            print(said, flush=True)
        for k, line in enumerate(lines):
            identity = line.server.identity
            print(
                f"listening on {line.address} (robot {k + 1}: {identity.name}, {identity.subclass}, "
                f"world {world.name})",
                flush=True,
            )

    try:
        status = serve(
            front, args.period, announce=announce, on_cycle=None if view is None else view.cycle, signals=signals
        )
    finally:
        if view is not None:
            view.stop()
    with contextlib.suppress(OSError, ValueError):
        print(f"simulator stopped{_troubles(host)}", flush=True)
    return status


def _take_params(host: ServedSimulation, args: argparse.Namespace, index: int, params: RobotParams) -> None:
    """The sim window's Files→Load Params: robot ``index`` rebuilt from ``params`` where it stands; its
    line hangs up the client (told the old robot's CONFIG) and serves the new one to the next."""
    if getattr(args, "laser", False):
        params = with_laser(params)
    server = host.servers[index]
    name = f"{params.name}-{index + 1}" if args.robots > 1 else None
    server.replace_robot(host.simulation.replace_robot(server.robot, params, name))


def _troubles(host: ServedSimulation) -> str:
    """What clients were refused, for the closing line (empty when nothing was)."""
    late = sum(s.stats.handshake_timeouts for s in host.servers)
    refused = sum(s.stats.worlds_refused for s in host.servers)
    parts = [f"{late} client(s) hung up without a handshake"] if late else []
    parts += [f"{refused} world request(s) refused"] if refused else []
    return f" ({'; '.join(parts)})" if parts else ""


COMMAND = Command(
    "sim",
    help="run the simulator server",
    summary="run the Pioneer simulator as a server on 127.0.0.1:8101 (or a pseudo-terminal), or\n"
    "serve it to Flat4 controllers (--flat PORT) or Gamebots clients (--gamebots PORT)",
    description=DESCRIPTION,
    epilog=EPILOG,
    add_arguments=add_arguments,
    run=run,
    raw_text=True,
)

if __name__ == "__main__":
    sys.exit(main())
