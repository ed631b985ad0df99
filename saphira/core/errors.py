"""Exceptions that carry a source position, so every message names what to fix and where."""

from __future__ import annotations

from dataclasses import dataclass


def printable(text: str) -> str:
    """``text`` with every non-printable character (ESC, BEL, NUL, bidi controls...) written as an escape.

    Error messages echo what a file says; a crafted file must not reach the user's terminal with
    control sequences in it (title changes, colours, clipboard writes).
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message (``repr``); a value longer than ``limit`` (a 5000-digit number) is
    named by its first characters and its length."""
    return repr(text) if len(text) <= limit else f"{text[: limit // 2]!r}... ({len(text)} characters)"


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


class SaphiraError(Exception):
    """Base class of every error this package raises on purpose."""


@dataclass
class SourcePosition:
    """A place in a text file: 1-based line and column (column 0 when unknown; line 0: the whole file)."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        if not self.line:
            return printable(self.file)
        if self.column:
            return f"{printable(self.file)}:{self.line}:{self.column}"
        return f"{printable(self.file)}:{self.line}"


class SourceError(SaphiraError):
    """A problem in an input file (parameter, world, Colbert, behavior).

    ``str(err)`` is ``file:line[:col]: message``; :meth:`pretty` adds the offending line with a
    caret under the column, for people. Both show non-printable characters escaped (:func:`printable`).
    """

    def __init__(self, message: str, position: SourcePosition, source_line: str | None = None) -> None:
        super().__init__(f"{position}: {printable(message)}")
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
            line, caret = excerpt(self.source_line, self.column)
            text += f"\n    {line}"
            if caret >= 0:
                text += "\n    " + " " * caret + "^"
        return text


EXCERPT_WIDTH = 100
"""Characters of a source line an error shows: a 10 MB line is shown around its column."""


def excerpt(source_line: str, column: int) -> tuple[str, int]:
    """The source line as an error shows it, and the offset of the caret under ``column`` (-1: none).

    Non-printable characters are escaped (:func:`printable`); a line longer than
    :data:`EXCERPT_WIDTH` is cut to that many characters around the column, with ``...`` where it is cut.
    """
    line = source_line.rstrip("\r\n").expandtabs(1)
    index = column - 1 if column > 0 else 0
    start = max(0, min(index - EXCERPT_WIDTH // 2, len(line) - EXCERPT_WIDTH))
    end = start + EXCERPT_WIDTH
    head = "..." if start > 0 else ""
    tail = "..." if end < len(line) else ""
    shown = head + printable(line[start:end]) + tail
    caret = len(head) + len(printable(line[start:index])) if column > 0 else -1
    return shown, caret
