"""The live Foxglove server: its exposure (issue 37: /log and control are opt-in, the addresses printed reach
it), and its messages, the export's of the same run channel by channel (issue 35: one snapshot per cycle).

Foxglove's WebSocket server cannot tell which page a browser connection comes from, nor ask for a token,
so what any local page could read or do is kept to the robot's state unless the user asks: these tests
speak Foxglove's protocol to a real server on loopback (aiohttp as the client), in-process.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import foxglove  # noqa: F401 (the test extra brings it: missing, these tests fail rather than skip)
import pytest
from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory

from saphira.colbert.evaluator import Evaluator
from saphira.params.robot_params import find_params_file, load_params
from saphira.record.mcap_export import REPEAT_CYCLES, TOPICS, FoxgloveLog, FoxgloveServer, export, foxglove_urls
from saphira.record.recording import Recorder
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.world import load_world
from tests.test_replay_export import ACTIVITY

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


class LiveClient(threading.Thread):
    """Foxglove's WebSocket protocol on a thread of its own: every channel subscribed once advertised, each
    message kept as (topic, log time in ns, payload) until the server stops."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.got: list[tuple[str, int, bytes]] = []
        self.changed = threading.Condition()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._read())
        except BaseException as exc:  # seen by wait(): the test fails with it instead of waiting in vain
            self.failure = exc
        with self.changed:
            self.changed.notify_all()

    async def _read(self) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_read=WAIT)
        async with (
            aiohttp.ClientSession(timeout=timeout) as client,
            client.ws_connect(self.url, protocols=[PROTOCOL]) as ws,
        ):
            topics: dict[int, str] = {}
            while set(topics.values()) != set(TOPICS):
                msg = await ws.receive(timeout=WAIT)
                if msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["op"] == "advertise":
                    topics.update({c["id"]: c["topic"] for c in json.loads(msg.data)["channels"]})
            subscriptions = [{"id": cid, "channelId": cid} for cid in topics]
            await ws.send_json({"op": "subscribe", "subscriptions": subscriptions})
            async for msg in ws:  # until the server stops
                if msg.type == aiohttp.WSMsgType.BINARY:
                    opcode, subscription, log_time = struct.unpack_from("<BIQ", msg.data)
                    assert opcode == 1, opcode
                    with self.changed:
                        self.got.append((topics[subscription], log_time, msg.data[13:]))
                        self.changed.notify_all()

    def wait(self, seen: Seen, timeout: float = WAIT) -> bool:
        """Whether ``seen`` said the messages come so far are enough within ``timeout`` s (it ends when they come)."""
        with self.changed:
            done = self.changed.wait_for(lambda: self.failure is not None or seen(self.got), timeout=timeout)
        assert self.failure is None, self.failure
        return done

    def subscribed(self, channels: FoxgloveLog) -> int:
        """Wait until the subscription is made (the protocol does not acknowledge one): a line on /log, sent
        again until one comes; the count of messages that came until then."""
        deadline = time.monotonic() + WAIT
        for k in itertools.count():
            marker = f"probe {k}.".encode()
            channels.message("INFO", "probe", marker.decode())
            channels.flush()
            if self.wait(_carries(marker), timeout=0.2):
                return len(self.got)  # one connection keeps the order: every earlier probe is in
            assert time.monotonic() < deadline, "the subscription was never made"
        raise AssertionError("unreachable")


Seen = Callable[[list[tuple[str, int, bytes]]], bool]


def _carries(marker: bytes) -> Seen:
    return lambda got: any(marker in data for _, _, data in got)


def _pose_at(ns: int) -> Seen:
    return lambda got: any(topic == "/pose" and t == ns for topic, t, _ in got)


def _read_export(path: Path) -> tuple[list[tuple[str, int, bytes]], dict[str, Any]]:
    """Every message of an MCAP file as (topic, log time, payload) in the file's order, and a protobuf
    decoder per topic."""
    decoders = DecoderFactory()
    out: list[tuple[str, int, bytes]] = []
    decode: dict[str, Any] = {}
    with path.open("rb") as stream:
        for schema, channel, message in make_reader(stream).iter_messages(log_time_order=False):
            out.append((channel.topic, message.log_time, message.data))
            if schema is not None and schema.encoding == "protobuf":
                decode[channel.topic] = decoders.decoder_for("protobuf", schema)
    return out, decode


def _heading(q: Any) -> float:
    return math.degrees(2 * math.atan2(q.z, q.w))


def test_the_live_server_and_the_export_of_the_same_run_send_the_same_messages_channel_by_channel(
    tmp_path: Path,
) -> None:
    """One lock-step run in the room, served live (every channel, /log on) and recorded, the recording then
    exported: per channel the same messages at the same times, byte for byte, but for the poses a recording
    keeps rounded (/pose, /tf) and the live server's copies of /world and /artifacts every REPEAT_CYCLES."""
    params = load_params(find_params_file("p3dx-laser"))
    robot = Robot(params=params)
    recording, exported = tmp_path / "run.rec", tmp_path / "run.mcap"
    recorder = Recorder(robot, recording)
    recorder.note("world", "room")
    server = FoxgloveServer(robot, ("127.0.0.1", 0), say=lambda line: None, log=True)
    server.channels.world = load_world("room")
    client = LiveClient(f"ws://127.0.0.1:{server.port}")
    client.start()
    try:
        start = client.subscribed(server.channels)
        attach_simulator(robot, "room", params)
        evaluator = Evaluator(robot, output=recorder.tap.tee(server.tap.tee(lambda line: None)), read_init=False)
        assert evaluator.eval_text(ACTIVITY, "t.act", interactive=False)
        while robot.scheduler.cycle <= REPEAT_CYCLES + 2:  # past the live server's copies at cycle 50
            now = round(robot.clock.now() * 1e9)  # the time of the cycle about to run
            robot.step()
            assert client.wait(_pose_at(now)), now
        end = now  # every message of the cycles before the last has come (one connection keeps the order)
    finally:
        recorder.close()
        server.stop()
        client.join(WAIT)
    assert export(recording, exported) > REPEAT_CYCLES
    in_file, decode = _read_export(exported)
    live = [m for m in client.got[start:] if m[1] < end]
    in_file = [m for m in in_file if m[1] < end]
    copies = REPEAT_CYCLES * 100_000_000  # ns: cycle 50
    for topic in TOPICS:
        theirs = [(t, data) for name, t, data in in_file if name == topic]
        ours = [(t, data) for name, t, data in live if name == topic]
        assert theirs, topic  # the run made every channel
        if topic in ("/world", "/artifacts"):
            again = [data for t, data in ours if t == copies]
            assert len(again) == 1 and (copies, again[0]) not in theirs, topic  # the live server's copy
            ours.remove((copies, again[0]))
        if topic in ("/pose", "/tf"):
            assert [t for t, _ in ours] == [t for t, _ in theirs], topic
            for (_, a), (_, b) in zip(ours, theirs, strict=True):
                x, y = decode[topic](a), decode[topic](b)
                where = (x.pose.position, x.pose.orientation) if topic == "/pose" else (x.translation, x.rotation)
                there = (y.pose.position, y.pose.orientation) if topic == "/pose" else (y.translation, y.rotation)
                assert (where[0].x, where[0].y) == pytest.approx((there[0].x, there[0].y), abs=0.06e-3)
                assert _heading(where[1]) == pytest.approx(_heading(there[1]), abs=0.06)
        else:
            assert ours == theirs, topic
    poses = [t for topic, t, _ in live if topic == "/pose"]
    assert poses == list(range(poses[0], end, 100_000_000)) and poses[0] < copies  # every cycle, through 50
