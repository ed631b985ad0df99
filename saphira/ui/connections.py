"""How many connections the live view holds, and for how long one may stay without showing the token.

aiohttp keeps any connection open that sends nothing, and a process has a limited number of
descriptors (often 1,024), which the simulator's robots share with the live view in ``saphira sim
--ui``. :class:`ConnectionGuard` is the protocol factory the server listens with; it counts what
aiohttp's own server holds:

* A connection is *trusted* once one of its requests passed the token check (the page, its WebSocket);
  until then it is a stranger. A stranger is closed :data:`STRANGER_LIFETIME` seconds after it
  connected, whatever it sends meanwhile; at most :data:`MAX_STRANGERS` are open at once, and a new one
  beyond that closes the oldest (so idle connections cannot lock the real page out).
* At most :data:`MAX_CONNECTIONS` are open in all; a connection beyond that is closed at once.
* A trusted connection left idle between requests is closed after aiohttp's keep-alive timeout
  (:data:`KEEPALIVE_TIMEOUT`); a WebSocket stays while it lives (its heartbeat finds a dead peer).

:func:`summarised_loop_errors` is the loop's exception handler: asyncio logs a traceback for every
accept that fails for want of descriptors, many times a second; this logs the first and then a count.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from saphira.core.logrepeats import RepeatedErrors

__all__ = ["ConnectionGuard", "summarised_loop_errors"]

log = logging.getLogger("saphira.ui")

MAX_CONNECTIONS = 128
"""Connections open at once, trusted or not."""
MAX_STRANGERS = 32
"""Connections open at once that have not yet shown the token (a browser opens about 6 per host)."""
STRANGER_LIFETIME = 5.0
"""Seconds a connection may stay open without a request that passed the token check."""
KEEPALIVE_TIMEOUT = 15.0
"""Seconds a trusted connection may stay idle between requests (aiohttp's default is an hour)."""


class _Refused(asyncio.Protocol):
    """A connection over :data:`MAX_CONNECTIONS`: closed as soon as it is accepted."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class ConnectionGuard:
    """The protocol factory for ``loop.create_server``: aiohttp's handlers, within the bounds above."""

    def __init__(self, server: web.Server) -> None:
        self.server = server
        self._trusted: set[RequestHandler] = set()
        """Connections that showed the token (dropped from here when aiohttp no longer holds them)."""
        self.closed_strangers = 0
        """Connections closed for having shown no token in time, or to make room for a newer one."""
        self.refused = 0
        """Connections closed at once: :data:`MAX_CONNECTIONS` were open."""

    def trust(self, request: web.BaseRequest) -> None:
        """``request`` passed the token check: its connection is no longer a stranger."""
        protocol = request.protocol
        if isinstance(protocol, RequestHandler):
            self._trusted.add(protocol)

    def strangers(self) -> list[RequestHandler]:
        """The open connections that have not shown the token, oldest first (closed ones left out)."""
        return [h for h in self.server.connections if h not in self._trusted and h.transport is not None]

    def __call__(self) -> asyncio.BaseProtocol:
        self._trusted.intersection_update(self.server.connections)
        if len(self.server.connections) >= MAX_CONNECTIONS:
            self.refused += 1
            return _Refused()
        handler = self.server()
        loop = asyncio.get_running_loop()
        loop.call_later(STRANGER_LIFETIME, self._expire, handler)
        # The handler joins aiohttp's list in connection_made, which asyncio schedules after this
        # returns (call_soon): count the strangers after that, two turns of the loop from now.
        loop.call_soon(loop.call_soon, self._make_room)
        return handler

    def _make_room(self) -> None:
        """Close the oldest strangers beyond :data:`MAX_STRANGERS`."""
        strangers = self.strangers()
        for handler in strangers[: max(0, len(strangers) - MAX_STRANGERS)]:
            self._close(handler)

    def _expire(self, handler: RequestHandler) -> None:
        if handler not in self._trusted and handler.transport is not None:
            self._close(handler)

    def _close(self, handler: RequestHandler) -> None:
        self.closed_strangers += 1
        handler.force_close()


def summarised_loop_errors() -> Any:
    """An exception handler for the live view's loop: each message logged once, then counted."""
    repeated = RepeatedErrors(log)

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        repeated.note(f"live view: {context.get('message', 'error')}" + (f": {exc}" if exc is not None else ""))

    return handle
