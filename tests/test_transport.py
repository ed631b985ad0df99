"""Transports by URL: TCP on loopback, pyserial URLs, the in-process pair, clear open errors."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.client.transport import (
    MemoryTransport,
    SerialTransport,
    SocketTransport,
    TransportClosed,
    TransportError,
    memory_pair,
    open_transport,
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    yield srv
    srv.close()


def _read_until(t: SocketTransport | SerialTransport | MemoryTransport, n: int) -> bytes:
    data = b""
    for _ in range(100_000):
        data += t.read()
        if len(data) >= n:
            break
    return data


def test_tcp_roundtrip_and_peer_close(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    client = open_transport(f"tcp://127.0.0.1:{port}")
    assert isinstance(client, SocketTransport)
    peer, _ = listener.accept()
    assert client.read() == b""  # non-blocking: nothing yet
    client.write(b"\xfa\xfb\x03\x00\x00\x00")
    assert peer.recv(16) == b"\xfa\xfb\x03\x00\x00\x00"
    peer.sendall(b"hello")
    assert _read_until(client, 5) == b"hello"
    peer.close()
    with pytest.raises(TransportClosed):
        for _ in range(100_000):
            client.read()
    assert client.closed


def test_tcp_refused_names_the_address() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(TransportError, match=f"tcp://127.0.0.1:{port}"):
        open_transport(f"tcp://127.0.0.1:{port}")


def test_pyserial_loop_url() -> None:
    t = open_transport("loop://")
    assert isinstance(t, SerialTransport)
    t.write(b"abc")
    assert _read_until(t, 3) == b"abc"
    t.close()
    with pytest.raises(TransportClosed):
        t.read()


def test_pyserial_socket_url(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    t = open_transport(f"socket://127.0.0.1:{port}")
    peer, _ = listener.accept()
    peer.sendall(b"xyz")
    assert _read_until(t, 3) == b"xyz"
    t.close()
    peer.close()


def test_serial_missing_device_is_a_clear_error() -> None:
    with pytest.raises(TransportError, match="cannot open serial port '/dev/nonexistent-tty'"):
        open_transport("serial:///dev/nonexistent-tty?baud=19200")


def test_unix_socket_roundtrip_and_peer_close(tmp_path: Path) -> None:
    path = tmp_path / "robot.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)
    try:
        client = open_transport(f"unix://{path}")
        assert isinstance(client, SocketTransport) and client.url == f"unix://{path}"
        peer, _ = srv.accept()
        client.write(b"\xfa\xfb\x03\x00\x00\x00")
        assert peer.recv(16) == b"\xfa\xfb\x03\x00\x00\x00"
        peer.sendall(b"hello")
        assert _read_until(client, 5) == b"hello"
        peer.close()
        with pytest.raises(TransportClosed):
            for _ in range(100_000):
                client.read()
    finally:
        srv.close()


def test_unix_socket_missing_says_what_to_start(tmp_path: Path) -> None:
    with pytest.raises(TransportError, match=f"cannot connect to unix://{tmp_path}/none.sock: .*saphira sim --unix"):
        open_transport(f"unix://{tmp_path}/none.sock")


@pytest.mark.parametrize(
    "url", ["bogus://x", "tcp://", "serial://?baud=9600", "tcp://localhost:99999", "unix://", "unix:///"]
)
def test_bad_urls(url: str) -> None:
    with pytest.raises(TransportError):
        open_transport(url)


def test_memory_pair_both_directions_and_close() -> None:
    client, server = memory_pair()
    client.write(b"ab")
    client.write(b"cd")
    assert server.read() == b"abcd"
    server.write(b"zz")
    assert client.read() == b"zz"
    assert client.read() == b""
    server.close()
    assert client.closed
    with pytest.raises(TransportClosed):
        client.write(b"x")
    with pytest.raises(TransportClosed):
        client.read()


def test_a_peer_that_stops_reading_counts_as_gone(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    client = open_transport(f"tcp://127.0.0.1:{port}")
    peer, _ = listener.accept()  # accepted, never read
    with pytest.raises(TransportClosed, match="stopped reading"):
        for _ in range(10_000):
            client.write(b"x" * 4096)
    assert client.closed
    peer.close()
