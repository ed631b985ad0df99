"""Flat4's server half: our simulator seen by a Flat controller, as Flat4 steps it.

:mod:`.simulation` steps the world per controller line, :mod:`.laser` and :mod:`.queries` answer what Flat's
robot senses and asks, :mod:`.listener` serves one controller on a TCP port (``saphira sim --flat PORT``).
"""

from typing import TYPE_CHECKING

if not TYPE_CHECKING:  # type checkers see only the package's own names
    from saphira._moved import moved_attribute

    def __getattr__(name: str) -> object:
        """The names of the 0.2 module this package replaced (``FlatServer``...), with a DeprecationWarning."""
        return moved_attribute(__name__, name)
