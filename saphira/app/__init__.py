"""Every command, assembled here and only here: the command line and ``run``, ``shell``, ``check``,
``sim``, ``params``, ``worlds``, ``replay``, ``export``, ``map``, ``batch`` and ``tune``, each a
:class:`~saphira.app.commands.Command` its module exports, listed in :func:`saphira.app.cli.commands`."""

from typing import TYPE_CHECKING

if not TYPE_CHECKING:  # type checkers see only the package's own names
    from saphira._moved import moved_attribute

    def __getattr__(name: str) -> object:
        """The names of the 0.1 module this package replaced (CHANGELOG.md), with a DeprecationWarning."""
        return moved_attribute(__name__, name)
