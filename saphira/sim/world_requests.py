"""Worlds a client asks a simulator server to load (Pioneer LOADWORLD, Flat's ``m FILE``).

A network client must not make the simulator read whatever file it names: the file could be any size
(a 100 MB file stalled every robot for seconds and cost gigabytes) or anything on the host. A request
is granted only for a bundled world (a bare name such as ``room`` or ``room.wld``), a file under the
folder the operator names (``saphira sim --world-dir DIR``), or, for Flat, a map the operator's World
file lists; the file must be a regular file of at most ``max_bytes``, checked before it is read. The
in-process simulator (``saphira run``) trusts its own user (:attr:`WorldAccess.any_file`) but keeps
the size limit.

A file under ``--world-dir`` is opened once, by a walk from the opened folder that follows no
symbolic link, and read from that descriptor (:func:`saphira.core.folderfile.read_in_folder`): a link
swapped in after a check by name can no longer redirect the read. Links in the folder are refused.

:class:`WorldLoad` runs one load in a worker thread, so a server's cycle goes on sending SIPs while a
world is read; every failure, a ``MemoryError`` or a bad coordinate included, becomes a
:class:`WorldRefused` with a message for the log and the client.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from saphira.core.errors import SaphiraError
from saphira.core.folderfile import FolderRefused, read_in_folder
from saphira.core.paths import data_dir
from saphira.world.world import WORLD_SUFFIXES, World, load_world, parse_world_data

log = logging.getLogger("saphira.sim")

MAX_WORLD_BYTES: Final = 16 << 20
"""Largest world file a client may have loaded (the biggest bundled map is 0.7 MB)."""


class WorldRefused(SaphiraError):
    """A client's world request that is not granted or could not be loaded (the message says why)."""


@dataclass(frozen=True)
class WorldAccess:
    """Which world files a client may have loaded, and how large they may be (see the module docstring).

    ``folder`` is the operator's ``--world-dir``; ``listed`` are files the operator named otherwise
    (a Flat World file's maps); ``any_file`` grants every path (the in-process simulator's own user).
    """

    folder: Path | None = None
    listed: Collection[Path] = field(default_factory=frozenset)
    any_file: bool = False
    max_bytes: int = MAX_WORLD_BYTES

    def locate(self, name: str) -> Path:
        """The file ``name`` stands for, if a client may have it loaded; :class:`WorldRefused` otherwise."""
        if not name or "\x00" in name:
            raise WorldRefused(f"{name!r} is not a world name")
        try:
            found = self._find(Path(name))
        except (OSError, RuntimeError) as exc:  # a name too long, a symbolic link loop
            raise WorldRefused(f"{name[:80]!r}: {exc}") from exc
        if found is None:
            where = f"under {self.folder}" if self.folder is not None else "in a folder given with --world-dir"
            raise WorldRefused(f"{name[:80]!r} is neither a bundled world nor a file {where}")
        return found

    def _find(self, path: Path) -> Path | None:
        if self.any_file and path.is_file():
            return path
        if path.is_file() and path.resolve() in {p.resolve() for p in self.listed}:
            return path
        return _bundled(str(path))

    def check(self, path: Path) -> None:
        """Refuse ``path`` unless it is a regular file within the size limit (before anything is read)."""
        try:
            info = os.stat(path)
        except OSError as exc:
            raise WorldRefused(f"cannot read {str(path)!r}: {exc.strerror}") from exc
        if not stat.S_ISREG(info.st_mode):
            raise WorldRefused(f"{str(path)!r} is not a regular file")
        if info.st_size > self.max_bytes:
            raise WorldRefused(f"{str(path)!r} has {info.st_size} bytes; a client may load at most {self.max_bytes}")

    def _in_folder(self, name: str) -> tuple[Path, bytes] | None:
        """The path and bytes of the file ``name`` stands for under :attr:`folder`, opened once without
        following links (:func:`~saphira.core.folderfile.read_in_folder`); None when there is none there."""
        if self.folder is None:
            return None
        try:
            return read_in_folder(self.folder, name, max_bytes=self.max_bytes, option="--world-dir")
        except FolderRefused as exc:
            raise WorldRefused(str(exc)) from exc

    def load(self, name: str, reader: Callable[[Path], World] = load_world) -> World:
        """Locate, check and read the world a client asked for; :class:`WorldRefused` on any failure."""
        try:
            opened = self._in_folder(name)
            if opened is not None:
                return parse_world_data(opened[1], opened[0])
            path = self.locate(name)
            self.check(path)
            return reader(path)
        except SaphiraError as exc:
            raise WorldRefused(str(exc)) from exc
        except (OSError, ValueError, MemoryError, RecursionError, UnicodeError) as exc:
            raise WorldRefused(f"cannot load {str(path)!r}: {type(exc).__name__}: {exc}") from exc


def _bundled(name: str) -> Path | None:
    """A bundled world by bare name (``room``, ``room.wld``), or None."""
    path = Path(name)
    if path.name != name or name in (".", ".."):
        return None
    try:
        folder = data_dir("maps")
    except FileNotFoundError:
        return None
    names = [name] if path.suffix in WORLD_SUFFIXES else [name + s for s in WORLD_SUFFIXES]
    return next((folder / n for n in names if (folder / n).is_file()), None)


class WorldLoad:
    """One world read in a daemon thread: poll :attr:`done`, then take :meth:`result`.

    A daemon thread, not an executor: a load still running when the simulator exits must not hold
    the program up (the size limit keeps it short anyway).
    """

    def __init__(self, access: WorldAccess, name: str) -> None:
        self.name = name
        self._world: World | None = None
        self._error: WorldRefused | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(access,), name=f"load-world {name[:40]}", daemon=True)
        self._thread.start()

    def _run(self, access: WorldAccess) -> None:
        try:
            world = access.load(self.name)
            world.index  # noqa: B018 - built here, not in the first cycle that casts a beam
            self._world = world
        except WorldRefused as exc:
            self._error = exc
        except Exception as exc:  # a bug must not vanish with the thread: the client gets an answer
            log.exception("loading world %r failed", self.name)
            self._error = WorldRefused(f"{type(exc).__name__}: {exc}")
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for the load to finish; whether it has."""
        return self._done.wait(timeout)

    def result(self) -> World:
        """The world loaded; :class:`WorldRefused` if it was not (call once :attr:`done`)."""
        if self._error is not None:
            raise self._error
        assert self._world is not None, "WorldLoad.result() before it is done"
        return self._world
