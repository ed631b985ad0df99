"""Where the Pioneer simulator's clients come from: one line per robot, a TCP port, a unix socket or a pty.

Each line serves one client at a time; a second TCP client is accepted and closed at once, and the
first keeps working. When a client closes or vanishes its robot stops and the line serves the next
client, session after session. :class:`PioneerLines` is the Pioneer front end of the one serve loop
(:mod:`saphira.sim.serve`): the served simulation (:mod:`saphira.sim.served`) and its lines.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import stat
import tty
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from saphira.client.transport import SocketTransport, Transport, TransportClosed
from saphira.sim.serve import Handle, accept_waiting
from saphira.sim.served import ServedSimulation
from saphira.sim.server import PioneerServer

log = logging.getLogger("saphira.sim")

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

    def read(self, limit: int | None = None) -> bytes:
        if self._closed:
            raise TransportClosed(f"{self.url} is closed")
        first, self._inbox = self._inbox[:limit], self._inbox[len(self._inbox[:limit]) :]
        chunks = [first] if first else []
        left = None if limit is None else limit - len(first)
        while left is None or left > 0:
            try:
                chunk = os.read(self._master, 65536 if left is None else min(left, 65536))
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
            if left is not None:
                left -= len(chunk)
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
    def wait_handles(self) -> list[Handle]:
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
        accept_waiting(self._listener, lambda conn, peer: self._admit(conn, peer, now), self.address)

    def _admit(self, conn: socket.socket, peer: Any, now: float) -> bool:
        url = self._client_url(peer)
        for _ in range(2):  # the current client may have just left: data, then its FIN, needs two reads
            if self._client_alive():
                self.server.receive(now)
        if self._client_alive():
            self.refused += 1
            log.info("%s: refused %s: robot %s already has a client", self.address, url, self.server.label)
            return False
        self._client = conn
        self._transport = SocketTransport(conn, url)
        self.server.attach(self._transport, now)
        return True

    def wait_handles(self) -> list[Handle]:
        handles: list[Handle] = []
        if (
            self._client_alive()
            and not self.server.input_spent  # a spent budget: the rest waits in the kernel for the next cycle
            and self._client is not None
            and self._client.fileno() >= 0
        ):
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

    def wait_handles(self) -> list[Handle]:
        if self._client_alive() and not self.server.input_spent:
            return [(self._master, self.server.receive)]
        return []

    def close(self) -> None:
        os.close(self._master)


class PioneerLines:
    """The Pioneer front end of :class:`~saphira.sim.serve.ServeLoop`: a served simulation and its robots' lines.

    ``tcp_host`` is where :meth:`listen` opens a robot's new TCP line: the operator's ``--host`` when the
    robots listen on TCP, else loopback (a unix socket or a pseudo-terminal is reached from this host only).
    """

    def __init__(self, host: ServedSimulation, lines: Sequence[Line], tcp_host: str = "127.0.0.1") -> None:
        self.host = host
        self.lines = list(lines)
        self.tcp_host = tcp_host
        self._last: float | None = None

    def wait_handles(self) -> list[Handle]:
        return [handle for line in self.lines for handle in line.wait_handles()]

    def poll(self, now: float) -> None:
        for server in self.host.servers:  # the watchdog and the SIP timing see the real interval
            server.last_interval = now - (now if self._last is None else self._last)
        self._last = now
        for line in self.lines:
            line.poll(now)

    def cycle(self, now: float) -> None:
        self.host.cycle(now)

    @property
    def exit_code(self) -> int | None:
        return self.host.exit_code

    def listening(self) -> list[tuple[str, bool]]:
        """Where each robot listens, and whether a client holds its line (the sim window's Connect menu)."""
        return [(line.address, line.server.connected) for line in self.lines]

    def hang_up(self, index: int) -> bool:
        """The manual's Connect→Disconnect: end robot ``index``'s session and listen again (False: no client)."""
        server = self.lines[index].server
        if not server.connected:
            return False
        server.hang_up("disconnected from the simulator's window")
        return True

    def listen(self, index: int, port: int) -> str:
        """The manual's Connect→port: robot ``index`` listens on TCP ``port`` of :attr:`tcp_host` (0: a free
        one) instead of its line; its client is hung up and the old line closed. The new address, or
        OSError (a port in use or refused; the old line is kept) before anything changes."""
        old = self.lines[index]
        line = TcpLine(old.server, self.tcp_host, port)
        if old.server.connected:
            old.server.hang_up(f"the robot listens on {line.address} now")
        old.close()
        self.lines[index] = line
        log.info("robot %d listens on %s (the simulator's window)", index + 1, line.address)
        return line.address

    def close(self) -> None:
        for server in self.host.servers:
            server.hang_up("simulator exiting")
        for line in self.lines:
            line.close()


@dataclass(frozen=True)
class LinePlan:
    """Where the robots' lines listen: pseudo-terminals, unix sockets (robot k > 1 at ``PATH-k``), or TCP
    ports on ``host`` from ``port`` on (0: free ones)."""

    pty: bool = False
    unix: str | None = None
    host: str = "127.0.0.1"
    port: int = 0

    def where(self, k: int) -> str:
        """Where robot ``k`` (0-based) listens, as an error message names it."""
        if self.pty:
            return "a pseudo-terminal"
        if self.unix is not None:
            return unix_path(self.unix, k)
        return f"{self.host}:{self.port + k if self.port else 0}"

    def open(self, server: PioneerServer, k: int) -> Line:
        """Robot ``k``'s line, listening; OSError when it cannot."""
        if self.pty:
            return PtyLine(server)
        if self.unix is not None:
            return UnixLine(server, unix_path(self.unix, k))
        return TcpLine(server, self.host, self.port + k if self.port else 0)


class CannotListen(Exception):
    """A line could not listen; the message names where and why."""


def unix_path(path: str, k: int) -> str:
    """The socket of robot ``k`` (0-based) when serving on ``--unix PATH``."""
    return path if k == 0 else f"{path}-{k + 1}"


def open_lines(servers: Sequence[PioneerServer], plan: LinePlan) -> list[Line]:
    """One listening line per server, robot k's where ``plan`` says; :class:`CannotListen` (the lines
    already open closed again) when one cannot listen."""
    lines: list[Line] = []
    try:
        for k, server in enumerate(servers):
            lines.append(plan.open(server, k))
    except OSError as exc:
        for line in lines:
            line.close()
        raise CannotListen(f"cannot listen on {plan.where(len(lines))}: {exc.strerror or exc}") from exc
    return lines
