"""``saphira tune``: a short Optuna search over an activity's globals, run through the CLI (the command's main,
in this process; the trials in forked children as ``--serial`` runs them), finds a setting no worse than
the activity's defaults on held-out seeds; run again it resumes. The search test takes ~3 s: it is the
issue's end-to-end tuning run (7 trials of 4 simulated seconds, then the same again from the rows)."""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

import pytest

from tests.dask_cluster import cluster, free_port
from tests.sim_process import PROJECT
from tests.test_cli import saphira_in_process

ACTIVITY = PROJECT / "experiments" / "avoid_tuning" / "avoid_wander.act"


def tune(*args: str) -> subprocess.CompletedProcess[str]:
    return saphira_in_process("tune", *args)


def write_experiment(folder: Path, extra: str = "") -> Path:
    path = folder / "tune.toml"
    path.write_text(f"""
[run]
activity = "{ACTIVITY}"
world = "room"
duration = 4
seeds = [0]
start = [[1500, 3000, 0]]

[metrics]
objective = "mean_speed"
at_most = {{ wall_contacts = 0 }}

[tune]
trials = 3
held_out = [5, 6]
{extra}
[tune.space]
speed = {{ min = 400.0, max = 900.0 }}
""")
    return path


def test_a_short_search_finds_a_setting_no_worse_than_the_defaults_and_resumes(tmp_path: Path) -> None:
    exp, out = write_experiment(tmp_path), tmp_path / "out"
    first = tune(str(exp), "--serial", "--out", str(out))
    assert first.returncode == 0, first.stderr
    with (out / "trials.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 + 2 * 2, "3 settings on the search seed, then best and defaults on 2 held-out seeds"
    held = [r for r in rows if r["seed"] in ("5", "6")]
    best = [float(r["mean_speed"]) for r in held if r["speed"]]
    defaults = [float(r["mean_speed"]) for r in held if not r["speed"]]
    assert len(best) == len(defaults) == 2
    assert all(float(r["wall_contacts"]) == 0 for r in held)
    assert sum(best) >= sum(defaults), "the defaults cruise at 300 mm/s; the search looks from 400 up"
    assert "the best setting is better than the defaults" in first.stdout
    with (out / "tune.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 3
    assert (out / "tune.png").stat().st_size > 0
    again = tune(str(exp), "--serial", "--out", str(out))
    assert again.returncode == 0
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:], "the same proposals, rows reused"
    with (out / "trials.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == len(rows)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("trials = 3", "trials = 0", "[tune] trials: expected a number of settings"),
        ("held_out = [5, 6]", "held_out = [0]", "[tune] held_out: a held-out seed is one of [run] seeds"),
        ("trials = 3", "trials = 3\ncolour = 1", "[tune] colour: unknown key"),
        ("speed = {", "sped = {", "[tune.space] sped: "),
    ],
)
def test_a_bad_tune_section_is_refused_with_status_2(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = write_experiment(tmp_path)
    path.write_text(path.read_text().replace(old, new))
    result = tune(str(path), "--serial", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_example_experiment_names_the_activitys_globals() -> None:
    from saphira.app.batch.tune import check_space, load_tune

    exp, spec = load_tune(PROJECT / "experiments" / "avoid_tuning" / "tune.toml")
    check_space(exp, spec)
    assert set(spec.space) == {"speed", "standoff", "front", "gain", "caution"}
    assert not set(spec.held_out) & set(exp.seeds)


def test_a_search_on_a_dask_scheduler_proposes_and_scores_as_the_serial_one(tmp_path: Path) -> None:
    """``--scheduler``: every trial of the search runs on the cluster's worker, and the search is the serial
    one's (the same settings proposed, the same scores, the same verdict): where a trial runs changes nothing."""
    exp = write_experiment(tmp_path).read_text().replace("trials = 3", "trials = 2")
    exp = exp.replace("held_out = [5, 6]", "held_out = [5]")
    hook = PROJECT / "tests" / "data" / "batch" / "spin.py"
    (tmp_path / "tune.toml").write_text(exp.replace("[metrics]\n", f'[metrics]\nhook = "{hook}:pid"\n'))
    port = free_port()
    with cluster(port, {**os.environ, "PYTHONPATH": str(PROJECT)}) as (_, worker):
        remote = tune(str(tmp_path / "tune.toml"), "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                      str(tmp_path / "remote"), "--no-plots")  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    assert f"on the Dask cluster at tcp://127.0.0.1:{port}" in remote.stdout.splitlines()[0]
    with (tmp_path / "remote" / "trials.csv").open() as handle:
        assert {row["pid"] for row in csv.DictReader(handle)} == {str(worker.pid)}
    serial = tune(str(tmp_path / "tune.toml"), "--serial", "--out", str(tmp_path / "serial"), "--no-plots")
    assert serial.returncode == 0, serial.stderr
    assert remote.stdout.splitlines()[1:-1] == serial.stdout.splitlines()[1:-1]  # all but the folders named


def test_an_unreachable_scheduler_ends_the_search_with_status_2_naming_it(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    result = tune(str(write_experiment(tmp_path)), "--scheduler", address, "--scheduler-timeout", "1")
    assert result.returncode == 2
    assert f"cannot reach the Dask scheduler at {address}" in result.stderr


def test_workers_do_not_go_with_a_scheduler(tmp_path: Path) -> None:
    result = tune(str(write_experiment(tmp_path)), "--scheduler", "tcp://127.0.0.1:1", "--workers", "2")
    assert result.returncode == 2
    assert "--workers sizes the local cluster; it does not go with --serial or --scheduler" in result.stderr
