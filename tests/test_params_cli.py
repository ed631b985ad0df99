"""``saphira params [FILE]`` and parameter files given on the command line: what they resolve to, and
the clear error (exit 2) for a file that is not a parameter file (issue 10, bug 2)."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sim_process import PROJECT, Program, with_and_without

ARIA_DIR = Path(__file__).parent / "data" / "aria-params"


def saphira(*args: str, cwd: Path = PROJECT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "saphira", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


def value_line(out: str, key: str) -> str:
    m = re.search(rf"^{key}\s+(.*)$", out, re.M)
    assert m, out
    return m[1]


def test_params_file_shows_model_factors_sonars_and_where_each_value_came_from(tmp_path: Path) -> None:
    mine = tmp_path / "mine.p"
    mine.write_text("Subclass amigo\nDistConvFactor 0.25 ; measured on our robot\n")
    done = saphira("params", str(mine))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("model: amigo (Pioneer)")
    assert "layer 1: built-in amigo" in out and f"layer 2: user file {mine}" in out
    assert re.match(rf"0\.25 mm per unit\s+from user file {re.escape(str(mine))}$", value_line(out, "DistConvFactor"))
    assert re.match(r"0\.6154 mm/s per unit\s+from built-in amigo$", value_line(out, "VelConvFactor"))
    assert re.match(r"8 sonars\s+from built-in amigo$", value_line(out, "SonarNum"))
    assert re.match(r"180 mm\s+from built-in amigo$", value_line(out, "RobotRadius"))


def test_params_of_a_bundled_name_shows_its_model_file_layer() -> None:
    out = saphira("params", "p3dx").stdout
    assert out.startswith("model: p3dx (Pioneer)")
    bundled = re.escape(str(PROJECT / "params" / "p3dx.p"))
    assert re.search(rf"^DistConvFactor\s+0\.485 mm per unit\s+from bundled file {bundled}$", out, re.M)
    assert re.search(r"^SonarNum\s+16 sonars", out, re.M)


def test_an_installed_saphira_calls_its_bundled_file_bundled_and_a_copy_a_user_file(tmp_path: Path) -> None:
    """As a wheel lays it out (``site-packages/saphira/_data/params``): the file saphira ships is not a user
    file (issue 32 §3: it said "from user file .../site-packages/..."); the same file copied elsewhere is."""
    site = tmp_path / "site-packages"
    shutil.copytree(PROJECT / "saphira", site / "saphira", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PROJECT / "params", site / "saphira" / "_data" / "params")
    mine = tmp_path / "mine" / "p3dx.p"
    mine.parent.mkdir()
    shutil.copy(PROJECT / "params" / "p3dx.p", mine)
    script = "from saphira.app.cli import main; main(['params', 'p3dx']); main(['params', 'mine/p3dx.p'])"
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    installed, copied = done.stdout.split("model: ")[1:]
    shipped = site / "saphira" / "_data" / "params" / "p3dx.p"
    assert f"layer 2: bundled file {shipped}\n" in installed
    assert "user file" not in installed
    assert f"layer 2: model file {shipped}\n  layer 3: user file mine/p3dx.p\n" in copied


def test_params_of_a_built_in_model_name_with_no_file() -> None:
    out = saphira("params", "seekurjr").stdout
    assert out.startswith("model: seekurjr (Pioneer)")
    assert re.match(r"80 deg/s\s+from built-in seekurjr$", value_line(out, "MaxRVelocity"))


def test_params_of_powerbot_prints_the_sonar_warning() -> None:
    done = saphira("params", str(ARIA_DIR / "powerbot.p"))
    assert done.returncode == 0
    assert re.match(r"32 sonars\s+from user file", value_line(done.stdout, "SonarNum"))
    assert "warning: " in done.stdout and "SonarNum is 32 but 31 SonarUnit lines" in done.stdout


def test_params_without_argument_still_lists_the_bundled_files() -> None:
    out = saphira("params").stdout
    assert re.search(r"^p3dx\s+Pioneer\s+p3dx\s+16 sonars", out, re.M)


@pytest.fixture
def garbage(tmp_path: Path) -> Path:
    path = tmp_path / "g.p"
    path.write_bytes(random.Random(18).randbytes(500))
    return path


def test_run_with_a_garbage_params_file_fails_naming_file_and_line(tmp_path: Path, garbage: Path) -> None:
    act = tmp_path / "ok.act"
    act.write_text("act ok { move(500); }\nstart ok;\n")
    done = saphira("run", str(act), "--params", "./g.p", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    message = r"^saphira run: (\./)?g\.p:\d+:\d+: not a text file: byte 0x[0-9a-f]{2}"
    assert re.search(message, done.stderr, re.M), done.stderr
    assert "connected" not in done.stdout and "Traceback" not in done.stderr


def test_text_with_no_parameter_key_is_not_a_parameter_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.p"
    notes.write_text("; my robot\nhello world\nthis is not a parameter file\n")
    done = saphira("params", str(notes))
    assert done.returncode == 2
    assert f"{notes}:2:1: not a robot parameter file: it holds no robot parameter" in done.stderr


def test_sim_with_a_garbage_params_file_exits_2(garbage: Path) -> None:
    done = saphira("sim", "--params", str(garbage), "--port", "0")
    assert done.returncode == 2
    assert re.search(rf"{re.escape(str(garbage))}:\d+:\d+: not a text file", done.stderr)


def test_empty_params_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.p"
    empty.write_text("")
    done = saphira("params", str(empty))
    assert done.returncode == 2 and f"{empty}:1: not a robot parameter file: it is empty" in done.stderr


def test_run_over_tcp_uses_the_params_file_on_the_client(tmp_path: Path) -> None:
    """``saphira run --robot tcp://… --params FILE`` lays FILE over the reported model (it used to say
    "parameters from …/pioneer.p" and drive an amigo with Pioneer 1 factors); without it, the model.
    Both runs, each against its own simulator, go at once: they drive in real time."""
    with_and_without("--params", _run_over_tcp, tmp_path)


def _run_over_tcp(folder: Path, client_params: bool) -> None:
    folder.mkdir()
    amigo = ARIA_DIR / "amigo.p"
    act = folder / "move.act"
    act.write_text("act m { move(500); }\nstart m;\n")
    program = Program("--params", str(amigo), "--port", "0", "--world", "corridor")
    try:
        extra = ["--params", str(amigo)] if client_params else []
        done = saphira("run", str(act), "--robot", f"tcp://{program.addresses[0]}", *extra)
    finally:
        program.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    expected = str(amigo) if client_params else "<built-in amigo>"
    assert f"parameters from {expected}" in done.stdout
    m = re.search(r"final pose \((-?\d+), (-?\d+), (-?[\d.]+)\)", done.stdout)
    assert m, done.stdout
    assert abs(float(m[1]) ** 2 + float(m[2]) ** 2) ** 0.5 == pytest.approx(500.0, abs=50.0)


def test_sim_serves_a_built_in_model_by_name() -> None:
    program = Program("--params", "seekur", "--port", "0")
    code, out = program.stop()
    assert code == 128 + signal.SIGTERM and b"seekur" in out


@pytest.mark.parametrize("name", ["amigo.p", "p2de.p", "seekur.p"])
def test_run_embedded_with_an_aria_file_moves_half_a_metre(tmp_path: Path, name: str) -> None:
    """The issue's command: ``saphira run move.act --params FILE`` (amigo drove 2.9 m, p2de 3.5 m)."""
    act = tmp_path / "move.act"
    act.write_text("act m { move(500); }\nstart m;\n")
    done = saphira("run", str(act), "--params", str(ARIA_DIR / name), "--world", "corridor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"parameters from {ARIA_DIR / name}" in done.stdout
    m = re.search(r"travelled (\d+\.\d+) m", done.stdout)
    assert m and float(m[1]) == pytest.approx(0.5, abs=0.05), done.stdout
    assert "activity m: success" in done.stdout.lower()


def test_run_with_a_built_in_model_name_as_params(tmp_path: Path) -> None:
    act = tmp_path / "move.act"
    act.write_text("act m { move(500); }\nstart m;\n")
    done = saphira("run", str(act), "--params", "amigo", "--world", "corridor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "parameters from <built-in amigo>" in done.stdout
    m = re.search(r"travelled (\d+\.\d+) m", done.stdout)
    assert m and float(m[1]) == pytest.approx(0.5, abs=0.05), done.stdout
