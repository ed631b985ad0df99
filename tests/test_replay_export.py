"""A recording to look at: version 3's behaviors, poses, artifacts and messages; MCAP export; replay --plot
and --ui."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import signal
import struct
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from mcap.reader import make_reader
from mcap.records import Schema
from mcap_protobuf.decoder import DecoderFactory

from saphira.app.cli import main
from saphira.app.trace import RunTrace
from saphira.record.mcap_export import TOPICS
from saphira.record.playback import Playback
from saphira.record.recording import read_recording, replay
from saphira.world.world import load_world
from tests.realtime import WAIT
from tests.sim_process import PROJECT
from tests.ui_support import start_command

ACTIVITY = """\
sfInitControlProcs();
start sfAvoidCollision(1.0, 1.0, 8.0, 300.0) priority 0;
start sfConstantVelocity(300) priority 2;
point *g;
g = sfCreateLocalPoint(1000.0, 0.0, 90.0);
sfAddPoint(g);
sfMessage("started with %d behaviors", 2);
"""
RUN = ["--world", "room", "--params", "p3dx-laser", "--duration", "5"]
SCHEMAS = {
    "/pose": "foxglove.PoseInFrame", "/odom": "foxglove.Odometry", "/tf": "foxglove.FrameTransform",
    "/sonar": "foxglove.PointCloud", "/laser": "foxglove.LaserScan", "/world": "foxglove.SceneUpdate",
    "/artifacts": "foxglove.SceneUpdate", "/behaviors": "saphira.Behaviors", "/log": "foxglove.Log",
}  # fmt: skip
_FINAL = re.compile(r"final pose \((-?\d+), (-?\d+), (-?[\d.]+)\) by odometry")


def saphira_run(tmp: Path, record: Path, capsys: pytest.CaptureFixture[str]) -> tuple[float, float, float]:
    """Run the activity in the room with a laser, recording to ``record``; the final pose the summary gives."""
    act = tmp / "t.act"
    act.write_text(ACTIVITY)
    assert main(["run", str(act), *RUN, "--record", str(record)]) == 0
    out = capsys.readouterr().out
    final = _FINAL.search(out)
    assert final is not None, out
    return float(final[1]), float(final[2]), float(final[3])


def read_mcap(path: Path) -> tuple[dict[str, str], dict[str, list[Any]]]:
    """Schema name per topic, and every message decoded (protobuf, or JSON for /behaviors), per topic."""
    decoders = DecoderFactory()
    schemas: dict[str, str] = {}
    messages: dict[str, list[Any]] = defaultdict(list)
    with path.open("rb") as f:
        reader = make_reader(f)
        for schema, channel, message in reader.iter_messages(log_time_order=True):
            assert schema is not None
            schemas[channel.topic] = schema.name
            if channel.message_encoding == "json":
                messages[channel.topic].append(json.loads(message.data))
            else:
                decode = decoders.decoder_for(channel.message_encoding, schema)
                assert decode is not None
                messages[channel.topic].append(decode(message.data))
    return schemas, messages


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[float, float, float]]:
    tmp = tmp_path_factory.mktemp("rec")
    # A module fixture has no capsys: the run is a process of its own, its summary read from its output.
    act = tmp / "t.act"
    act.write_text(ACTIVITY)
    record = tmp / "run.rec"
    done = subprocess.run([sys.executable, "-m", "saphira", "run", str(act), *RUN, "--record", str(record)],
                          cwd=PROJECT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    final = _FINAL.search(done.stdout)
    assert final is not None, done.stdout
    return record, (float(final[1]), float(final[2]), float(final[3]))


def test_a_recording_holds_behaviors_poses_artifacts_messages_world_and_params(
    recorded: tuple[Path, tuple[float, float, float]],
) -> None:
    path, final = recorded
    rec = read_recording(path)
    assert rec.notes == {"world": "room", "params": "p3dx-laser"}
    assert not rec.problem
    first = next(b for b in rec.behaviors.values() if b["rows"])
    rows = {row["name"]: row for row in first["rows"]}
    assert {"sfAvoidCollision", "sfConstantVelocity"} <= set(rows)
    rule_names = [rule[0] for rule in rows["sfAvoidCollision"]["rules"]]
    assert "Obstacle left" in rule_names
    assert any(b["speed"] == 300.0 for b in rec.behaviors.values())  # the desired speed, blended
    poses = [rec.poses[c] for c in sorted(rec.poses)]
    assert poses[0][:2] == pytest.approx((1500.0, 4000.0), abs=1.0)  # the room's start pose, not (0, 0)
    assert poses[-1] == pytest.approx(final, abs=1.0)
    artifacts = rec.artifacts[max(rec.artifacts)]
    assert [a[:5] for a in artifacts] == [[1, 0, 2500.0, 4000.0, 90.0]]  # the point 1 m ahead of the start
    messages = [m for ms in rec.messages.values() for m in ms]
    assert ["INFO", "sfMessage", "started with 2 behaviors"] in messages
    assert replay(path).matches  # the new lines leave the check as it was
    size = path.stat().st_size
    assert size < 200 * rec.last_cycle * 10, size  # behaviors only when they change: a few hundred bytes a cycle


def test_a_version_2_recording_still_replays_and_plays_without_behaviors(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path
) -> None:
    path, _ = recorded
    kept = [line for line in path.read_text().splitlines()[1:] if not re.match(r"\d+ [bpamt] |# (world|params) ", line)]
    events = sum(1 for line in kept if not line.startswith("#"))
    kept[-1] = re.sub(r"# end \d+ events", f"# end {events} events", kept[-1])
    old = tmp_path / "old.rec"
    old.write_text("# saphira recording 2\n" + "\n".join(kept) + "\n")
    assert replay(old).matches
    playback = Playback.open(old)
    while not playback.done:
        playback.step()
    assert playback.behaviors == {} and playback.artifacts == []
    assert main(["replay", str(old), "--plot", str(tmp_path / "old.png")]) == 0  # drawn without a world


def test_export_writes_every_channel_with_foxgloves_schemas(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, final = recorded
    rec = read_recording(path)
    out = tmp_path / "run.mcap"
    assert main(["export", str(path), "-o", str(out)]) == 0
    assert f"to {out}" in capsys.readouterr().out
    schemas, messages = read_mcap(out)
    assert schemas == SCHEMAS
    assert set(messages) == set(TOPICS)
    counts = Counter({topic: len(ms) for topic, ms in messages.items()})
    assert counts["/pose"] == counts["/odom"] == counts["/tf"] == len(rec.states)  # every connected cycle
    poses = [(p.pose.position.x, p.pose.position.y) for p in messages["/pose"]]
    first, last = rec.poses[min(rec.poses)], rec.poses[max(rec.poses)]
    assert poses[0] == pytest.approx((first[0] / 1000, first[1] / 1000), abs=1e-4)
    assert poses[-1] == pytest.approx((last[0] / 1000, last[1] / 1000), abs=1e-4)
    assert poses[-1] == pytest.approx((final[0] / 1000, final[1] / 1000), abs=1e-3)  # the run's summary
    assert messages["/tf"][-1].child_frame_id == "base_link"
    odo_x, odo_y = (float(v) for v in rec.states[max(rec.states)].split()[:2])
    odom = messages["/odom"][-1]
    assert (odom.pose.position.x, odom.pose.position.y) == pytest.approx((odo_x / 1000, odo_y / 1000), abs=1e-4)
    assert odom.linear_velocity.x == pytest.approx(0.3, abs=0.05)
    cloud = messages["/sonar"][-1]
    assert cloud.point_stride == 12 and [f.name for f in cloud.fields] == ["x", "y", "z"]
    assert 0 < len(cloud.data) // 12 <= 16
    scans = messages["/laser"]
    assert len(scans) >= 40 and len(scans[-1].ranges) == 181
    assert scans[0].ranges[90] == pytest.approx(2.2 - 0.018, abs=0.02)  # straight ahead: the box, 2.2 m away
    (walls,) = messages["/world"]
    world = load_world("room")
    assert len(walls.entities[0].lines[0].points) == 2 * len(world.segments)
    artifact = messages["/artifacts"][-1].entities[0].cubes[0].pose.position
    assert (artifact.x, artifact.y) == pytest.approx((2.5, 4.0))
    behaviors = messages["/behaviors"]
    assert len(behaviors) == len(rec.behaviors)
    assert any(b["speed"] == 300.0 for b in behaviors)
    assert {r["name"] for r in behaviors[-1]["rows"]} >= {"sfAvoidCollision", "sfConstantVelocity"}
    assert [(m.name, m.message) for m in messages["/log"]] == [("sfMessage", "started with 2 behaviors")]


def test_run_record_mcap_writes_the_same_channels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "live.mcap"
    final = saphira_run(tmp_path, out, capsys)
    schemas, messages = read_mcap(out)
    assert schemas == SCHEMAS
    last = messages["/pose"][-1].pose.position
    assert (last.x, last.y) == pytest.approx((final[0] / 1000, final[1] / 1000), abs=1e-3)
    assert ("sfMessage", "started with 2 behaviors") in [(m.name, m.message) for m in messages["/log"]]
    assert len(messages["/laser"]) >= 40


def test_replay_plot_draws_the_run_where_it_went(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, final = recorded
    png = tmp_path / "replay.png"
    assert main(["replay", str(path), "--plot", str(png)]) == 0
    assert f"plot written to {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    playback = Playback.open(path)  # what the plot drew: the trace of the replayed run
    trace = RunTrace(playback.robot)
    playback.robot.scheduler.add(trace)
    while not playback.done:
        playback.step()
    assert trace.path[0][:2] == pytest.approx((1500.0, 4000.0), abs=1.0)  # the room's start, as the run began
    assert trace.path[-1] == pytest.approx(final, abs=1.0)


def test_export_of_a_broken_line_names_it(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = recorded
    lines = path.read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if " b " in line)
    lines[number] = lines[number][:-5]
    broken = tmp_path / "broken.rec"
    broken.write_text("\n".join(lines) + "\n")
    assert main(["export", str(broken), "-o", str(tmp_path / "x.mcap")]) == 2
    assert f"{broken}:{number + 1}" in capsys.readouterr().err


def test_export_to_a_place_it_cannot_write_names_it(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = recorded
    assert main(["export", str(path), "-o", str(tmp_path)]) == 2  # a folder
    assert f"saphira export: cannot write {tmp_path}: Is a directory" in capsys.readouterr().err


def test_without_foxglove_sdk_export_and_record_say_what_to_install(
    recorded: tuple[Path, tuple[float, float, float]], tmp_path: Path
) -> None:
    path, _ = recorded
    for argv in (["export", str(path), "-o", str(tmp_path / "x.mcap")],
                 ["run", "colbert/demo.act", "--duration", "1", "--record", str(tmp_path / "y.mcap")]):  # fmt: skip
        code = (
            f"import sys\nsys.modules['foxglove'] = None\nfrom saphira.app.cli import main\nsys.exit(main({argv!r}))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert "pip install 'saphira[foxglove]'" in done.stderr


def _latest(by_cycle: dict[int, Any], cycle: int, default: Any) -> Any:
    """What a version 3 line said last at or before ``cycle`` (lines come only when something changed)."""
    cycles = [c for c in by_cycle if c <= cycle]
    return by_cycle[max(cycles)] if cycles else default


async def _player(url: str, rec: Any) -> dict[str, Any]:
    """Drive the replay page's player over its WebSocket, as app.js does; what it showed, for the test."""
    base, token = url.split("?token=")
    seen: dict[str, Any] = {"errors": [], "lines": []}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as client:
        ws = await client.ws_connect(f"{base}ws?token={token}", headers={"Origin": base.rstrip("/")})
        async with ws:

            async def until(test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
                while True:
                    msg = await ws.receive_json(timeout=WAIT)
                    if msg["type"] == "error":
                        seen["errors"].append(msg["text"])
                    elif msg["type"] == "messages":
                        seen["lines"] += msg["lines"]
                    if test(msg):
                        return msg

            seen["hello"] = await until(lambda m: m["type"] == "hello")
            for request, cycle in ((("seek", {"cycle": 30}), 30), (("step", {}), 31), (("seek", {"cycle": 4}), 4),
                                   (("step", {}), 5), (("step", {}), 6)):  # fmt: skip
                action, fields = request
                await ws.send_json({"type": "replay", "action": action, **fields})
                seen[cycle] = await until(lambda m, c=cycle: m["type"] == "frame" and m["replay"]["cycle"] == c)
            await ws.send_json({"type": "replay", "action": "speed", "speed": 16})
            await ws.send_json({"type": "replay", "action": "play"})
            seen["end"] = await until(lambda m: m["type"] == "frame" and m["replay"]["cycle"] == rec.last_cycle + 1)
            await ws.send_json({"type": "display", "menu": 2, "state": 0})  # the Display menu's Wake, off
            await ws.send_json({"type": "replay", "action": "step"})  # at the end: the same cycle, shown again
            seen["no wake"] = await until(lambda m: m["type"] == "frame" and not m["display"]["wake"])
            await ws.send_json({"type": "key", "key": "ArrowUp"})
            await ws.send_json({"type": "replay", "action": "seek", "cycle": 10**6})
            await until(lambda m: len(seen["errors"]) == 2)
    return seen


def test_replay_ui_plays_the_recording_in_the_live_view(recorded: tuple[Path, tuple[float, float, float]]) -> None:
    path, final = recorded
    rec = read_recording(path)
    proc, url = start_command("replay", str(path), "--ui", "127.0.0.1:0")
    try:
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        with pytest.raises(urllib.error.HTTPError) as refused:  # the live view's token guards it too
            urllib.request.urlopen(url.split("?")[0], timeout=WAIT)
        assert refused.value.code == 403
        seen = asyncio.run(_player(url, rec))
    finally:
        proc.send_signal(signal.SIGTERM)
        output = proc.communicate(timeout=WAIT)[0].decode()
    assert proc.returncode == 143, output  # ended by the SIGTERM above, as every command
    hello = seen["hello"]
    assert hello["replay"]["cycles"] == rec.last_cycle + 1 and hello["replay"]["behaviors"]
    assert len(hello["walls"]) == len(load_world("room").segments)
    for cycle in (30, 31, 4, 5, 6):
        frame = seen[cycle]
        x, y, th = _latest(rec.poses, cycle - 1, (0.0, 0.0, 0.0))  # the pose the last cycle played left
        assert frame["pose"] == [round(x), round(y), round(th, 1)], cycle
        recorded_behaviors = _latest(rec.behaviors, cycle - 1, {})
        assert frame["behaviors"] == recorded_behaviors.get("rows", []), cycle
        assert frame["summation"] == [recorded_behaviors.get("turn"), recorded_behaviors.get("speed")]
    assert {b["name"] for b in seen[30]["behaviors"]} >= {"sfAvoidCollision", "sfConstantVelocity"}
    assert "started with 2 behaviors" in seen["lines"]  # played in cycle 5, where it was recorded
    end = seen["end"]
    assert end["pose"][:2] == [round(final[0]), round(final[1])] and end["replay"]["speed"] == 16
    assert seen["no wake"]["replay"]["cycle"] == rec.last_cycle + 1
    assert "a replay plays what was recorded" in seen["errors"][0]
    assert "cycle 1000000 is out of range" in seen["errors"][1]


def _start_foxglove_run(*args: str, seen: list[bytes]) -> tuple[subprocess.Popen[bytes], str]:
    """``saphira run ARGS`` with its output read (into ``seen``) until it says where its Foxglove server listens."""
    return start_command("run", *args, announces=rb"foxglove: (ws://\S+)", seen=seen)


async def _foxglove_client(url: str) -> tuple[dict[str, dict[str, Any]], list[Any]]:
    """Speak Foxglove's WebSocket protocol: the advertised channels, and three decoded /pose messages."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as client:
        ws = await client.ws_connect(url, protocols=["foxglove.sdk.v1"])
        async with ws:
            channels: dict[str, dict[str, Any]] = {}
            while set(channels) != set(TOPICS) - {"/log"}:  # /log only with --foxglove-log
                msg = await ws.receive(timeout=WAIT)
                if msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["op"] == "advertise":
                    channels.update({c["topic"]: c for c in json.loads(msg.data)["channels"]})
            pose = channels["/pose"]
            await ws.send_json({"op": "subscribe", "subscriptions": [{"id": 7, "channelId": pose["id"]}]})
            schema = Schema(id=1, name=pose["schemaName"], encoding="protobuf", data=base64.b64decode(pose["schema"]))
            decode = DecoderFactory().decoder_for("protobuf", schema)
            assert decode is not None
            poses: list[Any] = []
            while len(poses) < 3:
                msg = await ws.receive(timeout=WAIT)
                if msg.type == aiohttp.WSMsgType.BINARY:
                    opcode, subscription = struct.unpack_from("<BI", msg.data)
                    assert (opcode, subscription) == (1, 7)
                    poses.append(decode(msg.data[13:]))
    return channels, poses


def test_run_foxglove_serves_the_channels_live_on_loopback() -> None:
    # No --realtime: with --foxglove the embedded simulator runs in real time by itself (as with --ui), so
    # the run is still going when the client has its poses (lock-step, 60 s were over in a few).
    seen: list[bytes] = []
    proc, url = _start_foxglove_run("colbert/demo.act", "--world", "room", "--duration", "60",
                                    "--foxglove", "127.0.0.1:0", seen=seen)  # fmt: skip
    try:
        assert url.startswith("ws://127.0.0.1:")
        channels, poses = asyncio.run(_foxglove_client(url))
    finally:
        proc.send_signal(signal.SIGTERM)
        output = (seen[0] + proc.communicate(timeout=WAIT)[0]).decode()
    assert proc.returncode == 143, output  # ended by the SIGTERM above, not by its 60 s of robot time
    assert "the simulator runs at 1x real time while Foxglove watches (--speed F to change)" in output
    assert {topic: c["schemaName"] for topic, c in channels.items()} == {
        t: s for t, s in SCHEMAS.items() if t != "/log"
    }
    assert all(p.frame_id == "world" for p in poses)
    assert (poses[0].pose.position.x, poses[0].pose.position.y) == pytest.approx((1.5, 4.0), abs=0.5)  # the room
    assert "warning" not in output


def test_foxglove_listens_on_loopback_by_default() -> None:
    from saphira.app.cli import build_parser

    args = build_parser().parse_args(["run", "colbert/demo.act", "--foxglove"])
    assert args.foxglove == ("127.0.0.1", 8765)
    assert build_parser().parse_args(["replay", "x.rec", "--ui"]).ui == ("127.0.0.1", 0)
