"""Recording every packet of a session and replaying it, cycle for cycle, with no robot attached."""

from __future__ import annotations

import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from saphira.app.cli import main
from saphira.client.transport import memory_pair
from saphira.core.clock import LockStepClock
from saphira.core.errors import SaphiraError, SourceError
from saphira.record.playback import Playback
from saphira.record.recording import Recorder, read_recording, replay
from saphira.robot import Robot
from tests.scripted_server import ScriptedServer
from tests.sim_process import PROJECT


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


def replay_command(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "saphira", "replay", str(path)], cwd=PROJECT,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def test_a_closed_recording_ends_with_its_end_line(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines()
    events = sum(1 for line in lines if not line.startswith("#"))
    assert lines[0] == "# saphira recording 4"
    assert re.fullmatch(rf"# end {events} events, cycle \d+", lines[-1])
    assert read_recording(path).problem == ""


def test_an_empty_recording_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.rec"
    path.write_bytes(b"")
    with pytest.raises(SaphiraError, match="empty recording"):
        read_recording(path)
    result = replay_command(path)
    assert result.returncode == 2
    assert result.stderr == f"saphira replay: {path}: empty recording (0 bytes)\n"


def test_a_recording_cut_mid_line_replays_what_is_complete_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    data = path.read_bytes()
    lines = data.split(b"\n")
    cut_line = next(i for i, line in enumerate(lines) if line[:1] != b"#" and i > len(lines) // 2)
    offset = sum(len(line) + 1 for line in lines[:cut_line])
    path.write_bytes(data[: offset + 9])  # nine bytes into that line
    last_complete_cycle = int(lines[cut_line - 1].split()[0])
    rec = read_recording(path)
    assert f"cut mid-line at line {cut_line + 1} (byte offset {offset})" in rec.problem
    assert rec.last_cycle == last_complete_cycle
    report = replay(path)
    assert report.matches and report.compared == len(rec.states) > 20
    result = replay_command(path)
    assert result.returncode == 1
    assert re.search(r"compared \d+ reflector states; 0 differ", result.stdout)
    assert f"recording ended early: cut mid-line at line {cut_line + 1} (byte offset {offset})" in result.stdout


def test_a_recording_without_its_end_line_ended_early(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines(keepends=True)
    kept = lines[: len(lines) * 2 // 3]
    path.write_text("".join(kept))
    last_cycle = int(kept[-1].split()[0])
    problem = read_recording(path).problem
    assert problem == (f"no end line: it stops at line {len(kept)} (byte offset {len(''.join(kept))}), "
                       f"after cycle {last_cycle}")  # fmt: skip
    result = replay_command(path)
    assert result.returncode == 1 and f"recording ended early: {problem}" in result.stdout


def test_a_recording_missing_events_before_its_end_line_ended_early(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines(keepends=True)
    del lines[len(lines) // 2 : len(lines) // 2 + 5]
    path.write_text("".join(lines))
    assert re.fullmatch(r"(\d+) events where its end line counts (\d+) \(cycle \d+\)", read_recording(path).problem)


def test_a_version_1_recording_has_no_end_line_to_check(tmp_path: Path) -> None:
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines(keepends=True)
    old = [line for line in lines[1:-1] if not re.match(r"\d+ [bpamt] ", line)]  # version 3's and 4's lines
    path.write_text("# saphira recording 1\n" + "".join(old))
    assert read_recording(path).problem == ""
    assert replay(path).matches


def test_a_recording_is_on_disk_at_the_end_of_every_cycle(tmp_path: Path) -> None:
    """A run killed outright (SIGKILL, power) leaves every cycle before the one it was in."""
    path = tmp_path / "live.rec"
    robot = Robot(LockStepClock())
    client, server_end = memory_pair()
    server = ScriptedServer(server_end)
    robot.clock.add_listener(server.tick)  # type: ignore[attr-defined]
    recorder = Recorder(robot, path)
    robot.connect(client)
    robot.run(cycles=30)
    rec = read_recording(path)  # read while the recorder still has the file open
    assert rec.last_cycle == robot.scheduler.cycle - 1
    assert rec.problem.startswith("no end line")
    recorder.close()
    assert read_recording(path).problem == ""


def test_a_line_out_of_cycle_order_is_refused_where_it_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay plays each cycle as soon as the next one's first line is read: a line stamped earlier is an error."""
    path = tmp_path / "session.rec"
    record_session(path)
    lines = path.read_text().splitlines(keepends=True)
    first_of_20 = next(i for i, line in enumerate(lines) if line.startswith("20 "))
    first_of_21 = next(i for i, line in enumerate(lines) if line.startswith("21 "))
    lines.insert(first_of_20, lines.pop(first_of_21))  # the line of cycle 21 now comes before those of 20
    path.write_text("".join(lines))
    where = f"session.rec:{first_of_20 + 2}:1: cycle 20 after a line of cycle 21"  # the line after it
    with pytest.raises(SourceError, match=where + ": the lines of a recording are in the order of their cycles"):
        read_recording(path)
    assert main(["replay", str(path)]) == 2  # nothing replayed: the checking pass comes first
    out, err = capsys.readouterr()
    assert where in err and not out


def test_a_file_that_is_not_a_recording_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.rec"
    path.write_text("shopping list\n")
    with pytest.raises(SourceError, match=r"notes.rec:1: not a saphira recording"):
        read_recording(path)
    path.write_text("# saphira recording 5\n")
    with pytest.raises(SourceError, match=r"notes.rec:1: recording version 5 is newer"):
        read_recording(path)


def test_a_binary_file_is_refused_without_echoing_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "noise.rec"
    path.write_bytes(b"# saph\x1b[2J\x9c\nmore\n")
    with pytest.raises(SourceError, match=r"noise.rec:1:7: not a saphira recording: byte 0x1b is not text") as err:
        read_recording(path)
    assert "\x1b" not in err.value.pretty()


def record_chatty_session(path: Path, cycles: int) -> None:
    """A session whose activity says sixteen long messages every cycle: some 32 KB of recording a cycle."""
    robot = Robot(LockStepClock())
    client, server_end = memory_pair()
    server = ScriptedServer(server_end)
    recorder = Recorder(robot, path)
    say = recorder.tap.tee(lambda text: None)  # what sfMessage does: recorded as an ``m`` line

    def tick() -> None:
        server.x += 7
        server.tick()
        for k in range(16):
            say(f"{robot.scheduler.cycle}.{k} " + "x" * 1990)

    robot.clock.add_listener(tick)  # type: ignore[attr-defined]
    robot.connect(client)
    robot.motion.set_velocity(120)
    robot.run(cycles=cycles)
    recorder.close()


@pytest.mark.parametrize("how", ["replay", "playback"])
def test_replaying_a_recording_four_times_longer_takes_no_more_memory(tmp_path: Path, how: str) -> None:
    """A replay (and the playback behind --plot, --ui and export) reads the recording as it plays it."""
    short, long = tmp_path / "short.rec", tmp_path / "long.rec"
    record_chatty_session(short, 40)
    record_chatty_session(long, 160)

    def play(path: Path) -> int:
        if how == "replay":
            report = replay(path)
            assert report.matches, report.mismatches[:3]
            return report.cycles
        playback = Playback.open(path)
        while not playback.done:
            playback.step()
        assert len(playback.messages) == 16  # the last cycle's, as recorded
        return playback.cycles

    play(short)  # the first robot of the process builds what every later one shares
    peaks, cycles = [], []
    for path in (short, long):
        tracemalloc.start()
        cycles.append(play(path))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    added = long.stat().st_size - short.stat().st_size
    assert cycles[1] > 3 * cycles[0] and added > 3_000_000
    assert peaks[1] - peaks[0] < added / 4, (peaks, added)  # holding the recording would cost more than added
