"""What ``saphira run`` prints: message lines, notes ``-q`` silences, and a live status line.

The status line is redrawn in place (``\\r`` … erase-to-end-of-line), so it is drawn only on a
terminal, cut to the terminal's width (a longer line would wrap and leave a trail of copies).
When the reader of stdout goes away (``saphira run … | head -3``), writing fails with
``BrokenPipeError``: the console goes quiet instead of raising, and says so in :attr:`Console.closed`
so the run can stop the robot and end as Ctrl-C ends it. A run that prints nothing for a while would
only find out at its next line, so :meth:`Console.reader_gone` also asks the pipe (``poll``: the
write end of a pipe whose reader closed reports an error) each cycle.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import stat
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


def _pipe_poll(stream: TextIO) -> select.poll | None:
    """A poll object on ``stream``'s file descriptor when it is a pipe (it reports the reader's going), else None."""
    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
    except (OSError, ValueError, AttributeError):  # no descriptor (a StringIO), or a closed one
        return None
    poll = select.poll()
    poll.register(fd, 0)  # no events asked: only POLLERR (the reader closed) and POLLHUP come back
    return poll


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
        self._pipe = _pipe_poll(self.stream)

    def reader_gone(self) -> bool:
        """Whether stdout is closed: a write failed, or the reader of the pipe it is has gone (a cheap poll)."""
        if not self.closed and self._pipe is not None and self._pipe.poll(0):
            self.closed = True
            discard_output(self.stream)
        return self.closed

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
