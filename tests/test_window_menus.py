"""The windows' menus as the manual has them (issue 34 §3): the simulator window's Files (Load Params, from
the bundled files and a folder the operator allows, Load World), Connect (where each robot listens, a new
port, Disconnect), Display→Wake and Exit, and the live view's
Connect→Exit (ending ``saphira run`` in tests/test_ui.py). Each through a real command and its WebSocket;
each refusal named to the page.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.robot import Robot
from saphira.sim.simulation import Simulation
from saphira.ui.liveview import LiveView
from saphira.ui.requests import PageExit, RequestError
from saphira.ui.simview import SimView
from tests.realtime import WAIT
from tests.ui_support import WsPage, start_command, with_page

BOX = "width 4000\nheight 3000\n0 0 4000 0\n4000 0 4000 3000\n4000 3000 0 3000\n0 3000 0 0\nposition 1000 1000 0\n"


def _frame(a: dict[str, Any]) -> bool:
    return a["type"] == "frame"


def test_the_sim_windows_files_connect_wake_and_exit_menus(tmp_path: Path) -> None:
    (tmp_path / "box.wld").write_text(BOX)
    allowed = tmp_path / "params"
    (allowed / "team").mkdir(parents=True)
    (allowed / "team" / "scout.p").write_text("Name Scout7\nSubclass p3at\n")
    (allowed / "passwd.p").symlink_to("/etc/passwd")
    busy = socket.create_server(("127.0.0.1", 0))  # a port another program holds
    busy_port = busy.getsockname()[1]
    seen: list[bytes] = []
    proc, url = start_command("sim", "--port", "0", "--world-dir", str(tmp_path), "--params-dir", str(allowed),
                              "--ui", "127.0.0.1:0", seen=seen,
                              announces=rb"live view: (http://\S+)[\s\S]*listening on 127\.0\.0\.1:\d+")  # fmt: skip
    port = int(seen[0].decode().split("listening on 127.0.0.1:")[1].split()[0])

    async def script(page: WsPage) -> dict[str, Any]:
        out: dict[str, Any] = {}
        # Files→Load World: what LOADWORLD may load, and nothing else
        out["outside"] = await page.error({"type": "load_world", "name": "/etc/passwd"})
        out["too long"] = await page.error({"type": "load_world", "name": "x" * 2000})
        out["not text"] = await page.error({"type": "load_world", "name": 7})
        await page.send({"type": "load_world", "name": "box.wld"})
        out["world"] = await page.until(lambda a: _frame(a) and "walls" in a)
        # Files→Load Params: a bundled file only, for a robot that exists
        out["params outside"] = await page.error({"type": "load_params", "robot": 0, "name": "../../etc/passwd"})
        out["params robot"] = await page.error({"type": "load_params", "robot": 3, "name": "p3at"})
        await page.send({"type": "load_params", "robot": 0, "name": "p3at"})
        out["params"] = await page.until(lambda a: _frame(a) and a["robots"][0][0] == "P3AT")
        # ... or a file under --params-dir, read without following a link, nothing outside it
        out["params link"] = await page.error({"type": "load_params", "robot": 0, "name": "passwd.p"})
        out["params up"] = await page.error({"type": "load_params", "robot": 0, "name": "../box.wld"})
        await page.send({"type": "load_params", "robot": 0, "name": "team/scout.p"})
        out["folder params"] = await page.until(lambda a: _frame(a) and a["robots"][0][0] == "Scout7")
        # Connect: where the robot listens and whether a client holds it; Disconnect hangs the client up
        client = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        with client:
            out["held"] = await page.until(lambda a: _frame(a) and a["lines"][0][1])
            out["disconnect robot"] = await page.error({"type": "disconnect", "robot": 1})
            await page.send({"type": "disconnect", "robot": 0})
            out["freed"] = await page.until(lambda a: _frame(a) and not a["lines"][0][1])
            out["hung up"] = client.recv(64)
        # Connect→port: a privileged or busy port is refused and shown, the line kept; then a free one
        out["privileged"] = await page.error({"type": "listen", "robot": 0, "port": 80})
        out["listen robot"] = await page.error({"type": "listen", "robot": 1, "port": 0})
        await page.send({"type": "listen", "robot": 0, "port": busy_port})
        out["busy"] = await page.until(
            lambda a: a["type"] == "messages" and any("cannot listen" in x for x in a["lines"])
        )
        client = socket.create_connection(("127.0.0.1", port), timeout=WAIT)  # the old line still serves
        with client:
            await page.until(lambda a: _frame(a) and a["lines"][0][1])
            await page.send({"type": "listen", "robot": 0, "port": 0})
            out["moved"] = await page.until(lambda a: _frame(a) and a["lines"][0][0] != f"127.0.0.1:{port}")
            out["moved client"] = client.recv(64)
        new_port = out["new port"] = int(out["moved"]["lines"][0][0].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", new_port), timeout=WAIT):
            out["new held"] = await page.until(lambda a: _frame(a) and a["lines"][0][1])
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=WAIT).close()
        # Display→Wake: the robot's breadcrumbs, in the frames only while it is on
        await page.send({"type": "display", "menu": 2, "state": 1})
        await page.until(lambda a: _frame(a) and "wakes" in a)
        for x in (1500, 2500):  # one place a cycle at most, as a robot drives
            await page.send({"type": "place", "robot": 0, "x": x, "y": 1000.0})
            out["wake"] = await page.until(lambda a, x=x: _frame(a) and a["wakes"][0][-1] == [x, 1000])
        # Connect→Exit: as Ctrl-C (a request with a field is refused first)
        out["exit field"] = await page.error({"type": "exit", "code": 3})
        await page.send({"type": "exit"})
        await page.until(lambda a: a["type"] == "messages" and "Exit: the simulator stops" in a["lines"])
        out["lines"] = page.lines
        return out

    try:
        out = asyncio.run(with_page(url, script))
        output, _ = proc.communicate(timeout=WAIT)
    finally:
        busy.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGINT and b"simulator stopped" in output
    assert "neither a bundled world nor a file under" in out["outside"]
    assert "name is 2000 characters long (at most 1024)" in out["too long"]
    assert "name must be a string" in out["not text"]
    assert out["world"]["bounds"] == [0, 0, 4000, 3000] and out["world"]["robots"][0][1:3] == [1000, 1000]
    assert "is not a bundled parameter file" in out["params outside"]
    assert "robot 3 is out of range (0 to 0)" in out["params robot"]
    assert out["world"]["robots"][0][0] == "P3DX" and out["params"]["robots"][0][1:3] == [1000, 1000]
    assert out["held"]["lines"][0][0] == f"127.0.0.1:{port}"
    assert "robot 1 is out of range (0 to 0)" in out["disconnect robot"]
    assert out["hung up"] == b""  # the client's line was closed; the robot listens again
    assert out["wake"]["wakes"][0][-3:] == [[1000, 1000], [1500, 1000], [2500, 1000]]
    assert "exit: takes no fields, got ['code']" in out["exit field"]
    assert "world box loaded" in out["lines"] and "robot 1 takes the parameters of P3AT" in out["lines"]
    assert "is a symbolic link (links in --params-dir are not followed)" in out["params link"]
    assert f"'../box.wld' is not a bundled parameter file nor a file under {allowed}" in out["params up"]
    assert out["folder params"]["robots"][0][1:3] == [1000, 1000]  # rebuilt where it stood
    assert "robot 1 takes the parameters of Scout7" in out["lines"]
    assert "listen: port 80 is privileged (choose 1024 to 65535, or 0 for a free one)" in out["privileged"]
    assert "robot 1 is out of range (0 to 0)" in out["listen robot"]
    assert (
        f"robot 1 cannot listen on port {busy_port}: Address already in use; it still listens on 127.0.0.1:{port}"
        in out["lines"]
    )
    new_port = out["new port"]
    assert out["moved client"] == b"" and new_port != port  # its client was hung up, the old port closed
    assert f"robot 1 listens on 127.0.0.1:{new_port}" in out["lines"] and out["new held"]["lines"][0][1]


def test_exit_follows_the_servers_exit_rules() -> None:
    """Beyond loopback without --allow-exit (or with --no-exit) an Exit is refused; where nothing ends the
    program from its page (the shell) it says so; nothing is stopped either way."""
    stops: list[str] = []
    robot = Robot()
    live = LiveView(robot, Evaluator(robot, read_init=False, output=lambda text: None))
    sim = SimView(Simulation())
    for view in (live, sim):
        with pytest.raises(RequestError, match="this program is not ended from its page"):
            view.handle({"type": "exit"})
        view.exit = PageExit(stops.append, allowed=False)
        with pytest.raises(RequestError, match="refused: the page is served beyond loopback"):
            view.handle({"type": "exit"})
    assert stops == []
    sim.exit = PageExit(stops.append, allowed=True)
    sim.handle({"type": "exit"})
    assert stops == ["Exit in the live view"]


@pytest.mark.parametrize(
    ("args", "host", "allowed"),
    [
        ([], "127.0.0.1", True),
        ([], "0.0.0.0", False),
        (["--allow-exit"], "0.0.0.0", True),
        (["--no-exit"], "127.0.0.1", False),
    ],
)
def test_the_pages_exit_is_allowed_as_sim_exit_is(args: list[str], host: str, allowed: bool) -> None:
    from saphira.app.sim import build_parser
    from saphira.app.sim_ui import window_menus
    from saphira.core.interrupts import StopSignals

    view = SimView(Simulation())
    window_menus(view, build_parser().parse_args([*args, "--ui", f"{host}:0"]), StopSignals())
    assert view.exit.allowed is allowed


def test_a_menu_the_simulator_does_not_offer_is_refused_by_name() -> None:
    sim = SimView(Simulation())  # as Flat's window: its World file owns the maps, no Pioneer lines
    for message, expected in [
        ({"type": "load_world", "name": "room"}, "worlds are not loaded from its window"),
        ({"type": "load_params", "robot": 0, "name": "p3dx"}, "do not take parameters from its window"),
        ({"type": "disconnect", "robot": 0}, "clients are not disconnected from its window"),
        ({"type": "listen", "robot": 0, "port": 8101}, "robots do not change ports from its window"),
    ]:
        with pytest.raises(RequestError, match=expected):
            sim.handle(message)


def test_a_params_dir_that_is_no_folder_is_refused_before_anything_listens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from saphira.app.sim import main

    assert main(["--port", "0", "--params-dir", str(tmp_path / "nowhere"), "--ui", "127.0.0.1:0"]) == 2
    assert f"argument --params-dir: {tmp_path / 'nowhere'}: not a folder" in capsys.readouterr().err
