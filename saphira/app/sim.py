"""``saphira sim``: the simulator as a real-time server on TCP ports or pseudo-terminals.

Each robot gets one line: a TCP port on ``--host`` (``--port``, ``--port`` + 1, …; port 0 lets the
system choose), with ``--unix PATH`` a unix-domain socket (the manual's local pipe, ``unix://PATH``),
or, with ``--pty``, a pseudo-terminal whose path is printed, so a client's serial code path
(``serial:///dev/pts/5``) is exercised with no hardware. Each line serves one client at a time;
a second TCP client is accepted and closed at once, and the first keeps working. When a client closes
or vanishes its robot stops and the line serves the next client, session after session.

Timing: a drift-free 100 ms cycle (:class:`~saphira.core.clock.RealTimeClock`). The time between cycles
is spent waiting on the sockets with ``select``, so handshake replies and CONFIG go out as soon as the
client's packet arrives; at each cycle boundary the world advances and every open session gets its
SIP. Ctrl-C, SIGTERM or a client's SIM_EXIT end the program cleanly; SIM_EXIT only when exits are
allowed (:func:`~saphira.sim.exposure.exit_allowed`: on loopback, a unix socket or a pseudo-terminal
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
import errno
import functools
import logging
import math
import os
import select
import signal
import socket
import stat
import sys
import time
import tty
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from saphira.client.transport import SocketTransport, Transport, TransportClosed
from saphira.core.argtypes import seed
from saphira.core.clock import RealTimeClock
from saphira.core.errors import SaphiraError
from saphira.core.interrupts import signalled, stop_signals
from saphira.core.jit import warm_up
from saphira.gamebots.session import MAX_ROBOTS as GAMEBOTS_MAX_ROBOTS
from saphira.params.laser import with_laser
from saphira.params.robot_params import RobotParams, params_for_file
from saphira.sim.exposure import exit_allowed, world_access
from saphira.sim.server import PioneerServer, ServedSimulation, ServerOptions
from saphira.sim.simulation import Simulation
from saphira.ui.options import add_ui_options
from saphira.world.world import World, load_world

log = logging.getLogger("saphira.sim")

DEFAULT_PORT = 8101
DEFAULT_HANDSHAKE_TIMEOUT = 5.0
"""Seconds a client has to complete its handshake (Flat: to send its first line) before it is hung up."""
PTY_BACKLOG_LIMIT = 65536
"""Bytes kept for a pseudo-terminal client that does not read; further packets are dropped."""


class PtyTransport(Transport):
    """The master side of a pseudo-terminal while a client has its slave open.

    Reading gives ``EIO`` once no process has the slave open: that is the client leaving, reported as
    :class:`TransportClosed`. Closing this transport leaves the master open for the next client.
    """

    def __init__(self, master: int, url: str, first: bytes = b"") -> None:
        self._master = master
        self._inbox = first
        self._pending = bytearray()
        self._closed = False
        self.dropped_bytes = 0
        self.url = url

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> bytes:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        chunks = [self._inbox] if self._inbox else []
        self._inbox = b""
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                if chunks:
                    break
                self._closed = True
                raise TransportClosed(f"{self.url}: the client closed the terminal ({exc.strerror})") from exc
            if not chunk:
                break
            chunks.append(chunk)
        self._flush()
        return b"".join(chunks)

    def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        if len(self._pending) + len(data) > PTY_BACKLOG_LIMIT:
            self.dropped_bytes += len(data)
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        while self._pending:
            try:
                sent = os.write(self._master, self._pending)
            except BlockingIOError:
                return
            except OSError:
                return  # the client left: the next read reports it
            del self._pending[:sent]

    def close(self) -> None:
        self._closed = True


class Line(ABC):
    """Where one robot's clients come from: a TCP port or a pseudo-terminal."""

    def __init__(self, server: PioneerServer) -> None:
        self.server = server
        self.refused = 0

    @property
    @abstractmethod
    def address(self) -> str:
        """What a client connects to: ``127.0.0.1:8101`` or ``/dev/pts/5``."""

    @abstractmethod
    def poll(self, now: float) -> None:
        """Take a new client if one is waiting (and the line is free)."""

    @abstractmethod
    def wait_handles(self) -> list[tuple[int, Callable[[float], None]]]:
        """File descriptors worth waiting on now, each with what to do when it becomes readable."""

    @abstractmethod
    def close(self) -> None: ...


class SocketLine(Line):
    """A listening stream socket (TCP or unix-domain) serving one client at a time."""

    def __init__(self, server: PioneerServer, listener: socket.socket, address: str) -> None:
        super().__init__(server)
        listener.setblocking(False)
        self._listener = listener
        self._address = address
        self._client: socket.socket | None = None
        self._transport: Transport | None = None

    @property
    def address(self) -> str:
        return self._address

    def _client_url(self, peer: Any) -> str:
        return f"tcp://{peer[0]}:{peer[1]}"

    def _client_alive(self) -> bool:
        return self._transport is not None and self.server.transport is self._transport

    def poll(self, now: float) -> None:
        while True:
            try:
                conn, peer = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.warning("%s: accept failed: %s", self.address, exc)
                return
            url = self._client_url(peer)
            for _ in range(2):  # the current client may have just left: data, then its FIN, needs two reads
                if self._client_alive():
                    self.server.receive(now)
            if self._client_alive():
                self.refused += 1
                log.info("%s: refused %s: robot %s already has a client", self.address, url, self.server.label)
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
                continue
            self._client = conn
            self._transport = SocketTransport(conn, url)
            self.server.attach(self._transport, now)

    def wait_handles(self) -> list[tuple[int, Callable[[float], None]]]:
        handles: list[tuple[int, Callable[[float], None]]] = []
        if self._client_alive() and self._client is not None and self._client.fileno() >= 0:
            handles.append((self._client.fileno(), self.server.receive))
        handles.append((self._listener.fileno(), self.poll))
        return handles

    def close(self) -> None:
        self._listener.close()


class TcpLine(SocketLine):
    """A listening TCP socket on ``host``:``port`` (0: a free port)."""

    def __init__(self, server: PioneerServer, host: str, port: int) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((host, port))
            listener.listen(4)
        except OSError:
            listener.close()
            raise
        super().__init__(server, listener, f"{host}:{listener.getsockname()[1]}")


class UnixLine(SocketLine):
    """A unix-domain socket at ``path``: the manual's local IPC channel (``connect local``).

    A socket file left behind by a simulator that died is replaced; one that a live simulator still
    listens on, or a path that is not a socket, is an error. The file is removed on close.
    """

    def __init__(self, server: PioneerServer, path: str) -> None:
        _claim_socket_path(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            listener.listen(4)
        except OSError:
            listener.close()
            raise
        self._path = path
        super().__init__(server, listener, f"unix://{path}")

    def _client_url(self, peer: Any) -> str:
        return self.address

    def close(self) -> None:
        super().close()
        with contextlib.suppress(OSError):
            os.unlink(self._path)


def _claim_socket_path(path: str) -> None:
    """Make ``path`` free for a listening socket, or raise OSError saying why it is not."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise OSError(errno.EEXIST, f"{path} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)  # nobody listens: a stale socket from a simulator that did not close
        return
    finally:
        probe.close()
    raise OSError(errno.EADDRINUSE, f"another simulator is listening on {path}")


class PtyLine(Line):
    """A pseudo-terminal in raw mode; its slave path is what the client opens as a serial port."""

    def __init__(self, server: PioneerServer) -> None:
        super().__init__(server)
        master, slave = os.openpty()
        tty.setraw(slave)
        self._path = os.ttyname(slave)
        os.close(slave)  # with no slave open, reads give EIO: that is how "no client" looks
        os.set_blocking(master, False)
        self._master = master
        self._transport: PtyTransport | None = None

    @property
    def address(self) -> str:
        return self._path

    def _client_alive(self) -> bool:
        return self._transport is not None and self.server.transport is self._transport

    def poll(self, now: float) -> None:
        if self._client_alive():
            return
        try:
            first = os.read(self._master, 65536)
        except BlockingIOError:
            first = b""
        except OSError as exc:
            if exc.errno != errno.EIO:
                log.warning("%s: %s", self._path, exc)
            return
        self._transport = PtyTransport(self._master, f"serial://{self._path}", first)
        self.server.attach(self._transport, now)

    def wait_handles(self) -> list[tuple[int, Callable[[float], None]]]:
        if self._client_alive():
            return [(self._master, self.server.receive)]
        return []

    def close(self) -> None:
        os.close(self._master)


class Simulator:
    """The standalone simulator: a served simulation, its lines, and the real-time loop."""

    def __init__(self, host: ServedSimulation, lines: list[Line], period: float) -> None:
        self.host = host
        self.lines = lines
        self.stop_requested = False
        self.stop_signal: int | None = None
        """The signal that stopped the simulator (SIGINT, SIGTERM), if one did."""
        self.clock = RealTimeClock(period, sleep=self._serve_io)
        self.on_cycle: Callable[[float], None] | None = None
        """Called after every cycle with the clock time (``--ui``: the live view's frames)."""

    def run(self) -> int:
        """Serve until a stop is requested or a client sends an allowed SIM_EXIT; the exit status."""
        clock = self.clock
        last = clock.now()
        while not self._done():
            now = clock.now()
            for server in self.host.servers:
                server.last_interval = now - last
            last = now
            for line in self.lines:
                line.poll(now)
            self.host.cycle(now)
            if self.on_cycle is not None:
                self.on_cycle(now)
            clock.wait_next()
        code = self.host.exit_code
        return 0 if code is None else code

    def _done(self) -> bool:
        return self.stop_requested or self.host.exit_code is not None

    def _serve_io(self, seconds: float) -> None:
        """The wait between cycles: handle client bytes and new connections as they arrive."""
        end = time.monotonic() + seconds
        while not self._done():
            remaining = end - time.monotonic()
            if remaining <= 0:
                return
            handles = dict(h for line in self.lines for h in line.wait_handles())
            try:
                ready, _, _ = select.select(list(handles), [], [], remaining)
            except (OSError, ValueError):
                return  # a descriptor closed under us; the next cycle rebuilds the list
            now = self.clock.now()
            for fd in ready:
                handles[fd](now)

    def request_stop(self, signum: int = 0, frame: FrameType | None = None) -> None:
        self.stop_requested = True
        if signum:
            self.stop_signal = signum

    def close(self) -> None:
        for server in self.host.servers:
            server.hang_up("simulator exiting")
        for line in self.lines:
            line.close()


def build_parser(*, add_help: bool = True) -> argparse.ArgumentParser:
    """The ``saphira sim`` options. ``add_help=False`` makes it usable as a parent parser
    (``sub.add_parser("sim", parents=[build_parser(add_help=False)])``, then :func:`run`)."""
    parser = argparse.ArgumentParser(
        prog="saphira sim",
        add_help=add_help,
        description="Run the Pioneer simulator as a real-time server. Each robot listens on its own "
        "TCP port (or pseudo-terminal) and serves one client at a time, session after session; "
        "ARIA-based clients and Saphira clients connect as to a real robot.",
        epilog="Stop with Ctrl-C or SIGTERM (exit status 130 or 143; with --flat and --gamebots too), or from a "
        "client with SIM_EXIT (its code; Flat: 'e'), which only a server on loopback, a unix socket or a "
        "pseudo-terminal obeys by default: on another --host give --allow-exit. Exit status 2 for a bad option "
        "or a port in use. What each server accepts from a client: docs/servers-security.md.",
    )
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
        type=int,
        default=DEFAULT_PORT,
        help=f"TCP port of the first robot; robot k listens on PORT+k-1 (default {DEFAULT_PORT}; 0 picks free ports)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--robots", type=int, default=1, metavar="N", help="number of robots (default 1)")
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
    parser.add_argument("--period", type=float, default=0.1, metavar="S", help="cycle time in seconds (default 0.1)")
    parser.add_argument(
        "--watchdog",
        type=float,
        default=2.0,
        metavar="S",
        help="stop a robot whose client is silent this long (default 2; 0 = off)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="drop a client that sends no valid packet (Flat: no line) for this long (default 60; 0 = never)",
    )
    parser.add_argument(
        "--handshake-timeout",
        type=float,
        default=DEFAULT_HANDSHAKE_TIMEOUT,
        metavar="S",
        help=f"hang up a client that has not completed its handshake (Flat: sent its first line; Gamebots: "
        f"INIT) this long after connecting (default {DEFAULT_HANDSHAKE_TIMEOUT:g}; 0 = never)",
    )
    parser.add_argument(
        "--world-dir",
        metavar="DIR",
        type=Path,
        help="let clients load world files under DIR (LOADWORLD, Flat's 'm'); without it only bundled worlds",
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
        "--gamebots",
        type=int,
        metavar="PORT",
        help="serve USARSim's Gamebots protocol on PORT "
        "instead (one socket per robot, spawned by INIT; docs/gamebots.md)",
    )
    parser.add_argument(
        "--laser",
        action="store_true",
        help="every robot carries a laser: on the Pioneer protocol the SICK LMS-200 its parameter file describes "
        "(even one that says LaserPossessed false), streamed to clients whose parameter file declares a laser "
        "(saphira run --params p3dx-laser); with --gamebots a RangeScanner",
    )
    parser.add_argument(
        "--max-robots",
        type=int,
        metavar="N",
        help=f"with --gamebots: spawn at most N robots (default {GAMEBOTS_MAX_ROBOTS}); each slows every robot's cycle",
    )
    add_ui_options(parser, speed=False)
    from saphira.app.sim_flat import add_options as add_flat_options

    add_flat_options(parser)
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    verbosity.add_argument("-q", "--quiet", action="store_true", help="only errors")
    return parser


def _load(args: argparse.Namespace) -> tuple[World, RobotParams]:
    world = load_world(args.world)
    params = params_for_file(args.params)
    if getattr(args, "laser", False) and getattr(args, "gamebots", None) is None:
        params = with_laser(params)
    return world, params


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``saphira sim`` with ``argv`` (without the program name); returns the exit status."""
    return run(build_parser().parse_args(argv))


def _unix_path(path: str, k: int) -> str:
    """The socket of robot ``k`` (0-based) when serving on ``--unix PATH``."""
    return path if k == 0 else f"{path}-{k + 1}"


def _check(args: argparse.Namespace) -> str | None:
    if args.unix == "":  # --unix without a path: the socket SAPHIRA_COMPIPE names, as clients read it
        args.unix = os.environ.get("SAPHIRA_COMPIPE", "").removeprefix("unix://")
        if "/" not in args.unix or "://" in args.unix:
            return "--unix needs a socket PATH (or SAPHIRA_COMPIPE set to one)"
    if args.pty and args.unix is not None:
        return "--pty and --unix exclude each other: choose one kind of line"
    flat, gamebots = getattr(args, "flat", None), getattr(args, "gamebots", None)
    if flat is not None and gamebots is not None:
        return "--flat and --gamebots exclude each other: one simulator speaks one protocol"
    if flat is None:  # the Flat options would be silently ignored by a Pioneer or Gamebots server
        for option in ("flat_world", "flat_no_sonar", "flat_realtime", "flat_stopped", "flat_steps"):
            if getattr(args, option, None) not in (None, False):
                return f"--{option.replace('_', '-')} needs --flat PORT"
    if getattr(args, "laser", False) and flat is not None:
        return "--laser is for the Pioneer and Gamebots servers (a Flat World sets its own lasers)"
    if getattr(args, "max_robots", None) is not None and gamebots is None:
        return "--max-robots needs --gamebots PORT (Pioneer: --robots)"
    if args.robots < 1:
        return "--robots must be at least 1"
    if not (math.isfinite(args.period) and args.period > 0):
        return "--period must be a positive number of seconds"
    if not 0 <= args.port <= 65535 or (args.port and args.port + args.robots - 1 > 65535):
        return f"--port {args.port} with --robots {args.robots} runs past port 65535"
    world_dir = getattr(args, "world_dir", None)
    if world_dir is not None and not world_dir.is_dir():
        return f"--world-dir {world_dir}: not a folder"
    for option in ("watchdog", "idle_timeout", "handshake_timeout"):
        value = getattr(args, option)
        if value is not None and not (math.isfinite(value) and value >= 0):
            return f"--{option.replace('_', '-')} must be a number of seconds >= 0"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the simulator with parsed :func:`build_parser` options until it is stopped; the exit status."""
    problem = _check(args)
    if problem is not None:
        print(f"saphira sim: {problem}", file=sys.stderr)
        return 2
    level = logging.ERROR if args.quiet else (logging.INFO, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    # Before any line listens: a client's handshake must not wait for the kernels to compile (seconds,
    # the first time after an install) or load.
    warm_up()
    if getattr(args, "flat", None) is not None:
        from saphira.app.sim_flat import run as run_flat

        return run_flat(args)
    if getattr(args, "gamebots", None) is not None:
        from saphira.gamebots.server import run as run_gamebots

        return run_gamebots(args)
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
    lines: list[Line] = []
    try:
        for k in range(args.robots):
            robot = simulation.add_robot(params, name=f"{params.name}-{k + 1}" if args.robots > 1 else None)
            server = host.add(
                PioneerServer(simulation, robot, options=options, period=args.period, label=f"robot {k + 1}")
            )
            if args.pty:
                lines.append(PtyLine(server))
            elif args.unix is not None:
                lines.append(UnixLine(server, _unix_path(args.unix, k)))
            else:
                lines.append(TcpLine(server, args.host, args.port + k if args.port else 0))
    except OSError as exc:
        for line in lines:
            line.close()
        if args.pty:
            where = "a pseudo-terminal"
        elif args.unix is not None:
            where = _unix_path(args.unix, len(lines))
        else:
            where = f"{args.host}:{args.port + len(lines) if args.port else 0}"
        print(f"saphira sim: cannot listen on {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    simulator = Simulator(host, lines, args.period)
    view = None
    if getattr(args, "ui", None) is not None:
        from saphira.ui.simview import SimView

        view = SimView(simulation)
        try:
            view.start(*args.ui, say=functools.partial(print, flush=True))
        except OSError as exc:
            simulator.close()
            print(f"saphira sim: {exc}", file=sys.stderr)
            return 2
        simulator.on_cycle = view.cycle
    # Handlers first: a supervisor may signal us as soon as it reads the "listening on" lines.
    with stop_signals(simulator.request_stop):
        for k, line in enumerate(lines):
            identity = line.server.identity
            print(
                f"listening on {line.address} (robot {k + 1}: {identity.name}, {identity.subclass}, "
                f"world {world.name})",
                flush=True,
            )
        try:
            status = simulator.run()
            if simulator.stop_signal is not None:  # as a shell reports a program a signal ended
                status = signalled(simulator.stop_signal)
        except KeyboardInterrupt:
            status = signalled(signal.SIGINT)
        finally:
            simulator.close()
            if view is not None:
                view.stop()
    with contextlib.suppress(OSError, ValueError):
        print(f"simulator stopped{_troubles(host)}", flush=True)
    return status


def _troubles(host: ServedSimulation) -> str:
    """What clients were refused, for the closing line (empty when nothing was)."""
    late = sum(s.stats.handshake_timeouts for s in host.servers)
    refused = sum(s.stats.worlds_refused for s in host.servers)
    parts = [f"{late} client(s) hung up without a handshake"] if late else []
    parts += [f"{refused} world request(s) refused"] if refused else []
    return f" ({'; '.join(parts)})" if parts else ""


if __name__ == "__main__":
    sys.exit(main())
