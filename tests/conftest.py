"""Shared fixtures: paths to the real data the project carries (maps/, tests/data/).

Nothing here reads outside the checkout: a fresh clone in an empty folder runs the whole suite.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
MAPS = PROJECT_ROOT / "maps"
"""The bundled worlds and ARIA maps (AMROffice.map, columbia.map; origin and licence in maps/README.md)."""
TEST_DATA = Path(__file__).resolve().parent / "data"
"""Test vectors (byte captures; origin and licence in tests/data/README.md)."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile saphira's numeric kernels once, here, before any xdist worker starts.

    Their machine code is cached beside the modules (saphira/core/jit.py), but on a fresh clone every
    worker, and every ``python -m saphira`` a test starts before the cache is written, would compile the
    same kernels again (about 9 s of CPU each time). Warm, this costs a fraction of a second.
    """
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the main process has warmed the cache
    import importlib

    from saphira.behavior.library import find_behavior
    from saphira.core.jit import warm_up

    for path in sorted((PROJECT_ROOT / "saphira").rglob("*.py")):
        if "@kernel(" in path.read_text(encoding="utf-8"):
            importlib.import_module(".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts))
    find_behavior("sfAvoidCollision")  # behaviors/avoidance.py's obstacle clearances
    warm_up()


@pytest.fixture(scope="session")
def maps_dir() -> Path:
    """The project's ``maps/`` folder."""
    assert MAPS.is_dir(), f"expected the project's maps folder at {MAPS}"
    return MAPS


@pytest.fixture(scope="session")
def captures_dir() -> Path:
    """``tests/data/captures``: real ARIA ↔ AMRISim sessions, one packet per line."""
    folder = TEST_DATA / "captures"
    assert folder.is_dir(), f"expected the capture files at {folder}"
    return folder


@pytest.fixture(autouse=True)
def _saphira_logger_restored() -> Iterator[None]:
    """Each test starts and ends with saphira's loggers as an import leaves them (enabled, no level, no
    handler, propagating): a test that calls ``saphira.app.cli.main`` in-process configures them as the
    program does (its own handler, no propagation), and a thread it left behind may do so later, so
    ``caplog`` in a later test would see none of saphira's records."""
    _pristine_saphira_loggers()
    yield
    _pristine_saphira_loggers()


def _pristine_saphira_loggers() -> None:
    logger = logging.getLogger("saphira")
    logger.propagate = True
    logger.setLevel(logging.NOTSET)
    logger.handlers[:] = []
    for name, child in list(logging.root.manager.loggerDict.items()):
        if name.startswith("saphira.") and isinstance(child, logging.Logger):
            child.disabled = False
            child.setLevel(logging.NOTSET)
