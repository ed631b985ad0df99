"""``saphira batch``: experiment grids, failed and hung trials, resuming, serial vs Dask, a remote scheduler.

Every trial is a real lock-step run of the embedded simulator with tests/data/batch/stack.act (the
demo's wander behaviors with swept globals); trials are a few simulated seconds long.
"""

from __future__ import annotations

import csv
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from saphira.app.batch.experiment import ExperimentError, load_experiment
from saphira.app.batch.metrics import TIMING_COLUMNS
from saphira.app.batch.results import ResultsDir
from saphira.app.batch.summary import t_975
from saphira.app.batch.trial import TrialResult
from saphira.app.cli import main
from tests.dask_cluster import cluster, free_port

DATA = Path(__file__).parent / "data" / "batch"
ROOT = Path(__file__).resolve().parent.parent
STACK = DATA / "stack.act"


def _experiment(tmp_path: Path, body: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'[run]\nactivity = "{STACK}"\nworld = "room"\nparams = "p3dx"\n{body}', encoding="utf-8")
    return path


def _rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "trials.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _without_timing(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return sorted(({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows), key=lambda r: r["trial"])


GRID_2x2 = "duration = 2\nseeds = [0, 1, 2]\n[grid]\nspeed = [150.0, 300.0]\nstandoff = [200.0, 400.0]\n"


def test_a_2x2_grid_over_3_seeds_gives_12_rows_with_the_parameters_the_acts_saw(tmp_path: Path, capsys) -> None:
    exp = _experiment(tmp_path, GRID_2x2)
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots"]) == 0
    rows = _rows(out)
    assert len(rows) == 12
    got = sorted((float(r["speed"]), float(r["standoff"]), int(r["seed"])) for r in rows)
    assert got == sorted(itertools.product([150.0, 300.0], [200.0, 400.0], [0, 1, 2]))
    for r in rows:  # the act printed the globals it saw in its first cycle
        assert r["status"] == "ok", r
        assert float(r["seen_speed"]) == float(r["speed"])
        assert float(r["seen_standoff"]) == float(r["standoff"])
        assert float(r["top_speed"]) == 250.0  # top-level statements ran before the grid's values came
        assert float(r["distance"]) > 0 and r["act_Wander"] == "running"
    assert len({r["trial"] for r in rows}) == 12
    # The slower setting drives less far: the parameter reached the behaviors.
    slow = [float(r["distance"]) for r in rows if r["speed"] == "150.0"]
    fast = [float(r["distance"]) for r in rows if r["speed"] == "300.0"]
    assert max(slow) < min(fast)
    printed = capsys.readouterr().out
    assert "speed=150.0 standoff=200.0" in printed and "best setting" in printed
    assert (out / "summary.csv").read_text().count("\n") == 5


def test_the_issue_s_smallest_experiment_file_works_as_written(tmp_path: Path) -> None:
    exp = ROOT / "experiments" / "wander" / "exp.toml"
    assert "speed = [150.0, 300.0]" in exp.read_text()
    out = tmp_path / "wander"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "-q"]) == 0
    rows = _rows(out)
    assert len(rows) == 6
    header = list(rows[0])
    for column in ("speed", "seed", "wall_contacts", "stall_cycles", "distance", "mean_speed", "dist",
                   "time_to_success", "cycle_p50_ms", "cycle_p99_ms", "act_Wander"):  # fmt: skip
        assert column in header
    assert sorted((r["speed"], r["seed"]) for r in rows) == sorted(itertools.product(["150.0", "300.0"], "012"))
    assert all(float(r["dist"]) > 1000 for r in rows)  # the user metric from the METRIC line
    assert (out / "metric_by_parameter.png").stat().st_size > 0
    assert (out / "trajectories.png").stat().st_size > 0


def test_the_shipped_avoid_tuning_experiment_sweeps_avoid_collision_and_prints_the_winner(
    tmp_path: Path, capsys
) -> None:
    # The shipped file as it is, cut to one second, one seed and one random start (18 settings).
    shipped = ROOT / "experiments" / "avoid_tuning"
    text = (shipped / "avoid.toml").read_text()
    for key, short in (("duration = 60", "duration = 1"), ("seeds = [0, 1]", "seeds = [0]"),
                       ("random_starts = 2", "random_starts = 1")):  # fmt: skip
        assert key in text, key
        text = text.replace(key, short)
    exp = tmp_path / "avoid.toml"
    exp.write_text(text.replace('"avoid_wander.act"', f'"{shipped / "avoid_wander.act"}"'))
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 0
    rows = _rows(out)
    assert len(rows) == 18 and {r["world"] for r in rows} == {"AMROffice"}
    assert all(r["status"] == "ok" for r in rows)
    assert {(r["speed"], r["standoff"], r["front"]) for r in rows} == set(
        itertools.product(["400.0", "700.0", "1000.0"], ["100.0", "300.0", "600.0"], ["0.5", "1.5"])
    )
    winner = [line for line in capsys.readouterr().out.splitlines() if line.startswith("best setting")]
    assert len(winner) == 1 and "wall_contacts ≤ 0" in winner[0] and "mean_speed" in winner[0], winner


def test_trials_that_divide_by_zero_hang_or_raise_are_failed_rows_and_the_others_finish(tmp_path: Path, capsys) -> None:
    exp = _experiment(tmp_path, 'duration = 2\ntime_limit = 5\nrecord = "failed"\n[grid]\nmode = [0, 1, 2, 3]\n')
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 1
    rows = {r["mode"]: r for r in _rows(out)}
    assert rows["0"]["status"] == "ok" and rows["0"]["error"] == ""
    assert rows["1"]["status"] == "error"
    assert "stack.act:" in rows["1"]["error"] and "division by zero" in rows["1"]["error"]
    assert float(rows["1"]["distance"]) > 0  # the run went on: only the failing act stopped
    assert rows["2"]["status"] == "timeout" and "5 s of wall-clock time" in rows["2"]["error"]
    assert rows["3"]["status"] == "error" and "stack.act:26:18: act Wander: division by zero" in rows["3"]["error"]
    # The failed trials' recordings are kept, for saphira replay; the good one's is not.
    kept = sorted(p.stem for p in (out / "recordings").iterdir())
    assert kept == sorted(rows[m]["trial"] for m in "123")
    assert main(["replay", str(out / "recordings" / f"{rows['1']['trial']}.rec")]) == 0
    assert "(timeout)" in capsys.readouterr().out


def test_the_progress_bar_counts_trials_with_an_eta_on_stderr(tmp_path: Path, capsys) -> None:
    exp = _experiment(tmp_path, "duration = 1\nseeds = 3\n")
    assert main(["batch", str(exp), "--out", str(tmp_path / "out"), "--serial", "--no-plots"]) == 0
    lines = capsys.readouterr().err.splitlines()  # not a terminal: one plain line per trial (each >= 5 %)
    assert [line.split("]")[1].split()[0] for line in lines] == ["1/3", "2/3", "3/3"]
    assert "ETA " in lines[0] and "ETA " in lines[1] and "took " in lines[2]
    assert lines[0].startswith("[########................]")


def test_a_killed_batch_resumes_without_rerunning_finished_trials(tmp_path: Path) -> None:
    hook = DATA / "spin.py"
    body = f'duration = 1\nseeds = [0, 1, 2, 3, 4]\n[metrics]\nhook = "{hook}:count_and_maybe_die"\n'
    exp = _experiment(tmp_path, body)
    out = tmp_path / "out"
    log = tmp_path / "calls.log"
    env = {**os.environ, "BATCH_TEST_LOG": str(log), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "saphira", "batch", str(exp), "--out", str(out), "--serial", "--no-plots"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, start_new_session=True)
    assert first.returncode == -9  # the hook killed the batch in its third trial
    before = _rows(out)
    assert len(before) == 2
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert "2 already in" in second.stdout and "running 3 serially" in second.stdout
    after = _rows(out)
    assert len(after) == 5 and len({r["trial"] for r in after}) == 5
    assert after[:2] == before  # finished rows untouched (their wall times too: not rerun)
    calls = log.read_text().split()
    assert len(calls) == 6 and len(set(calls)) == 5  # only the killed trial ran twice
    assert calls.count(after[2]["trial"]) == 2


def test_resume_drops_a_row_cut_short_by_a_kill(tmp_path: Path) -> None:
    results = ResultsDir(tmp_path, leading=["trial", "status"])
    results.add(TrialResult({"trial": "a1", "status": "ok", "distance": 1.5}))
    results.close()
    with (tmp_path / "trials.csv").open("a") as f:
        f.write("b2,ok,2")  # the kill came mid-line
    again = ResultsDir(tmp_path, leading=["trial", "status"])
    assert again.finished == {"a1"}
    again.add(TrialResult({"trial": "b2", "status": "ok", "distance": 2.0, "new": "x"}))
    again.close()
    assert [r["trial"] for r in _rows(tmp_path)] == ["a1", "b2"]
    assert _rows(tmp_path)[1]["new"] == "x" and _rows(tmp_path)[0]["new"] == ""


def test_serial_and_local_dask_cluster_runs_give_identical_metric_rows(tmp_path: Path) -> None:
    exp = _experiment(tmp_path, "duration = 3\nseeds = [0, 7]\n[grid]\nspeed = [150.0, 300.0]\n")
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert main(["batch", str(exp), "--out", str(serial), "--serial", "--no-plots", "-q"]) == 0
    assert main(["batch", str(exp), "--out", str(dask), "--workers", "2", "--no-plots", "-q"]) == 0
    assert len(_rows(dask)) == 4
    assert _without_timing(_rows(serial)) == _without_timing(_rows(dask))


def test_the_local_cluster_s_workers_run_trials_without_dask_s_sampling_profiler() -> None:
    from saphira.app.batch.runner import EngineOptions, _client

    def profiler_enabled() -> bool:
        import dask

        return bool(dask.config.get("distributed.worker.profile.enabled"))

    with _client(EngineOptions(workers=1)) as client:
        client.wait_for_workers(1)
        assert list(client.run(profiler_enabled).values()) == [False]


def test_scheduler_option_runs_the_batch_on_an_existing_dask_cluster(tmp_path: Path, capsys) -> None:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = tmp_path / "calls.log"
    log.with_suffix(".killed").write_text("the hook's kill is for the resume test\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BATCH_TEST_LOG": str(log)}
    hook = DATA / "spin.py"
    exp = _experiment(tmp_path, f'duration = 2\nseeds = [0, 1]\n[grid]\nspeed = [150.0, 300.0]\n'
                      f'[metrics]\nhook = "{hook}:count_and_maybe_die"\n')  # fmt: skip
    try:
        with cluster(port, env) as (_, worker):
            os.environ["BATCH_TEST_LOG"] = str(log)  # for the serial run's hook, in this process
            out = tmp_path / "out"
            assert main(["batch", str(exp), "--out", str(out), "--scheduler", address, "--no-plots", "-q"]) == 0
            assert f"on the Dask cluster at {address}" in capsys.readouterr().out
            rows = _rows(out)
            assert len(rows) == 4
            assert {r["pid"] for r in rows} == {str(worker.pid)}  # every trial ran in the worker process
        serial = tmp_path / "serial"
        assert main(["batch", str(exp), "--out", str(serial), "--serial", "--no-plots", "-q"]) == 0
        strip = lambda rs: [{k: v for k, v in r.items() if k != "pid"} for r in _without_timing(rs)]  # noqa: E731
        assert strip(rows) == strip(_rows(serial))
    finally:
        os.environ.pop("BATCH_TEST_LOG", None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("duration = 0\n", "[run] duration: must be positive"),
        ("seeds = [1, 1]\nduration = 5\n", "[run] seeds: a seed appears twice"),
        ("duration = 5\n[grid]\nspeed = []\n", "[grid] speed: expected a non-empty list"),
        ("duration = 5\nspeeed = 3\n", "[run] speeed: unknown key"),
        ("duration = 5\n[sample]\ncount = 2\nx = { min = 3, max = 1 }\n", "[sample] x: min and max"),
        ("duration = 5\nstart = [1, 2]\n", "[run] start: expected a pose [x_mm, y_mm, th_deg]"),
        ('duration = 5\n[metrics]\nhook = "nothere.py:f"\n', "[metrics] hook: no such file"),
        ("duration = [5\n", "not valid TOML"),
    ],
)
def test_experiment_file_errors_name_the_key_and_the_reason(tmp_path: Path, body: str, message: str) -> None:
    path = _experiment(tmp_path, body)
    with pytest.raises(ExperimentError) as error:
        load_experiment(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


def test_a_bad_experiment_file_exits_2_with_its_message(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[run]\nactivity = "missing.act"\nduration = 5\n')
    assert main(["batch", str(path)]) == 2
    assert "bad.toml: [run] activity: no such file" in capsys.readouterr().err


def test_a_python_module_is_an_activity_and_its_attributes_are_parameters(tmp_path: Path) -> None:
    exp = tmp_path / "brain.toml"
    exp.write_text(f'[run]\nactivity = "{DATA / "brain.py"}"\nworld = "room"\nduration = 3\n'
                   "[grid]\nSPEED = [120.0, 240.0]\n")  # fmt: skip
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 0
    distance = {r["SPEED"]: float(r["distance"]) for r in _rows(out)}
    assert 1.5 < distance["240.0"] / distance["120.0"] < 2.5  # each trial cruised at its own speed


def test_an_unreachable_scheduler_exits_2_naming_it(tmp_path: Path, capsys) -> None:
    exp = _experiment(tmp_path, "duration = 1\n")
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    # A refused connection is retried until the timeout.
    argv = ["batch", str(exp), "--out", str(tmp_path / "out"), "--scheduler", address, "--scheduler-timeout", "2"]
    assert main(argv) == 2
    assert f"cannot reach the Dask scheduler at {address}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("activity", "table", "line", "message"),
    [
        (STACK, "[grid]\nsped = [1.0]\n", 8, "[grid] sped: stack.act declares no global 'sped' (nor 'sped_', the name "
         "to use when 'sped' is a Colbert keyword); did you mean 'speed'?"),
        (STACK, "[sample]\ncount = 2\nstandof = { min = 1.0, max = 2.0 }\n", 9,
         "[sample] standof: stack.act declares no global 'standof' (nor 'standof_', the name to use when 'standof' "
         "is a Colbert keyword); did you mean 'standoff'?"),
        (DATA / "brain.py", "[grid]\nSPED = [1.0]\n", 8, "[grid] SPED: brain.py declares no global 'SPED' (nor "
         "'SPED_', the name to use when 'SPED' is a Colbert keyword); did you mean 'SPEED'?"),
    ],
)  # fmt: skip
def test_a_parameter_the_activity_does_not_declare_stops_the_batch_before_any_trial(
    tmp_path: Path, capsys, activity: Path, table: str, line: int, message: str
) -> None:
    exp = tmp_path / "exp.toml"
    exp.write_text(f'[run]\nactivity = "{activity}"\nworld = "room"\nparams = "p3dx"\nduration = 1\n\n{table}')
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 2
    assert capsys.readouterr().err == f"saphira batch: {exp}:{line}: {message}\n"
    assert not out.exists()  # no trial ran


def test_an_activity_that_does_not_compile_stops_the_batch_with_its_errors(tmp_path: Path, capsys) -> None:
    act = tmp_path / "broken.act"
    act.write_text("float speed_;\nact Go { sfSetVelocty(speed_); }\nstart Go;\n")
    exp = tmp_path / "exp.toml"
    exp.write_text(f'[run]\nactivity = "{act}"\nduration = 1\n[grid]\nspeed = [1.0, 2.0]\n')
    assert main(["batch", str(exp), "--out", str(tmp_path / "out"), "--serial", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"saphira batch: {exp}: [run] activity: broken.act does not compile; no trial was run:\n")
    assert f"{act}:2:10: unknown function 'sfSetVelocty'" in err and "did you mean 'sfSetVelocity'" in err, err
    assert not (tmp_path / "out").exists()


def test_random_starts_and_samples_are_drawn_once_and_recorded(tmp_path: Path) -> None:
    exp = load_experiment(_experiment(tmp_path, 'duration = 1\nstart = "random"\nrandom_starts = 2\n'
                                      "[sample]\ncount = 3\nstandoff = { min = 200.0, max = 500.0 }\n"))  # fmt: skip
    trials = exp.trials()
    assert len(trials) == 6
    assert len({t.start for t in trials}) == 2 and all(t.start is not None for t in trials)
    assert all(200.0 <= float(dict(t.values)["standoff"]) <= 500.0 for t in trials)
    assert [t.trial_id for t in trials] == [t.trial_id for t in exp.trials()]


def test_trial_ids_do_not_depend_on_where_the_experiment_folder_is(tmp_path: Path) -> None:
    ids = []
    for folder in (tmp_path / "a", tmp_path / "b" / "moved"):
        folder.mkdir(parents=True)
        (folder / "stack.act").write_text(STACK.read_text())
        (folder / "spin.py").write_text((DATA / "spin.py").read_text())
        (folder / "exp.toml").write_text('[run]\nactivity = "stack.act"\nduration = 5\nseeds = 2\n')
        ids.append([t.trial_id for t in load_experiment(folder / "exp.toml").trials()])
    assert ids[0] == ids[1] and len(set(ids[0])) == 2


@pytest.mark.parametrize("df", [1, 2, 5, 10, 29, 30, 31, 40, 60, 120, 1000])
def test_the_confidence_interval_uses_students_t_without_scipy_at_run_time(df: int) -> None:
    from scipy.stats import t  # the reference; the runtime does not import scipy

    assert t_975(df) == pytest.approx(float(t.ppf(0.975, df)), abs=2e-4)


def test_an_error_row_names_the_users_line_not_saphiras(tmp_path: Path) -> None:
    """A metrics hook whose call into saphira raises there: the row names the hook's line, as a run's summary
    names a part's (saphira.core.parts.user_place), not the saphira line the exception came out of."""
    hook = tmp_path / "badhook.py"
    hook.write_text("def measure(trial):\n    trial.session.robot.motion.set_velocity('fast')\n    return {}\n")
    exp = _experiment(tmp_path, f'duration = 1\nseeds = [0]\n[metrics]\nhook = "{hook}:measure"\n')
    out = tmp_path / "out"
    assert main(["batch", str(exp), "--out", str(out), "--serial", "--no-plots", "-q"]) == 1
    (row,) = _rows(out)
    assert row["status"] == "error" and row["error"].endswith("(badhook.py:2)"), row["error"]
