"""One object attached to each owner (a scheduler, a reflector, a robot), made on first use.

The live view's display state and drawing, the perception task sets and the occupancy grid each
belong to one session without the session's classes knowing them: they hang off the owner here,
weakly, so they go when the owner goes. Lookups may come from the UI thread as well as the control
cycle, hence the lock (re-entrant, so a factory may look up another attached object).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Attached"]

K = TypeVar("K")
V = TypeVar("V")


class Attached(Generic[K, V]):
    """A weak map from owners to the one ``V`` each has, made by ``make`` on first lookup."""

    def __init__(self) -> None:
        self._objects: weakref.WeakKeyDictionary[K, V] = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()

    def get(self, owner: K, make: Callable[[], V]) -> V:
        """The object attached to ``owner``, made (and attached) now if it has none."""
        with self._lock:
            found = self._objects.get(owner)
            if found is None:
                found = self._objects[owner] = make()
            return found
