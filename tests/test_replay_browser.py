"""``saphira replay REC --ui`` in a real headless Chromium: the player's controls drive the recording.

Every wait is on a page condition (the frame's cycle, a DOM text); nothing sleeps.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from saphira.record.recording import read_recording
from tests.browser import launched_chromium
from tests.realtime import WAIT
from tests.sim_process import PROJECT
from tests.ui_support import start_command

ACTIVITY = """\
sfInitControlProcs();
start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) priority 0;
start sfConstantVelocity(300) priority 2;
sfMessage("recorded hello");
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium() as b:
        yield b


@pytest.fixture(scope="module")
def replay_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The replay page's URL, and the cycle the activity's message was recorded in."""
    tmp = tmp_path_factory.mktemp("replay")
    act, record = tmp / "t.act", tmp / "run.rec"
    act.write_text(ACTIVITY)
    done = subprocess.run([sys.executable, "-m", "saphira", "run", str(act), "--world", "room", "--duration", "4",
                           "--record", str(record), "-q"], cwd=PROJECT, capture_output=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    proc, url = start_command("replay", str(record), "--ui", "0")
    (said,) = [
        c for c, lines in read_recording(record).messages.items() if ["INFO", "sfMessage", "recorded hello"] in lines
    ]
    try:
        yield url, said
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)
    assert proc.returncode == 143  # ended by the SIGTERM above


def _cycle(page: Any, cycle: int) -> None:
    page.wait_for_function("(c) => window.saphira.frame && window.saphira.frame.cycle === c", arg=cycle)


def test_the_players_controls_step_seek_and_play_the_recording(browser: Any, replay_url: tuple[str, int]) -> None:
    url, said = replay_url
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("() => window.saphira && window.saphira.frames >= 1")
    assert page.evaluate("() => document.body.classList.contains('replay')")
    assert page.locator("#conn").inner_text() == "replay"  # not "live": this is a recording
    assert page.locator("#player").is_visible() and not page.locator("#prompt").is_visible()
    cycles = int(page.evaluate("() => window.saphira.hello.replay.cycles"))
    assert page.locator("#replay-slider").get_attribute("max") == str(cycles)
    page.locator("#replay-slider").evaluate("(e) => { e.value = '20'; e.dispatchEvent(new Event('change')); }")
    _cycle(page, 20)
    page.click("#replay-step")
    _cycle(page, 21)
    page.wait_for_function("() => document.querySelector('#replay-time').textContent.startsWith('cycle 21 / ')")
    assert "sfAvoidCollision" in page.locator("#behaviors").inner_text()  # the recorded rules, as they were
    page.locator("#lps").focus()
    page.keyboard.press("ArrowUp")  # no drive keys in a replay: nothing is sent, no error comes back
    page.select_option("#replay-speed", "16")
    page.click("#replay-play")
    _cycle(page, cycles)
    page.wait_for_function("() => document.querySelector('#replay-play').textContent === 'Play'")  # it stopped
    assert page.locator("#replay-slider").input_value() == str(cycles)
    page.locator("#replay-slider").evaluate("(e, c) => { e.value = String(c); e.dispatchEvent(new Event('change')); }",
                                            said)  # fmt: skip
    _cycle(page, said)  # back: replayed from the start
    assert "recorded hello" not in page.locator("#output").inner_text()  # passed over while seeking
    page.click("#replay-step")  # plays the cycle the message was recorded in
    page.wait_for_function("() => document.querySelector('#output').textContent.includes('recorded hello')")
    assert "error" not in page.locator("#output").inner_text()
    assert errors == []
    page.close()
