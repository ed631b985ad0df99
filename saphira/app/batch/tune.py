"""``saphira tune EXP.toml``: search an activity's parameters with Optuna, trials run as ``saphira batch``'s.

The file is a batch experiment (``[run]``, ``[metrics]``; docs/batch.md) without ``[grid]`` or ``[sample]``,
plus a ``[tune]`` section::

    [tune]
    trials = 20                  # parameter settings Optuna proposes (each run on every seed and start)
    seed = 0                     # the sampler's seed: the same file proposes the same settings
    held_out = [100, 101, 102]   # seeds the search never sees: the best setting and the defaults run on them
    [tune.space]                 # the activity's globals searched, with their ranges
    standoff = { min = 100.0, max = 700.0 }   # uniform (integers when both bounds are)
    front = [0.5, 1.0, 2.0]                   # one of the list

Every setting is a configuration of the batch: its trials (same seeds, starts, metrics, hook) go into the
same resumable results folder (``trials.csv``), so an interrupted search run again reuses every row and
Optuna, seeded, proposes the same settings again. A setting breaking a ``[metrics] at_most`` limit is told to
Optuna as failed. The search ends with the best setting and the activity's own defaults run on the held-out
seeds, both with 95 % intervals and the paired difference; ``tune.csv`` lists every setting and
``tune.png`` plots the search.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from saphira.app.batch.command import add_engine_options, engine_options
from saphira.app.batch.experiment import (
    Experiment,
    ExperimentError,
    GridValue,
    _read_text,
    _Reader,
)
from saphira.app.batch.results import TRIALS_FILE, ResultsDir
from saphira.app.batch.runner import EngineOptions, SchedulerLost, run_trials
from saphira.app.batch.summary import ConfigSummary, Estimate, feasible, mean_estimate, summarize
from saphira.app.commands import Command
from saphira.core.outfile import OutputFile

TUNE_FILE = "tune.csv"
PLOT_FILE = "tune.png"
MAX_TUNE_TRIALS = 1000


@dataclass
class TuneSpec:
    """The ``[tune]`` section: how many settings, the sampler's seed, the held-out seeds, the space."""

    trials: int
    seed: int
    held_out: list[int]
    space: dict[str, list[GridValue] | dict[str, float]]


def load_tune(path: str | Path) -> tuple[Experiment, TuneSpec]:
    """The experiment (its ``[run]`` and ``[metrics]``) and its ``[tune]`` section, checked key by key."""
    file = Path(path)
    try:
        data = tomllib.loads(_read_text(file))
    except OSError as exc:
        raise ExperimentError(f"{file}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise ExperimentError(f"{file}: not a valid TOML file: {exc}") from exc
    tune = data.pop("tune", None)
    if not isinstance(tune, dict):
        raise ExperimentError(f"{file}: [tune]: missing: the settings to search (trials, held_out, [tune.space])")
    for section in ("grid", "sample"):
        if section in data:
            raise ExperimentError(f"{file}: [{section}]: not in a tuning file: [tune.space] says what is searched")
    reader = _Reader(file, data)
    exp = reader.experiment()
    unknown = set(tune) - {"trials", "seed", "held_out", "space"}
    if unknown:
        raise reader.fail(f"[tune] {sorted(unknown)[0]}", "unknown key (known: held_out, seed, space, trials)")
    trials = tune.get("trials", 20)
    if not isinstance(trials, int) or isinstance(trials, bool) or not 1 <= trials <= MAX_TUNE_TRIALS:
        raise reader.fail("[tune] trials", f"expected a number of settings from 1 to {MAX_TUNE_TRIALS}")
    seed = tune.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise reader.fail("[tune] seed", f"expected an integer, not {seed!r}")
    held = tune.get("held_out")
    if not isinstance(held, list) or not held or not all(isinstance(s, int) and s >= 0 for s in held):
        raise reader.fail("[tune] held_out", "expected a non-empty list of seeds (integers ≥ 0)")
    if set(held) & set(exp.seeds):
        raise reader.fail("[tune] held_out", "a held-out seed is one of [run] seeds: the search would see it")
    space = tune.get("space")
    if not isinstance(space, dict) or not space:
        raise reader.fail("[tune.space]", "expected the parameters to search, e.g. standoff = { min = 100, max = 700 }")
    for key, spec in space.items():
        reader._check_range(key, spec)
    return exp, TuneSpec(trials, seed, list(held), space)


def check_space(exp: Experiment, spec: TuneSpec) -> None:
    """Raise :class:`ExperimentError` when the activity does not compile or a searched key names nothing in it."""
    from saphira.app.batch.parameters import check_parameters

    exp.grid = {key: [0] for key in spec.space}
    try:
        check_parameters(exp)
    except ExperimentError as exc:
        raise ExperimentError(str(exc).replace("[grid] ", "[tune.space] ")) from None
    finally:
        exp.grid = {}


def _suggest(trial: Any, key: str, spec: list[GridValue] | dict[str, float]) -> GridValue:
    if isinstance(spec, list):
        value: GridValue = trial.suggest_categorical(key, spec)
        return value
    lo, hi = spec["min"], spec["max"]
    if isinstance(lo, int) and isinstance(hi, int):
        return int(trial.suggest_int(key, lo, hi))
    return round(float(trial.suggest_float(key, lo, hi)), 6)


def _evaluate(exp: Experiment, values: dict[str, GridValue], seeds: list[int], results: ResultsDir,
              options: EngineOptions) -> ConfigSummary:  # fmt: skip
    """Run (or reuse) the trials of one setting on ``seeds``; its summary."""
    exp.grid, exp.samples, exp.seeds = {}, [values], seeds
    trials = exp.trials()
    run_trials(trials, results, options)
    current = results.current(trials)
    rows = [current[t.trial_id] for t in trials if t.trial_id in current]
    return summarize(exp, rows)[0]


def run_tune(args: argparse.Namespace) -> int:
    """The ``saphira tune`` command."""
    import optuna

    options = engine_options(args)
    exp, spec = load_tune(args.experiment)
    check_space(exp, spec)  # a misspelled global stops the search here, not in every trial
    out = Path(args.out) if args.out else exp.path.with_name(exp.path.stem + "-results")
    names = list(spec.space)
    results = ResultsDir(out, leading=["trial", "status", "error", "world", "params", "start", *names, "seed"])
    search_seeds = list(exp.seeds)
    direction: Literal["maximize", "minimize"] = "maximize" if exp.maximize else "minimize"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction=direction, sampler=optuna.samplers.TPESampler(seed=spec.seed))
    way = "up" if exp.maximize else "down"
    print(f"{exp.path.name}: {spec.trials} settings x {len(search_seeds) * len(exp.starts)} trials of "
          f"{exp.duration:g} s, {exp.objective} {way}; {options.describe()}", flush=True)  # fmt: skip
    history: list[tuple[int, dict[str, GridValue], Estimate | None, bool]] = []
    try:
        for number in range(spec.trials):
            trial = study.ask()
            values = {key: _suggest(trial, key, spec.space[key]) for key in names}
            config = _evaluate(exp, values, search_seeds, results, options)
            ok = feasible(exp, config)
            estimate = config.estimates.get(exp.objective)
            if ok and estimate is not None:
                study.tell(trial, estimate.mean)
            else:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            history.append((number, values, estimate, ok))
            shown = ", ".join(f"{k}={v}" for k, v in values.items())
            print(f"  {number + 1:3d}/{spec.trials} {shown}: {exp.objective} {estimate or '-'}"
                  f"{'' if ok else ' (breaks a limit or failed)'}", flush=True)  # fmt: skip
        complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        if not complete:
            print("no setting kept within [metrics] at_most on every trial: nothing to compare")
            return 1
        best = {key: history[study.best_trial.number][1][key] for key in names}
        held_best = _evaluate(exp, best, spec.held_out, results, options)
        held_default = _evaluate(exp, {}, spec.held_out, results, options)
    except SchedulerLost as exc:
        print(f"saphira tune: {exc}; the trials that ended are in {out / TRIALS_FILE}; run the same command "
              "again to resume", file=sys.stderr)  # fmt: skip
        return 2
    finally:
        results.close()
    _write_history(out / TUNE_FILE, names, exp.objective, history)
    report = _compare(exp, best, held_best, held_default)
    print(report)
    if not args.no_plots:
        _plot(out / PLOT_FILE, exp, history, held_default)
    print(f"wrote {out / TUNE_FILE}" + ("" if args.no_plots else f", {out / PLOT_FILE}"))
    failed = held_best.failed + held_default.failed
    return 1 if failed else 0


def _paired(exp: Experiment, best: ConfigSummary, default: ConfigSummary) -> Estimate | None:
    """The best setting's objective less the defaults', trial by trial (same seed and start), with its interval."""

    def by_trial(config: ConfigSummary) -> dict[tuple[str, str], float]:
        return {(r["seed"], r["start"]): float(r[exp.objective]) for r in config.rows if r.get(exp.objective)}

    a, b = by_trial(best), by_trial(default)
    differences = [a[key] - b[key] for key in a if key in b]
    return mean_estimate(differences) if differences else None


def _compare(exp: Experiment, values: dict[str, GridValue], best: ConfigSummary, default: ConfigSummary) -> str:
    seeds = len({r["seed"] for r in best.rows})
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    lines = [f"best: {shown}", f"on {seeds} held-out seeds ({best.trials} trials each):"]
    for name, config in (("best", best), ("defaults", default)):
        estimate = config.estimates.get(exp.objective)
        limits = "" if feasible(exp, config) else " (breaks a limit or failed)"
        lines.append(f"  {name:9s} {exp.objective} {estimate or '-'}{limits}")
    difference = _paired(exp, best, default)
    if difference is not None:
        sign = 1.0 if exp.maximize else -1.0
        lo = sign * difference.mean - (difference.half_width or 0.0)
        verdict = "better than" if lo > 0 else "not shown better than"
        lines.append(f"  difference {difference} (paired, 95 %): the best setting is {verdict} the defaults")
    return "\n".join(lines)


def _write_history(path: Path, names: list[str], objective: str,
                   history: list[tuple[int, dict[str, GridValue], Estimate | None, bool]]) -> None:  # fmt: skip
    output = OutputFile(path)
    with output.temp().open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["setting", *names, objective, "ci95", "feasible"])
        for number, values, estimate, ok in history:
            mean = "" if estimate is None else f"{estimate.mean:.6g}"
            half = "" if estimate is None or estimate.half_width is None else f"{estimate.half_width:.6g}"
            writer.writerow([number + 1, *(values[n] for n in names), mean, half, int(ok)])
    output.commit()


def _plot(path: Path, exp: Experiment, history: list[tuple[int, dict[str, GridValue], Estimate | None, bool]],
          default: ConfigSummary) -> None:  # fmt: skip
    """Each setting's objective (failed ones crossed), the best so far, and the defaults' held-out mean."""
    from saphira.app.plot import PlotError, _matplotlib

    try:
        plt, _, _ = _matplotlib()
    except PlotError as exc:
        print(f"no plot: {exc}")
        return
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    sign = 1.0 if exp.maximize else -1.0
    xs: list[int] = []
    best_so_far: list[float] = []
    for number, _, estimate, ok in history:
        if estimate is not None:
            ax.plot(number + 1, estimate.mean, "o" if ok else "x", color="tab:blue" if ok else "tab:red")
        if ok and estimate is not None and (not best_so_far or sign * estimate.mean > sign * best_so_far[-1]):
            best_so_far.append(estimate.mean)
            xs.append(number + 1)
        elif best_so_far:
            best_so_far.append(best_so_far[-1])
            xs.append(number + 1)
    if best_so_far:
        ax.step(xs, best_so_far, where="post", color="tab:green", label="best so far")
    reference = default.estimates.get(exp.objective)
    if reference is not None:
        ax.axhline(reference.mean, color="0.4", linestyle="--", label="defaults (held-out seeds)")
    ax.set_xlabel("setting")
    ax.set_ylabel(exp.objective)
    ax.set_title(f"{exp.path.name}: the search")
    ax.legend(fontsize=8)
    output = OutputFile(path)
    try:
        fig.savefig(output.temp())
    finally:
        plt.close(fig)
    output.commit()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``tune`` options."""
    parser.add_argument("experiment", metavar="EXP.toml", help="the tuning file (a batch experiment with [tune])")
    parser.add_argument("--out", metavar="DIR", help="results folder (default: EXP-results beside the file)")
    add_engine_options(parser, "search")
    parser.add_argument("--no-plots", action="store_true", help="write no plot")


COMMAND = Command(
    "tune",
    help="search an activity's parameters with Optuna, trials run as saphira batch's",
    description="Search the globals [tune.space] names with Optuna's TPE sampler: every proposed setting runs "
    "as a batch configuration (every [run] seed and start) into the resumable results folder; the best "
    "setting and the activity's defaults then run on the held-out seeds and are compared (95 % intervals).",
    epilog="exit status: 0 when done, 1 when no setting kept within the limits or a held-out trial failed, "
    "2 for a bad file or option or a --scheduler that cannot be reached, stops answering or goes away (the "
    "rows written stay; run the same command again to resume).",
    arguments="EXP.toml",
    summary="search an activity's parameters with Optuna, trials run as batch's (docs/learning.md)",
    add_arguments=add_arguments,
    run=run_tune,
)  # fmt: skip
