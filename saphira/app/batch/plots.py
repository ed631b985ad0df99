"""A batch's plots, written beside ``trials.csv`` (needs matplotlib, the ``plot`` extra).

* ``metric_by_parameter.png`` — for each swept parameter (columns) and each ranked metric (rows: the
  objective and the ``at_most`` ones), every successful trial as a dot and the mean with its 95 %
  interval per value, so the effect of one parameter shows across all the others.
* ``trajectories.png`` — the true paths of the best trials (top row) and the worst (bottom row) by the
  objective, over the world's walls; failed trials count as the worst.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from saphira.app.batch.experiment import Experiment
from saphira.app.batch.summary import as_number, mean_estimate
from saphira.app.batch.trial import STATUS_OK, short_name
from saphira.app.plot import _matplotlib
from saphira.core.outfile import OutputFile
from saphira.world.world import World, load_world

METRIC_PLOT = "metric_by_parameter.png"
TRAJECTORY_PLOT = "trajectories.png"
TRAJECTORIES_PER_ROW = 3


def write_plots(folder: Path, exp: Experiment, rows: Sequence[dict[str, str]],
                paths: dict[str, list[tuple[int, int]]]) -> list[Path]:  # fmt: skip
    """Write both plots (each only when there is something to draw); the files written."""
    plt, LineCollection, _ = _matplotlib()
    written = []
    metrics = [m for m in dict.fromkeys([exp.objective, *exp.at_most]) if any(as_number(r.get(m, "")) is not None
                                                                               for r in rows)]  # fmt: skip
    numeric = [p for p in exp.parameter_names if all(as_number(r.get(p, "")) is not None for r in rows)]
    if metrics and numeric and rows:
        written.append(_metric_plot(plt, folder / METRIC_PLOT, metrics, numeric, rows))
    drawn = [r for r in rows if paths.get(r["trial"])]
    if drawn:
        written.append(_trajectory_plot(plt, LineCollection, folder / TRAJECTORY_PLOT, exp, drawn, paths))
    return written


def _save(plt: Any, fig: Any, out: Path) -> Path:
    """Write ``fig`` to ``out`` beside it first, so a failed write leaves an earlier plot whole."""
    with OutputFile(out) as output:
        try:
            fig.savefig(output.temp())
        finally:
            plt.close(fig)
    return out


def _metric_plot(
    plt: Any, out: Path, metrics: list[str], parameters: list[str], rows: Sequence[dict[str, str]]
) -> Path:
    fig, axes = plt.subplots(len(metrics), len(parameters), figsize=(4.2 * len(parameters), 3.2 * len(metrics)),
                             squeeze=False, dpi=100)  # fmt: skip
    ok = [r for r in rows if r.get("status") == STATUS_OK]
    for i, metric in enumerate(metrics):
        for j, parameter in enumerate(parameters):
            ax = axes[i][j]
            by_value: dict[float, list[float]] = {}
            for r in ok:
                x, y = as_number(r[parameter]), as_number(r.get(metric, ""))
                if x is not None and y is not None:
                    by_value.setdefault(x, []).append(y)
            for x, ys in by_value.items():
                ax.scatter([x] * len(ys), ys, s=10, color="tab:blue", alpha=0.35, linewidths=0)
            xs = sorted(by_value)
            estimates = [mean_estimate(by_value[x]) for x in xs]
            ax.errorbar(xs, [e.mean for e in estimates], yerr=[e.half_width or 0.0 for e in estimates],
                        color="tab:red", marker="o", capsize=4, label="mean, 95 % CI")  # fmt: skip
            ax.set_xlabel(parameter)
            ax.set_ylabel(metric)
            ax.grid(True, linewidth=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return _save(plt, fig, out)


def _ranked(exp: Experiment, rows: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """Rows from best to worst: successful ones by objective, failed ones last."""
    sign = -1.0 if exp.maximize else 1.0

    def key(row: dict[str, str]) -> tuple[int, float]:
        value = as_number(row.get(exp.objective, ""))
        if row.get("status") != STATUS_OK or value is None:
            return (1, 0.0)
        return (0, sign * value)

    return sorted(rows, key=key)


def _trajectory_plot(plt: Any, LineCollection: Any, out: Path, exp: Experiment, rows: Sequence[dict[str, str]],
                     paths: dict[str, list[tuple[int, int]]]) -> Path:  # fmt: skip
    ranked = _ranked(exp, rows)
    n = min(TRAJECTORIES_PER_ROW, math.ceil(len(ranked) / 2))
    picks = [("best", ranked[:n]), ("worst", ranked[::-1][:n] if len(ranked) > n else [])]
    picks = [(name, group) for name, group in picks if group]
    fig, axes = plt.subplots(len(picks), n, figsize=(4.0 * n, 3.8 * len(picks)), squeeze=False, dpi=100)
    worlds: dict[str, World] = {}
    by_label = {short_name(w): w for w in exp.worlds}
    parameters = exp.parameter_names
    for i, (name, group) in enumerate(picks):
        for j in range(n):
            ax = axes[i][j]
            if j >= len(group):
                ax.axis("off")
                continue
            row = group[j]
            world_name = by_label.get(row["world"], row["world"])
            if world_name not in worlds:
                worlds[world_name] = load_world(world_name)
            world = worlds[world_name]
            if len(world.segments):
                ax.add_collection(LineCollection(list(world.segments.reshape(-1, 2, 2) / 1000.0), colors="0.2",
                                                 linewidths=0.8))  # fmt: skip
            xs = [p[0] / 1000 for p in paths[row["trial"]]]
            ys = [p[1] / 1000 for p in paths[row["trial"]]]
            ax.plot(xs, ys, color="tab:blue" if row.get("status") == STATUS_OK else "tab:red", linewidth=1.2)
            ax.plot(xs[:1], ys[:1], "o", color="tab:green", markersize=4)
            setting = " ".join(f"{p}={row.get(p, '')}" for p in parameters)
            result = f"{exp.objective}={row.get(exp.objective, '') or '-'}" if row.get("status") == STATUS_OK \
                else row.get("status", "")  # fmt: skip
            ax.set_title(f"{name} {j + 1}: {setting} seed {row.get('seed', '')}\n{result}", fontsize=8)
            ax.set_aspect("equal")
            ax.autoscale_view()
            ax.tick_params(labelsize=7)
    fig.tight_layout()
    return _save(plt, fig, out)
