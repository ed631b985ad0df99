"""Shared fixtures: paths to the real data beside the project."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``: the real maps and byte captures (never copied into the project)."""
    assert SHARED_DATA.is_dir(), f"expected the shared data folder at {SHARED_DATA}"
    return SHARED_DATA
