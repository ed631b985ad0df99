"""Output files that never leave a stub over what the user kept: written beside, moved into place.

Every file a command writes under a name the user gives (``run --record``, ``--plot``, ``export -o``,
``map -o``, a batch's tables and plots, ``sfSaveMapFile``) goes through :class:`OutputFile`. Nothing is
opened under the final name: the data goes to a temporary file in the same folder (``.NAME.XXXXXXXX.tmp``
plus NAME's extension, which matplotlib reads the format from), and :meth:`OutputFile.commit` moves it
over NAME with :func:`os.replace`, atomic on one file system. So an existing NAME is replaced only when
there is a new file to put in its place: a run that never starts (a compile error, a missing file, a
refused connection) or a write that raises leaves it byte for byte, and a reader never sees half a file.
A file that grows while a run goes on (a recording) is moved into place as soon as it has data and
written on under its name, so even a process killed outright (SIGKILL) leaves what it flushed there;
one killed outright before that leaves its (empty) temporary beside NAME, and NAME as it was.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from saphira.core.errors import SaphiraError

__all__ = ["EXISTING_OUTPUT", "OutputFile"]

EXISTING_OUTPUT = "an existing file is replaced only once the new one is complete"
"""What every command's ``--help`` says of an output file that exists (README: "Output files")."""


class OutputFile:
    """One output file: :meth:`open` (or :meth:`temp`) gives the temporary, :meth:`commit` puts it in place.

    As a context manager it commits when the block ends normally and discards on an exception. Opening
    or committing fails with a :class:`SaphiraError` naming the file (an unwritable folder, a full disk).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._temp: Path | None = None

    def temp(self) -> Path:
        """The temporary's path, created empty (with the permissions a new file gets) on the first call."""
        if self._temp is None:
            folder, name = self.path.parent, self.path.name
            for _ in range(100):
                temp = folder / f".{name}.{secrets.token_hex(4)}.tmp{self.path.suffix}"
                try:
                    os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                except FileExistsError:
                    continue
                except OSError as exc:
                    raise SaphiraError(f"cannot write {self.path}: {exc.strerror or exc}") from None
                self._temp = temp
                break
            else:  # pragma: no cover - 100 collisions of 32 random bits
                raise SaphiraError(f"cannot write {self.path}: no free temporary name beside it")
        return self._temp

    def open(self, mode: str = "w", **kwargs: Any) -> IO[Any]:
        """The temporary opened for writing (``mode`` ``"w"`` or ``"wb"``; ``kwargs`` as :func:`open`'s)."""
        return self.temp().open(mode, **kwargs)

    def write_text(self, text: str, encoding: str = "utf-8") -> Path:
        """Write ``text`` and put it in place at once; the final path."""
        with self:
            self.temp().write_text(text, encoding=encoding)
        return self.path

    def write_bytes(self, data: bytes) -> Path:
        """Write ``data`` and put it in place at once; the final path."""
        with self:
            self.temp().write_bytes(data)
        return self.path

    @property
    def pending(self) -> bool:
        """Whether a temporary exists that :meth:`commit` or :meth:`discard` has not yet dealt with."""
        return self._temp is not None

    def commit(self) -> Path:
        """Move the temporary over the final name; the final path. A file still open for writing goes on
        being written under that name (a recording moves in place with its first data and grows there)."""
        temp = self.temp()
        try:
            os.replace(temp, self.path)
        except OSError as exc:
            self.discard()
            raise SaphiraError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._temp = None
        return self.path

    def finish(self, *, keep: bool) -> None:
        """Once writing is over: :meth:`commit` if ``keep`` (and not done yet), else :meth:`discard`."""
        if self._temp is None:
            return
        if keep:
            self.commit()
        else:
            self.discard()

    def discard(self) -> None:
        """Remove the temporary, if there is one: the final name is left as it was."""
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()
