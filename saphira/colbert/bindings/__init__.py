"""The Saphira API as Colbert sees it (``sf*`` names): one module per topic, and the table machinery."""

from typing import TYPE_CHECKING

if not TYPE_CHECKING:  # type checkers see only the package's own names
    from saphira._moved import moved_attribute

    def __getattr__(name: str) -> object:
        """The names of the 0.1 module this package replaced (CHANGELOG.md), with a DeprecationWarning."""
        return moved_attribute(__name__, name)
