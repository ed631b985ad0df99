"""Byte transports chosen by URL, all with the same non-blocking ``read`` / ``write`` / ``close``.

=================================  =====================================================
URL                                transport
=================================  =====================================================
``tcp://host[:port]``              TCP client socket (default port 8101, the simulator's)
``unix:///path/to/socket``         unix-domain socket: the manual's local pipe (``saphira sim --unix``)
``serial:///dev/ttyUSB0?baud=9600`` a serial port through pyserial (8N1, default 9600)
``socket://…``, ``loop://``, …     any other pyserial URL handler, passed through
``/dev/ttyS0``, ``COM3``           a bare device name: a serial port
``sim:`` / :func:`memory_pair`     the in-process pair used by the embedded simulator
=================================  =====================================================

``read()`` returns whatever bytes are waiting (possibly ``b""``) and never blocks; a closed peer
raises :class:`TransportClosed`, so the link can tell "nothing yet" from "gone". ``read(limit)`` takes
at most ``limit`` bytes and leaves the rest where it waits (in the kernel for a socket): a server that
budgets each client's input per cycle (:mod:`saphira.sim.server`) holds no more of a flood than that.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from abc import ABC, abstractmethod
from collections import deque
from typing import Any
from urllib.parse import parse_qs, urlsplit

from saphira.core.errors import SaphiraError

DEFAULT_TCP_PORT = 8101
DEFAULT_BAUD = 9600
MAX_BACKLOG = 1 << 20
"""Unsent bytes a socket may hold before its peer counts as gone (it has stopped reading)."""


class TransportError(SaphiraError):
    """A port or host could not be opened, or a write failed."""


class TransportClosed(TransportError):
    """The peer closed the connection (or the transport was closed locally)."""


class Transport(ABC):
    """A non-blocking byte pipe to a robot server (or, on the server side, to a client)."""

    url: str = ""

    @abstractmethod
    def read(self, limit: int | None = None) -> bytes:
        """The bytes available now, at most ``limit`` (None: all); ``b""`` when none. Raises
        :class:`TransportClosed` when closed."""

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Queue ``data`` for sending. Raises :class:`TransportClosed` when closed."""

    @abstractmethod
    def close(self) -> None:
        """Close; further reads and writes raise :class:`TransportClosed`. Idempotent."""

    @property
    @abstractmethod
    def closed(self) -> bool: ...

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}>"


class SocketTransport(Transport):
    """A connected stream socket, used in non-blocking mode (TCP client or accepted server side)."""

    def __init__(self, sock: socket.socket, url: str) -> None:
        sock.setblocking(False)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock: socket.socket | None = sock
        self._pending = bytearray()
        self.url = url

    @classmethod
    def connect(cls, host: str, port: int, timeout: float = 5.0) -> SocketTransport:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise TransportError(f"cannot connect to tcp://{host}:{port}: {exc.strerror or exc}") from exc
        return cls(sock, f"tcp://{host}:{port}")

    @classmethod
    def connect_unix(cls, path: str, timeout: float = 5.0) -> SocketTransport:
        url = f"unix://{path}"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except OSError as exc:
            sock.close()
            absent = isinstance(exc, FileNotFoundError | ConnectionRefusedError)
            hint = f" (is 'saphira sim --unix {path}' running?)" if absent else ""
            raise TransportError(f"cannot connect to {url}: {exc.strerror or exc}{hint}") from exc
        return cls(sock, url)

    @property
    def closed(self) -> bool:
        return self._sock is None

    def _require(self) -> socket.socket:
        if self._sock is None:
            raise TransportClosed(f"{self.url} is closed")
        return self._sock

    def read(self, limit: int | None = None) -> bytes:
        sock = self._require()
        chunks: list[bytes] = []
        left = limit
        while left is None or left > 0:
            try:
                chunk = sock.recv(65536 if left is None else min(left, 65536))
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                self.close()
                raise TransportClosed(f"{self.url}: {exc.strerror or exc}") from exc
            if not chunk:
                if chunks:  # deliver what arrived; the close is seen on the next read
                    break
                self.close()
                raise TransportClosed(f"{self.url}: connection closed by peer")
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        self._flush()
        return b"".join(chunks)

    def write(self, data: bytes) -> None:
        self._require()
        self._pending += data
        self._flush()
        if len(self._pending) > MAX_BACKLOG:
            self.close()
            raise TransportClosed(f"{self.url}: the peer stopped reading ({MAX_BACKLOG} bytes unsent)")

    def _flush(self) -> None:
        sock = self._sock
        while sock is not None and self._pending:
            try:
                sent = sock.send(self._pending)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self.close()
                raise TransportClosed(f"{self.url}: {exc.strerror or exc}") from exc
            del self._pending[:sent]

    def close(self) -> None:
        """Close after reading what has arrived: a socket closed with unread bytes resets the connection,
        and the peer may then lose the last bytes written to it (a robot, the stop and CLOSE)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):  # BlockingIOError: nothing more has arrived
                for _ in range(64):
                    if not sock.recv(65536):
                        break
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
            with contextlib.suppress(OSError):
                sock.close()


class SerialTransport(Transport):
    """Any pyserial port or URL (``/dev/ttyUSB0``, ``socket://``, ``loop://``, ``spy://`` …)."""

    def __init__(self, port: Any, url: str) -> None:
        self._port: Any = port
        self.url = url

    @classmethod
    def open(cls, target: str, baud: int = DEFAULT_BAUD) -> SerialTransport:
        import serial

        try:
            port = serial.serial_for_url(
                target, baudrate=baud, bytesize=8, parity="N", stopbits=1, timeout=0, write_timeout=1.0
            )
        except (serial.SerialException, ValueError, OSError) as exc:
            raise TransportError(f"cannot open serial port {target!r} at {baud} baud: {exc}") from exc
        return cls(port, target if "://" in target else f"serial://{target}?baud={baud}")

    @property
    def closed(self) -> bool:
        return self._port is None

    def _require(self) -> Any:
        if self._port is None:
            raise TransportClosed(f"{self.url} is closed")
        return self._port

    def read(self, limit: int | None = None) -> bytes:
        import serial

        port = self._require()
        try:
            waiting = port.in_waiting if limit is None else min(port.in_waiting, limit)
            return bytes(port.read(waiting)) if waiting else b""
        except (serial.SerialException, OSError) as exc:
            self.close()
            raise TransportClosed(f"{self.url}: {exc}") from exc

    def write(self, data: bytes) -> None:
        import serial

        port = self._require()
        try:
            port.write(data)
        except (serial.SerialException, OSError) as exc:
            self.close()
            raise TransportClosed(f"{self.url}: {exc}") from exc

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(Exception):  # pyserial raises assorted errors on a vanished device
                port.close()


class MemoryTransport(Transport):
    """One end of an in-process byte pipe (thread-safe). See :func:`memory_pair`."""

    def __init__(self, inbox: deque[bytes], outbox: deque[bytes], state: dict[str, bool], url: str) -> None:
        self._inbox = inbox
        self._outbox = outbox
        self._state = state
        self._lock = threading.Lock()
        self.url = url

    @property
    def closed(self) -> bool:
        return self._state["closed"]

    def read(self, limit: int | None = None) -> bytes:
        if self._inbox:
            chunks = []
            left = limit
            while self._inbox and (left is None or left > 0):
                chunk = self._inbox.popleft()
                if left is not None:
                    if len(chunk) > left:
                        self._inbox.appendleft(chunk[left:])
                        chunk = chunk[:left]
                    left -= len(chunk)
                chunks.append(chunk)
            return b"".join(chunks)
        if self._state["closed"]:
            raise TransportClosed(f"{self.url} is closed")
        return b""

    def write(self, data: bytes) -> None:
        if self._state["closed"]:
            raise TransportClosed(f"{self.url} is closed")
        if data:
            self._outbox.append(bytes(data))

    def close(self) -> None:
        self._state["closed"] = True


def memory_pair(name: str = "sim") -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected in-process ends: ``(client_end, server_end)``. Closing either closes both."""
    to_server: deque[bytes] = deque()
    to_client: deque[bytes] = deque()
    state = {"closed": False}
    client = MemoryTransport(to_client, to_server, state, f"{name}:client")
    server = MemoryTransport(to_server, to_client, state, f"{name}:server")
    return client, server


PYSERIAL_SCHEMES = ("socket", "loop", "spy", "rfc2217", "hwgrep", "alt", "cp2110")
"""pyserial's own URL handlers, passed through to it."""
TRANSPORT_SCHEMES = ("tcp", "unix", "serial", *PYSERIAL_SCHEMES)
"""Every URL scheme :func:`open_transport` opens, besides a bare device name (:func:`url_scheme` ``""``)."""


def url_scheme(url: str) -> str:
    """``url``'s scheme, lower-cased; ``""`` for a bare device name (``/dev/ttyS0``, ``COM3``, ``C:\\…``)."""
    scheme = urlsplit(url).scheme.lower()
    return "" if len(scheme) == 1 and url[1:2] == ":" else scheme


def open_transport(url: str, *, timeout: float = 5.0) -> Transport:
    """Open the transport a URL names (see the module docstring). Errors say what could not be opened."""
    parts = urlsplit(url)
    scheme = url_scheme(url)
    if scheme == "tcp":
        if not parts.hostname:
            raise TransportError(f"{url!r}: a tcp URL needs a host, e.g. tcp://127.0.0.1:8101")
        try:
            port = parts.port or DEFAULT_TCP_PORT
        except ValueError as exc:
            raise TransportError(f"{url!r}: bad port number") from exc
        return SocketTransport.connect(parts.hostname, port, timeout=timeout)
    if scheme == "unix":
        path = parts.netloc + parts.path
        if not path:
            raise TransportError(f"{url!r}: a unix URL needs a socket path, e.g. unix:///tmp/saphira.sock")
        if not hasattr(socket, "AF_UNIX"):
            raise TransportError(f"{url!r}: unix-domain sockets are not available on this system")
        return SocketTransport.connect_unix(path, timeout=timeout)
    if scheme == "serial":
        device = parts.path or parts.netloc
        if not device:
            raise TransportError(f"{url!r}: a serial URL needs a device, e.g. serial:///dev/ttyUSB0?baud=9600")
        query = parse_qs(parts.query)
        try:
            baud = int(query.get("baud", [str(DEFAULT_BAUD)])[0])
        except ValueError as exc:
            raise TransportError(f"{url!r}: baud must be an integer") from exc
        return SerialTransport.open(device, baud)
    if scheme in PYSERIAL_SCHEMES or scheme == "":
        return SerialTransport.open(url)
    raise TransportError(
        f"unknown transport URL {url!r}: use tcp://host:port, unix:///path, serial:///dev/ttyX?baud=N, "
        "or a pyserial URL such as socket://host:port or loop://"
    )
