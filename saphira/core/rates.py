"""Counting events over the last second: the information area's MPac, SPac and VPac."""

from __future__ import annotations

from collections import deque

__all__ = ["PerSecond"]


class PerSecond:
    """Timestamps of events (clock seconds); :meth:`count` is how many fell in the last second."""

    def __init__(self) -> None:
        self._times: deque[float] = deque()

    def add(self, now: float, events: int = 1) -> None:
        self._times.extend([now] * events)

    def count(self, now: float) -> int:
        """Forget what is a second old or more, and count the rest."""
        times = self._times
        while times and now - times[0] >= 1.0:
            times.popleft()
        return len(times)

    def clear(self) -> None:
        self._times.clear()
