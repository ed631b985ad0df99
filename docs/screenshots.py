"""Retake the README's live-view screenshot (docs/liveview.png) in a headless Chromium.

The demo stack in the corridor world with its Saphira map loaded, the occupancy grid on and an act
drawing a box: the LPS shows sonar readings and buffers, map artifacts with ids, the grid, the
behaviors' sensitivity boxes and the wake. ``--behaviors`` also retakes docs/liveview-behaviors.png
(the Behaviors window with sfAvoidCollision's rules).
Run from the project root: ``PYTHONPATH=. python docs/screenshots.py [--behaviors]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright import sync_api

from tests.browser import chromium_path
from tests.ui_support import live_session

ROOT = Path(__file__).resolve().parents[1]
CYCLE = 250
"""The cycle (25 s of robot time) the screenshot shows."""


def main() -> None:
    with live_session(speed=4.0, world="corridor") as session, sync_api.sync_playwright() as p:
        ev = session.evaluator
        ev.eval_text('sfLoadMapFile("corridor")')
        ev.eval_text("sfSetDisplayState(sfOCCGRID, 1)")
        assert ev.load(ROOT / "colbert" / "demo.act")
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(session.url)
        page.wait_for_function("() => window.saphira.frames > 2")
        for line in ("act box { update { sfSetLineColor(sfColorMagenta); sfSetLineWidth(2); "
                     "sfDrawCenteredRect(sfRobot.ax + 1400.0, sfRobot.ay, 600.0, 500.0); } waitfor 0; }",
                     "start box noblock;"):  # fmt: skip
            page.fill("#input", line)
            page.press("#input", "Enter")
        page.wait_for_function("(c) => window.saphira.frame.cycle >= c", arg=CYCLE)
        page.evaluate("() => { Object.assign(window.saphira.view, {scale: 0.06}); recenter(); draw(); }")
        page.fill("#input", "sfRobot.ax / 1000.0")
        page.press("#input", "Enter")
        page.wait_for_function("() => document.getElementById('output').textContent.includes('(float)')")
        page.wait_for_function("(c) => window.saphira.frame.cycle >= c", arg=CYCLE + 4)
        page.screenshot(path=str(ROOT / "docs" / "liveview.png"))
        if "--behaviors" in sys.argv:
            page.click("#behaviors .name >> text=sfAvoidCollision")
            page.wait_for_function("() => document.getElementById('behavior-detail').textContent.includes('Priority')")
            page.locator("#windows").screenshot(path=str(ROOT / "docs" / "liveview-behaviors.png"))
        browser.close()


if __name__ == "__main__":
    main()
