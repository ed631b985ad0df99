"""Colbert bindings for map files and the occupancy grid (the Saphira manual §8.10, Display→Occ Grid).

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. Choices the manual leaves open:

* ``sfLoadMapFile(name)`` adds the file's artifacts to the pointlist (additive) and returns 0; when
  the file is missing or broken it prints why (file, line and column, with the line and a caret),
  loads nothing and returns -1. ``sfSaveMapFile(name)`` writes every map artifact and returns 0, or
  prints why and returns -1. Relative names are in ``sfMapDir``; both accept a name without the
  ``.smap`` suffix (see :mod:`saphira.perception.mapfile`).
* ``sfDeleteMapArtifacts()`` returns how many map artifacts it removed.
* ``sfMapDir`` is a settable string, the bundled ``maps/`` folder until set (one per session).
* ``sfInitOccGridProcs()`` starts the ``occ grid`` task that builds the robot's MURIEL-style sonar
  grid (:mod:`saphira.perception.occupancy`); the manual only had the menu (Display→Occ Grid), so the
  name follows its ``sfInit*Procs`` pattern. ``sfOccGridValue(x, y)`` is the occupancy probability of
  the cell at global (x, y): 0.5 where nothing is known.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from saphira.colbert.bindings.table import BindingTable
from saphira.core.errors import SaphiraError
from saphira.perception import mapfile
from saphira.perception.occupancy import occupancy_grid_for, start_occupancy_grid

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["table"]


class _Maps:
    """One session's map directory and the map calls that use it."""

    def __init__(self, s: Bindings) -> None:
        self.s = s
        self.map_dir = ""

    @property
    def folder(self) -> Path:
        return Path(self.map_dir) if self.map_dir else mapfile.default_map_dir()

    def load(self, name: str) -> int:
        try:
            mapfile.load_map_file(self.s.robot.reflector.pointlist, name, self.folder)
        except mapfile.MapFileError as exc:
            self.s.ctx.say(f"sfLoadMapFile: {exc.pretty()}")
            return -1
        except mapfile.MapNotFoundError as exc:
            self.s.ctx.say(f"sfLoadMapFile: {exc}")
            return -1
        return 0

    def save(self, name: str) -> int:
        try:
            mapfile.save_map_file(self.s.robot.reflector.pointlist, name, self.folder)
        except SaphiraError as exc:  # names the file it could not write, and why
            self.s.ctx.say(f"sfSaveMapFile: {exc}")
            return -1
        return 0

    def start_grid(self) -> None:
        start_occupancy_grid(self.s.robot.reflector, self.s.robot.scheduler)

    def get_dir(self) -> str:
        return str(self.folder)

    def set_dir(self, value: str) -> None:
        self.map_dir = value


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    maps = _Maps(s)
    return BindingTable(
        variables=[
            ("sfMapDir", "string", maps.get_dir, maps.set_dir, "folder for relative map file names"),
        ],
        functions=[
            ("sfLoadMapFile", "int(string)", maps.load, "add a map file's artifacts; 0 ok, -1 missing or broken"),
            ("sfSaveMapFile", "int(string)", maps.save, "write the map artifacts as a map file; 0 ok"),
            (
                "sfDeleteMapArtifacts",
                "int()",
                lambda: mapfile.delete_map_artifacts(s.robot.reflector.pointlist),
                "remove every map artifact; returns how many",
            ),
            ("sfInitOccGridProcs", "void()", maps.start_grid, "start the occ grid task (MURIEL sonar grid)"),
            (
                "sfOccGridValue",
                "float(float, float)",
                lambda x, y: occupancy_grid_for(s.robot.reflector).occupancy(x, y),
                "occupancy probability at global x, y (0.5: unknown)",
            ),
        ],
    )
