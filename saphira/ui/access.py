"""Who may reach the live view, what every answer says to the browser, and where the page can be opened.

The page runs code (Colbert, Python plugins), so besides the token (:mod:`saphira.ui.server`) a request
must come from the live view's own page or from no page at all: a browser names the page that makes a
request in ``Origin`` (always on a WebSocket upgrade) and ``Sec-Fetch-Site``. Any other origin is
refused, another port of the same host included (browsers treat every port of 127.0.0.1 as one site).
The own origin is the one the browser reached this server by (its ``Host``), so an SSH tunnel or a
renamed host still works; a DNS-rebinding page passes this check but has no token.

Kept free of aiohttp so that it is tested and used without a server; which addresses reach a server
(and whether only loopback does) is :mod:`saphira.core.hosts`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from saphira.core.hosts import beyond_loopback, reachable_hosts, url_host

__all__ = ["exposure_warning", "reachable_urls", "refusal", "security_headers"]

_ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})
_HOST_HEADER = re.compile(r"^[A-Za-z0-9._~\-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$")
"""A Host header we are willing to name in the Content-Security-Policy (no spaces, no ';')."""

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{ws}; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def refusal(headers: Mapping[str, str]) -> str | None:
    """Why a request with these headers comes from another site's page (None: from ours, or from no page)."""
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in _ALLOWED_FETCH_SITES:
        return f"a request from another site's page (Sec-Fetch-Site: {site})"
    origin = headers.get("Origin")
    if origin is None:
        return None
    host = headers.get("Host", "").lower()
    if origin.lower() not in (f"http://{host}", f"https://{host}") or not host:
        return f"a request from the page of another origin ({origin}, this server is {host or 'unnamed'})"
    return None


def security_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers every answer carries: a strict Content-Security-Policy (the page has no inline script
    and loads nothing from elsewhere), no framing, no Referer, no MIME sniffing."""
    host = headers.get("Host", "")
    ws = f" ws://{host} wss://{host}" if _HOST_HEADER.match(host) else ""
    return {
        "Content-Security-Policy": _CSP.format(ws=ws),
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Cross-Origin-Resource-Policy": "same-origin",
    }


def reachable_urls(host: str, port: int, token: str) -> list[str]:
    """The URLs (with the token) that reach a server bound to ``host:port``: a wildcard address is
    replaced by this host's own addresses, loopback first."""
    return [f"http://{url_host(h)}:{port}/?token={token}" for h in reachable_hosts(host)]


def exposure_warning(host: str) -> str | None:
    """A warning when the page is served beyond this host (a wildcard or non-loopback address)."""
    where = beyond_loopback(host)
    if where is None:
        return None
    return (
        f"warning: the live view listens on {where}, not only on loopback: its page runs code as this user "
        "(Colbert, Python plugins) and its token travels in clear (plain HTTP) to anyone on the way; "
        "prefer the default 127.0.0.1 and an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host)"
    )
