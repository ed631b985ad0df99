"""What ``saphira params`` says of a robot's laser is what a run with those parameters gets.

ARIA's p3dx.p declares a SICK (LaserAutoConnect true); saphira's bundled p3dx.p does not, and its
p3dx-laser.p does. ``saphira params p3dx`` once said "the simulator still fits lms2xx", yet a run's
``sfLaserCount()`` stayed 0: the listing now says the run gets no scan and names the file that gives one.
Each run is a lock-step ``saphira run`` (in this process) of a second against the embedded simulator.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.app.cli import main

COUNT = (
    'act Count { waitfor sfLaserCount() > 0 timeout 0.5; sfSMessage("laser readings %d", sfLaserCount()); }\n'
    "start Count;\n"
)


def _laser_line(capsys: pytest.CaptureFixture[str], params: str) -> str:
    assert main(["params", params]) == 0
    return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Laser"))


def _readings(capsys: pytest.CaptureFixture[str], tmp_path: Path, params: str) -> int:
    act = tmp_path / "count.act"
    act.write_text(COUNT)
    assert main(["run", str(act), "--params", params, "--world", "room", "--duration", "1"]) == 0
    out = capsys.readouterr().out
    return int(out.split("laser readings ")[1].split()[0])


def test_the_params_listing_says_whether_a_run_gets_laser_scans(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plain = _laser_line(capsys, "p3dx")
    assert "not declared: a run uses no laser (sfLaserCount() stays 0); for one, --params p3dx-laser." in plain
    assert _readings(capsys, tmp_path, "p3dx") == 0
    laser = _laser_line(capsys, "p3dx-laser")
    assert "lms2xx at x 18 y 0 mm" in laser and "not declared" not in laser
    assert _readings(capsys, tmp_path, "p3dx-laser") == 181
