"""The sim view's requests (issue 24, item 2): every field checked where it arrives, the error answered
to the page, the simulator goes on. Through a real ``saphira sim --ui`` and its WebSocket.
"""

from __future__ import annotations

import asyncio
import json
import math
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from tests.realtime import WAIT
from tests.ui_support import start_command

BAD_REQUESTS = [
    ('{"type": "place", "x": 1000, "y": 1000, "robot": "zz"}', "robot must be an integer"),
    ('{"type": "place", "x": 1000, "y": 1000, "robot": 2}', "robot 2 is out of range (0 to 1)"),
    ('{"type": "place", "x": 1000, "y": 1000, "robot": -1}', "out of range"),
    ('{"type": "place", "x": 1000, "y": 1000, "robot": true}', "robot must be an integer"),
    ('{"type": "place", "x": 1000, "y": 1000, "robot": 1.5}', "robot must be an integer"),
    ('{"type": "place", "x": 1000, "y": 1000, "th": "abc"}', "th must be a number"),
    ('{"type": "place", "x": 1000, "y": 1000, "th": 1e999}', "th must be a finite number"),
    ('{"type": "place", "x": 1000, "y": 1000, "th": 7200}', "th 7200 is out of range"),
    ('{"type": "place", "x": NaN, "y": 1000}', "NaN is not a number"),
    ('{"type": "place", "x": 1e999, "y": 1000}', "x must be a finite number"),
    ('{"type": "place", "x": -Infinity, "y": 1000}', "-Infinity is not a number"),
    ('{"type": "place", "x": 1e300, "y": 1000}', "x 1e+300 is out of range"),
    ('{"type": "place", "x": 1000, "y": 10000000000000000000000000000000000000000}', "y 1e+40 is out of range"),
    ('{"type": "place", "x": "100", "y": 1000}', "x must be a number, not '100'"),
    ('{"type": "place", "x": 1000}', "y is missing"),
    ('{"type": "place", "x": [1], "y": 1000}', "x must be a number"),
    ('{"type": "display", "menu": "x", "state": 1}', "menu must be an integer"),
    ('{"type": "display", "menu": 0, "state": 1e999}', "state must be an integer"),
    ('{"type": "display", "menu": 9, "state": 1}', "menu 9 is out of range (0 to 4)"),
    ('{"type": "teleport"}', "unknown request type 'teleport'"),
    ("[1, 2]", "not an object"),
]


@pytest.fixture(scope="module")
def sim() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    proc, url = start_command("sim", "--port", "0", "--robots", "2", "--ui", "127.0.0.1:0", "-q")
    try:
        yield proc, url
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)


async def _ask(ws: aiohttp.ClientWebSocketResponse, requests: list[str]) -> list[str]:
    """Send each request and collect the error it is answered with."""
    errors = []
    for request in requests:
        await ws.send_str(request)
        while (answer := await ws.receive_json(timeout=WAIT))["type"] != "error":
            pass  # frames and the hello go by
        errors.append(answer["text"])
    return errors


async def _session(url: str, requests: list[str], place: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """Send each request and collect its error; then ``place`` and wait for a frame showing it."""
    base, token = url.split("?token=")
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as client:
        ws = await client.ws_connect(f"{base}ws?token={token}", headers={"Origin": base.rstrip("/")})
        async with ws:
            errors = await _ask(ws, requests)
            await ws.send_str(json.dumps(place))
            while True:  # the simulator goes on: it applies a good request and sends frames showing it
                answer = await ws.receive_json(timeout=WAIT)
                assert answer["type"] != "error", answer
                if answer["type"] == "frame":
                    robot = answer["robots"][place["robot"]]
                    if math.hypot(robot[1] - place["x"], robot[2] - place["y"]) < 2:
                        return errors, robot


def test_every_field_of_a_sim_view_request_is_checked_and_the_error_answered(
    sim: tuple[subprocess.Popen[bytes], str],
) -> None:
    proc, url = sim
    place = {"type": "place", "robot": 1, "x": 1500.0, "y": 1200.0, "th": -90.0}
    errors, robot = asyncio.run(_session(url, [r for r, _ in BAD_REQUESTS], place))
    for (request, expected), error in zip(BAD_REQUESTS, errors, strict=True):
        assert expected in error, (request, error)
    assert abs(robot[3] + 90) < 1
    assert proc.poll() is None


def test_a_place_outside_the_world_is_refused_and_one_inside_still_works(
    sim: tuple[subprocess.Popen[bytes], str],
) -> None:
    proc, url = sim
    far = '{"type": "place", "robot": 0, "x": 1000000, "y": 0}'
    errors, _ = asyncio.run(_session(url, [far], {"type": "place", "robot": 0, "x": 900.0, "y": 800.0}))
    assert "x 1e+06 is out of range" in errors[0]
    assert proc.poll() is None


async def _errors(url: str, requests: list[str]) -> list[str]:
    base, token = url.split("?token=")
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as client:
        ws = await client.ws_connect(f"{base}ws?token={token}", headers={"Origin": base.rstrip("/")})
        async with ws:
            return await _ask(ws, requests)


def test_the_flat_views_requests_are_checked_too() -> None:
    proc, url = start_command("sim", "--flat", "0", "--flat-stopped", "--ui", "127.0.0.1:0", "-q")
    try:
        errors = asyncio.run(_errors(url, ['{"type": "panel", "command": 5}', '{"type": "panel", "command": "JUMP"}',
                                           '{"type": "place", "robot": 1, "x": 0, "y": 0}',
                                           '{"type": "place", "x": 0, "y": NaN}']))  # fmt: skip
        assert "command must be a string" in errors[0] and "unknown panel command 'JUMP'" in errors[1]
        assert "robot 1 is out of range (0 to 0)" in errors[2] and "NaN is not a number" in errors[3]
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)
