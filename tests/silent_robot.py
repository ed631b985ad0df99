"""A robot port that accepts nothing, to prove a command reached no robot: a connection can only wait in
its backlog, where :func:`knocked` finds it afterwards."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def silent_robot() -> Iterator[socket.socket]:
    """A listening socket on 127.0.0.1 (any free port) that never accepts while the command runs."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        yield listener


def url(listener: socket.socket) -> str:
    return f"tcp://127.0.0.1:{listener.getsockname()[1]}"


def knocked(listener: socket.socket) -> bool:
    """Whether anyone connected to the silent robot."""
    try:
        listener.accept()[0].close()
    except BlockingIOError:
        return False
    return True
