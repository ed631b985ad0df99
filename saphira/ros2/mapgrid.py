"""A map's walls, or a sonar evidence grid, as a ROS 2 occupancy grid (``nav_msgs/OccupancyGrid``), what
Nav2's costmaps read.

The walls (rows x1 y1 x2 y2, mm, in the ``map`` frame) are drawn into cells of :data:`RESOLUTION`
(coarser when the map is larger than :data:`MAX_CELLS` cells): a cell a wall passes through is
occupied (100), every other cell within the walls' bounds free (0), as a map file says what is there.
"""

from __future__ import annotations

import math

import numpy as np

from saphira.core.arrays import FloatArray
from saphira.record.snapshot import Grid
from saphira.ros2 import messages as m

__all__ = ["MAX_CELLS", "RESOLUTION", "occupancy_from_grid", "occupancy_from_walls"]

RESOLUTION = 50.0
"""mm per cell (Nav2's maps are often 5 cm)."""
MAX_CELLS = 4_000_000
"""The most cells a grid has: a larger map is drawn with larger cells."""
MARGIN = 500.0
"""mm of free space drawn around the walls."""


def occupancy_from_walls(walls: FloatArray, stamp: m.Time) -> m.OccupancyGrid:
    """The grid of ``walls`` (see the module docstring), stamped ``stamp``."""
    x0 = float(np.minimum(walls[:, 0], walls[:, 2]).min()) - MARGIN
    y0 = float(np.minimum(walls[:, 1], walls[:, 3]).min()) - MARGIN
    x1 = float(np.maximum(walls[:, 0], walls[:, 2]).max()) + MARGIN
    y1 = float(np.maximum(walls[:, 1], walls[:, 3]).max()) + MARGIN
    res = max(RESOLUTION, math.sqrt((x1 - x0) * (y1 - y0) / MAX_CELLS))
    nx, ny = math.ceil((x1 - x0) / res), math.ceil((y1 - y0) / res)
    grid = np.zeros((ny, nx), dtype=np.int8)
    lengths = np.hypot(walls[:, 2] - walls[:, 0], walls[:, 3] - walls[:, 1])
    steps = np.maximum(2, np.ceil(lengths / (res / 2)).astype(np.int64) + 1)
    for (ax, ay, bx, by), n in zip(walls.tolist(), steps.tolist(), strict=True):
        f = np.linspace(0.0, 1.0, n)
        col = ((ax + f * (bx - ax) - x0) / res).astype(np.int64)
        row = ((ay + f * (by - ay) - y0) / res).astype(np.int64)
        grid[np.clip(row, 0, ny - 1), np.clip(col, 0, nx - 1)] = 100
    origin = m.Pose(m.Point(x0 / 1000, y0 / 1000, 0.0), m.Quaternion())
    info = m.MapMetaData(stamp, res / 1000, nx, ny, origin)
    return m.OccupancyGrid(m.Header(stamp, "map"), info, grid.ravel().tolist())


def occupancy_from_grid(grid: Grid, stamp: m.Time) -> m.OccupancyGrid:
    """A sonar evidence grid as ROS draws one: the probability of being occupied in percent, -1 where no
    reading has reached (no evidence)."""
    rows, cols = grid.probabilities.shape
    cells = np.where(grid.seen, np.rint(grid.probabilities * 100), -1).astype(np.int8)
    origin = m.Pose(m.Point(grid.origin[0] / 1000, grid.origin[1] / 1000, 0.0), m.Quaternion())
    info = m.MapMetaData(stamp, grid.resolution / 1000, cols, rows, origin)
    return m.OccupancyGrid(m.Header(stamp, "map"), info, cells.ravel().tolist())
