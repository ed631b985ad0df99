"""The live view without a browser: snapshots, display state, drawing, keys, single step, the CLI's --ui.

Robots run on the embedded simulator in lock-step where the test drives the cycles itself; the CLI
tests start real processes and read their output with a deadline.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import numpy as np
import pytest

from saphira.client.artifacts import ArtifactType
from saphira.colbert.evaluator import Evaluator
from saphira.display.drawing import drawing_for
from saphira.display.state import DisplayMenu, DisplayState, View, display_for
from saphira.params.robot_params import params_for_file
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.ui.liveview import LiveView, SteppedClock
from saphira.ui.requests import RequestError
from saphira.ui.server import UiServer
from saphira.ui.snapshot import capture
from saphira.world.world import World
from tests.realtime import WAIT
from tests.sim_process import PROJECT
from tests.ui_support import WsPage, start_command, with_page


@pytest.fixture
def lockstep() -> Iterator[tuple[Robot, Evaluator, LiveView, list[str]]]:
    robot = Robot()
    sim = attach_simulator(robot, "simple", "p3dx")
    lines: list[str] = []
    evaluator = Evaluator(robot, read_init=False, output=lines.append)
    yield robot, evaluator, LiveView(robot, evaluator, sim=sim), lines
    robot.disconnect()


def test_a_frame_holds_sonar_artifacts_with_ids_tasks_and_behavior_rules(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, ev, view, _ = lockstep
    ev.eval_text("sfAddPoint(sfCreateLocalArtifact(sfCORRIDOR, 7, 1000.0, 0.0, 0.0, 2000.0, 6000.0))")
    ev.eval_text("sfAddPoint(sfCreateLocalArtifact(sfDOOR, 8, 2000.0, 800.0, 90.0, 900.0, 0.0))")
    ev.eval_text("start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) priority 0")
    ev.eval_text("start sfConstantVelocity(250) priority 1")
    robot.run(cycles=30)
    drawing_for(robot.scheduler).draw_centered_rect(0.0, 0.0, 400.0, 300.0)  # drawn in this cycle
    frame = json.loads(capture(robot, view.wake, drawing_for(robot.scheduler).take(), {}, view.sim).to_json())
    assert {(a[0], a[1]) for a in frame["artifacts"]} == {(ArtifactType.CORRIDOR, 7), (ArtifactType.DOOR, 8)}
    assert frame["sonar"] and frame["buffers"], "current readings and accumulated buffers"
    assert frame["drawing"][0][0] == "r"
    names = [t[0] for t in frame["tasks"]]
    assert "sfAvoidCollision" in names and "display" in names
    avoid = next(b for b in frame["behaviors"] if b["name"] == "sfAvoidCollision")
    assert [r[0] for r in avoid["rules"]] == ["Obstacle left", "Obstacle right", "Front blocked", "Stop", "Slow"]
    cruise = next(b for b in frame["behaviors"] if b["name"] == "sfConstantVelocity")
    name, truth, _, value = cruise["rules"][0]
    assert (name, truth, value) == ("Cruise", 1.0, 250.0)
    assert frame["summation"][1] is not None
    assert frame["info"]["Vset"] == round(robot.motion.target_vel())
    assert len(frame["truth"]) == 1 and frame["pose"][0] == round(robot.state.ax)


def test_the_information_area_counts_vision_packets() -> None:
    """VPac is the FTVS packets of the last second (about ten once a channel is on), 0 with no vision."""
    robot = Robot()
    sim = attach_simulator(robot, "ftvs", "p3dx", odometry_error=False)
    lines: list[str] = []
    view = LiveView(robot, Evaluator(robot, read_init=False, output=lines.append), sim=sim)
    robot.run(cycles=10)
    assert capture(robot, view.wake, [], {}, sim).to_dict()["info"]["VPac"] == 0
    assert view.evaluator.eval_text('sfRobotComStr(VISION_COM, "pioneer_a_mode 2")'), lines
    robot.run(3.0)
    assert capture(robot, view.wake, [], {}, sim).to_dict()["info"]["VPac"] in (9, 10, 11)
    robot.disconnect()


def test_a_frame_holds_the_laser_ring_in_global_mm() -> None:
    """With a laser the LPS display draws its latest scan: a wall 2 m ahead is a line of points at x = 2 m."""
    walls = np.array([[2018.0, -5000.0, 2018.0, 5000.0]], dtype=np.float64)
    world = World(name="wall", source="<test>", segments=walls, bounds=(-6000.0, -6000.0, 6000.0, 6000.0))
    params = params_for_file(PROJECT / "tests" / "data" / "laser-params" / "p3dx-laser.p")
    robot = Robot(params=params)
    sim = attach_simulator(robot, world, params, pose=(0.0, 0.0, 0.0), odometry_error=False)
    view = LiveView(robot, Evaluator(robot, read_init=False, output=[].append), sim=sim)
    robot.run(cycles=5)
    laser = capture(robot, view.wake, [], {}, sim).to_dict()["laser"]
    ahead = [(x, y) for x, y in laser if abs(y) < 1000]
    assert len(laser) > 100 and len(ahead) > 20
    assert all(abs(x - 2000) < 50 for x, _ in ahead)  # the ring is relative to the robot's centre
    robot.disconnect()
    plain = Robot()
    sim = attach_simulator(plain, "simple", "p3dx")
    plain.run(cycles=5)
    wake = LiveView(plain, Evaluator(plain, read_init=False), sim=sim).wake
    assert capture(plain, wake, [], {}, sim).to_dict()["laser"] == []  # no laser asked for, none drawn
    plain.disconnect()


def test_display_state_checks_its_values_and_the_occupancy_grid_forces_the_global_view(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, ev, _, lines = lockstep
    ev.eval_text("sfSetDisplayState(7, 1)")
    assert "no display menu 7" in lines[0]
    ev.eval_text("sfSetDisplayState(sfDISPLAY, 11)")
    assert "0 (off) to 10 cycles" in lines[-2]
    ev.eval_text("sfSetDisplayState(sfOCCGRID, 1)")
    display = display_for(robot.scheduler)
    assert display.occgrid and display.global_view
    ev.eval_text("sfSetLineType(3)")
    assert "sfLINESOLID" in lines[-2]


def test_display_state_is_sticky_across_a_reconnection() -> None:
    """§11.5: the display settings outlive the connection: a disconnect and a new connection keep them."""
    robot = Robot()
    sim = attach_simulator(robot, "simple", "p3dx")
    lines: list[str] = []
    ev = Evaluator(robot, read_init=False, output=lines.append)
    for text in ("sfSetDisplayState(sfGLOBAL, 1)", "sfSetDisplayState(sfWAKE, 0)", "sfSetDisplayState(sfDISPLAY, 4)"):
        assert ev.eval_text(text), lines
    robot.disconnect()
    robot.run(cycles=3)
    sim.connect()
    assert robot.connected
    lines.clear()
    for setting in ("sfGLOBAL", "sfWAKE", "sfDISPLAY"):
        assert ev.eval_text(f"sfGetDisplayState({setting})"), lines
    assert lines == ["1 (int)", "0 (int)", "4 (int)"]
    display = display_for(robot.scheduler)
    assert display.global_view and not display.wake and display.period == 4
    robot.disconnect()


def test_the_wake_keeps_the_last_ten_seconds_of_travel(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, _, view, _ = lockstep
    robot.motion.set_velocity(400)
    robot.run(seconds=15.0)
    times = [t for t, _, _ in view.wake.points]
    assert max(times) - min(times) == pytest.approx(10.0) and max(times) > 15.0 - robot.clock.period
    assert len(times) > 50


def test_screen_to_world_inverts_the_page_view() -> None:
    view = View(scale=0.1, cx=1000.0, cy=2000.0, rotation=90.0, width=800, height=600)
    assert view.screen_to_world(400, 300) == pytest.approx((1000.0, 2000.0))
    x, y = view.screen_to_world(500, 300)  # 100 px right of the centre = 1 m; rotated 90 deg
    assert (x, y) == pytest.approx((1000.0, 3000.0))


def test_screen_to_world_in_a_local_view_follows_the_robot_as_it_drives(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    """The page reports a local view once (on resize or zoom); the robot then drives and turns, and
    sfScreenToWorldX/Y still name the point under the pixel: the robot's pose now, not then."""
    robot, ev, view, lines = lockstep
    pose = robot.state.global_pose
    view.handle({"type": "view", "scale": 0.1, "cx": pose.x, "cy": pose.y, "rotation": pose.th - 90.0,
                 "width": 800, "height": 600, "local": 1})  # fmt: skip
    robot.motion.set_velocity(300)
    robot.motion.set_rvelocity(20)
    robot.run(seconds=3.0)
    pose = robot.state.global_pose
    assert math.hypot(pose.x - view.display.view.cx, pose.y - view.display.view.cy) > 600.0
    lines.clear()
    assert ev.eval_text('sfSMessage("%.0f %.0f %.0f %.0f", sfScreenToWorldX(400, 300), sfScreenToWorldY(400, 300),'
                        " sfScreenToWorldX(400, 200), sfScreenToWorldY(400, 200))")  # fmt: skip
    ahead = (pose.x + 1000.0 * math.cos(math.radians(pose.th)), pose.y + 1000.0 * math.sin(math.radians(pose.th)))
    assert [float(v) for v in lines[0].split()] == pytest.approx([pose.x, pose.y, *ahead], abs=1.0)  # up: ahead
    with pytest.raises(RequestError, match="local"):
        view.handle({"type": "view", "scale": 0.1, "cx": 0, "cy": 0, "width": 8, "height": 6, "local": "yes"})
    with pytest.raises(RequestError, match="key is 17 characters long"):
        view.handle({"type": "key", "key": "x" * 17})


def test_keys_drive_and_a_python_key_handler_overrides_them(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, _, view, lines = lockstep
    view.key("ArrowUp")
    assert robot.motion.target_vel() == 50.0
    heading = robot.motion.target_head()
    view.key("ArrowLeft")
    assert robot.motion.target_head() == pytest.approx(heading + 10.0)
    seen: list[str] = []
    display_for(robot.scheduler).key_handler = lambda key: seen.append(key) or key == "ArrowUp"
    view.key("ArrowUp")
    assert robot.motion.target_vel() == 50.0 and seen == ["ArrowUp"]
    view.key("ArrowDown")  # not handled: the built-in meaning
    assert robot.motion.target_vel() == 0.0
    view.key("c")
    assert "keys.cruise" in robot.scheduler and lines[-1].startswith("constant velocity on")
    robot.run(cycles=20)
    assert robot.state.vel > 100.0
    view.key("c")
    assert lines[-1] == "constant velocity off"


def test_single_step_mode_holds_the_cycle_until_stepped() -> None:
    display = DisplayState()
    clock = SteppedClock(display, speed=20.0)
    robot = Robot(clock)
    robot.scheduler.start_async()
    try:
        robot.scheduler.pause(0)
        display.set(DisplayMenu.STEP, 1)
        robot.scheduler.pause(0)  # the cycle running when step mode came on ends, and holds
        held = robot.clock.cycle
        clock.step_once()
        robot.scheduler.pause(0)
        assert robot.clock.cycle == held + 1
        display.set(DisplayMenu.STEP, 0)
        clock.step_once()
        robot.scheduler.pause(300)
        assert robot.clock.cycle >= held + 4
    finally:
        display.set(DisplayMenu.STEP, 0)
        robot.scheduler.stop()


@pytest.mark.parametrize(
    "args",
    [
        ("run", "colbert/demo.act", "--ui", "127.0.0.1:0", "--speed", "2"),
        ("shell", "--ui", "0"),
        ("sim", "--port", "0", "--ui", "0"),
    ],
    ids=["run", "shell", "sim"],
)
def test_the_command_prints_a_tokened_url_on_loopback_and_refuses_requests_without_it(args: tuple[str, ...]) -> None:
    proc, url = start_command(*args)
    output = b""
    try:
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0], timeout=WAIT)
        assert refused.value.code == 403
        with urllib.request.urlopen(url, timeout=WAIT) as page:
            assert page.status == 200
        if args[0] == "run":  # the page's Connect→Exit ends the run as Ctrl-C does (loopback: allowed)
            asyncio.run(with_page(url, _exit_when_a_frame_came))
            output, _ = proc.communicate(timeout=WAIT)
    finally:
        if args[0] == "shell":
            proc.communicate(b"exit\n", timeout=WAIT)  # the shell ends at 'exit'
        elif proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=WAIT)
    expected = {"shell": 0, "run": 128 + signal.SIGINT, "sim": 128 + signal.SIGTERM}[args[0]]
    assert proc.returncode == expected, proc.returncode
    assert args[0] != "run" or b"interrupted (Exit in the live view)" in output, output


async def _exit_when_a_frame_came(page: WsPage) -> None:
    await page.until(lambda answer: answer["type"] == "frame")
    await page.send({"type": "exit"})


class _Frame:
    def __init__(self, text: str) -> None:
        self.text = text

    def to_json(self) -> str:
        return self.text


class _Handler:
    def hello(self) -> dict[str, object]:
        return {}

    def handle(self, message: dict[str, object]) -> None:
        pass


def test_a_stalled_page_drops_frames_and_the_publisher_never_waits() -> None:
    server = UiServer(_Handler())
    url = server.start()
    host, port = "127.0.0.1", server.port
    token = url.split("token=")[1]
    try:
        stalled = socket.create_connection((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        stalled.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                         ).encode())  # fmt: skip
        assert stalled.recv(12) == b"HTTP/1.1 101"  # upgraded; from now on this page reads nothing
        loop = server._loop
        assert loop is not None
        while server.pages == 0:  # the handshake is done in the server thread: wait for it there
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=WAIT)
        frame = _Frame("x" * 200_000)
        for _ in range(300):  # 60 MB: far more than the socket buffers hold
            server.publish(frame)
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=WAIT)  # every frame handed over
        page = next(iter(server._pages))
        assert server.frames_published == 300
        assert page.dropped > 200 and page.sent < 100
        stalled.close()
    finally:
        server.stop()


def test_a_python_button_handler_gets_the_page_clicks(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, _, view, _ = lockstep
    clicks: list[tuple[int, int, int, int]] = []
    display_for(robot.scheduler).button_handler = lambda x, y, b, m: clicks.append((x, y, b, m)) is None
    view.handle({"type": "button", "x": 10, "y": 20, "button": 1, "mods": 1})
    assert clicks == [(10, 20, 1, 1)]
    with pytest.raises(ValueError, match="unknown request type 'nonsense'"):
        view.handle({"type": "nonsense"})


def test_a_bad_ui_address_is_a_usage_error() -> None:
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    command = [sys.executable, "-m", "saphira", "run", "x.act", "--ui", "host:port"]
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2 and "expected [HOST:]PORT" in done.stderr


def test_behaviors_are_not_asked_to_draw_while_no_page_watches(
    lockstep: tuple[Robot, Evaluator, LiveView, list[str]],
) -> None:
    robot, ev, view, _ = lockstep
    ev.eval_text("start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) priority 0")
    ev.eval_text("start sfKeepOff(100.0, 0.5) priority 1")
    robot.run(cycles=20)
    assert view.behaviors_drawn == 0
    assert drawing_for(robot.scheduler).take() == []
