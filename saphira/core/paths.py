"""Locating the bundled data folders (``params``, ``maps``, ``behaviors``, ``colbert``, ``docs``).

In an installed wheel they live in ``saphira/_data/<name>``; in a source checkout they sit beside
the package at the project root. Both layouts are tried, wheel first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

DataFolder = Literal["params", "maps", "behaviors", "colbert", "docs"]

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The ``saphira`` package folder (this module sits in ``saphira/core``)."""


def data_dir(name: DataFolder) -> Path:
    """Return the directory holding the bundled ``name`` data folder.

    Raises ``FileNotFoundError`` naming both places looked at when neither exists.
    """
    candidates = (PACKAGE_DIR / "_data" / name, PACKAGE_DIR.parent / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"bundled data folder {name!r} not found (looked in {tried})")


def bundled_file(name: DataFolder, filename: str) -> Path:
    """Path of one bundled file; ``FileNotFoundError`` if it is not there."""
    path = data_dir(name) / filename
    if not path.is_file():
        raise FileNotFoundError(f"no bundled {name} file {filename!r} in {path.parent}")
    return path
