"""Recording every packet of a session and replaying it, cycle for cycle, with no robot attached."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.clock import LockStepClock
from saphira.errors import SourceError
from saphira.recording import Recorder, read_recording, replay
from saphira.robot import Robot
from saphira.transport import memory_pair
from tests.scripted_server import ScriptedServer


def record_session(path: Path) -> int:
    robot = Robot(LockStepClock())
    client, server_end = memory_pair()
    server = ScriptedServer(server_end)

    def tick() -> None:
        server.x += 7  # the robot creeps along x, so states change every cycle
        server.tick()

    robot.clock.add_listener(tick)  # type: ignore[attr-defined]
    recorder = Recorder(robot, path)
    robot.run(cycles=3)
    robot.connect(client)
    robot.motion.set_velocity(120)
    robot.run(seconds=5.0)
    robot.disconnect()
    robot.run(cycles=2)
    recorder.close()
    return recorder.packets


def test_record_then_replay_matches_cycle_for_cycle(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    packets = record_session(path)
    rec = read_recording(path)
    assert packets > 50
    assert len(rec.states) >= 50
    assert any(p[3:4] == b"\x0b" for ps in rec.sent.values() for p in ps)  # the VEL command is in it
    report = replay(path)
    assert report.matches, report.mismatches[:3]
    assert report.compared == len(rec.states)


def test_replay_detects_a_state_that_differs(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if " = " in line and i > len(lines) // 2)
    cycle, _, rest = lines[i].split(" ", 2)
    values = rest.split()
    values[0] = f"{float(values[0]) + 5:.1f}"
    lines[i] = f"{cycle} = {' '.join(values)}"
    path.write_text("\n".join(lines) + "\n")
    report = replay(path)
    assert not report.matches
    assert [m[0] for m in report.mismatches] == [int(cycle)]


def test_malformed_recording_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.rec"
    path.write_text("# saphira recording 1\n3 < FAFB03\n4 ? zz\n")
    with pytest.raises(SourceError, match=r"bad.rec:3: malformed recording line"):
        read_recording(path)
