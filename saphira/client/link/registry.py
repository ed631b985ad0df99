"""Links chosen by URL scheme, as pyserial chooses a transport: ``flat://`` gets Flat's link, ``tcp://`` the Pioneer's.

The Pioneer link (:class:`~saphira.client.link.pioneer.Link`) owns every scheme its transports open
(:data:`~saphira.client.transport.TRANSPORT_SCHEMES`: ``tcp``, ``unix``, ``serial``, pyserial's URLs) and bare
device names (``/dev/ttyS0``, ``COM3``); a :class:`~saphira.client.transport.Transport` object is its too.

Any other protocol package declares its schemes as Python entry points in the group ``saphira.links``
(``flat = "saphira.flat.client.link"`` in ``pyproject.toml``), and its module calls :func:`register_link` when
imported. The registry imports that module the first time a URL of the scheme is looked up, and only
then, so a Pioneer program never loads the other protocols, nor the simulators behind them.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from saphira.client.link.pioneer import ConnectError, Link
from saphira.client.transport import TRANSPORT_SCHEMES, Transport, url_scheme

__all__ = ["ENTRY_POINT_GROUP", "known_schemes", "link_for", "link_type", "register_link"]

ENTRY_POINT_GROUP = "saphira.links"

_links: dict[str, type[Link]] = dict.fromkeys(TRANSPORT_SCHEMES, Link)


def register_link(scheme: str, opener: type[Link]) -> None:
    """Open URLs of ``scheme`` (``"flat"`` for ``flat://…``) with ``opener``, a link class.

    The class is built on the robot's reflector, clock and options by :meth:`Link.replacing
    <saphira.client.link.pioneer.Link.replacing>`, and tells the session what it needs to know
    (:attr:`~saphira.client.link.pioneer.Link.paces_clock`). A scheme registered again takes the newer class.
    """
    _links[scheme.lower()] = opener


def known_schemes() -> list[str]:
    """Every scheme a link is registered or declared (by an entry point, not yet loaded) for, sorted."""
    return sorted(set(_links) | {ep.name.lower() for ep in entry_points(group=ENTRY_POINT_GROUP)})


def link_type(target: str | Transport) -> type[Link]:
    """The link class for ``target``: its scheme's, loading the declaring package on first use.

    Raises :class:`~saphira.client.link.pioneer.ConnectError` naming the known schemes for an unknown
    one, and the entry point's module when it cannot be imported or registers no link for the scheme.
    """
    if isinstance(target, Transport):
        return Link
    scheme = url_scheme(target)
    if scheme == "":
        return Link  # a bare serial device name
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


def link_for(link: Link, target: str | Transport) -> Link:
    """The link ``target`` needs, in place of the robot's ``link``.

    ``link`` itself when it is of the target's kind; the link it stood in for when that one is (the
    Pioneer link a ``flat://`` link replaced comes back for ``tcp://``); else a new link of the kind
    replacing it on the same reflector, clock and events.
    """
    kind = link_type(target)
    if type(link) is kind:
        return link
    base = link.stands_in_for or link
    if type(base) is kind:
        return base
    return kind.replacing(base)
