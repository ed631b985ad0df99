"""Usage checks of ``--robot``, ``--world`` and ``--seed`` (``saphira run`` and ``shell``), before anything runs.

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

__all__ = ["Given", "robot_misuse"]

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
