"""``saphira batch EXP.toml --out DIR``: run an experiment's trials and summarise them.

Prints what will run, a progress bar with ETA (stderr), then the summary table per configuration and
the winning setting (stdout); writes ``DIR/trials.csv``, ``DIR/summary.csv`` and the plots. Exit status
0 when every trial succeeded, 1 when any failed, hung or crashed (they are rows like the others), 2 for
a bad experiment file or option or a ``--scheduler`` that cannot be reached, stops answering or goes
away (said in one line, with how to resume), 130 after SIGINT and 143 after SIGTERM (the trials
running then write no row; run the same command again to resume).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from saphira.app.commands import Command
from saphira.core.argtypes import positive_int, positive_seconds
from saphira.core.errors import SaphiraError
from saphira.core.interrupts import StopSignals, signalled
from saphira.core.outfile import EXISTING_OUTPUT

if TYPE_CHECKING:  # the command's modules are imported when it runs, not when the parser is built
    from saphira.app.batch.experiment import Experiment
    from saphira.app.batch.results import ResultsDir
    from saphira.app.batch.runner import EngineOptions
    from saphira.app.batch.trial import TrialResult

MAX_ERRORS_SHOWN = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``batch`` options."""
    parser.add_argument("experiment", metavar="EXP.toml", help="the experiment file")
    parser.add_argument(
        "--out", metavar="DIR",
        help="results folder (default: EXP-results beside the file); trials.csv is added to (the resume), "
        f"summary.csv, the plots and kept recordings replaced: {EXISTING_OUTPUT}",
    )  # fmt: skip
    add_engine_options(parser, "batch")
    parser.add_argument("--no-plots", action="store_true", help="write no plots")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def add_engine_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Where the trials run (``--serial``, ``--scheduler``, ``--workers``): the same for ``batch`` and ``tune``."""
    engine = parser.add_mutually_exclusive_group()
    engine.add_argument(
        "--serial", action="store_true", help="run the trials one by one without a cluster, each in a child process"
    )
    engine.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="submit to a running Dask scheduler, "
        "e.g. tcp://HOST:8786 (its workers need saphira and the experiment's files)",
    )
    parser.add_argument(
        "--scheduler-timeout", type=positive_seconds, default=20.0, metavar="SECONDS",
        help=f"how long --scheduler may take to answer any request before the {command} gives up with status 2 "
        "(default 20)",
    )  # fmt: skip
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes of the local cluster (default: one per core)",
    )


def engine_options(args: argparse.Namespace) -> EngineOptions:
    """The :func:`add_engine_options` given; a :class:`~saphira.core.errors.SaphiraError` for a bad mix."""
    from saphira.app.batch.runner import EngineOptions

    if args.workers and (args.serial or args.scheduler):
        raise SaphiraError("--workers sizes the local cluster; it does not go with --serial or --scheduler")
    return EngineOptions(serial=args.serial, workers=args.workers, scheduler=args.scheduler,
                         scheduler_timeout=args.scheduler_timeout)  # fmt: skip


def run_batch(args: argparse.Namespace) -> int:
    """The ``saphira batch`` command."""
    from saphira.app.batch.experiment import load_experiment
    from saphira.app.batch.parameters import check_parameters
    from saphira.app.batch.progress import Progress
    from saphira.app.batch.results import TRIALS_FILE, ResultsDir
    from saphira.app.batch.runner import SchedulerLost, run_trials
    from saphira.app.batch.trial import STATUS_OK

    try:
        options = engine_options(args)
    except SaphiraError as exc:
        print(f"saphira batch: {exc}", file=sys.stderr)
        return 2
    exp = load_experiment(args.experiment)
    check_parameters(exp)  # a misspelled key stops the batch here, not in every trial
    out = Path(args.out) if args.out else exp.path.with_name(exp.path.stem + "-results")
    trials = exp.trials()
    results = ResultsDir(out, leading=["trial", "status", "error", "world", "params", "start",
                                       *exp.parameter_names, "seed"])  # fmt: skip
    todo = len(trials) - len(results.current(trials))
    resumed = f"; {len(trials) - todo} already in {out / TRIALS_FILE}" if todo < len(trials) else ""
    print(f"{exp.path.name}: {len(trials)} trials of {exp.duration:g} s{resumed}; running {todo} "
          f"{options.describe()}", flush=True)  # fmt: skip
    progress = Progress(todo) if not args.quiet else None

    def arrived(result: TrialResult) -> None:
        if progress is not None:
            progress.advance(result.status != STATUS_OK)

    try:
        # SIGINT and SIGTERM end the batch at once: the trials running then write no row.
        with StopSignals() as signals:
            run_trials(trials, results, options, arrived)
        signals.raise_received()  # its exception was swallowed where Python ignores them (a finaliser, a callback)
    except KeyboardInterrupt as exc:
        if progress is not None:
            progress.close()
        signum = getattr(exc, "signum", signal.SIGINT)
        done = len(results.current(trials))
        print(f"interrupted by {signal.Signals(signum).name}: {done} of {len(trials)} trials are in "
              f"{out / TRIALS_FILE} (those running then wrote nothing); run the same command to resume")  # fmt: skip
        return signalled(signum)
    except SchedulerLost as exc:
        if progress is not None:
            progress.close()
        done = len(results.current(trials))
        print(f"saphira batch: {exc}; {done} of {len(trials)} trials are in {out / TRIALS_FILE}; run the same "
              "command again to resume", file=sys.stderr)  # fmt: skip
        return 2
    finally:
        results.close()
    if progress is not None:
        progress.close()
    current = results.current(trials)  # in the experiment's order, each trial's row from its inputs of now
    rows = [current[t.trial_id] for t in trials if t.trial_id in current]
    return _report(args, exp, out, results, rows)


def _report(
    args: argparse.Namespace, exp: Experiment, out: Path, results: ResultsDir, rows: list[dict[str, str]]
) -> int:
    from saphira.app.batch.results import TRIALS_FILE
    from saphira.app.batch.summary import SUMMARY_FILE, format_table, summarize, write_summary
    from saphira.app.batch.trial import STATUS_OK

    configs = summarize(exp, rows)
    print(format_table(exp, configs, rows))
    write_summary(out / SUMMARY_FILE, exp, configs, rows)
    failed = [r for r in rows if r["status"] != STATUS_OK]
    for row in failed[:MAX_ERRORS_SHOWN]:
        print(f"  trial {row['trial']} ({row['status']}): {row['error']}")
    if len(failed) > MAX_ERRORS_SHOWN:
        print(f"  ... and {len(failed) - MAX_ERRORS_SHOWN} more failed trials: see {out / TRIALS_FILE}")
    written = [out / TRIALS_FILE, out / SUMMARY_FILE]
    if not args.no_plots:
        try:
            from saphira.app.batch.plots import write_plots

            written += write_plots(out, exp, rows, results.paths())
        except SaphiraError as exc:  # matplotlib missing
            print(f"no plots: {exc}")
    print("wrote " + ", ".join(str(p) for p in written))
    return 1 if failed else 0


COMMAND = Command(
    "batch",
    help="run an experiment: many lock-step trials",
    description="Run every trial of an experiment file (worlds x params x parameter grid x starts x seeds) "
    "against the embedded simulator in lock-step, on a local Dask cluster (one worker per core) by default. "
    "Each trial's row is written to DIR/trials.csv as it ends; an interrupted batch run again skips the "
    "trials already there whose files (the activity and what it loads, world, params, hook) are unchanged. "
    "A trial that hangs is killed at its time limit (a timeout row), one whose process dies is a crashed "
    "row, and the batch goes on. Prints a summary per configuration (mean, 95 % CI) and the best setting, and "
    "writes DIR/summary.csv and plots (with matplotlib).",
    epilog="exit status: 0 when every trial succeeded, 1 when any failed, hung or crashed, 2 for a bad "
    "experiment file or option or a --scheduler that cannot be reached, stops answering or goes away "
    "(the rows written stay; run the same command again to resume), 130 when interrupted by Ctrl-C, "
    "143 by SIGTERM (the trials running then "
    "write no row; run the same command again to resume).",
    arguments="EXP.toml",
    summary="run an experiment's many lock-step trials (locally or on a Dask cluster) and summarise them",
    add_arguments=add_arguments,
    run=run_batch,
)  # fmt: skip
