"""The live view's web server: the page, its static files and a WebSocket, behind a secret token.

aiohttp runs in its own thread with its own asyncio loop. The control cycle hands it frames with
:meth:`UiServer.publish` (a thread-safe call that returns at once); the loop turns each frame into JSON
once and gives it to every page. Each page has a one-frame mailbox: a page that reads slowly gets the
newest frame when it is ready and skips the ones in between, so a stalled browser costs frames, never
cycles. Interaction-area lines are queued per page (bounded) so none is skipped.

Security (the page runs Colbert and can load Python plugins, i.e. run code): the page at ``/`` and the
WebSocket must carry the run's random token, as ``?token=`` (the printed URL) or the ``X-Saphira-Token``
header, and no request may come from another origin's page (:mod:`saphira.ui.access`); anything else
is answered 403. There is no cookie: browsers send a cookie to every port of a host, so another local
server would get it and its pages could use it. The first request exchanges the token for a *session*:
the page at ``/`` comes with a fresh random session credential (a ``<meta>`` tag), which ``app.js``
keeps in memory only and offers when it opens the WebSocket (as a ``Sec-WebSocket-Protocol`` entry, a
header), then takes the token out of the address bar. So no request after the first names the token:
the static files are the package's own public code and are served without it (still only to the
own origin). A reload has neither, and gets a 403 page saying to open the printed URL again. Every
answer carries a strict Content-Security-Policy and no-framing, no-referrer headers. The default
address is 127.0.0.1; :meth:`UiServer.announce` warns when it is not loopback. How many connections
the server holds, and for how long without the token, is :mod:`saphira.ui.connections`'s.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from saphira.ui.access import exposure_warning, reachable_urls, refusal, security_headers
from saphira.ui.connections import KEEPALIVE_TIMEOUT, ConnectionGuard, summarised_loop_errors
from saphira.ui.options import DEFAULT_HOST

__all__ = ["PageHandler", "UiServer"]

log = logging.getLogger("saphira.ui")

STATIC_DIR = Path(__file__).parent / "static"
_NO_TOKEN = "this page needs the token printed when saphira started: open that URL"
_NO_TOKEN_PAGE = (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Saphira live view</title></head>\n'
    f"<body><p>403: {_NO_TOKEN} (the page keeps what it was given for it in memory only, so a reload "
    "needs the printed URL again).</p></body></html>\n"
)
SESSION_PROTOCOL = "saphira"
"""The WebSocket subprotocol the page asks for; it offers its session as ``saphira-session.<credential>``."""
_SESSION_PREFIX = "saphira-session."
MAX_SESSIONS = 64
"""Page loads whose session credential stays valid (the oldest is forgotten first)."""
MESSAGE_BACKLOG = 500
"""Interaction-area lines kept for a page that reads slowly (older ones are dropped)."""


class Frame(Protocol):
    """Anything :meth:`UiServer.publish` takes: it knows its JSON (built in the UI thread)."""

    def to_json(self) -> str: ...


class PageHandler(Protocol):
    """The live view behind the server: the first message a page gets, and what a page asks for."""

    def hello(self) -> dict[str, Any]: ...

    def handle(self, message: dict[str, Any]) -> None: ...


class _Page:
    """One connected WebSocket: a one-frame mailbox and a queue of message lines."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.frame: str | None = None
        self.lines: deque[str] = deque(maxlen=MESSAGE_BACKLOG)
        self.wake = asyncio.Event()
        self.sent = 0
        self.dropped = 0


class UiServer:
    """Serves the live view for one :class:`PageHandler` on ``host:port`` (see the module docstring)."""

    def __init__(self, handler: PageHandler, host: str = DEFAULT_HOST, port: int = 0) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.token = secrets.token_urlsafe(24)
        self.frames_published = 0
        self.connections = 0
        """WebSocket connections accepted so far (a new page may need what others already have)."""
        self._pages: set[_Page] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        self.guard: ConnectionGuard | None = None
        """What bounds the connections (:mod:`saphira.ui.connections`), once listening."""
        self._sessions: dict[str, None] = {}

    # ------------------------------------------------------------------ life
    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/?token={self.token}"

    @property
    def pages(self) -> int:
        """How many pages are connected now."""
        return len(self._pages)

    def start(self) -> str:
        """Start the server thread; returns the URL (with the token) once it is listening."""
        self._thread = threading.Thread(target=self._run, name="saphira-ui", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()  # its loop is closed: nothing for stop() to wait for
            self._loop = self._thread = None
            raise OSError(f"cannot serve the live view on {self.host}:{self.port}: {self._error}")
        return self.url

    def announce(self, say: Callable[[str], None]) -> None:
        """``say`` the URLs that reach the page (a wildcard address replaced by this host's addresses),
        and a warning when the page is served beyond loopback."""
        for url in reachable_urls(self.host, self.port, self.token):
            say(f"live view: {url}")
        warning = exposure_warning(self.host)
        if warning is not None:
            say(warning)

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already closed
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        self._thread = None

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._listen())
        except OSError as exc:
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _listen(self) -> None:
        app = web.Application(middlewares=[self._require_token])
        app.on_response_prepare.append(self._add_headers)
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/ws", self._websocket)
        self._runner = web.AppRunner(app, access_log=None, keepalive_timeout=KEEPALIVE_TIMEOUT)
        await self._runner.setup()
        server = self._runner.server
        assert server is not None  # set up above
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(summarised_loop_errors())
        self.guard = ConnectionGuard(server)
        self._listener = await loop.create_server(self.guard, self.host or None, self.port, backlog=128)
        sockets = self._listener.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        for page in list(self._pages):
            await page.ws.close()
        if self._listener is not None:
            self._listener.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ------------------------------------------------------------------ from the control thread
    def publish(self, frame: Frame) -> None:
        """Hand a frame to every page (returns at once; JSON is built in the UI thread)."""
        loop = self._loop
        if loop is not None and self._pages:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._deliver_frame, frame)

    def message(self, line: str) -> None:
        """A line for every page's interaction area."""
        loop = self._loop
        if loop is not None and self._pages:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._deliver_line, line)

    def _deliver_frame(self, frame: Frame) -> None:
        text = frame.to_json()
        self.frames_published += 1
        for page in self._pages:
            if page.frame is not None:
                page.dropped += 1
            page.frame = text
            page.wake.set()

    def _deliver_line(self, line: str) -> None:
        for page in self._pages:
            page.lines.append(line)
            page.wake.set()

    # ------------------------------------------------------------------ HTTP
    def _authorised(self, request: web.Request) -> bool:
        """The request names the token (query or header), or, for the WebSocket, a session it was given."""
        for given in (request.query.get("token"), request.headers.get("X-Saphira-Token")):
            if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
                return True
        if request.path != "/ws":
            return False
        offered = request.headers.get("Sec-WebSocket-Protocol", "")
        for entry in offered.split(","):
            session = entry.strip().removeprefix(_SESSION_PREFIX)
            if entry.strip().startswith(_SESSION_PREFIX) and any(
                hmac.compare_digest(session.encode(), known.encode()) for known in self._sessions
            ):
                return True
        return False

    def _new_session(self) -> str:
        """A fresh session credential for a page just served (the oldest beyond :data:`MAX_SESSIONS` forgotten)."""
        session = secrets.token_urlsafe(24)
        self._sessions[session] = None
        while len(self._sessions) > MAX_SESSIONS:
            del self._sessions[next(iter(self._sessions))]
        return session

    @web.middleware
    async def _require_token(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        why = refusal(request.headers)
        if why is not None:
            return web.Response(status=403, text=f"403: the live view answers only its own page, not {why}\n")
        if request.path.startswith("/static/"):  # the package's own public files: no secret in them
            return await handler(request)
        if self._authorised(request):
            if self.guard is not None:
                self.guard.trust(request)
            return await handler(request)
        if request.path == "/":
            return web.Response(status=403, text=_NO_TOKEN_PAGE, content_type="text/html")
        return web.Response(status=403, text=f"403: {_NO_TOKEN}\n")

    async def _add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(security_headers(request.headers))

    async def _index(self, request: web.Request) -> web.StreamResponse:
        page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        meta = f'<meta name="saphira-session" content="{self._new_session()}">'
        page = page.replace("<head>\n", f"<head>\n{meta}\n", 1)
        return web.Response(text=page, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC_DIR / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-store"})

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, protocols=(SESSION_PROTOCOL,))
        await ws.prepare(request)
        page = _Page(ws)
        await ws.send_str(json.dumps({"type": "hello", **self.handler.hello()}))
        self._pages.add(page)
        self.connections += 1
        writer = asyncio.ensure_future(self._write(page))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    message = json.loads(msg.data, parse_constant=_no_constant)
                    if not isinstance(message, dict):
                        raise ValueError("not an object")
                except ValueError as exc:
                    await ws.send_str(json.dumps({"type": "error", "text": f"bad message: {exc}"}))
                    continue
                loop = asyncio.get_running_loop()
                try:
                    await loop.run_in_executor(None, self.handler.handle, message)
                except Exception as exc:  # the page must survive anything a request can do
                    log.exception("live view request %r failed", message.get("type"))
                    await ws.send_str(json.dumps({"type": "error", "text": f"{type(exc).__name__}: {exc}"}))
        finally:
            self._pages.discard(page)
            writer.cancel()
        return ws

    async def _write(self, page: _Page) -> None:
        """Send a page its lines and its newest frame whenever there is something new."""
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while not page.ws.closed:
                await page.wake.wait()
                page.wake.clear()
                if page.lines:
                    lines = list(page.lines)
                    page.lines.clear()
                    await page.ws.send_str(json.dumps({"type": "messages", "lines": lines}))
                frame, page.frame = page.frame, None
                if frame is not None:
                    await page.ws.send_str(frame)
                    page.sent += 1


def _no_constant(name: str) -> float:
    """A page's JSON never holds NaN or Infinity (JSON.stringify writes null): refuse them."""
    raise ValueError(f"{name} is not a number")


class ServedView(abc.ABC):
    """A live view with its own :class:`UiServer`: :meth:`start` serves its pages, :meth:`stop` ends that.

    The robot's view (:class:`saphira.ui.liveview.LiveView`) and the simulators' (:mod:`saphira.ui.simview`)
    share it; they give the :class:`PageHandler` side.
    """

    server: UiServer | None = None

    def start(self, host: str, port: int, *, say: Callable[[str], None]) -> str:
        """Start serving and ``say`` where (:meth:`UiServer.announce`); returns the URL with its token."""
        self.server = UiServer(self, host, port)
        url = self.server.start()
        self.server.announce(say)
        return url

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()

    @abc.abstractmethod
    def hello(self) -> dict[str, Any]:
        """The first message a new page gets (what it needs to draw the view)."""

    @abc.abstractmethod
    def handle(self, message: dict[str, Any]) -> None:
        """Act on a message from a page."""
