"""The life of a ``saphira run`` as a user meets it, in real subprocesses against the embedded simulator.

How long it runs (``--duration``), how it ends (SIGTERM and Ctrl-C, a reader that goes away), and
what it prints (``-q``, the status line on a terminal, the summary's poses). Every wait is on the
program's own output, never a sleep: a stop signal is sent once the activity has said it is running.
"""

from __future__ import annotations

import fcntl
import math
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from saphira.protocol.commands import Command
from saphira.record.recording import read_recording
from tests.sim_process import PROJECT

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BACK_AND_FORTH = """\
act back_and_forth
{
  move(500);
  sfSMessage("running");
  while (1) { move(-500); sfSMessage("back"); move(500); sfSMessage("there"); }
}
start back_and_forth;
"""
"""An activity that never ends on its own, and says so once it has moved."""

DEADLINE = 120.0
"""Seconds a test waits for a line before failing (a guard against a hang, not a timing)."""


@pytest.fixture
def forever(tmp_path: Path) -> Path:
    act = tmp_path / "forever.act"
    act.write_text(BACK_AND_FORTH)
    return act


def start(*args: str, **popen: object) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(PROJECT)
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "saphira", *args], cwd=PROJECT, env=env, stdin=subprocess.DEVNULL, **popen
    )


def read_until(fd: int, text: bytes) -> bytes:
    """Read ``fd`` until ``text`` has appeared; everything read so far."""
    seen = b""
    deadline = time.monotonic() + DEADLINE
    while text not in seen:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {text!r} in {seen!r}"
        if select.select([fd], [], [], remaining)[0]:
            chunk = os.read(fd, 4096)
            assert chunk, f"output ended without {text!r}: {seen!r}"
            seen += chunk
    return seen


def summary_cycles(stdout: str) -> int:
    m = re.search(r"^--- [^:]+: (\d+) cycles, ([\d.]+) s robot time", stdout, re.M)
    assert m, stdout
    assert float(m[2]) == pytest.approx(int(m[1]) * 0.1)
    return int(m[1])


def sent_commands(packets: list[bytes]) -> list[tuple[int, int]]:
    """(command, int argument) of framed client packets (0 when a command has no argument)."""
    return [(p[3], int.from_bytes(p[5:7], "little") if len(p) > 8 else 0) for p in packets]


def test_duration_runs_exactly_that_much_robot_time(forever: Path, tmp_path: Path) -> None:
    rec = tmp_path / "run.rec"
    proc = start("run", str(forever), "--duration", "2.5", "--record", str(rec))
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    assert summary_cycles(out.decode()) == 25
    recording = read_recording(rec)
    assert recording.problem == ""
    assert rec.read_text().splitlines()[-1].endswith("cycle 25")
    # Every event of the session, connecting and stopping included, falls within the 25 cycles.
    assert max([*recording.sent, *recording.received, *recording.states]) <= 24
    assert min(recording.sent) == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_the_robot_closes_the_recording_and_prints_the_summary(
    forever: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    rec = tmp_path / "run.rec"
    proc = start("run", str(forever), "--record", str(rec))
    assert proc.stdout is not None
    before = read_until(proc.stdout.fileno(), b"running\n")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=DEADLINE)
    stdout = (before + out).decode()
    assert proc.returncode == 128 + sig, err  # 143 or 130: a script tells it from a finished run
    assert "Traceback" not in err.decode()
    assert f"--- interrupted ({sig.name}):" in stdout
    assert "activity back_and_forth: still running" in stdout
    cycles = summary_cycles(stdout)
    assert cycles > 20  # the first move(500) took more than two seconds of robot time
    recording = read_recording(rec)
    assert recording.problem == ""
    assert rec.read_text().splitlines()[-1].endswith(f"cycle {cycles}")
    # The robot was stopped: velocity 0, then the connection closed, in the last cycles.
    last = sent_commands([p for c in sorted(recording.sent) if c >= cycles - 4 for p in recording.sent[c]])
    assert (Command.VEL, 0) in last
    assert last[-1][0] == Command.CLOSE
    replay = subprocess.run([sys.executable, "-m", "saphira", "replay", str(rec)], cwd=PROJECT,
                            capture_output=True, text=True, timeout=DEADLINE, check=False)  # fmt: skip
    assert replay.returncode == 0, replay.stdout
    assert int(re.search(r"replayed (\d+) cycles", replay.stdout)[1]) > 20  # type: ignore[index]


def test_piping_into_head_ends_quietly_and_stops_the_robot(forever: Path, tmp_path: Path) -> None:
    rec = tmp_path / "run.rec"
    proc = start("run", str(forever), "--record", str(rec))
    assert proc.stdout is not None and proc.stderr is not None
    read_until(proc.stdout.fileno(), b"running\n")
    proc.stdout.close()  # what `head -2` does once it has its lines
    proc.wait(timeout=DEADLINE)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.returncode == 128 + signal.SIGPIPE, err  # 141: as a shell reports a program a closed pipe ended
    assert err == ""
    recording = read_recording(rec)
    assert recording.problem == ""
    last = sent_commands(recording.sent[max(recording.sent)])
    assert last[-1][0] == Command.CLOSE


def test_a_closed_stdout_is_not_an_error(forever: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write fails with EPIPE, from the first one
    try:
        listing = start("params", stdout=write_end)
        run = start("run", str(forever), stdout=write_end)
    finally:
        os.close(write_end)
    _, listing_err = listing.communicate(timeout=DEADLINE)
    _, run_err = run.communicate(timeout=DEADLINE)
    assert (listing.returncode, listing_err) == (128 + signal.SIGPIPE, b"")
    assert (run.returncode, run_err) == (128 + signal.SIGPIPE, b"")  # the run stopped, rather than running forever


def test_quiet_prints_no_connection_line_and_no_summary(tmp_path: Path) -> None:
    ok = tmp_path / "ok.act"
    ok.write_text('act ok { move(10); sfSMessage("moved"); }\nstart ok;\n')
    proc = start("run", str(ok), "--world", "room", "-q")
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0 and err == b""
    assert out.decode() == "moved\n"  # what the activity prints is the program's output: kept
    fails = tmp_path / "fails.act"
    fails.write_text("act f { fail; }\nstart f;\n")
    proc = start("run", str(fails), "--world", "room", "-q")
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 1
    assert out.decode().strip() == "activity f: FAILURE"  # the error, and nothing else


def run_on_a_terminal(act: Path, columns: int) -> str:
    """Run ``act`` for 3 s with stdout on a pseudo-terminal ``columns`` wide; what it displayed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = start("run", str(act), "--duration", "3", stdout=slave)
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + DEADLINE
    while select.select([master], [], [], max(deadline - time.monotonic(), 0))[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the program closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    _, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    return shown.decode()


def test_the_status_line_fits_the_terminal_and_is_absent_from_a_pipe(forever: Path) -> None:
    narrow = run_on_a_terminal(forever, 60)
    frames = [f.replace("\x1b[K", "") for f in re.split(r"[\r\n]", narrow)]
    status = [f for f in frames if f.startswith("cycle ")]
    assert len(status) > 3, narrow
    assert max(len(f) for f in status) <= 59
    wide = run_on_a_terminal(forever, 200)
    assert any("SPac" in f and "back_and_forth" in f for f in wide.split("\r")), wide
    # The link rates say their units: SIPs per second, and sonar readings (not packets) per second.
    rates = re.findall(r"MPac +(\d+) SIPs/s  SPac +(\d+) sonar/s", wide)
    assert rates, wide
    assert max(int(s) for _, s in rates) > max(int(m) for m, _ in rates) >= 9  # readings outnumber SIPs
    proc = start("run", str(forever), "--duration", "3")
    out, _ = proc.communicate(timeout=DEADLINE)
    assert b"\r" not in out and b"\x1b[" not in out and b"cycle " not in out.split(b"---")[0]


def test_the_summary_says_the_pose_is_odometry_and_gives_the_simulators_true_pose() -> None:
    proc = start("run", "colbert/direct.act", "--world", "room")
    out, err = proc.communicate(timeout=DEADLINE)
    stdout = out.decode()
    assert proc.returncode == 0, err
    odometry = re.search(r"final pose \((-?\d+), (-?\d+), (-?[\d.]+)\) by odometry", stdout)
    truth = re.search(r"true pose \(simulator\): \((-?\d+), (-?\d+), (-?[\d.]+)\)", stdout)
    assert odometry and truth, stdout
    # The square ends where it began, (1500, 4000) in the room; odometry has drifted a little from it.
    assert math.dist((float(truth[1]), float(truth[2])), (1500, 4000)) < 150
    assert math.dist((float(truth[1]), float(truth[2])), (float(odometry[1]), float(odometry[2]))) < 200
