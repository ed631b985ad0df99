"""Reading a user's input file safely: a regular file only, of bounded size, with errors that name it.

Every file reader (parameters, worlds, maps, Flat Worlds) takes its bytes from :func:`read_input`; a
recording, played as it is read, is opened with :func:`open_input`. A FIFO would block the reader for
ever and ``/dev/zero`` would fill memory, so the file is opened without blocking and refused unless
it is a regular file; its size is checked before anything is read. :func:`decode_utf8` turns a
decoding failure into a ``file:line:col`` error naming the byte and its offset, and
:func:`bounded_int` reads an integer whose digits are limited (Python refuses to convert more than
4300 digits, with a ``ValueError`` no reader expects).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from saphira.core.errors import SourceError, SourcePosition

KIB = 1024
MIB = 1024 * KIB

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _size(count: int) -> str:
    return f"{count / MIB:.1f} MiB" if count >= MIB else f"{count} bytes"


def open_input(path: str | Path, *, what: str, limit: int, error: type[SourceError] = SourceError) -> BinaryIO:
    """The regular file ``path`` opened for reading in binary (``what`` names it in messages); ``error`` otherwise.

    Refused, before any byte is read: a path that cannot be opened, anything but a regular file (a
    directory, FIFO, device or socket), a file larger than ``limit`` bytes. The file is opened
    non-blocking so that a FIFO is refused instead of waiting for a writer. A reader that reads on
    past ``limit`` (the file grew since) raises :func:`too_large`.
    """
    name = str(path)
    where = SourcePosition(name, 0)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", where) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"cannot read {what}: it is {_kind(info.st_mode)}, not a regular file", where)
        raise error(f"{what} too large: {_size(info.st_size)} (at most {_size(limit)})", where)
    return os.fdopen(fd, "rb")


def too_large(what: str, limit: int, where: SourcePosition, error: type[SourceError] = SourceError) -> SourceError:
    """The error for a file that grew past ``limit`` bytes while it was read."""
    return error(f"{what} too large: more than {_size(limit)}", where)


def read_input(path: str | Path, *, what: str, limit: int, error: type[SourceError] = SourceError) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in messages); ``error`` otherwise.

    The checks are :func:`open_input`'s, made before any byte is read.
    """
    name = str(path)
    where = SourcePosition(name, 0)
    with open_input(path, what=what, limit=limit, error=error) as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            # Ask for what fstat says is there: read(limit + 1) allocates the whole limit up front
            # (256 MiB for a recording). A file that grew since is read on, up to the limit.
            data = handle.read(size + 1)
            if len(data) > size:
                data += handle.read(limit + 1 - len(data))
        except OSError as exc:
            raise error(f"cannot read {what}: {exc.strerror or exc}", where) from None
    if len(data) > limit:  # it grew after the check
        raise too_large(what, limit, where, error)
    return data


def byte_position(data: bytes, offset: int, file: str) -> SourcePosition:
    """The line and column (both 1-based, the column counted in bytes) of byte ``offset`` of ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return SourcePosition(file, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def decode_utf8(data: bytes, file: str, *, what: str, error: type[SourceError] = SourceError) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped); ``error`` at the first byte that is not."""
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + bom
        position = byte_position(data, offset, file)
        line = data[offset - position.column + 1 :].split(b"\n", 1)[0]
        message = f"{what} is not UTF-8 text: byte 0x{data[offset]:02x} at byte offset {offset}"
        raise error(message, position, line.decode("utf-8", errors="replace")) from None


def bounded_int(text: str, digits: int = 18) -> int | None:
    """``text`` (ASCII digits with an optional sign) as an int, or None when it is not one or has
    more than ``digits`` digits."""
    body = text[1:] if text[:1] in "+-" else text
    if not (body.isascii() and body.isdigit()) or len(body.lstrip("0")) > digits:
        return None
    return int(text)
