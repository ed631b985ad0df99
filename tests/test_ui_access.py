"""Who reaches the live view (issue 24, item 1): its own page only, by the token, never by a cookie.

Plain aiohttp clients against a :class:`UiServer` on 127.0.0.1 (the browser's side is in
``test_ui_browser.py``). Every wait is bounded by the client's timeout.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from saphira.ui import connections
from saphira.ui.server import UiServer
from tests.realtime import WAIT
from tests.sim_process import PROJECT
from tests.ui_support import start_command

TIMEOUT = aiohttp.ClientTimeout(total=WAIT)
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


class _Recorder:
    """A page handler that keeps what pages ask for."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def hello(self) -> dict[str, Any]:
        return {"mode": "test"}

    def handle(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


@pytest.fixture
def served() -> Iterator[tuple[UiServer, _Recorder]]:
    handler = _Recorder()
    server = UiServer(handler, "127.0.0.1", 0)
    server.start()
    try:
        yield server, handler
    finally:
        server.stop()


def _base(server: UiServer) -> str:
    return f"http://127.0.0.1:{server.port}/"


async def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as client,
        client.get(url, headers=headers or {}, allow_redirects=False) as response,
    ):
        return response.status, dict(response.headers), await response.text()


async def _upgrade(url: str, headers: dict[str, str]) -> tuple[int, list[dict[str, Any]]]:
    """Open the WebSocket, send ``{"type": "probe"}``, return (101, what came back) or (refused status, [])."""
    async with aiohttp.ClientSession(timeout=TIMEOUT) as client:
        try:
            ws = await client.ws_connect(url, headers=headers)
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status, []
        async with ws:
            hello = await ws.receive_json(timeout=WAIT)
            await ws.send_str('{"type": "probe"}')
            await ws.send_str('{"type": "nan", "x": NaN}')
            error = await ws.receive_json(timeout=WAIT)
            return 101, [hello, error]


def test_a_page_of_another_origin_is_refused_even_with_the_token(served: tuple[UiServer, _Recorder]) -> None:
    server, handler = served
    base = _base(server)
    page, ws = f"{base}?token={server.token}", f"{base}ws?token={server.token}"
    own = f"http://127.0.0.1:{server.port}"
    for origin in ("http://127.0.0.1:1", "http://localhost:" + str(server.port), "null", "http://evil.example"):
        assert asyncio.run(_upgrade(ws, {"Origin": origin}))[0] == 403, origin
        status, _, body = asyncio.run(_get(page, {"Origin": origin}))
        assert status == 403 and "only its own page" in body, origin
    for site in ("cross-site", "same-site"):
        assert asyncio.run(_upgrade(ws, {"Origin": own, "Sec-Fetch-Site": site}))[0] == 403, site
        assert asyncio.run(_get(f"{base}static/app.js?token={server.token}", {"Sec-Fetch-Site": site}))[0] == 403
    assert handler.messages == []
    # The page's own origin, or no page at all (a user typing the URL: Sec-Fetch-Site none) is served.
    status, answers = asyncio.run(_upgrade(ws, {"Origin": own, "Sec-Fetch-Site": "same-origin"}))
    assert status == 101 and answers[0] == {"type": "hello", "mode": "test"}
    assert answers[1]["type"] == "error" and "NaN is not a number" in answers[1]["text"]
    assert asyncio.run(_get(page, {"Sec-Fetch-Site": "none"}))[0] == 200
    assert handler.messages == [{"type": "probe"}]


def test_the_websocket_and_the_page_take_no_cookie(served: tuple[UiServer, _Recorder]) -> None:
    server, handler = served
    base = _base(server)
    status, headers, _ = asyncio.run(_get(f"{base}?token={server.token}"))
    assert status == 200 and "Set-Cookie" not in headers
    cookie = {"Cookie": f"saphira_token={server.token}"}
    own = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert asyncio.run(_upgrade(f"{base}ws", {**cookie, **own}))[0] == 403
    assert asyncio.run(_get(base, cookie))[0] == 403
    assert handler.messages == []


def test_the_token_is_exchanged_for_a_session_and_no_file_the_page_names_carries_it(
    served: tuple[UiServer, _Recorder],
) -> None:
    server, handler = served
    base = _base(server)
    own = {"Origin": f"http://127.0.0.1:{server.port}"}
    _, _, page = asyncio.run(_get(f"{base}?token={server.token}"))
    files = re.findall(r'(?:src|href)="(static/[^"]+)"', page)
    assert sorted(files) == ["static/app.js", "static/style.css"] and server.token not in page
    for name in files:  # the package's own public files: served without the token, to the own page
        assert asyncio.run(_get(base + name, {"Sec-Fetch-Site": "same-origin"}))[0] == 200, name
    assert "<script>" not in page and re.search(r"\son[a-z]+=", page) is None  # no inline script to allow
    session = re.findall(r'<meta name="saphira-session" content="([\w-]+)">', page)
    _, _, again = asyncio.run(_get(f"{base}?token={server.token}"))
    assert len(session) == 1 and len(session[0]) >= 32 and session[0] not in again  # one per page load
    offered = {**own, "Sec-WebSocket-Protocol": f"saphira, saphira-session.{session[0]}"}
    status, answers = asyncio.run(_upgrade(f"{base}ws", offered))  # the session opens the WebSocket ...
    assert status == 101 and answers[0]["type"] == "hello"
    forged = {**own, "Sec-WebSocket-Protocol": f"saphira, saphira-session.{session[0][:-1]}x"}
    assert asyncio.run(_upgrade(f"{base}ws", forged))[0] == 403  # ... and nothing like it does
    foreign = {"Origin": "http://127.0.0.1:1", "Sec-WebSocket-Protocol": offered["Sec-WebSocket-Protocol"]}
    assert asyncio.run(_upgrade(f"{base}ws", foreign))[0] == 403  # nor from another origin's page
    assert asyncio.run(_get(f"{base}?session={session[0]}"))[0] == 403  # the page itself needs the token
    assert handler.messages == [{"type": "probe"}]


def test_every_answer_carries_the_security_headers(served: tuple[UiServer, _Recorder]) -> None:
    server, _ = served
    base, token = _base(server), server.token
    answers = {f"?token={token}": 200, f"static/app.js?token={token}": 200, "": 403,
               f"static/nothing.js?token={token}": 404}  # fmt: skip
    for path, expected in answers.items():
        status, headers, _ = asyncio.run(_get(base + path))
        assert status == expected, path
        for name, value in SECURITY_HEADERS.items():
            assert headers.get(name) == value, (path, name)
        policy = {d.split()[0]: d.split()[1:] for d in headers["Content-Security-Policy"].split("; ")}
        assert policy["default-src"] == ["'self'"] and policy["script-src"] == ["'self'"], policy
        assert f"ws://127.0.0.1:{server.port}" in policy["connect-src"] and policy["frame-ancestors"] == ["'none'"]


def test_a_loopback_view_prints_one_url_and_no_warning() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "saphira", "sim", "--port", "0", "--ui", "127.0.0.1:0"],
                            cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=dict(os.environ, PYTHONPATH=str(PROJECT)))  # fmt: skip
    assert proc.stdout is not None
    output = b""
    try:
        deadline = time.monotonic() + WAIT
        while b"listening on" not in output:  # printed after the live view's lines
            assert time.monotonic() < deadline and proc.poll() is None, output
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                output += os.read(proc.stdout.fileno(), 4096)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)
    said = output.decode()
    assert said.count("live view: http://127.0.0.1:") == 1 and "warning" not in said, said


def test_a_wildcard_or_outside_address_is_announced_with_real_urls_and_a_warning() -> None:
    said: list[str] = []
    UiServer(_Recorder(), "0.0.0.0", 8080).announce(said.append)  # not started: nothing listens beyond loopback
    urls = [line.removeprefix("live view: ") for line in said if line.startswith("live view: ")]
    assert urls and urls[0].startswith("http://127.0.0.1:8080/?token=")
    assert all("0.0.0.0" not in u and re.match(r"http://[0-9.]+:8080/\?token=\S+$", u) for u in urls), urls
    assert len(said) == len(urls) + 1 and "runs code" in said[-1] and "in clear" in said[-1]
    said.clear()
    UiServer(_Recorder(), "192.0.2.7", 8080).announce(said.append)
    assert said[0].startswith("live view: http://192.0.2.7:8080/?token=") and "warning" in said[1]
    said.clear()
    UiServer(_Recorder(), "localhost", 8080).announce(said.append)
    assert len(said) == 1 and said[0].startswith("live view: http://localhost:8080/")


def test_the_token_printed_by_a_command_opens_the_websocket_from_the_own_page_only() -> None:
    proc, url = start_command("sim", "--port", "0", "--ui", "127.0.0.1:0", "-q")
    try:
        base, token = url.split("?token=")
        ws = f"{base}ws?token={token}"
        own = base.rstrip("/")
        assert asyncio.run(_upgrade(ws, {"Origin": "http://127.0.0.1:1"}))[0] == 403
        status, answers = asyncio.run(_upgrade(ws, {"Origin": own}))
        assert status == 101 and answers[0]["type"] == "hello" and json.dumps(answers[0])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)


def test_without_the_token_the_page_is_a_403_that_says_what_to_do_and_the_files_hold_no_secret(
    served: tuple[UiServer, _Recorder],
) -> None:
    server, _ = served
    base = _base(server)
    status, headers, page = asyncio.run(_get(base))
    assert status == 403 and headers["Content-Type"].startswith("text/html") and server.token not in page
    assert "open that URL" in page and "<script" not in page
    for name in ("app.js", "style.css", "index.html"):
        status, _, text = asyncio.run(_get(f"{base}static/{name}"))
        assert status == 200 and server.token not in text and 'saphira-session" content' not in text, name
        assert asyncio.run(_get(f"{base}static/{name}", {"Origin": "http://127.0.0.1:1"}))[0] == 403, name


def test_idle_connections_without_the_token_are_bounded_and_closed_and_the_page_still_loads(
    served: tuple[UiServer, _Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = served
    monkeypatch.setattr(connections, "STRANGER_LIFETIME", 1.0)  # 5 s in use; the rule is the same
    address = ("127.0.0.1", server.port)
    idle = [socket.create_connection(address, timeout=WAIT) for _ in range(100)]  # never send a byte
    try:
        status, _, page = asyncio.run(_get(f"{_base(server)}?token={server.token}"))  # the real page gets in
        assert status == 200 and "saphira-session" in page
        guard = server.guard
        assert guard is not None
        assert len(guard.strangers()) <= connections.MAX_STRANGERS  # the oldest idle ones made room
        assert idle[0].recv(1) == b"" and idle[-1].recv(1) == b""  # closed: the first to make room, the
        assert guard.closed_strangers >= 100  # last after its lifetime (recv waits for it, up to 20 s)
    finally:
        for sock in idle:
            sock.close()
