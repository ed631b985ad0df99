"""Colbert bindings for a Flat4 connection's map changes; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. A Flat server announces a map change
(an automatic transition, or the answer to a ``t``/``m`` query) with ``:MAP-CHANGED``; its link keeps the
announcement in :attr:`~saphira.client.link.base.Link.map_name` and
:attr:`~saphira.client.link.base.Link.map_changes`, which every link has (a link whose peer announces no
maps keeps None and 0), so these bindings need not know which protocol the robot speaks. Colbert has no
events, so an activity polls two values, as it polls ``sfLaserScans``:

* ``sfFlatMap()`` is the map file the server last announced: ``""`` before any change (Flat does not
  name the first map), and when the robot link announces no maps;
* ``sfFlatMapChanges()`` counts the announcements since the link connected, so
  ``waitfor sfFlatMapChanges() > n;`` waits for the next one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saphira.colbert.bindings.table import BindingTable

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["table"]


def _map(s: Bindings) -> str:
    return s.robot.link.map_name or ""


def _changes(s: Bindings) -> int:
    return s.robot.link.map_changes


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    return BindingTable(
        functions=[
            ("sfFlatMap", "string()", lambda: _map(s), "the map file a Flat server last announced (\"\": none)"),
            ("sfFlatMapChanges", "int()", lambda: _changes(s), "map changes a Flat server announced"),
        ],
    )  # fmt: skip
