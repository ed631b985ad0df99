"""A file a network client names under a folder the operator allowed, read without following links.

The simulator's clients and its window may have files read only from the folders the operator names
(``saphira sim --world-dir``, ``--params-dir``). :func:`read_in_folder` opens the file once, by a walk
from the opened folder that follows no symbolic link (``O_NOFOLLOW`` with ``dir_fd``, one component at
a time), checks what was opened (``fstat``: a regular file within the size limit) and reads it from that
descriptor, so a link swapped in after a check by name cannot redirect the read. Links in the folder
are refused; a name that leaves it (``..``, an absolute path elsewhere) names nothing there.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from saphira.core.errors import SaphiraError

__all__ = ["FolderRefused", "read_in_folder"]


class FolderRefused(SaphiraError):
    """A file under an allowed folder that is not read: a link, not a regular file, too large, unreadable."""


def read_in_folder(folder: Path, name: str, *, max_bytes: int, option: str) -> tuple[Path, bytes] | None:
    """The path and bytes of the file ``name`` stands for under ``folder`` (the operator's ``option``),
    opened once without following links; None when there is no such file there. :class:`FolderRefused`
    says why a file there is not read."""
    if not name or "\x00" in name:
        return None
    parts = _parts_under(folder, Path(name))
    if parts is None:
        return None
    shown = str(folder / os.path.join(*parts))
    try:
        fd = _open_no_follow(folder, parts)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise FolderRefused(f"{shown[:200]!r} is a symbolic link (links in {option} are not followed)") from exc
        raise FolderRefused(f"cannot read {shown[:200]!r}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise FolderRefused(f"{shown!r} is not a regular file")
        if info.st_size > max_bytes:
            raise FolderRefused(f"{shown!r} has {info.st_size} bytes; a client may load at most {max_bytes}")
        try:
            raw = handle.read(max_bytes + 1)
        except OSError as exc:
            raise FolderRefused(f"cannot read {shown!r}: {exc.strerror or exc}") from exc
    if len(raw) > max_bytes:  # it grew after the check
        raise FolderRefused(f"{shown!r} has more than {max_bytes} bytes; a client may load at most that")
    return Path(shown), raw


def _parts_under(folder: Path, path: Path) -> Sequence[str] | None:
    """The components of ``path`` below ``folder`` (a relative name, or an absolute one inside it), or
    None when it names nothing there (``..``, an absolute path elsewhere, the folder itself)."""
    if path.is_absolute():
        inside = [base for base in (Path(os.path.abspath(folder)), folder.resolve()) if path.is_relative_to(base)]
        if not inside:
            return None
        path = path.relative_to(inside[0])
    parts = [part for part in path.parts if part != "."]
    if not parts or ".." in parts:
        return None
    return parts


def _open_no_follow(folder: Path, parts: Sequence[str]) -> int:
    """A read descriptor of ``folder/parts...``, reached from the opened folder one component at a time
    without following a symbolic link (OSError ELOOP or ENOTDIR where one is); non-blocking, so that a
    FIFO is refused by the caller's ``fstat`` rather than waited on."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the operator's folder, as named
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    finally:
        os.close(fd)
