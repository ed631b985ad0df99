"""What decides a trial's result, so that a batch never reuses a row its inputs no longer give.

A trial's id (:meth:`saphira.app.batch.experiment.Experiment.trials`) hashes its settings, the saphira
version and the contents of the files the experiment names: the activity, a world or parameter file
given by path, the metrics hook. The files the trial loads itself (``load "x.act"``, a plugin and the
modules it imports, ``sfLoadParamFile``, ``sfLoadMapFile``) are only known once it ran, and its row
keeps them with their digests (the ``inputs`` column). A row whose listed files changed since is
stale: the trial runs again. Caches hide loads from a watch on file opens (a module run from its
``__pycache__`` bytecode, one imported by an earlier trial in this process, a world kept by
:func:`saphira.world.world.load_world`), so the loaders say what they load (:func:`note_input`), the
source of every user module a trial in this process imported is listed, and an audit hook notes the
rest (a nested ``load``, a parameter file) when opened for reading.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

INPUT_SUFFIXES = frozenset({".act", ".beh", ".py", ".p", ".map", ".smap", ".wld", ".world"})
"""The kinds of file a trial loads; its other reads (a log a hook appends to) do not decide it."""
INPUTS_COLUMN = "inputs"
DIGEST_CHARS = 16


def file_digest(path: str | Path) -> str:
    """The file's SHA-256 (hex, shortened), or ``missing`` when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "missing"
    return digest.hexdigest()[:DIGEST_CHARS]


def _bundled() -> tuple[str, ...]:
    """The interpreter, the installed packages, saphira and its bundled folders: its version covers them."""
    from saphira.core.paths import PACKAGE_DIR, data_dir

    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, str(PACKAGE_DIR)]
    for name in ("params", "maps", "behaviors", "colbert"):
        with contextlib.suppress(FileNotFoundError):
            folders.append(str(data_dir(name)))
    return tuple({str(Path(f).resolve()) + os.sep for f in folders})


_IGNORED = _bundled()
_recording: dict[int, set[str]] = {}
_hook_installed = False
_user_modules: set[str] = set()
"""Source files of the user modules (outside :data:`_IGNORED`) imported while a trial ran in this process:
a module is imported once per process, so a later trial using it never loads it again."""


def source_of(path: str | Path) -> str:
    """The absolute source file of a module file: a ``__pycache__`` bytecode file maps back to its ``.py``."""
    name = os.path.abspath(os.fsdecode(path))
    if name.endswith(".pyc"):
        with contextlib.suppress(ValueError):  # a sourceless .pyc outside __pycache__ stands for itself
            return os.path.abspath(importlib.util.source_from_cache(name))
    return name


def note_input(path: str | Path) -> None:
    """Note that the trial running in this thread (if any) loaded ``path``: a loader calls it on each load."""
    seen = _recording.get(threading.get_ident())
    if seen is not None:
        seen.add(source_of(path))


def _module_sources() -> dict[str, str]:
    """Module name -> source file, for the loaded modules that are not part of Python or saphira."""
    found: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and not os.path.abspath(file).startswith(_IGNORED):
            found[name] = source_of(file)
    return found


INPUT_EVENT = "saphira.input"
"""The audit event a loader raises for each file it loads (``sys.audit(INPUT_EVENT, path)``): the
loaders (:func:`saphira.core.modules.fresh_module`, :func:`saphira.world.world.load_world`) need not know
that a batch is listening, so they import nothing from it."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _recording:
        return
    if event == INPUT_EVENT:
        note_input(args[0])
        return
    if event != "open":
        return
    seen = _recording.get(threading.get_ident())
    path, flags = args[0], args[2]
    if seen is None or isinstance(path, int) or (isinstance(flags, int) and flags & os.O_ACCMODE):
        return
    name = os.fsdecode(path)  # a str, bytes or Path
    if os.path.splitext(name)[1] in INPUT_SUFFIXES:
        seen.add(os.path.abspath(name))


@contextmanager
def recording_inputs() -> Iterator[set[str]]:
    """The input files (absolute paths) this thread loads inside the block, and the user modules trials imported.

    The modules: those a trial in this process imported (this one or an earlier one, which may have
    imported what this one uses); the modules loaded before any trial (the test runner's) are not inputs.
    """
    global _hook_installed
    if not _hook_installed:  # an audit hook cannot be removed: one per process, idle between trials
        sys.addaudithook(_audit)
        _hook_installed = True
    seen: set[str] = set()
    thread = threading.get_ident()
    _recording[thread] = seen
    before = _module_sources()
    try:
        yield seen
    finally:
        del _recording[thread]
        after = _module_sources()
        _user_modules.update(source for name, source in after.items() if before.get(name) != source)
        seen.update(_user_modules)


def describe_inputs(paths: set[str], base: Path) -> str:
    """``name=digest`` for each input that is not part of Python or saphira, relative to ``base``, sorted."""
    kept = sorted(p for p in paths if not p.startswith(_IGNORED) and os.path.isfile(p))
    return ";".join(f"{os.path.relpath(p, base)}={file_digest(p)}" for p in kept)


def inputs_unchanged(described: str, base: Path, cache: dict[str, str]) -> bool:
    """Whether each file :func:`describe_inputs` listed still has its digest (``cache``: path -> digest)."""
    for entry in filter(None, described.split(";")):
        name, _, digest = entry.rpartition("=")
        path = str(base / name)
        if path not in cache:
            cache[path] = file_digest(path)
        if cache[path] != digest:
            return False
    return True


def static_digests(paths: Sequence[str]) -> list[str]:
    """The digest of each path that is a file (a bundled world's or robot's name stands for itself)."""
    return [file_digest(p) if os.path.isfile(p) else p for p in paths]
