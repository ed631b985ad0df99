"""Helpers for the live-view tests: a robot session served on loopback, and a headless Chromium.

The browser is Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it) driven
through Playwright's Python client (:mod:`tests.browser` finds it).
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import aiohttp
import numpy as np
import numpy.typing as npt

from saphira.app.session import ColbertConnection
from saphira.colbert.evaluator import Evaluator
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.ui.liveview import LiveView, SteppedClock, serve
from tests.realtime import WAIT
from tests.sim_process import PROJECT


def start_command(
    *args: str, announces: bytes = rb"live view: (http://\S+)", seen: list[bytes] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``python -m saphira ARGS`` (stdin a pipe) and read until it prints where it serves: the first
    group of ``announces`` (the live view's URL by default). What was read is appended to ``seen``."""
    proc = subprocess.Popen([sys.executable, "-m", "saphira", *args], cwd=PROJECT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=dict(os.environ, PYTHONPATH=str(PROJECT)))  # fmt: skip
    assert proc.stdout is not None
    output = b""
    deadline = time.monotonic() + WAIT
    while (match := re.search(announces, output)) is None:
        remaining = deadline - time.monotonic()
        assert remaining > 0 and proc.poll() is None, output.decode(errors="replace")
        ready, _, _ = select.select([proc.stdout], [], [], remaining)
        if ready:
            output += os.read(proc.stdout.fileno(), 4096)
    if seen is not None:
        seen.append(output)
    return proc, match[1].decode()


class LiveSession:
    """A robot on the embedded simulator, paced at ``speed`` x real time, with its live view served."""

    def __init__(self, speed: float = 4.0, world: str = "simple") -> None:
        self.lines: list[str] = []
        self.robot = Robot(SteppedClock(speed=speed))
        self.sim = attach_simulator(self.robot, world, "p3dx", wait=False)
        # as saphira run and shell make it: the session's connection is what Colbert's connect/disconnect reach
        self.evaluator = Evaluator(
            self.robot, read_init=False, output=self.lines.append, connection=ColbertConnection(self.robot)
        )
        self.view: LiveView = serve(self.robot, self.evaluator, ("127.0.0.1", 0), sim=self.sim, say=self.lines.append)
        assert self.view.server is not None
        self.url = self.view.server.url
        self.base = self.url.split("?")[0]
        self.robot.scheduler.start_async()
        self.robot.wait_connected(WAIT)

    def close(self) -> None:
        self.robot.scheduler.stop()
        self.view.stop()


@contextmanager
def live_session(speed: float = 4.0, world: str = "simple") -> Iterator[LiveSession]:
    session = LiveSession(speed, world)
    try:
        yield session
    finally:
        session.close()


def colour_centroid(png: bytes, rgb: tuple[int, int, int], tolerance: int = 12) -> tuple[float, float, int]:
    """Mean (x, y) of the pixels of colour ``rgb`` in a PNG, and how many there are."""
    from matplotlib import image

    pixels: npt.NDArray[np.float64] = image.imread(io.BytesIO(png), format="png")[:, :, :3] * 255.0
    close = np.all(np.abs(pixels - np.array(rgb)) <= tolerance, axis=2)
    ys, xs = np.nonzero(close)
    if len(xs) == 0:
        return (float("nan"), float("nan"), 0)
    return float(xs.mean()), float(ys.mean()), len(xs)


class WsPage:
    """One WebSocket to a served view: send requests, wait for the answer or frame a test needs."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.lines: list[str] = []

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(message))

    async def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            answer = await self.ws.receive_json(timeout=WAIT)
            if answer["type"] == "messages":
                self.lines += answer["lines"]
            if wanted(answer):
                return answer

    async def error(self, message: dict[str, Any]) -> str:
        await self.send(message)
        return str((await self.until(lambda a: a["type"] == "error"))["text"])


async def with_page(url: str, script: Callable[[WsPage], Any]) -> Any:
    base, token = url.split("?token=")
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as client:
        ws = await client.ws_connect(f"{base}ws?token={token}", headers={"Origin": base.rstrip("/")})
        async with ws:
            return await script(WsPage(ws))
