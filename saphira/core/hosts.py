"""Where a server bound to a host address can be reached from: this host only, or beyond it.

The live view and the Foxglove server both warn when they listen beyond loopback (a wildcard or another
address), the live view names the URLs that reach it, and ``saphira sim`` lets clients end it only from
this host (:mod:`saphira.app.exposure`); all ask these questions, so they sit here, below each of them,
with the standard library only.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

__all__ = ["beyond_loopback", "host_addresses", "is_loopback", "is_wildcard", "reachable_hosts", "url_host"]


def is_wildcard(host: str) -> bool:
    """Whether binding ``host`` listens on every interface (of one family, or of both for ``""``)."""
    return host in ("0.0.0.0", "::", "")


def _addresses(host: str) -> list[str]:
    """The addresses ``host`` stands for (itself when it is one; a name resolved; none if unresolvable)."""
    with contextlib.suppress(ValueError):
        return [str(ipaddress.ip_address(host))]
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is a loopback one (an unresolvable name is not)."""
    found = _addresses(host)
    return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)


def host_addresses(family: socket.AddressFamily) -> list[str]:
    """This host's own addresses of one family, as far as the standard library tells them: its names
    resolved, and the address it would reach the outside world from (a UDP connect sends nothing)."""
    found: list[str] = []
    for name in dict.fromkeys((socket.gethostname(), socket.getfqdn())):
        with contextlib.suppress(OSError, UnicodeError):
            found += [str(info[4][0]) for info in socket.getaddrinfo(name, None, family, socket.SOCK_STREAM)]
    probe = "192.0.2.1" if family == socket.AF_INET else "2001:db8::1"  # documentation addresses: never reached
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as udp:
        udp.connect((probe, 9))
        found.append(str(udp.getsockname()[0]))
    loopback = "127.0.0.1" if family == socket.AF_INET else "::1"
    usable = [a for a in found if not ipaddress.ip_address(a.split("%")[0]).is_link_local]
    return list(dict.fromkeys([loopback, *usable]))


def beyond_loopback(host: str) -> str | None:
    """Where a server bound to ``host`` listens beyond this host ("every interface", or ``host``), or None
    when only loopback reaches it."""
    if not is_wildcard(host) and is_loopback(host):
        return None
    return "every interface" if is_wildcard(host) else host


def reachable_hosts(host: str) -> list[str]:
    """The addresses that reach a server bound to ``host``: a wildcard stands for this host's own addresses
    (loopback first; ``""`` for those of both families), any other host for itself."""
    if not is_wildcard(host):
        return [host]
    hosts = host_addresses(socket.AF_INET6 if host == "::" else socket.AF_INET)
    if host == "":
        hosts += host_addresses(socket.AF_INET6)
    return list(dict.fromkeys(hosts))


def url_host(host: str) -> str:
    """``host`` as a URL names it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host
