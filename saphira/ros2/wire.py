"""The pipe between a run and its DDS process (:mod:`saphira.ros2.node`): length-prefixed pickles.

Each frame is its length (4 bytes, little endian) then a pickle of the value. Both ends are saphira's own
processes (the run starts the DDS process and holds both ends of its pipes); nothing from the network
travels this way unchecked: what DDS delivers is turned into plain numbers before it is framed.
"""

from __future__ import annotations

import pickle
from typing import Any

__all__ = ["FrameReader", "frame"]

_LENGTH = 4


def frame(value: Any) -> bytes:
    """One frame: the length, then the pickle."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LENGTH, "little") + data


class FrameReader:
    """Reassembles frames from bytes as they come (a read may end anywhere in a frame)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        """The values of the frames these bytes complete, in order."""
        self._buffer += data
        values = []
        while len(self._buffer) >= _LENGTH:
            size = int.from_bytes(self._buffer[:_LENGTH], "little")
            if len(self._buffer) < _LENGTH + size:
                break
            values.append(pickle.loads(self._buffer[_LENGTH : _LENGTH + size]))
            del self._buffer[: _LENGTH + size]
        return values
