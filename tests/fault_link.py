"""Fault injection for robot links: a transport wrapper for lock-step tests, a TCP proxy for real sockets.

Faults: ``close`` (the robot's side closes), ``blackhole`` (nothing goes either way, the line stays
open), ``mute`` (the robot hears the client, the client hears nothing), ``delay`` (what the robot sends
arrives some reads late), ``drop`` (every other chunk from the robot is lost), ``corrupt`` (a byte of
every chunk from the robot is flipped, so no packet passes its checksum).
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections import deque

from saphira.client.transport import Transport
from tests.realtime import WAIT

FAULTS = ("none", "close", "blackhole", "mute", "delay", "drop", "corrupt")


class FaultyTransport(Transport):
    """``inner`` (the client's end of a line) with the current :attr:`fault` applied to both directions."""

    def __init__(self, inner: Transport, delay_reads: int = 3) -> None:
        self.inner = inner
        self.url = inner.url
        self.fault = "none"
        self.delay_reads = delay_reads
        self._late: deque[bytes] = deque()
        self._chunks = 0
        self.written: list[bytes] = []
        """What went through to the robot's side, write by write."""

    @property
    def closed(self) -> bool:
        return self.inner.closed

    def read(self, limit: int | None = None) -> bytes:
        data = self.inner.read(limit)
        fault = self.fault
        if fault in ("blackhole", "mute"):
            return b""
        if fault == "delay":
            self._late.append(data)
            return self._late.popleft() if len(self._late) > self.delay_reads else b""
        if not data:
            return data
        self._chunks += 1
        if fault == "drop" and self._chunks % 2:
            return b""
        if fault == "corrupt":
            return data[:-1] + bytes([data[-1] ^ 0x5A])
        return data

    def write(self, data: bytes) -> None:
        if self.fault != "blackhole":
            self.inner.write(data)
            self.written.append(data)

    def close(self) -> None:
        self.inner.close()


class FaultProxy:
    """A TCP proxy on 127.0.0.1 in a thread: each client gets its own connection to ``upstream``.

    :meth:`set_fault` ``"blackhole"`` stops forwarding (sockets stay open); ``"close"`` closes every
    current pair (new clients are still served, so a client can come back); ``"refuse"`` also turns new
    clients away (closed at once) until the fault is set back to ``"none"``.
    """

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = self.listener.getsockname()[:2]
        self.url = f"tcp://127.0.0.1:{self.address[1]}"
        self.fault = "none"
        self.accepted = 0
        self._pairs: dict[socket.socket, socket.socket] = {}
        self._lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._serve, name="fault-proxy", daemon=True)
        self._thread.start()

    def set_fault(self, fault: str) -> None:
        with self._lock:
            self.fault = fault
            if fault in ("close", "refuse"):
                for sock in list(self._pairs):
                    self._drop(sock)

    def _drop(self, sock: socket.socket) -> None:
        peer = self._pairs.pop(sock, None)
        for s in (sock, peer):
            if s is not None:
                self._pairs.pop(s, None)
                with contextlib.suppress(OSError):
                    s.close()

    def _serve(self) -> None:
        while not self._stop:
            with self._lock:
                watched = [self.listener, *self._pairs]
            try:
                ready, _, _ = select.select(watched, [], [], 0.05)
            except (OSError, ValueError):
                continue
            with self._lock:
                for sock in ready:
                    if sock is self.listener:
                        self._accept()
                    elif sock in self._pairs:
                        self._forward(sock)

    def _accept(self) -> None:
        try:
            client, _ = self.listener.accept()
        except OSError:
            return
        if self.fault == "refuse":
            client.close()
            return
        try:
            server = socket.create_connection(self.upstream, timeout=WAIT)
        except OSError:
            client.close()
            return
        self.accepted += 1
        self._pairs[client] = server
        self._pairs[server] = client

    def _forward(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop(sock)
            return
        if self.fault == "blackhole":
            return
        with contextlib.suppress(OSError):
            self._pairs[sock].sendall(data)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=WAIT)
        with self._lock:
            for sock in list(self._pairs):
                self._drop(sock)
        self.listener.close()
