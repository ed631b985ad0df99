"""The figure of a run: the robot's path over the world's walls, with the sonar hits, the last laser scans
and the boxes (needs matplotlib).

Drawn here, below the commands, so that both ``saphira run --plot`` (:mod:`saphira.app.plot`, which writes
it to a file) and the learning environments' ``rgb_array`` frames (:mod:`saphira.learn`) draw the same
picture. matplotlib is an optional extra (``pip install 'saphira[plot]'``), imported only when a figure
is drawn, with the non-interactive Agg backend, so a headless machine opens no window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from saphira.core.arrays import FloatArray
from saphira.core.errors import SaphiraError
from saphira.core.geometry import Pose
from saphira.world.objects import COLOURS, SimObject
from saphira.world.world import World

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class PlotError(SaphiraError):
    """matplotlib is missing, or the image could not be written."""


AXES_LONG_SIDE = 8.0
"""Inches on the long side of the map; the short side follows from the world's aspect ratio."""
AXES_SHORT_MIN = 2.5
"""Inches the short side never goes below (a long corridor still gets a readable strip)."""
MARGIN = (0.9, 0.7, 0.25, 0.45)
"""Figure margins around the axes in inches: left, bottom, right of the legend, top (labels, title)."""
LEGEND_GAP = 0.15
"""Inches between the axes and the legend beside them."""
PAD = 0.5
"""Metres of space around the world's walls (or the data, without a world)."""

Extent = tuple[float, float, float, float]
Scan = tuple[FloatArray, FloatArray]
"""One laser scan's points in global mm: x array, y array."""


def _extent(world: World | None, *paths: Sequence[tuple[float, ...]]) -> Extent:
    """What the axes show, in metres: the world's bounds, else everything drawn; padded by :data:`PAD`."""
    if world is not None and world.bounds[2] > world.bounds[0] and world.bounds[3] > world.bounds[1]:
        x0, y0, x1, y1 = (v / 1000 for v in world.bounds)
    else:
        points = [(p[0] / 1000, p[1] / 1000) for path in paths for p in path] or [(0.0, 0.0)]
        xs, ys = zip(*points, strict=True)
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    return x0 - PAD, y0 - PAD, x1 + PAD, y1 + PAD


def draw_run(
    trajectory: Sequence[Pose],
    hits: Sequence[tuple[float, float]] = (),
    world: World | None = None,
    *,
    title: str = "",
    radius: float = 0.0,
    estimate: Sequence[Pose] = (),
    scans: Sequence[Scan] = (),
    objects: Sequence[SimObject] | None = None,
) -> Figure:
    """The figure :func:`plot_run` writes (the caller closes it with ``matplotlib.pyplot.close``).

    The axes are sized to the world at equal aspect, so the map fills them with no blank bands, and
    the legend stands beside the axes, where it cannot hide the path.
    """
    plt, LineCollection, Circle = _matplotlib()
    x0, y0, x1, y1 = _extent(world, trajectory, estimate, hits)
    scale = AXES_LONG_SIDE / max(x1 - x0, y1 - y0)
    ax_w, ax_h = max((x1 - x0) * scale, AXES_SHORT_MIN), max((y1 - y0) * scale, AXES_SHORT_MIN)
    left, bottom, right, top = MARGIN
    fig: Figure = plt.figure(figsize=(left + ax_w + right, bottom + ax_h + top), dpi=110)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    if world is not None and len(world.segments):
        walls = world.segments.reshape(-1, 2, 2) / 1000.0
        ax.add_collection(LineCollection(list(walls), colors="0.15", linewidths=1.2, label="walls"))
    boxes = objects if objects is not None else [SimObject(spec) for spec in world.objects] if world else []
    if boxes:
        _draw_boxes(ax, boxes)
    if world is not None and world.goals:
        _draw_goals(ax, world)
    if hits:
        hx, hy = zip(*hits, strict=True)
        ax.scatter([x / 1000 for x in hx], [y / 1000 for y in hy], s=2, c="tab:orange", alpha=0.5,
                   label="sonar hits", linewidths=0)  # fmt: skip
    for k, (sx, sy) in enumerate(scans):
        newest = k == len(scans) - 1
        ax.scatter(sx / 1000.0, sy / 1000.0, s=6 if newest else 2, c="tab:cyan" if newest else "tab:olive",
                   alpha=0.9 if newest else 0.35, linewidths=0,
                   label="last laser scan" if newest else ("earlier scans" if k == 0 else "_nolegend_"))  # fmt: skip
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
    # The short side may have been widened to AXES_SHORT_MIN: centre the world in it.
    cx, cy, half_w, half_h = (x0 + x1) / 2, (y0 + y1) / 2, ax_w / scale / 2, ax_h / scale / 2
    ax.set_xlim(cx - half_w, cx + half_w)
    ax.set_ylim(cy - half_h, cy + half_h)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(title or (world.name if world is not None else "trajectory"))
    ax.grid(True, linewidth=0.3)
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.0, fontsize=8)
    # Widen the figure by the legend's measured width, then place the axes in inches.
    fig.canvas.draw()
    legend_w = legend.get_window_extent().width / fig.dpi
    fig_w, fig_h = left + ax_w + LEGEND_GAP + legend_w + right, bottom + ax_h + top
    fig.set_size_inches(fig_w, fig_h)
    ax.set_position((left / fig_w, bottom / fig_h, ax_w / fig_w, ax_h / fig_h))
    legend.set_bbox_to_anchor((1.0 + LEGEND_GAP / ax_w, 1.0), transform=ax.transAxes)
    return fig


def _draw_goals(ax: Any, world: World) -> None:
    """The world's named goals: a ring each, labelled with its name (the label is the goal's name)."""
    gx = [pose.x / 1000 for _, pose in world.goals]
    gy = [pose.y / 1000 for _, pose in world.goals]
    ax.scatter(gx, gy, s=60, facecolors="none", edgecolors="seagreen", linewidths=1.5, label="goals")
    for (name, _), x, y in zip(world.goals, gx, gy, strict=True):
        ax.annotate(name, (x, y), xytext=(6, -12), textcoords="offset points", fontsize=8, color="seagreen")


def _draw_boxes(ax: Any, boxes: Sequence[SimObject]) -> None:
    """The boxes as footprints filled in their colours, where they stand (a run's boxes where they ended)."""
    from matplotlib.patches import Polygon

    for k, box in enumerate(boxes):
        colour = tuple(c / 255 for c in COLOURS[box.colour])
        label = "boxes" if k == 0 else "_nolegend_"
        ax.add_patch(Polygon(box.corners() / 1000.0, closed=True, facecolor=colour, edgecolor="0.15",
                             linewidth=0.6, label=label))  # fmt: skip


def _matplotlib() -> tuple[Any, Any, Any]:
    """pyplot (with the Agg backend), LineCollection and Circle; a :class:`PlotError` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Circle
    except ImportError as exc:
        raise PlotError("--plot needs matplotlib: pip install 'saphira[plot]'") from exc
    return plt, LineCollection, Circle
