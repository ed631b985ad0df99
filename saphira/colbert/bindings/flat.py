"""Colbert bindings for a Flat4 connection's map changes (:mod:`saphira.flat.link`); see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. A Flat server announces a map change
(an automatic transition, or the answer to a ``t``/``m`` query) with ``:MAP-CHANGED``; the link fires a
Python event (:attr:`~saphira.flat.link.FlatLink.on_map_changed`). Colbert has no events, so an activity
polls two values instead, as it polls ``sfLaserScans``:

* ``sfFlatMap()`` is the map file the server last announced: ``""`` before any change (Flat does not
  name the first map), and when the robot link is not a Flat link;
* ``sfFlatMapChanges()`` counts the announcements since the link connected, so
  ``waitfor sfFlatMapChanges() > n;`` waits for the next one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saphira.colbert.bindings.table import BindingTable
from saphira.flat.link import FlatLink

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import _Session

__all__ = ["table"]


def _flat(s: _Session) -> FlatLink | None:
    link = s.robot.link
    return link if isinstance(link, FlatLink) else None


def _map(s: _Session) -> str:
    link = _flat(s)
    return "" if link is None or link.map_name is None else link.map_name


def _changes(s: _Session) -> int:
    link = _flat(s)
    return 0 if link is None else link.map_changes


def table(s: _Session) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    return BindingTable(
        functions=[
            ("sfFlatMap", "string()", lambda: _map(s), "the map file a Flat server last announced (\"\": none)"),
            ("sfFlatMapChanges", "int()", lambda: _changes(s), "map changes a Flat server announced"),
        ],
    )  # fmt: skip
