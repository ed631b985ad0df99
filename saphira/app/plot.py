"""Plotting a run to a file: :func:`~saphira.display.figure.draw_run`'s figure written as PNG, PDF, SVG…

matplotlib is an optional extra (``pip install 'saphira[plot]'``); it is imported only when a plot is
written, with the non-interactive Agg backend, so a run on a headless machine writes a PNG and opens no window.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from saphira.core.geometry import Pose
from saphira.core.outfile import OutputFile
from saphira.display.figure import PlotError, Scan, _matplotlib, draw_run
from saphira.world.objects import SimObject
from saphira.world.world import World

__all__ = ["PlotError", "_matplotlib", "draw_run", "plot_run"]


def plot_run(
    path: str | Path,
    trajectory: Sequence[Pose],
    hits: Sequence[tuple[float, float]] = (),
    world: World | None = None,
    *,
    title: str = "",
    radius: float = 0.0,
    estimate: Sequence[Pose] = (),
    scans: Sequence[Scan] = (),
    objects: Sequence[SimObject] | None = None,
) -> Path:
    """Write an image of ``trajectory`` (x, y, th in mm/deg) over ``world`` with sonar ``hits``.

    ``estimate``, when given, is the robot's own idea of its path (odometry), drawn dashed; ``scans``
    the last laser scans (global points), the newest brightest; ``objects`` the boxes as they stand at
    the end (the world file's placement when None). The format follows the file's extension (PNG, PDF,
    SVG: whatever matplotlib writes). An existing file is replaced only once the new image is whole.
    """
    plt, _, _ = _matplotlib()
    fig = draw_run(trajectory, hits, world, title=title, radius=radius, estimate=estimate, scans=scans,
                   objects=objects)  # fmt: skip
    output = OutputFile(path)  # drawn beside, then moved over an existing file
    try:
        fig.savefig(output.temp())
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: e.g. .pgf without LaTeX
        output.discard()
        raise PlotError(f"cannot write {output.path}: {exc}") from exc
    finally:
        plt.close(fig)
    return output.commit()
