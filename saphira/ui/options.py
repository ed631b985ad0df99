"""The ``--ui [HOST:]PORT`` and ``--speed`` options of ``saphira run``, ``shell`` and ``sim``.

Kept apart from :mod:`saphira.ui.server` so that parsing the command line never imports aiohttp.
"""

from __future__ import annotations

import argparse

from saphira.argtypes import positive_factor

__all__ = ["DEFAULT_HOST", "add_ui_options", "ui_address"]

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


def add_ui_options(parser: argparse.ArgumentParser, *, speed: bool = True) -> None:
    """Add ``--ui`` (and, for the embedded simulator, ``--speed``) to a command's parser."""
    parser.add_argument(
        "--ui", metavar="[HOST:]PORT", type=ui_address,
        help="serve the live view (a web page) on HOST:PORT (default host 127.0.0.1; port 0 picks one); "
        "the URL with its secret token is printed on start",
    )  # fmt: skip
    if speed:
        parser.add_argument(
            "--speed", type=positive_factor, default=1.0, metavar="F",
            help="with --ui and the embedded simulator, run F times real time (default 1: real time, "
            "so a person can watch and drive)",
        )  # fmt: skip
