"""The live Foxglove server's exposure (issue 37): /log and control are opt-in, the addresses printed reach it.

Foxglove's WebSocket server cannot tell which page a browser connection comes from, nor ask for a token,
so what any local page could read or do is kept to the robot's state unless the user asks: these tests
speak Foxglove's protocol to a real server on loopback (aiohttp as the client), in-process.
"""

from __future__ import annotations

import asyncio
import json
import struct
import threading

import aiohttp
import pytest

from saphira.record.mcap_export import TOPICS, FoxgloveServer, foxglove_urls
from saphira.robot import Robot

pytest.importorskip("foxglove", reason="the foxglove extra")

PROTOCOL = "foxglove.sdk.v1"
WAIT = 60.0
"""Seconds any one wait may take at most (each ends as soon as what it waits for comes)."""


async def _advertised(url: str, until: set[str]) -> set[str]:
    """The topics the server advertises, read until ``until`` are among them."""
    timeout = aiohttp.ClientTimeout(total=WAIT)
    async with aiohttp.ClientSession(timeout=timeout) as client, client.ws_connect(url, protocols=[PROTOCOL]) as ws:
        topics: set[str] = set()
        while not until <= topics:
            msg = await ws.receive(timeout=WAIT)
            if msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["op"] == "advertise":
                topics |= {c["topic"] for c in json.loads(msg.data)["channels"]}
        return topics


@pytest.mark.parametrize("log", [False, True])
def test_log_is_served_only_when_asked_for(log: bool) -> None:
    server = FoxgloveServer(Robot(), ("127.0.0.1", 0), say=lambda line: None, log=log)
    try:
        wanted = set(TOPICS) - {"/log"}
        topics = asyncio.run(_advertised(f"ws://127.0.0.1:{server.port}", wanted | ({"/log"} if log else set())))
    finally:
        server.stop()
    assert ("/log" in topics) is log
    assert topics >= wanted


async def _teleop(url: str, messages: list[tuple[int, bytes]]) -> str:
    """Advertise /cmd_vel (1) and /other (2) as Foxglove's Teleop panel does, and send ``messages``."""
    timeout = aiohttp.ClientTimeout(total=WAIT)
    async with aiohttp.ClientSession(timeout=timeout) as client, client.ws_connect(url, protocols=[PROTOCOL]) as ws:
        info = json.loads((await ws.receive(timeout=WAIT)).data)
        twist = "geometry_msgs/msg/Twist"
        channels = [{"id": 1, "topic": "/cmd_vel", "encoding": "json", "schemaName": twist},
                        {"id": 2, "topic": "/other", "encoding": "json", "schemaName": twist}]  # fmt: skip
        await ws.send_json({"op": "advertise", "channels": channels})
        for channel, payload in messages:
            await ws.send_bytes(struct.pack("<BI", 1, channel) + payload)
        return str(info.get("capabilities"))


def test_teleop_drives_only_when_control_is_on_and_only_through_cmd_vel() -> None:
    got: list[tuple[float, float]] = []
    arrived = threading.Event()

    def control(linear: float, angular: float) -> None:
        got.append((linear, angular))
        arrived.set()

    twist = json.dumps({"linear": {"x": 0.5, "y": 0, "z": 0}, "angular": {"x": 0, "y": 0, "z": 0.25}}).encode()
    server = FoxgloveServer(Robot(), ("127.0.0.1", 0), say=lambda line: None, control=control)
    try:
        capabilities = asyncio.run(_teleop(f"ws://127.0.0.1:{server.port}",
                                           [(2, twist), (1, b"{not json"), (1, b"x" * 5000), (1, twist)]))  # fmt: skip
        assert arrived.wait(WAIT)
    finally:
        server.stop()
    assert "clientPublish" in capabilities
    assert got == [(0.5, 0.25)]  # the other topic, the garbage and the oversized message were ignored
    assert server.teleop is not None and server.teleop.ignored == 3
    read_only = FoxgloveServer(Robot(), ("127.0.0.1", 0), say=lambda line: None)
    try:
        assert "clientPublish" not in asyncio.run(_teleop(f"ws://127.0.0.1:{read_only.port}", [(1, twist)]))
    finally:
        read_only.stop()


def test_a_wildcard_address_is_printed_as_the_addresses_that_reach_it() -> None:
    urls = foxglove_urls("0.0.0.0", 8765)
    assert urls[0] == "ws://127.0.0.1:8765" and all("0.0.0.0" not in u for u in urls), urls
    assert foxglove_urls("::", 8765)[0] == "ws://[::1]:8765"
    assert foxglove_urls("127.0.0.1", 9) == ["ws://127.0.0.1:9"]
