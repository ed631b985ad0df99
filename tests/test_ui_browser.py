"""The live view in a real headless Chromium (issue 12): the page against a robot on the embedded simulator.

Every wait is on a page condition (a frame number, a DOM text) or on the WebSocket's effect; nothing
sleeps. Pixels are compared between screenshots of the LPS canvas.
"""

from __future__ import annotations

import http.server
import itertools
import json
import math
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.core.tasks import TaskState
from saphira.display.state import display_for
from saphira.ui.liveview import GRID_EVERY
from tests.browser import launched_chromium
from tests.flat_controller import Controller
from tests.realtime import WAIT
from tests.ui_support import LiveSession, colour_centroid, live_session, start_command

DEMO = Path(__file__).resolve().parents[1] / "colbert" / "demo.act"
ROBOT_RGB = (0x46, 0x82, 0xB4)  # sfColorSteelBlue: the robot icon's fill
MAGENTA_RGB = (0xC8, 0x00, 0xC8)  # sfColorMagenta


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium() as b:
        yield b


@pytest.fixture
def session() -> Iterator[LiveSession]:
    with live_session() as s:
        yield s


class Page:
    """A page of the live view with its console errors collected."""

    def __init__(self, browser: Any, url: str) -> None:
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 800})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.wait_frames(3)

    def frame_cycle(self) -> int:
        return int(self.page.evaluate("() => window.saphira.frame.cycle"))

    def wait_frames(self, n: int) -> None:
        self.page.wait_for_function("(n) => window.saphira && window.saphira.frames >= n", arg=n)

    def wait_cycle(self, cycle: int) -> None:
        self.page.wait_for_function("(c) => window.saphira.frame && window.saphira.frame.cycle >= c", arg=cycle)

    def wait_text(self, selector: str, text: str) -> None:
        self.page.wait_for_function(
            "([s, t]) => { const e = document.querySelector(s); return e !== null && e.textContent.includes(t); }",
            arg=[selector, text],
        )

    def canvas(self) -> bytes:
        return bytes(self.page.locator("#lps").screenshot())

    def evaluate_colbert(self, text: str) -> None:
        self.page.fill("#input", text)
        self.page.press("#input", "Enter")


def test_page_loads_without_console_errors_and_fills_the_information_area(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    page.wait_frames(6)
    for field in ("St", "Tr", "Rot", "X", "Y", "Th", "MPac", "SPac", "VPac", "Bat", "CPU", "Scrn"):
        assert page.page.text_content(f"#info-{field}") != "", field
    titles = page.page.evaluate("() => Object.fromEntries([...document.querySelectorAll('#info-fields dt')]"
                                ".map(e => [e.textContent, e.title]))")  # fmt: skip
    assert "sonar readings" in titles["SPac"] and "SIPs" in titles["MPac"]  # the units the manual's SPac lacks
    page.wait_text("#conn", "live")
    assert page.errors == []


def test_robot_icon_moves_on_the_canvas_while_the_demo_runs(browser: Any, session: LiveSession) -> None:
    assert session.evaluator.load(DEMO)
    page = Page(browser, session.url)
    page.page.uncheck("#local")  # global view: the world stays, the robot moves
    page.page.uncheck("#follow")
    page.wait_cycle(page.frame_cycle() + 4)
    x0, y0, n0 = colour_centroid(page.canvas(), ROBOT_RGB)
    page.wait_cycle(page.frame_cycle() + 30)
    x1, y1, n1 = colour_centroid(page.canvas(), ROBOT_RGB)
    assert n0 > 50 and n1 > 50, "the robot icon is drawn"
    assert math.hypot(x1 - x0, y1 - y0) > 5.0, f"icon at ({x0:.0f}, {y0:.0f}) then ({x1:.0f}, {y1:.0f})"
    assert page.errors == []


def test_arrow_keys_change_the_reflected_velocity_setpoint_and_space_stops(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    page.wait_text("#info-Vset", "0")
    page.page.focus("#lps")
    page.page.keyboard.press("ArrowUp")
    page.page.keyboard.press("ArrowUp")
    page.page.wait_for_function("() => document.getElementById('info-Vset').textContent === '100'")
    assert session.robot.motion.target_vel() == 100.0
    page.page.keyboard.press("ArrowDown")
    page.page.wait_for_function("() => document.getElementById('info-Vset').textContent === '50'")
    page.page.keyboard.press(" ")
    page.page.wait_for_function("() => document.getElementById('info-Vset').textContent === '0'")
    assert page.errors == []


def test_every_key_reaches_a_python_key_hook_and_unticking_local_reports_the_view(
    browser: Any, session: LiveSession
) -> None:
    display = display_for(session.robot.scheduler)
    seen: list[str] = []
    display.key_handler = lambda key: seen.append(key) or key != "ArrowUp"  # ArrowUp keeps its meaning
    page = Page(browser, session.url)
    page.page.focus("#lps")
    for key in ("x", "F1", "Escape", "ArrowUp"):
        page.page.keyboard.press(key)
    page.page.wait_for_function("() => document.getElementById('info-Vset').textContent === '50'")
    assert seen == ["x", "F1", "Escape", "ArrowUp"]
    assert display.view.local  # the page starts in the local view and said so
    page.page.uncheck("#local")
    page.page.wait_for_function("() => window.saphira.hello.display && window.saphira.hello.display.global")
    cx, cy = page.page.evaluate("() => [window.saphira.view.cx, window.saphira.view.cy]")
    assert not display.view.local and (display.view.cx, display.view.cy) == (cx, cy)
    assert page.errors == []


def test_a_colbert_statement_typed_in_the_page_shows_its_value_and_errors_their_caret(
    browser: Any, session: LiveSession
) -> None:
    page = Page(browser, session.url)
    page.evaluate_colbert("6 * 7")
    page.wait_text("#output", "42 (int)")
    page.evaluate_colbert('sfMessage("hello from %s", "the page")')
    page.wait_text("#output", "hello from the page")
    page.evaluate_colbert("1 +* 2")
    page.wait_text("#output", "^")
    assert "<page 3>:1:" in page.page.text_content("#output")
    assert "42 (int)" in session.lines  # the same evaluator as the console's
    for _ in range(3):  # the history: up goes back to the first statement, down comes forward again
        page.page.press("#input", "ArrowUp")
    assert page.page.input_value("#input") == "6 * 7"
    page.page.press("#input", "ArrowDown")
    assert page.page.input_value("#input") == 'sfMessage("hello from %s", "the page")'


def test_double_clicking_an_activity_interrupts_it_and_again_resumes_it(browser: Any, session: LiveSession) -> None:
    session.evaluator.eval_text("act idle { waitfor 0; }", "<test>", interactive=False)
    session.evaluator.eval_text("start idle noblock;")
    page = Page(browser, session.url)
    row = '#activities li[data-task="idle"]'
    page.page.wait_for_selector(f'{row}[data-state="running"]')
    page.page.dblclick(row)
    page.page.wait_for_selector(f'{row}[data-state="INTERRUPT"]')
    assert session.robot.scheduler.get_task_state("idle") == TaskState.INTERRUPT
    page.page.dblclick(row)
    page.page.wait_for_selector(f'{row}[data-state="running"]')
    page.page.focus(row)
    page.page.keyboard.press("Enter")  # Enter does the same as a double-click
    page.page.wait_for_selector(f'{row}[data-state="INTERRUPT"]')
    assert page.errors == []


def test_a_vector_drawn_by_an_act_appears_on_the_canvas(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    _, _, before = colour_centroid(page.canvas(), MAGENTA_RGB)
    page.evaluate_colbert(
        "act drawer { update { sfSetLineColor(sfColorMagenta); sfSetLineWidth(4); "
        "sfDrawVector(sfRobot.ax, sfRobot.ay, sfRobot.ax + 1500.0, sfRobot.ay + 1000.0); } waitfor 0; }"
    )
    page.evaluate_colbert("start drawer noblock;")
    page.page.wait_for_function("() => window.saphira.frame.drawing.length > 0")
    page.wait_cycle(page.frame_cycle() + 2)
    _, _, after = colour_centroid(page.canvas(), MAGENTA_RGB)
    assert before == 0 and after > 40, f"{after} magenta pixels"
    assert page.errors == []


def test_a_colour_variable_set_in_colbert_recolours_the_robot_on_a_watching_page(
    browser: Any, session: LiveSession
) -> None:
    page = Page(browser, session.url)
    _, _, before = colour_centroid(page.canvas(), MAGENTA_RGB)
    page.evaluate_colbert("sfRobotColor = sfColorMagenta;")
    page.page.wait_for_function("() => window.saphira.hello.palette.robot === '#c800c8'")
    page.wait_cycle(page.frame_cycle() + 2)
    _, _, after = colour_centroid(page.canvas(), MAGENTA_RGB)
    assert before == 0 and after > 100, f"{after} magenta pixels"
    assert page.errors == []


def test_display_menu_sets_the_sticky_display_state(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    page.page.select_option("#period", "5")
    page.page.wait_for_function("() => window.saphira.hello.display.period === 5")
    display = display_for(session.robot.scheduler)
    assert display.period == 5
    session.evaluator.eval_text("sfGetDisplayState(sfDISPLAY)")
    assert session.lines[-1] == "5 (int)"
    session.evaluator.eval_text("sfSetDisplayState(sfGLOBAL, 1)")
    again = Page(browser, session.url)  # a new connection gets the same settings
    assert again.page.input_value("#period") == "5"
    again.page.wait_for_function("() => document.getElementById('local').checked === false")


def test_behaviors_window_shows_rules_of_a_running_behavior(browser: Any, session: LiveSession) -> None:
    assert session.evaluator.load(DEMO)
    page = Page(browser, session.url)
    page.wait_text("#behaviors", "sfAvoidCollision")
    page.wait_text("#behaviors", "Summation")
    # The rows stay while the behaviors do (their figures change every frame): a row rebuilt between a
    # press and its release swallowed the click (CI: the detail never came after the click).
    name = page.page.query_selector("#behaviors .name >> text=sfKeepOff")
    assert name is not None
    page.wait_cycle(page.frame_cycle() + 3)
    assert name.evaluate("(e) => e.isConnected")
    page.page.click("#behaviors .name >> text=sfKeepOff")
    page.wait_text("#behavior-detail", "Priority 1")
    detail = page.page.text_content("#behavior-detail") or ""
    assert "Act Turn" in detail and "Goal" in detail
    page.page.click("#behaviors .name >> text=sfAvoidCollision")
    page.wait_text("#behavior-detail", "Priority 0")
    detail = page.page.text_content("#behavior-detail") or ""
    assert "Running yes" in detail and "Act Vel" in detail and "Progress" in detail
    assert " = " in detail  # its parameters, one a line
    rules = [line.split() for line in detail.splitlines() if line.startswith("  ") and " = " not in line]
    names = [" ".join(r[:-3]) for r in rules]
    assert names == ["Obstacle left", "Obstacle right", "Front blocked", "Stop", "Slow"], detail
    assert all(0.0 <= float(r[-3]) <= 1.0 and r[-2] in "<>+-" for r in rules), detail  # truth, direction


def test_every_request_without_the_token_is_refused(session: LiveSession) -> None:
    """Except the package's own public files (test_ui_access.py: served without it, to the own page)."""
    token = session.url.split("token=")[1]
    wrong = token[:-1] + ("y" if token.endswith("x") else "x")  # one character off, never the token itself
    for path in ("", "ws", f"?token={wrong}", f"ws?token={wrong}"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(session.base + path, timeout=WAIT)
        assert refused.value.code == 403, path
    with urllib.request.urlopen(session.url, timeout=WAIT) as ok:
        assert ok.status == 200 and b"Saphira" in ok.read()
    request = urllib.request.Request(session.base + "static/app.js", headers={"X-Saphira-Token": token})
    with urllib.request.urlopen(request, timeout=WAIT) as ok:
        assert ok.status == 200


def test_simulator_view_shows_the_robot_and_the_left_button_places_it(browser: Any) -> None:
    proc, url = start_command("sim", "--port", "0", "--robots", "2", "--ui", "127.0.0.1:0", "-q")
    try:
        page = Page(browser, url)
        page.wait_text("#simline", "P3DX-2: x ")
        x, y = page.page.evaluate("() => toWorld(120, 140)")
        page.page.mouse.click(*_canvas_point(page, 120, 140))
        page.page.wait_for_function(
            "([x, y]) => { const r = window.saphira.frame.robots[0]; return Math.hypot(r[1] - x, r[2] - y) < 5; }",
            arg=[x, y],
        )
        page.page.check('#sim-robots input[value="1"]')  # now the second robot, placed and turned by a drag
        x, y = page.page.evaluate("() => toWorld(300, 200)")
        page.page.mouse.move(*_canvas_point(page, 300, 200))
        page.page.mouse.down()
        page.page.mouse.move(*_canvas_point(page, 300, 260), steps=4)
        page.page.mouse.up()
        page.page.wait_for_function(
            "([x, y]) => { const r = window.saphira.frame.robots[1];"
            " return Math.hypot(r[1] - x, r[2] - y) < 5 && Math.abs(r[3] + 90) < 1; }",
            arg=[x, y],
        )
        page.page.evaluate("() => send({type: 'place', robot: 7, x: 0, y: 0})")  # a bad request: shown, survived
        page.wait_text("#sim-error", "robot 7 is out of range (0 to 1)")
        page.wait_cycle(page.frame_cycle() + 3)
        assert page.errors == []
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)


def test_simulator_windows_menus_load_a_world_and_params_show_the_lines_draw_the_wake_and_exit(browser: Any) -> None:
    proc, url = start_command("sim", "--port", "0", "--ui", "127.0.0.1:0", "-q")
    try:
        page = Page(browser, url)
        page.wait_text("#sim-lines", "robot 1: 127.0.0.1:")
        page.wait_text("#sim-lines", "listening")
        page.page.fill("#sim-name", "corridor")
        page.page.click("#sim-load-world")
        page.wait_text("#sim-log", "world corridor loaded")
        page.page.wait_for_function("() => window.saphira.hello.bounds[2] >= 24000")
        page.page.fill("#sim-name", "p3at")
        page.page.click("#sim-load-params")
        page.wait_text("#simline", "P3AT: x ")
        page.page.fill("#sim-name", "/etc/passwd")
        page.page.click("#sim-load-world")
        page.wait_text("#sim-error", "neither a bundled world nor a file in a folder given with --world-dir")
        page.page.click("#sim-disconnect")
        page.wait_text("#sim-log", "robot 1 has no client to disconnect")
        page.page.fill("#sim-port", "0")  # Connect→port: the robot listens on a free port instead
        page.page.click("#sim-listen")
        page.wait_text("#sim-log", "robot 1 listens on 127.0.0.1:")
        page.page.check("#wake")  # then a click moves the robot: its wake goes from where it was
        page.page.mouse.click(*_canvas_point(page, 200, 200))
        page.page.wait_for_function("() => (window.saphira.frame.wakes || [[]])[0].length >= 2")
        assert page.errors == []
        page.page.click("#sim-exit")
        output, _ = proc.communicate(timeout=WAIT)
        assert proc.returncode == 128 + signal.SIGINT and b"simulator stopped" in output
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)


def _canvas_point(page: Page, x: float, y: float) -> tuple[float, float]:
    box = page.page.locator("#lps").bounding_box()
    assert box is not None
    return box["x"] + x, box["y"] + y


OCC_RGB = (72, 61, 139)  # the page's occupied grid cells


def test_occupancy_grid_menu_starts_the_grid_and_its_image_goes_out_only_when_changed(
    browser: Any, session: LiveSession
) -> None:
    page = Page(browser, session.url)
    assert page.page.is_enabled("#occgrid")
    _, _, before = colour_centroid(page.canvas(), OCC_RGB)
    page.page.check("#occgrid")
    page.page.wait_for_function("() => window.saphira.grid !== null")
    assert "occ grid" in session.robot.scheduler
    assert page.page.is_checked("#occgrid") and not page.page.is_checked("#local")  # the grid forces global
    # Standing still, the grid takes in no new readings: no new image however many frames go by.
    page.wait_cycle(page.frame_cycle() + 4 * GRID_EVERY)
    standing = page.page.evaluate("() => window.saphira.gridFrames.length")
    page.wait_cycle(page.frame_cycle() + 6 * GRID_EVERY)
    assert page.page.evaluate("() => window.saphira.gridFrames.length") == standing
    # Driving, it changes every cycle, but its image goes out at most every GRID_EVERY frames.
    page.page.focus("#lps")
    for _ in range(4):
        page.page.keyboard.press("ArrowUp")
    page.page.wait_for_function("(n) => window.saphira.gridFrames.length >= n", arg=standing + 4)
    cycles = page.page.evaluate("() => window.saphira.gridFrames")[standing - 1 :]
    period = display_for(session.robot.scheduler).period
    assert all(b - a >= GRID_EVERY * period for a, b in itertools.pairwise(cycles)), cycles
    page.page.keyboard.press(" ")
    page.wait_cycle(page.frame_cycle() + 2)
    _, _, after = colour_centroid(page.canvas(), OCC_RGB)
    assert before == 0 and after > 50, f"{after} occupied-cell pixels"
    session.evaluator.eval_text("sfGetDisplayState(sfOCCGRID)")
    assert session.lines[-1] == "1 (int)"
    assert page.errors == []


ARTIFACT_RGB = (0x55, 0x6B, 0x2F)  # sfColorDarkOliveGreen: sfArtifactColor


def test_files_menu_loads_a_world_and_a_map_whose_artifacts_are_drawn(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    simple_walls = page.page.evaluate("() => window.saphira.hello.walls.length")
    page.page.click("#prompt button >> text=Load world…")
    page.page.keyboard.type("corridor")
    page.page.keyboard.press("Enter")
    page.wait_text("#output", 'sfLoadWorldFile("corridor")')
    page.page.wait_for_function(
        "(n) => window.saphira.hello.walls.length !== n && window.saphira.hello.bounds[2] >= 24000", arg=simple_walls
    )
    assert session.sim.simulation.world.source.endswith("corridor.wld")
    page.page.uncheck("#local")
    page.page.uncheck("#follow")
    page.page.evaluate("() => { Object.assign(window.saphira.view, {scale: 0.045, cx: 12000, cy: 6000}); draw(); }")
    _, _, before = colour_centroid(page.canvas(), ARTIFACT_RGB)
    page.page.click("#prompt button >> text=Load map…")
    page.page.keyboard.type("corridor")
    page.page.keyboard.press("Enter")
    page.page.wait_for_function(
        "() => { const a = window.saphira.frame.artifacts.map((x) => x[0]);"
        " return a.includes(3) && a.includes(5) && a.includes(2); }"
    )
    ids = page.page.evaluate("() => window.saphira.frame.artifacts.filter((a) => a[0] === 5).map((a) => a[1])")
    assert sorted(ids) == [2, 3, 4, 5, 6, 7, 8, 9], ids  # the map's doors with their ids
    page.wait_cycle(page.frame_cycle() + 1)
    _, _, after = colour_centroid(page.canvas(), ARTIFACT_RGB)
    assert before == 0 and after > 500, f"{after} artifact pixels"
    assert 'sfLoadMapFile("corridor")' in page.page.text_content("#output")
    assert page.errors == []


def test_files_menu_saves_and_deletes_the_map_and_connect_menu_disconnects(
    browser: Any, session: LiveSession, tmp_path: Path
) -> None:
    assert session.evaluator.eval_text("sfCreateGlobalArtifact(sfWALL, 4, 1000.0, 0.0, 90.0, 0.0, 2000.0);")
    page = Page(browser, session.url)
    page.page.click("#prompt button >> text=Save map…")
    page.page.keyboard.type(str(tmp_path / "saved.smap"))
    page.page.keyboard.press("Enter")
    page.wait_text("#output", 'saved.smap")\n0 (int)')
    assert (tmp_path / "saved.smap").read_text().split()[-6:] == ["WALL", "(4)", "1000", "0", "90", "2000"]
    page.page.click("#prompt button >> text=Delete map…")
    page.page.keyboard.press("Enter")
    page.wait_text("#output", "sfDeleteMapArtifacts()\n1 (int)")
    page.page.click("#prompt button >> text=Disconnect…")
    page.page.keyboard.press("Enter")
    page.evaluate_colbert("sfIsConnected")  # requests run in order: this one after the disconnect
    page.wait_text("#output", "sfIsConnected\n0 (int)")
    assert page.errors == []


def test_files_menu_loads_an_activity_file_and_a_parameter_file(
    browser: Any, session: LiveSession, tmp_path: Path
) -> None:
    act = tmp_path / "hello.act"
    act.write_text('act hello { sfMessage("hello from a file"); }\nstart hello;\n')
    page = Page(browser, session.url)
    page.page.click("#prompt button >> text=Load file…")
    page.page.keyboard.type(str(act))
    page.page.keyboard.press("Enter")
    page.wait_text("#output", "hello from a file")
    assert session.robot.params.subclass == "p3dx"
    page.page.click("#prompt button >> text=Load params…")
    page.page.keyboard.type("p3dx-sh")
    page.page.keyboard.press("Enter")
    page.wait_text("#output", 'sfLoadParamFile("p3dx-sh")')
    page.wait_text("#output", "0 (int)")  # its value: adopted
    assert session.robot.params.subclass == "p3dx-sh"
    assert page.errors == []


RED_RGB = (0xD6, 0x27, 0x28)  # sfColorRed: avoid_collision's sensitivity boxes
BLUE_RGB = (0x1F, 0x4F, 0xD6)  # sfColorBlue: lanes


def test_behaviors_draw_their_sensitivity_boxes_and_lanes(browser: Any, session: LiveSession) -> None:
    page = Page(browser, session.url)
    _, _, red_before = colour_centroid(page.canvas(), RED_RGB)
    _, _, blue_before = colour_centroid(page.canvas(), BLUE_RGB)
    page.evaluate_colbert("start sfAvoidCollision(2.0, 1.0, 8.0, 300.0) priority 0;")
    page.evaluate_colbert(
        "start sfFollow(sfCreateLocalPoint(0.0, 0.0, 0.0), sfCreateLocalPoint(3000.0, 0.0, 0.0), "
        "300.0, 300.0, 100.0, 300.0, 0.5) priority 1;"
    )
    page.page.wait_for_function(
        "() => { const d = window.saphira.frame.drawing.map((p) => p[5]);"
        " return d.includes('#d62728') && d.includes('#1f4fd6'); }"
    )
    drawing = page.page.evaluate("() => window.saphira.frame.drawing")
    assert sum(1 for d in drawing if d[5] == "#d62728" and d[7]) == 1, "front: full truth dashed (sensitivity 2)"
    page.wait_cycle(page.frame_cycle() + 1)
    png = page.canvas()
    _, _, red_after = colour_centroid(png, RED_RGB)
    _, _, blue_after = colour_centroid(png, BLUE_RGB)
    assert red_before == 0 and red_after > 100, f"{red_after} red pixels"
    assert blue_before == 0 and blue_after > 50, f"{blue_after} blue pixels"
    assert session.view.behaviors_drawn > 0
    assert page.errors == []


def test_flat_server_view_shows_its_robot_and_the_buttons_drive_its_mode(browser: Any) -> None:
    proc, url = start_command("sim", "--flat", "0", "--flat-stopped", "--ui", "127.0.0.1:0", "-q")
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.on("pageerror", lambda e: errors.append(str(e)))
    held: list[Any] = []
    try:
        page.goto(url)
        page.wait_for_function("() => window.saphira.frame !== null && window.saphira.frame.flat !== undefined")
        assert page.is_visible("#flat-panel") and page.is_visible("#simline")
        assert "stopped" in (page.text_content("#flat-status") or "")
        host, port = page.evaluate("() => window.saphira.frame.flat.address")
        start = page.evaluate("() => window.saphira.frame.robots[0].slice(1, 4)")
        controller = Controller(host, port)  # greeted; it becomes the controller with its first line
        # Stopped: the controller's input is held until STEP lets exactly one step through.
        stepper = threading.Thread(target=lambda: held.append(controller.step(400.0)), daemon=True)
        stepper.start()
        page.wait_for_function("() => window.saphira.frame.flat.held")
        assert page.evaluate("() => window.saphira.frame.flat.controller") is not None
        page.click("#flat-step")
        page.wait_for_function("() => window.saphira.frame.flat.steps === 1")
        stepper.join(timeout=WAIT)
        assert len(held) == 1 and held[0].time == 100  # standard mode: one step of 100 ms
        # START: it runs freely; the page follows the robot on the Flat server's world.
        page.click("#flat-start")
        page.wait_for_function("() => window.saphira.frame.flat.running")
        for _ in range(20):
            controller.step(400.0)
        page.wait_for_function(
            "([x, y]) => { const r = window.saphira.frame.robots[0]; return Math.hypot(r[1] - x, r[2] - y) > 100; }",
            arg=start[:2],
        )
        assert "running" in (page.text_content("#flat-status") or "")
        # STOP: the next input is held again.
        page.click("#flat-stop")
        page.wait_for_function("() => !window.saphira.frame.flat.running")
        stepper = threading.Thread(target=lambda: held.append(controller.step(0.0)), daemon=True)
        stepper.start()
        page.wait_for_function("() => window.saphira.frame.flat.held")
        steps = page.evaluate("() => window.saphira.frame.flat.steps")
        assert steps == 21 and len(held) == 1
        page.click("#flat-start")
        stepper.join(timeout=WAIT)
        assert len(held) == 2
        controller.send("e 0 0 0")
        assert proc.wait(timeout=WAIT) == 0
        assert errors == []
    finally:
        page.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)


OTHER_PAGE = """<!doctype html><meta charset="utf-8"><title>another local server</title><script>
window.outcome = null;
const ws = new WebSocket(%s);
ws.onopen = () => { window.outcome = "open"; ws.send(JSON.stringify({type: "eval", text: 'sfMessage("hijacked")'})); };
ws.onclose = () => { if (window.outcome === null) window.outcome = "refused"; };
</script>"""


class _OtherServer(http.server.ThreadingHTTPServer):
    """Another server on 127.0.0.1 (a dev server, a notebook): its pages try the live view's WebSocket,
    and it keeps every header a browser sent it."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.headers_seen: list[str] = []
        super().__init__(("127.0.0.1", 0), _OtherHandler)
        threading.Thread(target=self.serve_forever, name="other-site", daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{name}"


class _OtherHandler(http.server.BaseHTTPRequestHandler):
    server: _OtherServer

    def do_GET(self) -> None:
        self.server.headers_seen.append(str(self.headers))
        body = self.server.pages.get(self.path.lstrip("/"), "").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_page_from_another_local_port_cannot_use_the_live_view_and_the_real_page_still_works(
    browser: Any, session: LiveSession
) -> None:
    token = session.url.split("token=")[1]
    ws = session.base.replace("http://", "ws://") + "ws"
    # No token (what the cookie let in before), and the token itself (learnt somehow): both refused.
    other = _OtherServer({"plain.html": OTHER_PAGE % json.dumps(ws),
                          "leaked.html": OTHER_PAGE % json.dumps(f"{ws}?token={token}")})  # fmt: skip
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(session.url)  # the user opens the live view first, in the same browser
        page.wait_for_function("() => window.saphira && window.saphira.frames >= 3")
        assert page.url == session.base and token not in page.evaluate("() => location.href")  # out of the bar
        for name in ("plain.html", "leaked.html"):
            attacker = context.new_page()
            attacker.goto(other.url(name))
            attacker.wait_for_function("() => window.outcome !== null", timeout=WAIT * 1000)
            assert attacker.evaluate("() => window.outcome") == "refused", name
            attacker.close()
        assert other.headers_seen and not any(token in headers for headers in other.headers_seen)
        page.fill("#input", "6 * 7")  # the real page is still served, its WebSocket still answers
        page.press("#input", "Enter")
        page.wait_for_function("() => document.getElementById('output').textContent.includes('42 (int)')")
        assert not any("hijacked" in line for line in session.lines)
        assert errors == []
        page.reload()  # the address bar has no token, and the page kept its session in memory only
        assert "403" in (page.text_content("body") or "") and page.url == session.base
        fresh = context.new_page()  # another tab has no token either: the 403 page
        fresh.goto(session.base)
        assert "403" in (fresh.text_content("body") or "") and fresh.url == session.base
    finally:
        context.close()
        other.shutdown()
        other.server_close()


def test_after_the_first_request_no_url_the_browser_asks_for_carries_the_token(
    browser: Any, session: LiveSession
) -> None:
    token = session.url.split("token=")[1]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        urls: list[str] = []
        page.on("request", lambda r: urls.append(r.url))
        page.on("websocket", lambda ws: urls.append(ws.url))
        page.goto(session.url)
        page.fill("#input", "6 * 7")  # the WebSocket opened with the session answers
        page.press("#input", "Enter")
        page.wait_for_function("() => document.getElementById('output').textContent.includes('42 (int)')")
        assert (
            urls[0] == session.url
            and "static/app.js" in " ".join(urls)
            and session.base + "ws" in " ".join(u.replace("ws://", "http://") for u in urls)
        )
        assert not [u for u in urls[1:] if token in u], urls  # the files and the WebSocket: no token
        kept = page.evaluate(
            "() => location.href + document.documentElement.outerHTML + document.cookie"
            " + JSON.stringify(sessionStorage) + JSON.stringify(localStorage)"
        )
        assert token not in kept and 'saphira-session" content' not in kept  # nor in the page or storage
    finally:
        context.close()
