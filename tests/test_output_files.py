"""A user's files survive a run that fails (issue 32, item 1).

Every output file is written beside its name and moved into place (``saphira/core/outfile.py``): a run
that never starts leaves an existing recording byte for byte, a signalled run leaves a whole one, and
no temporary is left behind. Through the CLI (``saphira.app.cli.main`` in this process where nothing
runs for long, a ``saphira run`` subprocess for the signal), on real files.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mcap.reader import make_reader

from saphira.record.recording import read_recording
from tests.sim_process import PROJECT
from tests.test_cli import saphira_in_process
from tests.test_run_lifecycle import DEADLINE, read_until

DEMO = str(PROJECT / "colbert" / "demo.act")
DRIVE = "act drive() { move(2000); }\nstart drive();\n"


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A real recording of each kind (.rec, .mcap) of 2 s of driving: what the user keeps."""
    folder = tmp_path_factory.mktemp("kept")
    act = folder / "drive.act"
    act.write_text(DRIVE)
    out: dict[str, bytes] = {}
    for suffix in (".rec", ".mcap"):
        path = folder / f"demo{suffix}"
        result = saphira_in_process("run", str(act), "--duration", "2", "--record", str(path), "-q")
        assert result.returncode == 0, result.stdout + result.stderr
        out[suffix] = path.read_bytes()
    assert read_recording(folder / "demo.rec").events > 20
    return out


def refused_url() -> str:
    """A loopback port nothing listens on (bound, then closed): connecting to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def leftovers(folder: Path) -> list[str]:
    """Temporaries an output file left beside it (``.NAME.XXXXXXXX.tmp.EXT``)."""
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


@pytest.mark.parametrize("suffix", [".rec", ".mcap"])
def test_a_run_that_never_starts_leaves_the_recording_byte_for_byte(
    tmp_path: Path, kept: dict[str, bytes], suffix: str
) -> None:
    syntax = tmp_path / "syn.act"
    syntax.write_text("act go()\n{\n  move(100\n}\nstart go();\n")
    keep = tmp_path / f"keep{suffix}"
    cases = {
        "a syntax error": (str(syntax),),
        "a misspelled file": (str(tmp_path / "demo.atc"),),
        "a refused connection": (DEMO, "--robot", refused_url()),
    }
    for case, args in cases.items():
        keep.write_bytes(kept[suffix])
        result = saphira_in_process("run", *args, "--record", str(keep))
        assert result.returncode == 2, f"{case}: {result.stdout}{result.stderr}"
        assert keep.read_bytes() == kept[suffix], f"{case}: {keep.name} is now {keep.stat().st_size} bytes"
        assert leftovers(tmp_path) == [], case


def test_a_run_replaces_the_recording_only_with_a_whole_new_one(tmp_path: Path, kept: dict[str, bytes]) -> None:
    keep = tmp_path / "keep.rec"
    keep.write_bytes(kept[".rec"])
    act = tmp_path / "drive.act"
    act.write_text(DRIVE)
    result = saphira_in_process("run", str(act), "--duration", "1", "--record", str(keep), "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    recording = read_recording(keep)
    assert recording.problem == "" and recording.last_cycle < 10  # the new run's, not the 2 s one kept
    assert leftovers(tmp_path) == []


LOOP = """act tick()
{
  waitfor 0 timeout 30;           /* 30 cycles recorded first */
  sfSMessage("halfway");
  waitfor 0;                      /* then on until the signal */
}
start tick();
"""


def test_a_run_stopped_by_sigterm_leaves_a_whole_recording(tmp_path: Path, kept: dict[str, bytes]) -> None:
    """A .rec and a .mcap run at once, each stopped by SIGTERM once its activity says it has recorded."""
    act = tmp_path / "loop.act"
    act.write_text(LOOP)
    with ThreadPoolExecutor(2) as pool:
        runs = {suffix: pool.submit(_stopped_run, act, tmp_path / f"keep{suffix}", kept[suffix]) for suffix in kept}
    for run in runs.values():
        run.result()
    recording = read_recording(tmp_path / "keep.rec")
    assert recording.problem == "", recording.problem  # the end line was written: a whole file
    assert recording.last_cycle >= 30
    with (tmp_path / "keep.mcap").open("rb") as f:
        summary = make_reader(f).get_summary()  # only a finished MCAP file has one
    assert summary is not None and summary.statistics is not None
    assert summary.statistics.message_count > 30 * 3  # /pose, /odom and /tf every cycle
    assert leftovers(tmp_path) == []


def _stopped_run(act: Path, keep: Path, old: bytes) -> None:
    """``saphira run ACT --record KEEP`` over a kept file, stopped by SIGTERM once it has printed 'halfway'."""
    keep.write_bytes(old)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(PROJECT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "saphira", "run", str(act), "--record", str(keep), "-q"],
        cwd=act.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        read_until(proc.stdout.fileno(), b"halfway")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert keep.read_bytes() != old


def test_outputs_replace_a_file_by_moving_a_new_one_in_place(tmp_path: Path, kept: dict[str, bytes]) -> None:
    """``map -o``, ``export -o`` and ``replay --plot`` write a new file and move it over the old one:
    a second name (a hard link) for the old file still reads the old bytes, and no temporary is left."""
    rec = tmp_path / "demo.rec"
    rec.write_bytes(kept[".rec"])
    commands = {
        "map.smap": ("map", "corridor", "-o"),
        "run.mcap": ("export", str(rec), "-o"),
        "plot.png": ("replay", str(rec), "--plot"),
    }
    for name, command in commands.items():
        target, old = tmp_path / name, tmp_path / f"old-{name}"
        target.write_bytes(b"the user's own file\n")
        os.link(target, old)
        result = saphira_in_process(*command, str(target))
        assert result.returncode == 0, result.stdout + result.stderr
        assert old.read_bytes() == b"the user's own file\n", f"{name} was written over in place"
        assert target.read_bytes() != old.read_bytes() and target.stat().st_size > 100
    assert leftovers(tmp_path) == []
