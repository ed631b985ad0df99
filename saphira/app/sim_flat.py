"""``saphira sim --flat PORT``: the command-line side of the Flat server (options, panel, signals).

A ``saphira.simulators`` entry point (:mod:`saphira.app.simulators`): the options are part of ``saphira sim``
(:func:`add_options`, their misuse :func:`check`); :func:`serve` builds the simulation from
``--world`` or ``--flat-world``, listens on ``--host``:PORT and serves until a controller sends ``e``
(when exits are allowed: :mod:`saphira.app.exposure`), Ctrl-C or SIGTERM (130, 143), in the one
serve loop of the simulators (:func:`saphira.sim.serve.serve`). The control panel's
buttons are ``--flat-stopped`` / ``--flat-steps N`` and the lines
``START``, ``STOP``, ``STEP [n]`` on the standard input.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from typing import TextIO

from saphira.app.exposure import exit_allowed, world_access
from saphira.core.argtypes import non_negative_int, port
from saphira.core.errors import SaphiraError
from saphira.core.interrupts import StopSignals
from saphira.flat.server.listener import POLL_PERIOD, FlatServer
from saphira.flat.server.simulation import FlatOptions, FlatSimulation
from saphira.sim.serve import serve as serve_loop
from saphira.world.flat_world import load_world_file
from saphira.world.world import load_world


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add the ``--flat*`` options to ``saphira sim``."""
    group = parser.add_argument_group("Flat4 controller protocol (docs/flat.md)")
    group.add_argument(
        "--flat",
        type=port,
        metavar="PORT",
        help="serve one Flat4 controller on PORT (0: any free port) instead of the Pioneer protocol",
    )
    group.add_argument(
        "--flat-world",
        metavar="FILE",
        help="a Flat World file (maps and their transitions); its default map replaces --world",
    )
    group.add_argument(
        "--flat-lasers",
        type=int,
        choices=(0, 1, 2),
        default=1,
        help="lasers on the robot: 0, 1 (TOP) or 2 (LEFT and RIGHT) (default 1)",
    )
    group.add_argument("--flat-no-sonar", action="store_true", help="send no sonar readings")
    group.add_argument(
        "--flat-realtime",
        action="store_true",
        help="real-time mode: a step lasts what the wall clock says (default: 100 ms per step)",
    )
    group.add_argument(
        "--flat-stopped",
        action="store_true",
        help="start stopped (STOP pressed); type START, STOP or STEP [n] on the standard input",
    )
    group.add_argument("--flat-steps", type=non_negative_int, metavar="N", help="start stopped and press STEP N times")


def _panel(server: FlatServer, stream: TextIO) -> None:
    """Read START / STOP / STEP [n] lines and press the buttons."""
    for line in stream:
        if not line.strip():
            continue
        try:
            server.press(line)
        except ValueError as exc:
            print(f"saphira sim --flat: {exc}", file=sys.stderr, flush=True)


def check(args: argparse.Namespace) -> str | None:
    """The Flat options given without ``--flat`` (a Pioneer or Gamebots server would ignore them), and
    ``--laser`` with it."""
    if args.flat is None:
        for option in ("flat_world", "flat_no_sonar", "flat_realtime", "flat_stopped", "flat_steps"):
            if getattr(args, option, None) not in (None, False):
                return f"--{option.replace('_', '-')} needs --flat PORT"
        return None
    if getattr(args, "laser", False):
        return "--laser is for the Pioneer and Gamebots servers (a Flat World sets its own lasers)"
    return None


def serve(args: argparse.Namespace) -> int:
    """Serve a Flat controller as the options say; the exit status."""
    stopped = args.flat_stopped or args.flat_steps is not None
    try:
        flat_world = load_world_file(args.flat_world) if args.flat_world else None
        world = None if flat_world is not None else load_world(args.world)
        options = FlatOptions(args.flat_lasers, not args.flat_no_sonar)
        flat = FlatSimulation(world, flat_world=flat_world, seed=args.seed, options=options, access=world_access(args))
        server = FlatServer(
            flat,
            args.host,
            args.flat,
            realtime=args.flat_realtime,
            running=not stopped,
            allow_exit=exit_allowed(args, args.host),
            handshake_timeout=getattr(args, "handshake_timeout", None) or None,
            idle_timeout=getattr(args, "idle_timeout", None) or None,
        )
    except (SaphiraError, OSError) as exc:
        print(f"saphira sim: {exc}", file=sys.stderr)
        return 2
    if args.flat_steps:
        server.step(args.flat_steps)
    host, port = server.address
    mode = "real-time" if args.flat_realtime else "standard"
    view = None
    view_lines: list[str] = []  # the live view's URL, printed with the "listening on" lines
    signals = StopSignals(deferring=True)
    if getattr(args, "ui", None) is not None:
        from saphira.app.sim_ui import FlatView, start_view, window_menus

        view = FlatView(flat, server)
        window_menus(view, args, signals)
        failed = start_view(view, args.ui, server.close, view_lines.append)
        if failed is not None:
            return failed

    def announce() -> None:
        for said in view_lines:
            print(said, flush=True)
        print(
            f"listening on {host}:{port} (Flat4 controller, map {flat.map_name}, {args.flat_lasers} laser(s), "
            f"{mode} mode{', stopped' if stopped else ''})",
            flush=True,
        )
        threading.Thread(target=_panel, args=(server, sys.stdin), name="flat-panel", daemon=True).start()

    try:
        status = serve_loop(server, POLL_PERIOD, announce=announce, signals=signals)
    finally:
        if view is not None:
            view.stop()
    with contextlib.suppress(OSError, ValueError):
        dropped = f" ({server.dropped} controller(s) dropped)" if server.dropped else ""
        print(f"simulator stopped after {server.steps} steps{dropped}", flush=True)
    return status
