"""Frames of an episode: the run plot's figure (:func:`saphira.display.figure.draw_run`) as an RGB array."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from saphira.core.geometry import Pose
from saphira.display.figure import _matplotlib, draw_run
from saphira.world.world import World


def frame(
    world: World,
    trajectory: Sequence[Pose],
    estimate: Sequence[Pose],
    *,
    radius: float,
    title: str,
    goal: tuple[float, float] | None = None,
    others: Sequence[Sequence[Pose]] = (),
) -> np.ndarray:
    """The episode so far over the world's walls, as an ``(height, width, 3)`` uint8 image.

    ``trajectory`` is the true path, ``estimate`` the robot's own (odometry), ``goal`` drawn as a star,
    ``others`` the paths of other robots in the same world (grey, their ends as circles).
    """
    plt, _, _ = _matplotlib()
    fig = draw_run(trajectory, (), world, title=title, radius=radius, estimate=estimate)
    try:
        for path in others:
            xs, ys = [p[0] / 1000 for p in path], [p[1] / 1000 for p in path]
            fig.axes[0].plot(xs, ys, color="0.55", linewidth=1.0)
            fig.axes[0].plot(xs[-1:], ys[-1:], "o", color="0.55")
        if goal is not None:
            fig.axes[0].plot(goal[0] / 1000, goal[1] / 1000, "*", color="tab:red", markersize=12)
        fig.canvas.draw()
        rgba = np.asarray(fig.canvas.buffer_rgba())  # type: ignore[attr-defined]  # Agg's canvas
        return rgba[..., :3].copy()
    finally:
        plt.close(fig)
