"""Links chosen by URL scheme, as pyserial chooses a transport: ``flat://`` gets Flat's link, ``tcp://`` the Pioneer's.

The Pioneer link (:class:`~saphira.client.link.pioneer.PioneerLink`) owns every scheme its transports open
(:data:`~saphira.client.transport.TRANSPORT_SCHEMES`: ``tcp``, ``unix``, ``serial``, pyserial's URLs) and bare
device names (``/dev/ttyS0``, ``COM3``); a :class:`~saphira.client.transport.Transport` object is its too.

Any other protocol package declares its schemes as Python entry points in the group ``saphira.links``
(``flat = "saphira.flat.client.link"`` in ``pyproject.toml``), and its module calls :func:`register_link` when
imported. The registry imports that module the first time a URL of the scheme is looked up, and only
then, so a Pioneer program never loads the other protocols, nor the simulators behind them.

The registry only names classes: the robot session builds the link a URL needs and swaps it in
(:meth:`saphira.robot.Robot.connect`).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from saphira.client.link.base import ConnectError, Link
from saphira.client.link.pioneer import PioneerLink
from saphira.client.transport import TRANSPORT_SCHEMES, Transport, url_scheme

__all__ = ["ENTRY_POINT_GROUP", "known_schemes", "link_type", "register_link"]

ENTRY_POINT_GROUP = "saphira.links"

_links: dict[str, type[Link]] = dict.fromkeys(TRANSPORT_SCHEMES, PioneerLink)


def register_link(scheme: str, opener: type[Link]) -> None:
    """Open URLs of ``scheme`` (``"flat"`` for ``flat://…``) with ``opener``, a link class.

    The robot builds it as ``opener(reflector, clock, options, events=events)`` (the
    :class:`~saphira.client.link.base.Link` constructor), and it tells the session what it needs to know
    (:attr:`~saphira.client.link.base.Link.paces_clock`). A scheme registered again takes the newer class.
    """
    _links[scheme.lower()] = opener


def known_schemes() -> list[str]:
    """Every scheme a link is registered or declared (by an entry point, not yet loaded) for, sorted."""
    return sorted(set(_links) | {ep.name.lower() for ep in entry_points(group=ENTRY_POINT_GROUP)})


def link_type(target: str | Transport) -> type[Link]:
    """The link class for ``target``: its scheme's, loading the declaring package on first use.

    Raises :class:`~saphira.client.link.base.ConnectError` naming the known schemes for an unknown
    one, and the entry point's module when it cannot be imported or registers no link for the scheme.
    """
    if isinstance(target, Transport):
        return PioneerLink
    scheme = url_scheme(target)
    if scheme == "":
        return PioneerLink  # a bare serial device name
    if scheme not in _links:
        _load_entry_point(target, scheme)
    return _links[scheme]


def _load_entry_point(url: str, scheme: str) -> None:
    declared = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name.lower() == scheme]
    if not declared:
        raise ConnectError(
            f"unknown transport URL {url!r}: no link for {scheme}:// (known schemes: {', '.join(known_schemes())}; "
            f"a protocol package declares its own in the {ENTRY_POINT_GROUP!r} entry point group)"
        )
    entry = declared[0]
    try:
        entry.load()
    except Exception as exc:  # any import failure of a third-party package: reported as a failed connect
        raise ConnectError(f"{url!r}: the link for {scheme}:// ({entry.value}) cannot be loaded: {exc}") from exc
    if scheme not in _links:
        raise ConnectError(f"{url!r}: {entry.value} registered no link for {scheme}:// (register_link)")
