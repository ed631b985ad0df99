"""The summary of a batch: per configuration, each metric's mean with its 95 % confidence interval.

A configuration is a world, a parameter file and one setting of the swept parameters; its trials are
the seeds (and start poses) it ran with, which are replications of it. The interval is Student's t
interval of the mean over the configuration's successful trials (none with a single trial). The winner
is the configuration with the best mean objective among those whose every trial succeeded and kept
each ``at_most`` metric within its limit.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saphira.app.batch.experiment import Experiment
from saphira.app.batch.metrics import ACT_PREFIX, BUILTIN_METRICS, TIMING_COLUMNS
from saphira.app.batch.trial import STATUS_OK
from saphira.core.outfile import OutputFile

SUMMARY_FILE = "summary.csv"
IDENTITY_COLUMNS = ("trial", "status", "error", "world", "params", "start", "seed", "inputs")
SHOWN_BUILTINS = ("wall_contacts", "distance", "mean_speed")


@dataclass
class Estimate:
    """Mean of a metric over a configuration's trials and the half-width of its 95 % interval."""

    mean: float
    half_width: float | None

    def __str__(self) -> str:
        ci = f" ± {_short(self.half_width)}" if self.half_width is not None else ""
        return f"{_short(self.mean)}{ci}"


def _short(value: float) -> str:
    """Four significant digits, but never an exponent for the metres and mm/s of a run."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"


@dataclass
class ConfigSummary:
    """One configuration: its identity, how many trials ran and failed, and the metrics' estimates."""

    key: tuple[str, ...]
    label: str
    trials: int = 0
    failed: int = 0
    estimates: dict[str, Estimate] = field(default_factory=dict)
    rows: list[dict[str, str]] = field(default_factory=list)


def metric_columns(rows: Sequence[dict[str, str]], parameters: Sequence[str]) -> list[str]:
    """Numeric metric columns: the built-ins, then user metrics, in the order they appear."""
    seen: list[str] = []
    skip = set(IDENTITY_COLUMNS) | set(parameters) | set(TIMING_COLUMNS)
    for row in rows:
        for key in row:
            if key not in skip and not key.startswith(ACT_PREFIX) and key not in seen:
                seen.append(key)
    return [c for c in BUILTIN_METRICS if c in seen] + [c for c in seen if c not in BUILTIN_METRICS]


def summarize(exp: Experiment, rows: Sequence[dict[str, str]]) -> list[ConfigSummary]:
    """One :class:`ConfigSummary` per configuration, in the order configurations first appear."""
    parameters = exp.parameter_names
    key_columns = ["world", "params", *parameters]
    configs: dict[tuple[str, ...], ConfigSummary] = {}
    for row in rows:
        key = tuple(row.get(c, "") for c in key_columns)
        if key not in configs:
            shown = [f"{c}={row.get(c, '')}" for c in parameters]
            if len(exp.worlds) > 1:
                shown.insert(0, row.get("world", ""))
            if len(exp.params) > 1:
                shown.insert(0, row.get("params", ""))
            configs[key] = ConfigSummary(key, " ".join(shown) or "(all trials)")
        config = configs[key]
        config.trials += 1
        config.failed += row.get("status") != STATUS_OK
        config.rows.append(row)
    columns = metric_columns(rows, parameters)
    for config in configs.values():
        ok = [r for r in config.rows if r.get("status") == STATUS_OK]
        for column in columns:
            values = [v for v in (as_number(r.get(column, "")) for r in ok) if v is not None]
            if values:
                config.estimates[column] = mean_estimate(values)
    return list(configs.values())


def as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def mean_estimate(values: list[float]) -> Estimate:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Estimate(mean, None)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return Estimate(mean, t_975(n - 1) * sd / math.sqrt(n))


_T_975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
          2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
          2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)  # fmt: skip
"""Student's t 97.5 % quantiles for 1–30 degrees of freedom (the 95 % two-sided interval)."""


def t_975(df: int) -> float:
    """Student's t 97.5 % quantile: tabulated to 30 degrees of freedom, beyond by the Cornish–Fisher
    expansion about the normal quantile (within 2e-4 there), so the summary needs no statistics package."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    if df <= len(_T_975):
        return _T_975[df - 1]
    z = 1.959963984540054
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def feasible(exp: Experiment, config: ConfigSummary) -> bool:
    """Every trial succeeded and kept each ``at_most`` metric within its limit."""
    if config.failed or config.trials == 0 or exp.objective not in config.estimates:
        return False
    for metric, limit in exp.at_most.items():
        est = config.estimates.get(metric)
        if est is None or max(as_number(r.get(metric, "")) or 0.0 for r in config.rows) > limit:
            return False
    return True


def winner(exp: Experiment, configs: Sequence[ConfigSummary]) -> ConfigSummary | None:
    """The feasible configuration with the best mean objective (the first one on a tie)."""
    candidates = [c for c in configs if feasible(exp, c)]
    if not candidates:
        return None
    sign = 1.0 if exp.maximize else -1.0
    return max(candidates, key=lambda c: sign * c.estimates[exp.objective].mean)


def shown_metrics(exp: Experiment, rows: Sequence[dict[str, str]]) -> list[str]:
    """The metrics the terminal table shows: objective, limited ones, a few built-ins, user metrics."""
    columns = metric_columns(rows, exp.parameter_names)
    wanted = [exp.objective, *exp.at_most, *SHOWN_BUILTINS, *(c for c in columns if c not in BUILTIN_METRICS)]
    return [c for i, c in enumerate(wanted) if c in columns and c not in wanted[:i]]


def format_table(exp: Experiment, configs: Sequence[ConfigSummary], rows: Sequence[dict[str, str]]) -> str:
    """The terminal table: configuration, trials (failed), then mean ± 95 % CI of each shown metric."""
    metrics = shown_metrics(exp, rows)
    header = ["configuration", "trials", *metrics]
    body = [[c.label, f"{c.trials}" + (f" ({c.failed} failed)" if c.failed else ""),
             *(str(c.estimates[m]) if m in c.estimates else "-" for m in metrics)] for c in configs]  # fmt: skip
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
             for line in [header, *body]]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    best = winner(exp, configs)
    goal = f"{'highest' if exp.maximize else 'lowest'} mean {exp.objective}"
    limits = ", ".join(f"{m} ≤ {v:g}" for m, v in exp.at_most.items())
    within = f" with every trial ok and {limits}" if limits else " with every trial ok"
    if best is None:
        lines.append(f"no setting wins: none has a {exp.objective}{within}")
    else:
        lines.append(f"best setting ({goal}{within}): {best.label}: {exp.objective} {best.estimates[exp.objective]}")
    return "\n".join(lines)


def write_summary(
    path: Path, exp: Experiment, configs: Sequence[ConfigSummary], rows: Sequence[dict[str, str]]
) -> None:
    """``summary.csv``: one row per configuration, ``<metric>_mean`` and ``<metric>_ci95`` per metric."""
    metrics = metric_columns(rows, exp.parameter_names)
    params = ["world", "params", *exp.parameter_names]
    header = [*params, "trials", "failed"] + [f"{m}_{s}" for m in metrics for s in ("mean", "ci95")]
    with OutputFile(path) as output, output.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        for c in configs:
            cells: list[str] = [*c.key, str(c.trials), str(c.failed)]
            for m in metrics:
                est = c.estimates.get(m)
                half = f"{est.half_width:.6g}" if est is not None and est.half_width is not None else ""
                cells += [f"{est.mean:.6g}" if est is not None else "", half]
            writer.writerow(cells)
