"""The robot options of ``saphira run`` and ``shell`` (:func:`add_robot_options`) and their usage checks,
made before anything runs.

``--world`` and ``--seed`` configure the embedded simulator, so with ``--robot`` (a robot of its own)
they would be ignored: they are refused instead. A ``--robot`` address without a scheme that reads
as a network address (``127.0.0.1:8101``, ``localhost``) is refused with the ``tcp://`` form to use:
without a scheme the transport takes it for a serial device, and fails with a puzzling message.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any

from saphira.core.argtypes import positive_seconds, seed

__all__ = ["Given", "add_robot_options", "robot_misuse"]

_NETWORK_ADDRESS = re.compile(
    r"(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+|[A-Za-z0-9-]+(?=:))(:\d+)?",
)
"""``HOST[:PORT]`` where HOST is localhost, an IPv4 address, a bracketed IPv6 one, a dotted name, or any
name followed by a port: what cannot be a serial device (those are paths, ``COM3``, or URLs)."""


class Given(argparse.Action):
    """Store the value, and note in ``explicit_options`` that the option was given (a default cannot say)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        given: set[str] = set(getattr(namespace, "explicit_options", ()))
        given.add(self.option_strings[-1])
        namespace.explicit_options = given


def robot_misuse(args: argparse.Namespace) -> str | None:
    """Why the robot options of this command line cannot be (a usage error), or None when they can."""
    robot: str | None = getattr(args, "robot", None)
    given = sorted(getattr(args, "explicit_options", ()))
    if robot:
        if given:
            many = len(given) > 1
            return (
                f"{' and '.join(given)} {'set' if many else 'sets'} up the embedded simulator, which --robot "
                f"replaces: leave {'them' if many else 'it'} out"
            )
        if "://" not in robot and _NETWORK_ADDRESS.fullmatch(robot):
            return f"--robot {robot} has no scheme; did you mean --robot tcp://{robot}?"
    else:
        if given and getattr(args, "no_sim", False):
            return f"{' and '.join(given)}: --no-sim starts without the embedded simulator"
        for option, name in (("link_timeout", "--link-timeout"), ("reconnect", "--reconnect")):
            if getattr(args, option, None) is not None:  # about a --robot link: refused without one, never ignored
                return f"{name} needs --robot URL (the embedded simulator's in-process line is never lost)"
    return None


def add_robot_options(parser: argparse.ArgumentParser) -> None:
    """``--robot``, ``--world``, ``--params``, ``--seed`` and what to do when the link is lost (run, shell)."""
    parser.add_argument(
        "--robot",
        metavar="URL",
        help="robot to connect to: tcp://HOST[:PORT] (default port 8101), serial:///dev/ttyUSB0?baud=9600, "
        "unix:///PATH (saphira sim --unix PATH), flat://HOST:PORT (a Flat4 simulator, docs/flat.md), "
        "usarsim://HOST:PORT?class=P2DX&location=x,y,z (a USARSim/Gamebots server, docs/gamebots.md), or any "
        "pyserial URL. Without it, the embedded simulator is used, in lock-step.",
    )
    parser.add_argument(
        "--world",
        metavar="W",
        default="simple",
        action=Given,
        help="simulator world: a bundled name (see 'saphira worlds') or a .wld/.map path (default: simple; "
        "not with --robot)",
    )
    parser.add_argument(
        "--params",
        metavar="P",
        help="robot parameter file, a bundled name (see 'saphira params') or a .p path, laid over "
        "the robot's model as ARIA does; it also configures the embedded simulator (default p3dx)",
    )
    parser.add_argument(
        "--seed", type=seed, default=0, action=Given, help="simulator random seed (default 0; not with --robot)"
    )
    _add_link_options(parser)


def _add_link_options(parser: argparse.ArgumentParser) -> None:
    """What happens when the --robot link is lost (saphira/client/link/watch.py)."""
    from saphira.client.link.base import DEFAULT_LINK_TIMEOUT
    from saphira.client.link.watch import DEFAULT_RECONNECT

    parser.add_argument(
        "--link-timeout",
        type=positive_seconds,
        metavar="S",
        help="with --robot: S seconds without a state report from the robot means the link is lost (default "
        f"{DEFAULT_LINK_TIMEOUT:g}, ARIA's connection timeout); a closed connection or serial port is lost at once",
    )
    parser.add_argument(
        "--reconnect",
        type=positive_seconds,
        nargs="?",
        const=DEFAULT_RECONNECT,
        metavar="S",
        help="with --robot: when the link is lost, suspend the activities, wait up to S seconds (default "
        f"{DEFAULT_RECONNECT:g}) for the robot, reconnect, reload its parameters and resume them. Without it a "
        "lost link ends 'run' (exit status 2) and leaves 'shell' up without a robot",
    )
