"""``saphira batch``'s experiment reader refuses, in bounded time and memory, what cannot make a trial.

Each hostile file of the security review (table 3.7) is a located error (``file: [section] key: reason``)
with exit status 2, never a traceback, a hang or gigabytes of memory.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from saphira.app.cli import main

DATA = Path(__file__).parent / "data" / "batch"
ROOT = Path(__file__).resolve().parent.parent
STACK = DATA / "stack.act"
NESTED = ": not valid TOML: arrays or tables nested too deeply"
HEAD = f'[run]\nactivity = "{STACK}"\nworld = "room"\nparams = "p3dx"\n'


def _batch(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["batch", str(path), "--out", str(path.parent / "out"), "--serial", "--no-plots", "-q"])
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("duration = 1\nx = " + "[" * 100_000 + "1" + "]" * 100_000 + "\n", NESTED),
        ("duration = 1\nx = " + "{a=" * 20_000 + "1" + "}" * 20_000 + "\n", NESTED),
        ("duration = " + "9" * 5000 + "\n", ": not valid TOML: Exceeds the limit"),
        ("duration = 1\nseeds = 1000000000000\n", ": [run] seeds: the experiment would hold more than 100000 trials"),
        ("duration = 1\n[sample]\ncount = 1000000000\nx = [1, 2]\n", ": [sample] count: the experiment would hold"),
        ("duration = 1\n[grid]\n" + "".join(f"k{i} = [{', '.join(map(str, range(1000)))}]\n" for i in range(3)),
         ": [grid] k1: the experiment would hold more than 100000 trials"),
        ("duration = 1\nstart = [nan, nan, 0]\n", ": [run] start: [nan, nan, 0]: x and y must be finite"),
        ("duration = 1\nstart = [1e308, 1e308, 0]\n", ": [run] start: [1e+308, 1e+308, 0]: x and y must be finite"),
        ("duration = 1\nstart = [[0, 0, 0], [0, 0, inf]]\n", ": [run] start: [0, 0, inf]: x and y must be finite"),
        ("duration = 1e308\n", ": [run] duration: at most 1e+06, not 1e+308"),
        ("duration = " + "9" * 4000 + "\n", ": [run] duration: expected a finite number, not an integer of"),
        ("duration = 1\ntime_limit = inf\n", ": [run] time_limit: expected a finite number, not inf"),
        ("duration = 1\n[grid]\nspeed = [1.0, nan]\n", ": [grid] speed: values must be finite numbers or strings"),
        ("duration = 1\n[sample]\ncount = 2\nx = { min = -1e308, max = 1e308 }\n",
         ": [sample] x: min and max must be finite"),
    ],
)  # fmt: skip
def test_hostile_experiment_values_are_located_errors_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    status, err = _batch(path, capsys)
    assert status == 2
    assert err.startswith(f"saphira batch: {path}{message}"), err[:300]
    assert "Traceback" not in err and len(err) < 400
    assert not (tmp_path / "out").exists()  # refused before anything ran


def test_a_device_and_an_oversized_file_are_refused_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", "/dev/zero", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == "saphira batch: /dev/zero: not a regular file\n"
    big = tmp_path / "big.toml"
    big.write_text(HEAD + "duration = 1\n" + "# padding\n" * 200_000)
    assert main(["batch", str(big), "--out", str(tmp_path / "o")]) == 2
    assert "big.toml: 2000" in capsys.readouterr().err  # its size, and the limit
    assert main(["batch", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == f"saphira batch: {tmp_path}: not a regular file\n"


def _limit_memory() -> None:
    limit = 1 << 30  # far above what reading any of these files needs, far below what expanding them took
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def test_a_fifo_and_a_huge_sweep_end_at_once_in_a_child_with_little_memory(tmp_path: Path) -> None:
    fifo = tmp_path / "exp.toml"
    os.mkfifo(fifo)  # nothing ever writes to it: opening it for reading would block for ever
    huge = tmp_path / "huge.toml"
    huge.write_text(HEAD + "duration = 1\nseeds = 100000\n[sample]\ncount = 100000\nx = [1, 2]\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for path, message in ((fifo, "exp.toml: not a regular file"), (huge, "[sample] count: the experiment would hold")):
        done = subprocess.run([sys.executable, "-m", "saphira", "batch", str(path), "--serial", "-q"], env=env,
                              capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
