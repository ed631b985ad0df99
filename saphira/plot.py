"""Plotting a run: the robot's path over the world's walls, with the sonar hits (needs matplotlib).

matplotlib is an optional extra (``pip install 'saphira[plot]'``); it is imported only here, with the
non-interactive Agg backend, so a run on a headless machine writes a PNG and opens no window.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from saphira.errors import SaphiraError
from saphira.sim.world import World


class PlotError(SaphiraError):
    """matplotlib is missing, or the image could not be written."""


def plot_run(
    path: str | Path,
    trajectory: Sequence[tuple[float, float, float]],
    hits: Sequence[tuple[float, float]] = (),
    world: World | None = None,
    *,
    title: str = "",
    radius: float = 0.0,
    estimate: Sequence[tuple[float, float, float]] = (),
) -> Path:
    """Write a PNG of ``trajectory`` (x, y, th in mm/deg) over ``world`` with sonar ``hits``.

    ``estimate``, when given, is the robot's own idea of its path (odometry), drawn dashed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Circle
    except ImportError as exc:
        raise PlotError("--plot needs matplotlib: pip install 'saphira[plot]'") from exc

    fig, ax = plt.subplots(figsize=(9, 7), dpi=110)
    if world is not None and len(world.segments):
        walls = world.segments.reshape(-1, 2, 2) / 1000.0
        ax.add_collection(LineCollection(list(walls), colors="0.15", linewidths=1.2, label="walls"))
    if hits:
        hx, hy = zip(*hits, strict=True)
        ax.scatter([x / 1000 for x in hx], [y / 1000 for y in hy], s=2, c="tab:orange", alpha=0.5,
                   label="sonar hits", linewidths=0)  # fmt: skip
    if estimate:
        ax.plot([p[0] / 1000 for p in estimate], [p[1] / 1000 for p in estimate], "--", color="tab:purple",
                linewidth=1.0, label="global pose (belief)")  # fmt: skip
    if trajectory:
        xs = [p[0] / 1000 for p in trajectory]
        ys = [p[1] / 1000 for p in trajectory]
        ax.plot(xs, ys, color="tab:blue", linewidth=1.5, label="true path (simulator)" if estimate else "robot path")
        ax.plot(xs[0], ys[0], "o", color="tab:green", label="start")
        ax.plot(xs[-1], ys[-1], "s", color="tab:red", label="end")
        if radius > 0:
            ax.add_patch(Circle((xs[-1], ys[-1]), radius / 1000, fill=False, color="tab:red"))
    if world is not None:
        x0, y0, x1, y1 = world.bounds
        pad = 0.5
        ax.set_xlim(x0 / 1000 - pad, x1 / 1000 + pad)
        ax.set_ylim(y0 / 1000 - pad, y1 / 1000 + pad)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(title or (world.name if world is not None else "trajectory"))
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(True, linewidth=0.3)
    out = Path(path)
    try:
        fig.savefig(out, bbox_inches="tight")
    except OSError as exc:
        raise PlotError(f"cannot write {out}: {exc}") from exc
    finally:
        plt.close(fig)
    return out
