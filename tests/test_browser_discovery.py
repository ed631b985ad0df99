"""The browser tests find a system Chromium, skip with a reason without one, and fail without one in CI."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent(
    """
    from tests.browser import chromium_path

    def test_probe():
        print("browser:", chromium_path())
    """
)


def run_probe(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    environment = {"PATH": str(tmp_path), "PYTHONPATH": str(PROJECT), **env}  # no chromium on this PATH
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-rs", "-p", "no:cacheprovider", str(probe)],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_without_a_browser_the_tests_are_skipped_saying_how_to_get_one(tmp_path: Path) -> None:
    done = run_probe(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout and "apt-get install chromium (or set CHROMIUM to its path)" in done.stdout


def test_with_saphira_require_browser_a_missing_browser_fails(tmp_path: Path) -> None:
    done = run_probe(tmp_path, SAPHIRA_REQUIRE_BROWSER="1")
    assert done.returncode == 1 and "1 failed" in done.stdout
    assert "SAPHIRA_REQUIRE_BROWSER is set, so a missing browser is a failure" in done.stdout


def test_the_chromium_variable_names_the_browser(tmp_path: Path) -> None:
    done = run_probe(tmp_path, CHROMIUM="/opt/some/chromium")
    assert done.returncode == 0 and "browser: /opt/some/chromium" in done.stdout
