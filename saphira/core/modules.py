"""Executing a user's Python file as a fresh module: behavior files, brains, Colbert plugins, batch hooks.

Each loader gives the module its own name (so two files called ``avoid.py`` never collide) and
registers it in :data:`sys.modules` while it executes, because dataclasses and ``typing.get_type_hints``
look a module up by name. If executing the file, or what the caller does with it next (calling its
``INIT``, its ``load_init``), raises, the registration is undone and the exception goes on unchanged,
for the caller to report with the file's name. Each load raises the audit event ``saphira.input`` with
the file, which a batch trial running records as one of its inputs (:mod:`saphira.app.batch.inputs`): run
from cached bytecode, the source is never opened.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType


class NotAModule(ImportError):
    """The file cannot be a Python module (no loader for its suffix); distinct from an import the file makes failing."""


@contextmanager
def fresh_module(path: str | Path, name: str) -> Iterator[ModuleType]:
    """Execute the file at ``path`` as module ``name`` and yield it; undo its registration if anything raises.

    Raises :class:`NotAModule` when ``path`` cannot be a Python module (no loader for its suffix).
    A module already registered as ``name`` is put back on failure.
    """
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise NotAModule(f"{path} is not a Python module", path=str(path))
    module = importlib.util.module_from_spec(spec)
    sys.audit("saphira.input", str(spec.origin or path))
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    except BaseException:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
        raise
