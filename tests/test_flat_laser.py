"""Flat's lasers and the Pioneer simulator's laser are one ray caster with two configurations.

:class:`saphira.flat.server.laser.LaserRig` casts through :func:`saphira.sim.laser.cast_scan`, as
:class:`saphira.sim.laser.SimLaser` does; a SimLaser set up as Flat's laser (on the centre, 180
readings half a degree off the axis ends, 8 m, no noise) reads exactly what the rig reads.
"""

from __future__ import annotations

import numpy as np
import pytest

from saphira.core.geometry import Pose
from saphira.flat.robot import MAX_RANGE
from saphira.flat.server.laser import LaserRig
from saphira.params.laser import LaserConfig
from saphira.sim.laser import SimLaser
from saphira.world.wld import parse_wld

WORLD = (
    "width 12000\nheight 8000\n0 0 12000 0\n12000 0 12000 8000\n12000 8000 0 8000\n0 8000 0 0\n"
    "push 6000 4000 30\n-400 -400 400 -400\n400 -400 400 400\n400 400 -400 400\n-400 400 -400 -400\npop\n"
    "2000 6000 4000 7000\n"
)


def _as_sim_laser(mount_th: float) -> SimLaser:
    """A Pioneer-simulator laser with Flat's geometry, pointing ``mount_th`` degrees counter-clockwise."""
    return SimLaser(
        LaserConfig(x=0.0, y=0.0, th=mount_th, start=-89.5, end=89.5, increment=1.0, max_range=MAX_RANGE, noise=0.0)
    )


@pytest.mark.parametrize("pose", [(3000.0, 3000.0, 20.0), (9000.0, 2000.0, 135.0), (1500.0, 7000.0, -60.0)])
@pytest.mark.parametrize("lasers", [1, 2])
def test_flat_lasers_read_what_the_pioneer_simulators_laser_reads(
    pose: tuple[float, float, float], lasers: int
) -> None:
    world = parse_wld(WORLD, "<room>")
    truth = Pose(*pose)
    scans = LaserRig.with_count(lasers).scan(world, truth)
    assert len(scans) == lasers
    for scan in scans:
        laser = _as_sim_laser(-scan.angle)  # Flat's mount angle counts clockwise
        assert laser.count == len(scan.ranges) == 180
        sim = laser.fire(truth, truth, world.index, np.random.default_rng(0))
        np.testing.assert_allclose(np.array(scan.ranges), sim.ranges, atol=1e-6)
        assert min(scan.ranges) < 4000.0 and max(scan.ranges) <= MAX_RANGE  # the walls, in reach
