"""Gamebots' server half: our simulator seen by USARSim clients.

:mod:`.listener` accepts the sockets, :mod:`.session` spawns and drives one robot per INIT, :mod:`.laser` is the
RangeScanner it carries (``saphira sim --gamebots PORT``).
"""

from typing import TYPE_CHECKING

if not TYPE_CHECKING:  # type checkers see only the package's own names
    from saphira._moved import moved_attribute

    def __getattr__(name: str) -> object:
        """The names of the 0.2 module this package replaced (``GamebotsServer``...), with a DeprecationWarning."""
        return moved_attribute(__name__, name)
