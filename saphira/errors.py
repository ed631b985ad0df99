"""Exceptions that carry a source position, so every message names what to fix and where."""

from __future__ import annotations

from dataclasses import dataclass


class SaphiraError(Exception):
    """Base class of every error this package raises on purpose."""


@dataclass
class SourcePosition:
    """A place in a text file: 1-based line and column (column 0 when unknown)."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        if self.column:
            return f"{self.file}:{self.line}:{self.column}"
        return f"{self.file}:{self.line}"


class SourceError(SaphiraError):
    """A problem in an input file (parameter, world, Colbert, behavior).

    ``str(err)`` is ``file:line[:col]: message``; :meth:`pretty` adds the offending line with a
    caret under the column, for people.
    """

    def __init__(self, message: str, position: SourcePosition, source_line: str | None = None) -> None:
        super().__init__(f"{position}: {message}")
        self.message = message
        self.position = position
        self.source_line = source_line

    @property
    def file(self) -> str:
        return self.position.file

    @property
    def line(self) -> int:
        return self.position.line

    @property
    def column(self) -> int:
        return self.position.column

    def pretty(self) -> str:
        """The message, the source line and a caret (when the line and column are known)."""
        text = str(self)
        if self.source_line is not None:
            line = self.source_line.rstrip("\n").expandtabs(1)
            text += f"\n    {line}"
            if self.column > 0:
                text += "\n    " + " " * (self.column - 1) + "^"
        return text
