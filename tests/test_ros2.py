"""saphira on the ROS 2 graph (docs/ros2.md): a peer that knows nothing of saphira sees and drives it.

The two-process test runs ``saphira run --ros2`` and ``tests/ros2_peer.py`` (plain Cyclone DDS with
ROS 2's names, types and QoS) in a domain of their own, discovery on loopback only, so parallel tests
never meet. It runs in real time (a ROS 2 graph does): about 10 s, the cost of one real conversation.
The rest is in-process and lock-step: the messages against an independent ROS 2 type store (rosbags'),
the ``/cmd_vel`` limits and watchdog on the robot's own cycle.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, TEST_DATA
from tests.test_cli import saphira_in_process

pytest.importorskip("cyclonedds", reason="the ros2 extra: pip install 'saphira[ros2]'")

LASER_P3DX = TEST_DATA / "laser-params" / "p3dx-laser.p"
DEADLINE = 240.0
"""Seconds the peer may take in all (its own waits end as soon as what they wait for is seen)."""


def isolated_env() -> dict[str, str]:
    """A domain of its own (random: parallel runs do not cross) reached on loopback only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROS_", "CYCLONEDDS"))}
    env.update(ROS_DOMAIN_ID=str(random.randrange(1, 200)), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST",
               PYTHONPATH=str(PROJECT_ROOT))  # fmt: skip
    return env


def test_a_plain_dds_peer_sees_odom_and_scan_and_drives_with_cmd_vel(tmp_path: Path) -> None:
    idle = tmp_path / "idle.act"
    idle.write_text("/* nothing runs: the ROS 2 graph drives */\n")
    env = isolated_env()
    robot = subprocess.Popen(
        [sys.executable, "-m", "saphira", "run", str(idle), "--ros2", "--params", str(LASER_P3DX),
         "--duration", "600"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        peer = subprocess.run([sys.executable, str(PROJECT_ROOT / "tests" / "ros2_peer.py")], env=env,
                              capture_output=True, text=True, timeout=DEADLINE, check=False)  # fmt: skip
    finally:
        robot.send_signal(signal.SIGTERM)
        out, err = robot.communicate(timeout=DEADLINE)
    assert peer.returncode == 0, (peer.stdout, peer.stderr, out, err)
    seen = json.loads(peer.stdout.splitlines()[-1])
    assert seen["odom_frames"] == ["odom", "base_link"]
    scan = seen["scan"]
    assert scan["frame"] == "laser" and scan["count"] == 181 and scan["finite"] > 0
    assert scan["angle_min"] == pytest.approx(-math.pi / 2, abs=1e-4)
    assert scan["angle_max"] == pytest.approx(math.pi / 2, abs=1e-4)
    assert seen["moved"] >= 0.3  # /cmd_vel drove it
    assert 0 < seen["max_speed"] <= 2.2 + 1e-6  # asked for 5 m/s: clamped to the P3-DX's MaxVelocity
    assert seen["moved_on_nan"] < 0.005  # stopped by the watchdog, and a NaN command did not move it
    assert seen["placed"][:2] == pytest.approx([2.0, 3.0], abs=0.05)
    assert robot.returncode == 128 + signal.SIGTERM, err
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
