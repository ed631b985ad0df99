"""saphira on the ROS 2 graph (docs/ros2.md): a peer that knows nothing of saphira sees and drives it.

The two-process check (:func:`drive_with_a_plain_peer`) runs README.md's ``saphira run ... --ros2``
command (tests/test_readme.py calls it) and ``tests/ros2_peer.py`` (plain Cyclone DDS with ROS 2's
names, types and QoS) in a domain of their own, discovery on loopback only, so parallel tests never
meet. It runs in real time (a ROS 2 graph does): 10-20 s, the cost of one real conversation.
The rest is in-process and lock-step: the messages against an independent ROS 2 type store (rosbags'),
the ``/cmd_vel`` limits and watchdog on the robot's own cycle.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import cyclonedds  # noqa: F401 (the test extra brings it: missing, these tests fail rather than skip)
import pytest

from tests.conftest import PROJECT_ROOT, TEST_DATA
from tests.test_cli import saphira_in_process

LASER_P3DX = TEST_DATA / "laser-params" / "p3dx-laser.p"
DEADLINE = 240.0
"""Seconds the peer may take in all (its own waits end as soon as what they wait for is seen)."""


def isolated_env() -> dict[str, str]:
    """A domain of its own (random: parallel runs do not cross) reached on loopback only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROS_", "CYCLONEDDS"))}
    env.update(ROS_DOMAIN_ID=str(random.randrange(1, 200)), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST",
               PYTHONPATH=str(PROJECT_ROOT))  # fmt: skip
    return env


def drive_with_a_plain_peer(args: list[str], cwd: Path) -> None:
    """``saphira ARGS`` (a ``run --ros2`` with a laser) seen and driven by ``tests/ros2_peer.py``, then stopped
    with SIGTERM: what README.md's ``--ros2`` command is checked with (tests/test_readme.py)."""
    env = isolated_env()
    robot = subprocess.Popen([sys.executable, "-m", "saphira", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        peer = subprocess.run([sys.executable, str(PROJECT_ROOT / "tests" / "ros2_peer.py")], env=env,
                              capture_output=True, text=True, timeout=DEADLINE, check=False)  # fmt: skip
    finally:
        robot.send_signal(signal.SIGTERM)
        out, err = robot.communicate(timeout=DEADLINE)
    assert peer.returncode == 0, (peer.stdout, peer.stderr, out, err)
    seen = json.loads(peer.stdout.splitlines()[-1])
    assert seen["odom_frames"] == ["odom", "base_link"]
    node = seen["node"]  # what `ros2 node list` shows: /saphira, its endpoints' gids those DDS discovery found
    assert (node["namespace"], node["name"]) == ("/", "saphira")
    assert node["gids"] == {"writers": 11, "readers": 3}  # every topic it publishes and subscribes, no other
    assert node["writers"] == sorted("rt" + t for t in ("/odom", "/tf", "/tf_static", "/scan", "/sonar", "/map",
        "/battery_state", "/bumper_state", "/motors_state", "/behaviors", "/clock"))  # fmt: skip
    assert node["readers"] == ["rt/cmd_vel", "rt/enable_motors", "rt/initialpose"]
    scan = seen["scan"]
    assert scan["frame"] == "laser" and scan["count"] == 181 and scan["finite"] > 0
    assert scan["angle_min"] == pytest.approx(-math.pi / 2, abs=1e-4)
    assert scan["angle_max"] == pytest.approx(math.pi / 2, abs=1e-4)
    assert seen["moved"] >= 0.2  # /cmd_vel drove it
    assert 0 < seen["max_speed"] <= 2.2 + 1e-6  # asked for 5 m/s: clamped to the P3-DX's MaxVelocity
    assert seen["moved_on_nan"] < 0.005  # stopped by the watchdog, and a NaN command did not move it
    assert seen["placed"][:2] == pytest.approx([2.0, 3.0], abs=0.05)
    assert seen["motors_disabled"]  # /enable_motors false, and /motors_state said so
    assert robot.returncode == 128 + signal.SIGTERM, err
    assert "--- interrupted (SIGTERM)" in out
    m = re.search(r"ros2: (\d+) messages published, \d+ snapshots dropped; cmd_vel (\d+) accepted \((\d+) clamped\), "
                  r"(\d+) refused, (\d+) watchdog stops", out)  # fmt: skip
    assert m, out
    published, accepted, clamped, refused, stops = map(int, m.groups())
    assert published > 0 and accepted > 0 and clamped == accepted and refused > 0 and stops >= 1


def test_ros2_without_cyclonedds_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    act = tmp_path / "idle.act"
    act.write_text("")
    monkeypatch.setitem(sys.modules, "cyclonedds", None)  # as if the extra were not installed
    result = saphira_in_process("run", str(act), "--ros2")
    assert result.returncode == 2
    assert "pip install 'saphira[ros2]'" in result.stderr


def test_a_bad_domain_is_refused_before_anything_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    act = tmp_path / "idle.act"
    act.write_text("")
    monkeypatch.setenv("ROS_DOMAIN_ID", "robot")
    result = saphira_in_process("run", str(act), "--ros2")
    assert result.returncode == 2 and "ROS_DOMAIN_ID" in result.stderr and "'robot'" in result.stderr
    monkeypatch.delenv("ROS_DOMAIN_ID")
    result = saphira_in_process("run", str(act), "--ros2", "--ros2-domain", "300")
    assert result.returncode == 2 and "300" in result.stderr


BUMPER_STATE_MSG = "std_msgs/Header header\nbool[] front_bumpers\nbool[] rear_bumpers\n"
"""RosAria's rosaria/BumperState, as its .msg file declares it (not in rosbags' store of ROS 2's types)."""


def read_bag(path: Path) -> dict[str, list[object]]:
    """Every message of a ROS 2 MCAP bag decoded twice, independently: by mcap-ros2-support from the
    bag's own ros2msg schemas, and by rosbags from its store of ROS 2 Humble's message definitions."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.ROS2_HUMBLE)
    store.register(get_types_from_msg(BUMPER_STATE_MSG, "rosaria/msg/BumperState"))
    topics: dict[str, list[object]] = {}
    with path.open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        assert reader.get_header().profile == "ros2"
        for schema, channel, message, decoded in reader.iter_decoded_messages():
            assert schema is not None and (schema.encoding, channel.message_encoding) == ("ros2msg", "cdr")
            store.deserialize_cdr(message.data, schema.name)  # raises if the bytes do not fit ROS 2's layout
            topics.setdefault(channel.topic, []).append(decoded)
    return topics


def test_export_ros2_writes_a_bag_every_ros2_reader_decodes(tmp_path: Path) -> None:
    idle = tmp_path / "idle.act"
    idle.write_text("")
    rec, bag = tmp_path / "run.rec", tmp_path / "run.mcap"
    ran = saphira_in_process("run", str(idle), "--params", "p3dx-laser", "--duration", "6", "--record", str(rec))
    assert ran.returncode == 0, ran.stderr
    bag.write_bytes(b"kept")
    (tmp_path / "not-a-recording.rec").write_text("nonsense\n")
    failed = saphira_in_process("export", str(tmp_path / "not-a-recording.rec"), "-o", str(bag), "--ros2")
    assert failed.returncode == 2 and bag.read_bytes() == b"kept"  # a failed export leaves what was there
    done = saphira_in_process("export", str(rec), "-o", str(bag), "--ros2")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idle.act", "not-a-recording.rec", "run.mcap", "run.rec"]
    topics = read_bag(bag)
    for name in ("/odom", "/tf", "/tf_static", "/scan", "/sonar", "/map", "/battery_state", "/bumper_state",
                 "/motors_state", "/behaviors"):  # fmt: skip
        assert topics.get(name), f"{name} missing: {sorted(topics)}"
    odom = topics["/odom"][-1]
    assert (odom.header.frame_id, odom.child_frame_id) == ("odom", "base_link")  # type: ignore[attr-defined]
    frames = {(t.header.frame_id, t.child_frame_id) for m in topics["/tf"] for t in m.transforms}  # type: ignore[attr-defined]
    assert frames == {("odom", "base_link"), ("map", "odom")}  # a simulated run stands on its world's map
    static = {t.child_frame_id for t in topics["/tf_static"][-1].transforms}  # type: ignore[attr-defined]
    assert {"laser", "sonar", "sonar_0", "sonar_15"} <= static
    grid = topics["/map"][0]
    assert grid.info.width * grid.info.height == len(grid.data) and 100 in grid.data  # type: ignore[attr-defined]
    cloud = topics["/sonar"][-1]
    assert cloud.point_step == 12 and len(cloud.data) == 12 * cloud.width > 0  # type: ignore[attr-defined]
    assert len(topics["/bumper_state"][0].front_bumpers) == 5  # type: ignore[attr-defined]


def test_run_record_mcap_with_ros2_is_a_ros2_bag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    idle = tmp_path / "idle.act"
    idle.write_text("")
    bag = tmp_path / "live.mcap"
    for name, value in isolated_env().items():
        monkeypatch.setenv(name, value)
    done = saphira_in_process("run", str(idle), "--ros2", "--speed", "20", "--duration", "3", "--record", str(bag))
    assert done.returncode == 0, done.stderr
    topics = read_bag(bag)
    assert len(topics["/odom"]) >= 20 and topics["/tf_static"] and topics["/map"]


def test_cmd_vel_is_clamped_refused_and_stopped_by_the_watchdog() -> None:
    """Lock-step, in-process: the robot's own cycle, a wall clock the test advances 0.1 s a cycle."""
    from saphira.robot import Robot
    from saphira.ros2.drive import WATCHDOG, Drive
    from saphira.sim.embedded import attach_simulator

    robot = Robot()
    attach_simulator(robot, "corridor", str(LASER_P3DX))
    drive, wall = Drive(robot), 0.0

    def cycle(*offer: float) -> None:
        nonlocal wall
        wall += 0.1
        if offer:
            drive.offer(*offer, now=wall)
        drive.step(wall)
        robot.step()

    for _ in range(10):
        cycle(5.0, 10.0)  # 5 m/s, 10 rad/s: beyond a P3-DX
    limits = robot.params
    assert (drive.command.speed, drive.command.turn_rate) == (limits.max_velocity, limits.max_rvelocity)
    assert drive.clamped == drive.accepted == 10 and robot.state.vel > 100
    cycle(math.nan, 0.0)
    assert drive.refused == 1 and drive.command.speed == limits.max_velocity  # refused: never passed on
    last = wall - 0.1
    while wall - last <= WATCHDOG:
        assert drive.task is not None and drive.task.active
        cycle()
    assert drive.task is None and drive.stops == 1 and "cmd_vel" not in robot.scheduler
    assert robot.run_until(lambda: robot.state.vel == 0 and robot.state.rvel == 0, max_cycles=60)
    cycle(0.2, 0.0)
    assert drive.task is not None and drive.task.active and drive.command.speed == pytest.approx(200.0)


def test_the_fast_cdr_is_cyclone_dds_own_byte_for_byte() -> None:
    """Every message a lock-step run makes (laser, sonar, map, status...), encoded by saphira.ros2.cdr and by
    Cyclone DDS's serializer (what DataWriter.write would send): the same bytes."""
    from saphira.app.ros2 import frame_source
    from saphira.params.robot_params import find_params_file, load_params
    from saphira.robot import Robot
    from saphira.ros2.cdr import encode
    from saphira.ros2.frames import messages
    from saphira.sim.embedded import attach_simulator

    params = load_params(find_params_file("p3dx-laser"))
    robot = Robot(params=params)
    sim = attach_simulator(robot, "corridor", params, seed=1)
    source = frame_source(robot, lambda: sim)
    robot.motion.set_velocity(300)
    robot.motion.set_rvelocity(10)
    topics = set()
    for _ in range(25):
        robot.step()
        for topic, message in messages(source.take(), 1.7e9):
            theirs = message.serialize()
            assert encode(message) == theirs.ljust((len(theirs) + 3) & ~3, b"\0"), topic
            topics.add(topic)
    assert topics >= {"/odom", "/tf", "/tf_static", "/scan", "/sonar", "/map", "/battery_state", "/bumper_state",
                      "/motors_state", "/behaviors", "/clock"}  # fmt: skip


@pytest.mark.parametrize(
    ("env", "reach", "fragment"),
    [
        ({}, "SUBNET", ""),
        ({"ROS_LOCALHOST_ONLY": "1"}, "LOCALHOST", '<NetworkInterface address="127.0.0.1"/>'),
        ({"ROS_AUTOMATIC_DISCOVERY_RANGE": "localhost"}, "LOCALHOST", "<AllowMulticast>false</AllowMulticast>"),
        ({"ROS_AUTOMATIC_DISCOVERY_RANGE": "OFF"}, "OFF", "<AllowMulticast>false</AllowMulticast>"),
        ({"ROS_STATIC_PEERS": "10.0.0.2; robot.lan"}, "SUBNET",
         '<Peer address="10.0.0.2"/><Peer address="robot.lan"/>'),
        ({"ROS_AUTOMATIC_DISCOVERY_RANGE": "SYSTEM_DEFAULT", "CYCLONEDDS_URI": "file:///etc/dds.xml"}, "SYSTEM_DEFAULT",
         "file:///etc/dds.xml"),
    ],
)  # fmt: skip
def test_discovery_is_read_as_ros2_reads_it(env: dict[str, str], reach: str, fragment: str) -> None:
    from saphira.ros2.discovery import discovery_from

    found = discovery_from({"ROS_DOMAIN_ID": "17", **env})
    assert (found.domain, found.range.value) == (17, reach)
    config = found.config()
    assert fragment in config
    assert (found.warning() is None) == (reach in ("LOCALHOST", "OFF"))  # beyond this host: who can drive is said
    if reach in ("SUBNET", "SYSTEM_DEFAULT") and "ROS_STATIC_PEERS" not in env:
        assert "<CycloneDDS>" not in config  # Cyclone's defaults (and the user's file), as rmw_cyclonedds does


def test_shell_joins_the_graph_and_leaves_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in isolated_env().items():
        monkeypatch.setenv(name, value)
    result = saphira_in_process("shell", "--ros2", stdin="1 + 1\nexit\n")
    assert result.returncode == 0, result.stderr
    assert "ros2: on the ROS 2 graph (domain" in result.stdout and "2 (int)" in result.stdout


def test_without_a_map_the_sonar_evidence_grid_is_the_map() -> None:
    """A robot with no map (the simulator's world unknown to the run) that keeps an evidence grid publishes it:
    percent occupied where readings reached, -1 elsewhere; decoded by rosbags as nav_msgs/OccupancyGrid."""
    from rosbags.typesys import Stores, get_typestore

    from saphira.app.ros2 import frame_source
    from saphira.perception.occupancy import start_occupancy_grid
    from saphira.robot import Robot
    from saphira.ros2 import messages as m
    from saphira.ros2.cdr import encode
    from saphira.ros2.frames import messages
    from saphira.sim.embedded import attach_simulator

    robot = Robot()
    attach_simulator(robot, "corridor")
    source = frame_source(robot, lambda: None)  # as on a robot: no world to draw
    start_occupancy_grid(robot.reflector, robot.scheduler)
    robot.motion.set_velocity(300)
    grids = []
    for _ in range(101):
        robot.step()
        grids += [message for topic, message in messages(source.take()) if topic == "/map"]
    assert 2 <= len(grids) <= 3  # looked at on the first snapshot and every 50 cycles, sent when it changed
    store = get_typestore(Stores.ROS2_HUMBLE)
    grid = store.deserialize_cdr(encode(grids[-1])[: len(grids[-1].serialize())], m.ros_name(m.OccupancyGrid))
    cells = set(grid.data.tolist())
    assert -1 in cells and cells - {-1} and all(-1 <= c <= 100 for c in cells)
    assert grid.info.resolution == pytest.approx(0.1) and grid.header.frame_id == "map"


def test_a_graph_it_cannot_join_ends_the_run_before_the_robot_is_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    act = tmp_path / "idle.act"
    act.write_text("")
    for name, value in isolated_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CYCLONEDDS_URI", "<CycloneDDS><Domain><Nonsense/></Domain></CycloneDDS>")
    # a robot nobody answers for: had the robot been reached first, the error would be the connection's
    result = saphira_in_process("run", str(act), "--ros2", "--robot", "tcp://127.0.0.1:9", "--link-timeout", "1")
    assert result.returncode == 2
    assert "cannot join the ROS 2 graph" in result.stderr and "connecting to" not in result.stdout


@pytest.mark.parametrize(("distro", "store", "size"), [("", "ROS2_JAZZY", 16), ("jazzy", "ROS2_JAZZY", 16),
                                                       ("humble", "ROS2_HUMBLE", 24)])  # fmt: skip
def test_ros_discovery_info_takes_the_layout_of_the_distribution(distro: str, store: str, size: int) -> None:
    """What the node writes on ros_discovery_info, decoded by rosbags' store of that distribution's
    rmw_dds_common (Jazzy's gids are 16 bytes, Humble's 24: the DDS GUID, then zeros)."""
    from rosbags.typesys import Stores, get_typestore

    from saphira.ros2.discovery import discovery_from
    from saphira.ros2.graph import entities_info

    found = discovery_from({"ROS_DISTRO": distro} if distro else {})
    assert found.gid_size == size
    participant, reader, writers = bytes(range(16)), bytes(range(16, 32)), [bytes(range(32, 48)), bytes(16)]
    info = entities_info(participant, [reader], writers, found.gid_size)
    decoded = get_typestore(getattr(Stores, store)).deserialize_cdr(
        info.serialize(), "rmw_dds_common/msg/ParticipantEntitiesInfo"
    )
    assert bytes(decoded.gid.data) == participant + bytes(size - 16)
    (node,) = decoded.node_entities_info_seq
    assert (node.node_namespace, node.node_name) == ("/", "saphira")
    assert [bytes(g.data) for g in node.reader_gid_seq] == [reader + bytes(size - 16)]
    assert [bytes(g.data) for g in node.writer_gid_seq] == [w + bytes(size - 16) for w in writers]


def test_a_dds_process_that_dies_stops_the_robot_and_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lock-step, in-process: the bridge's DDS process killed while /cmd_vel drives; the next cycles see it
    gone, the robot is stopped at once (no command can come any more) and the failure is kept for the summary."""
    from saphira.app.ros2 import start_ros2
    from saphira.params.robot_params import find_params_file, load_params
    from saphira.robot import Robot
    from saphira.sim.embedded import attach_simulator

    for name, value in isolated_env().items():
        monkeypatch.setenv(name, value)
    params = load_params(find_params_file("p3dx-laser"))
    robot = Robot(params=params)
    sim = attach_simulator(robot, "corridor", params, seed=1)
    args = argparse.Namespace(ros2=True, ros2_domain=None)
    bridge = start_ros2(robot, args, lambda: sim, lambda line: None)
    try:
        bridge.drive.offer(0.3, 0.0)  # as a /cmd_vel would
        assert robot.run_until(lambda: robot.state.vel > 100, max_cycles=100)
        os.kill(bridge.dds_pid, signal.SIGKILL)
        # the pipe's end shows within a few cycles of the kill; generous for a loaded machine, fast when it comes
        assert robot.run_until(lambda: bridge.failure is not None, max_cycles=1_000_000)
        assert "ros2: the DDS process stopped" in bridge.failure
        assert bridge.drive.task is None and bridge.drive.stops == 1 and "cmd_vel" not in robot.scheduler
        assert robot.run_until(lambda: robot.state.vel == 0, max_cycles=60)
        robot.run(cycles=5)  # the run goes on without the graph
    finally:
        bridge.close()
        robot.disconnect()
