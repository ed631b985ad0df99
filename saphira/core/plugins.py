"""Classes registered by entry points (``saphira.devices``, ``saphira.sim_devices``): the one loader.

A package adds a part by declaring ``name = "module:Class"`` in an entry-point group; the loader imports
each, keeps those that are subclasses of the group's base class and logs, then leaves out, any that
cannot be imported or is of another kind, so one broken third-party package does not stop every robot.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

__all__ = ["loaded_entry_points", "registered_classes", "registered_instance"]

log = logging.getLogger("saphira.plugins")

T = TypeVar("T")


def loaded_entry_points(
    group: str, cannot_load: Callable[[EntryPoint, Exception], None]
) -> Iterator[tuple[EntryPoint, object]]:
    """Each entry point of ``group``, by name, with what it names imported; one that cannot be imported is
    told to ``cannot_load`` and left out."""
    for entry in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            loaded = entry.load()
        except Exception as exc:  # any import failure of a third-party package
            cannot_load(entry, exc)
            continue
        yield entry, loaded


def registered_classes(group: str, base: type[T]) -> list[type[T]]:
    """The ``base`` subclasses the entry points of ``group`` name, sorted by entry-point name."""

    def cannot_load(entry: EntryPoint, exc: Exception) -> None:
        log.warning("%s %s (%s) cannot be loaded: %s", group, entry.name, entry.value, exc)

    found: list[type[T]] = []
    for entry, kind in loaded_entry_points(group, cannot_load):
        if not (isinstance(kind, type) and issubclass(kind, base)):
            log.warning("%s %s (%s) is not a %s; left out", group, entry.name, entry.value, base.__name__)
            continue
        found.append(kind)
    return found


def registered_instance(instances: Mapping[str, object], name: str, kind: type[T], group: str) -> T:
    """The instance built from ``group``'s entry point ``name``, which must be a ``kind``.

    A KeyError names the registered ones and says to reinstall (an installed package's entry points are
    read from its metadata, which an editable install writes only when installed); a TypeError what it is.
    """
    instance = instances.get(name)
    if instance is None:
        raise KeyError(
            f"nothing named {name!r} is registered in {group!r} (registered: {', '.join(instances) or 'none'}); "
            "reinstall saphira (pip install -e .) after its entry points change"
        )
    if not isinstance(instance, kind):
        raise TypeError(f"{group} {name!r} is a {type(instance).__name__}, not a {kind.__name__}")
    return instance
