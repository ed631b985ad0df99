"""What decides a trial's result, so that a batch never reuses a row its inputs no longer give.

A trial's id (:meth:`saphira.batch.experiment.Experiment.trials`) hashes its settings, the saphira
version and the contents of the files the experiment names: the activity, a world or parameter file
given by path, the metrics hook. The files the trial loads itself (``load "x.act"``, a plugin and the
modules it imports, ``sfLoadParamFile``, ``sfLoadMapFile``) are only known once it ran: while it runs
an audit hook notes every file of those kinds it opens for reading, and its row keeps them with their
digests (the ``inputs`` column). A row whose listed files changed since is stale: the trial runs again.
"""

from __future__ import annotations

import contextlib
import hashlib
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
    from saphira.paths import data_dir

    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(__file__).parents[1])]
    for name in ("params", "maps", "behaviors", "colbert"):
        with contextlib.suppress(FileNotFoundError):
            folders.append(str(data_dir(name)))
    return tuple({str(Path(f).resolve()) + os.sep for f in folders})


_IGNORED = _bundled()
_recording: dict[int, set[str]] = {}
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _recording:
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
    """The set of input files (absolute paths) this thread opens for reading inside the block."""
    global _hook_installed
    if not _hook_installed:  # an audit hook cannot be removed: one per process, idle between trials
        sys.addaudithook(_audit)
        _hook_installed = True
    seen: set[str] = set()
    thread = threading.get_ident()
    _recording[thread] = seen
    try:
        yield seen
    finally:
        del _recording[thread]


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
