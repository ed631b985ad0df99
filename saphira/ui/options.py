"""The ``--ui [HOST:]PORT`` and ``--speed`` options of ``saphira run``, ``shell`` and ``sim``.

Kept apart from :mod:`saphira.ui.server` so that parsing the command line never imports aiohttp.
"""

from __future__ import annotations

import argparse
import socket

from saphira.core.argtypes import positive_factor

__all__ = ["DEFAULT_HOST", "add_ui_options", "check_speed", "ui_address", "ui_port_problem"]

DEFAULT_HOST = "127.0.0.1"
"""The live view listens on loopback unless told otherwise: the page runs code."""


def ui_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``8080``, ``0.0.0.0:8080``, ``[::1]:8080``) as (host, port); port 0 picks a free one."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else DEFAULT_HOST
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected [HOST:]PORT, e.g. 8080 or 127.0.0.1:8080") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: port {number} is not in 0..65535")
    return host or DEFAULT_HOST, number


def add_ui_options(parser: argparse.ArgumentParser, *, speed: bool = True, allow_exit: bool = False) -> None:
    """Add ``--ui`` (and, for the embedded simulator, ``--speed``; ``allow_exit``: ``--allow-exit``) to a parser."""
    parser.add_argument(
        "--ui", metavar="[HOST:]PORT", type=ui_address,
        help="serve the live view (a web page) on HOST:PORT (default host 127.0.0.1; port 0 picks one); "
        "the URL with its secret token is printed on start; a non-loopback HOST is warned about (the page runs "
        "code and the token travels in clear): prefer an SSH tunnel",
    )  # fmt: skip
    if allow_exit:
        parser.add_argument(
            "--allow-exit", action="store_true",
            help="let the page's Connect→Exit end the run even when --ui listens beyond loopback (there by default)",
        )  # fmt: skip
    if speed:
        parser.add_argument(
            "--speed", type=positive_factor, metavar="F",
            help="pace the embedded simulator at F times real time (default: real time with --ui or "
            "--foxglove or in the shell, so a person can watch and drive; as fast as it goes for 'run' without "
            "either)",
        )  # fmt: skip


def check_speed(args: argparse.Namespace) -> str | None:
    """Why ``--speed`` cannot apply to this command line (a usage error), or None when it can."""
    if getattr(args, "speed", None) is None:
        return None
    if args.robot:
        return "--speed paces the embedded simulator; a robot given with --robot runs in its own time"
    if getattr(args, "realtime", False):
        return "--realtime is --speed 1: give one of them"
    if getattr(args, "no_sim", False):
        return "--speed paces the embedded simulator, and --no-sim starts without it"
    return None


def ui_port_problem(address: tuple[str, int] | None) -> str | None:
    """Why the live view cannot listen on ``address`` (a port another program holds), or None when it can.

    Tried by binding, as the server will, every address the host resolves to, so that ``run`` and
    ``shell`` say so in one line before they reach the robot. Port 0 (any free port) always can.
    """
    if address is None or address[1] == 0:
        return None
    host, port = address
    where = f"cannot serve the live view on {host}:{port}"
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"{where}: {exc.strerror or exc}"
    for family, kind, proto, _, sockaddr in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(
                socket.SOL_SOCKET, socket.SO_REUSEADDR, 1
            )  # as the server binds (a port in TIME_WAIT is free)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(sockaddr)
            except OSError as exc:
                return f"{where}: {exc.strerror or exc}"
    return None
