"""The run's plot: the world fills the figure at equal aspect, and the legend never hides the path."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Polygon

from saphira.app.plot import draw_run, plot_run
from saphira.world.objects import COLOURS
from saphira.world.world import World, load_world


def tour(world: World) -> list[tuple[float, float, float]]:
    """A path that visits all four corners of the world (1 m in from the walls), 4 mm apart."""
    x0, y0, x1, y1 = world.bounds
    corners = [(x0 + 1000, y0 + 1000), (x1 - 1000, y0 + 1000), (x1 - 1000, y1 - 1000), (x0 + 1000, y1 - 1000)]
    path: list[tuple[float, float, float]] = []
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
        steps = max(int(math.dist((ax, ay), (bx, by)) / 4), 1)
        path += [(ax + (bx - ax) * i / steps, ay + (by - ay) * i / steps, 0.0) for i in range(steps)]
    return path


@pytest.mark.parametrize("name", ["simple", "corridor", "room"])
def test_the_world_fills_the_figure_and_the_legend_stays_off_the_path(name: str) -> None:
    world = load_world(name)
    path = tour(world)
    fig = draw_run(path, [(x, y + 300) for x, y, _ in path[::50]], world, estimate=path[::3], radius=250)
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend()
        assert legend is not None
        to_figure = fig.transFigure.inverted()
        box = legend.get_window_extent().transformed(to_figure)
        points = to_figure.transform(ax.transData.transform(np.array([(x / 1000, y / 1000) for x, y, _ in path])))
        inside = ((points[:, 0] >= box.x0) & (points[:, 0] <= box.x1) & (points[:, 1] >= box.y0)
                  & (points[:, 1] <= box.y1))  # fmt: skip
        assert not inside.any(), f"the legend covers {int(inside.sum())} points of the path"
        assert box.x0 >= 0 and box.x1 <= 1 and box.y0 >= 0 and box.y1 <= 1  # the legend is in the picture
        # The axes show the whole world...
        x0, y0, x1, y1 = (v / 1000 for v in world.bounds)
        (left, right), (bottom, top) = ax.get_xlim(), ax.get_ylim()
        assert left < x0 and right > x1 and bottom < y0 and top > y1
        # ...at equal aspect, in a box equal aspect did not have to shrink (no blank bands around it)...
        assert ax.get_aspect() == 1.0
        laid_out, drawn = ax.get_position(original=True), ax.get_position(original=False)
        assert drawn.width >= 0.99 * laid_out.width and drawn.height >= 0.99 * laid_out.height
        # ...that takes most of the figure: what is left is the labels, the title and the legend.
        assert drawn.width > 0.6 and drawn.height > 0.75
        # The world's own extent fills the axes' longer direction (padding aside).
        width_used = (x1 - x0) / (right - left)
        height_used = (y1 - y0) / (top - bottom)
        assert max(width_used, height_used) > 0.85
    finally:
        plt.close(fig)


def test_plot_run_writes_the_format_its_extension_names(tmp_path: Path) -> None:
    world = load_world("room")
    path = tour(world)
    png = plot_run(tmp_path / "run.png", path, world=world)
    svg = plot_run(tmp_path / "run.svg", path, world=world)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:1000]


def test_the_worlds_boxes_are_drawn_in_their_colours_where_the_file_puts_them() -> None:
    world = load_world("ftvs")
    assert world.objects
    fig = draw_run(tour(world), world=world)
    try:
        ax = fig.axes[0]
        boxes = [p for p in ax.patches if isinstance(p, Polygon)]
        assert len(boxes) == len(world.objects)
        for patch, spec in zip(boxes, world.objects, strict=True):
            corners = patch.get_xy()[:4] * 1000.0  # closed: the first corner comes again at the end
            assert np.allclose(corners.mean(axis=0), (spec.x, spec.y))
            sides = np.hypot(*np.diff(corners, axis=0).T)
            assert np.allclose(sides[:2], (spec.width, spec.depth))
            assert np.allclose(patch.get_facecolor()[:3], np.array(COLOURS[spec.colour]) / 255)
        legend = ax.get_legend()
        assert legend is not None and "boxes" in [t.get_text() for t in legend.get_texts()]
    finally:
        plt.close(fig)
