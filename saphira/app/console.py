"""What ``saphira run`` prints: message lines, notes ``-q`` silences, and a live status line.

The status line is redrawn in place (``\\r`` … erase-to-end-of-line), so it is drawn only on a
terminal, cut to the terminal's width (a longer line would wrap and leave a trail of copies).
When the reader of stdout goes away (``saphira run … | head -3``), writing fails with
``BrokenPipeError``: the console goes quiet instead of raising, and says so in :attr:`Console.closed`
so the run can stop the robot and end as Ctrl-C ends it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import TextIO


def discard_output(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at ``/dev/null`` after its reader went away.

    Without it, the interpreter's last flush of the same stream at exit fails again and prints
    "Exception ignored … BrokenPipeError" on stderr.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


class Console:
    """Plain message lines on stdout; a status line kept below them when stdout is a terminal.

    ``quiet`` (``-q``, "only errors") drops :meth:`note` lines and the status line; :meth:`message`
    lines (what activities print, errors) are always written.
    """

    def __init__(self, stream: TextIO | None = None, *, status: bool | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self.show_status = not quiet and (self.stream.isatty() if status is None else status)
        self.closed = False
        self._status_shown = False

    def message(self, text: str) -> None:
        """A line that is always printed."""
        self._clear()
        self._write(text + "\n")

    def note(self, text: str) -> None:
        """A line of information (connection, summary): not printed with ``-q``."""
        if not self.quiet:
            self.message(text)

    def status(self, text: str) -> None:
        """Redraw the status line, cut to the terminal's width (less one column, so it never wraps)."""
        if self.show_status:
            width = max(shutil.get_terminal_size().columns - 1, 1)
            self._write("\r" + text[:width] + "\x1b[K")
            self._status_shown = True

    def _clear(self) -> None:
        if self._status_shown:
            self._status_shown = False
            self._write("\r\x1b[K")

    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except BrokenPipeError:
            self.closed = True
            discard_output(self.stream)
