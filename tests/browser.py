"""Which Chromium the browser tests drive, found without importing anything heavy.

Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it), or the binary ``CHROMIUM``
(or ``SAPHIRA_CHROMIUM``) names. Without one the browser tests are skipped with a reason that says how to
get one, unless ``SAPHIRA_REQUIRE_BROWSER`` is set (``.ci/run`` sets it): then a missing browser fails them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.realtime import WAIT

NO_BROWSER = "the browser tests need Chromium: apt-get install chromium (or set CHROMIUM to its path)"


def chromium_path() -> str:
    """The browser to drive: ``$CHROMIUM``, ``$SAPHIRA_CHROMIUM`` or the system's ``chromium``."""
    path = (
        os.environ.get("CHROMIUM")
        or os.environ.get("SAPHIRA_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if path:
        return path
    if os.environ.get("SAPHIRA_REQUIRE_BROWSER"):
        pytest.fail(f"{NO_BROWSER}; SAPHIRA_REQUIRE_BROWSER is set, so a missing browser is a failure")
    pytest.skip(NO_BROWSER)


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """The headless Chromium the browser tests drive, through Playwright (imported only here: the tests
    that need no browser never load it)."""
    from playwright import sync_api

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        new_page = browser.new_page

        def generous_page(**options: Any) -> Any:  # every wait of a page: the suite's real-time bound
            page = new_page(**options)
            page.set_default_timeout(WAIT * 1000)
            return page

        browser.new_page = generous_page
        try:
            yield browser
        finally:
            browser.close()
