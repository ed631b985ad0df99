"""The simulated laser rangefinder: scans ray-cast against the world, and its protocol commands.

:class:`SimLaser` is one robot's laser (:class:`~saphira.params.laser.LaserConfig`). While a client
has it enabled it scans once per ``period`` (100 ms, the SIP cycle) from the robot's true pose with
:func:`cast_scan`, the ray caster of every simulator's laser (Flat's :class:`~saphira.flat.server.laser.LaserRig`
and Gamebots' :class:`~saphira.gamebots.server.laser.RangeScanner` too: one caster, their own configurations),
which gives the distances of :func:`~saphira.world.raycast.cast_rays` up to rounding; each reading is
the distance to the first wall (or other robot, or free box) plus N(0, ``noise``), clipped to
0..``max_range``, and ``max_range`` when nothing is within range (as AMRISim reports "no return").

Speed: a scan of 181 rays must cost well under a simulator step. :func:`~saphira.world.raycast.cast_even_fan`
(a compiled kernel, saphira/core/jit.py) tries each ray only against the walls that lie in its direction,
finding them by arithmetic on the evenly spaced bearings, and skips the walls behind a fan of half a
turn or less; the walls are prepared once per world (:class:`ScanCache`) and a robot standing still
reuses its last distances (fresh noise each scan). About 15 us a scan in
AMROffice's 243 walls (``bench/bench_laser.py``).

Commands (docs/protocol.md §8, AMRISim ``EmulatePioneer.cc``), both numberings accepted:

* SIM_LRF_ENABLE 230 / old SRISim 35: 0 off, 1 → 0x60 packets, 2 → 0x61 extended packets.
* SIM_LRF_SET_FOV_START 231 / 36 and _END 232 / 37: degrees about the laser's axis.
* SIM_LRF_SET_RES 233 / 38: degrees between readings × 100 (AMRISim divides by 100; ARIA's
  ``ArSimulatedLaser`` sends the increment × 100 on 38).

An optional laser-index byte after the argument is accepted and ignored (there is one laser).
A request for a robot whose parameter file says it has no laser is ignored and counted.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Final

import numpy as np

from saphira.client.sensors.laser import LaserScan
from saphira.core.arrays import FloatArray, IntArray
from saphira.core.geometry import Pose
from saphira.params.laser import LaserConfig, readings_for
from saphira.protocol.command_packet import CommandPacket
from saphira.protocol.commands import Command
from saphira.protocol.laser import FLAG_MOVED, laser_stream
from saphira.sim.devices import Handler, SimDevice
from saphira.world.raycast import FanWalls, SegmentIndex, cast_even_fan

log = logging.getLogger("saphira.sim.laser")

MAX_READINGS: Final = 2000
"""Most readings one scan may have (a resolution command asking for more is refused)."""

MODE_OFF: Final = 0
MODE_NORMAL: Final = 1
MODE_EXTENDED: Final = 2


class ScanCache:
    """One laser's ray-casting state (:func:`cast_scan`): the walls within its reach prepared for the fan,
    and its last distances.

    The preparation is kept while the walls stay the same: the index hands back the same id array for
    the same block of cells, a range that covers the whole grid (a SICK's 32 m in an office) needs no
    query at all, and ``extra`` (other robots, boxes) rarely changes. A laser standing still sees the
    same walls at the same distances: its last distances are handed back.
    """

    def __init__(self) -> None:
        self._walls: tuple[IntArray | None, SegmentIndex, bytes, FanWalls] | None = None
        self._key: tuple[object, ...] | None = None
        self._distances: FloatArray = np.zeros(0)

    def walls(
        self, index: SegmentIndex, origin: tuple[float, float], reach: float, extra: FloatArray | None
    ) -> FanWalls:
        """The walls (and ``extra`` segments) within ``reach`` of ``origin``, prepared for the fan."""
        x, y = origin
        size = index.cell_size
        ids: IntArray | None = None  # None: every wall of the index
        if not (
            x - reach <= index.x0
            and y - reach <= index.y0
            and x + reach >= index.x0 + index.nx * size
            and y + reach >= index.y0 + index.ny * size
        ):
            ids = index.query_box(x - reach, y - reach, x + reach, y + reach)
        more = extra.tobytes() if extra is not None and extra.shape[0] else b""
        cached = self._walls
        if cached is None or cached[0] is not ids or cached[1] is not index or cached[2] != more:
            segments = index.segments if ids is None else index.segments[ids]
            if more:
                segments = np.concatenate([segments, extra])
            cached = self._walls = (ids, index, more, FanWalls(segments))
        return cached[3]


def cast_scan(
    index: SegmentIndex,
    origin: tuple[float, float],
    first: float,
    increment: float,
    count: int,
    max_range: float,
    extra: FloatArray | None = None,
    cache: ScanCache | None = None,
) -> FloatArray:
    """Distance from ``origin`` to the first wall along each of ``count`` rays ``increment`` degrees apart
    from ``first`` (world degrees); inf beyond ``max_range``. Every simulator's laser scans here.

    ``extra`` are more segments (other robots' bodies). Only the walls within ``max_range`` are tried,
    each by the rays that point at it (:func:`~saphira.world.raycast.cast_even_fan`). A laser that scans
    every step keeps a :class:`ScanCache` (then the array may be the last call's: read it, don't write it).
    """
    cache = cache or ScanCache()
    walls = cache.walls(index, origin, max_range, extra)
    key = (origin, first, increment, count, walls, max_range)
    if key != cache._key:
        cache._key = key
        cache._distances = cast_even_fan(origin, first, increment, count, walls, max_range)
    return cache._distances


class SimLaser:
    """One robot's simulated laser: its settings, its enable state and its latest scan."""

    def __init__(self, config: LaserConfig, period: float = 0.1) -> None:
        self.config = config
        self.period = period
        self.mode = MODE_OFF
        self.start = config.start
        self.end = config.end
        self.increment = config.increment
        self.scan: LaserScan | None = None
        self.scans = 0
        self.moved = False
        """SIM_SET_POSE moved the robot since the last packet was sent (0x61 flags bit 0)."""
        self._clock = 0.0
        self._cache = ScanCache()
        self._angles: tuple[tuple[float, float, int], FloatArray] | None = None

    @property
    def enabled(self) -> bool:
        return self.mode != MODE_OFF

    @property
    def count(self) -> int:
        return readings_for(self.start, self.end, self.increment)

    def angles(self) -> FloatArray:
        """Bearing of each reading about the laser's axis, degrees."""
        return self.start + self.increment * np.arange(self.count, dtype=np.float64)

    def _robot_angles(self, count: int) -> FloatArray:
        """Bearing of each reading in the robot frame (the mount's heading added), kept while the settings stay."""
        key = (self.start, self.increment, count)
        if self._angles is None or self._angles[0] != key:
            self._angles = (key, self.config.th + self.start + self.increment * np.arange(count, dtype=np.float64))
        return self._angles[1]

    def set_mode(self, mode: int) -> None:
        self.mode = mode
        self._clock = self.period  # the first scan comes with the next step
        if mode == MODE_OFF:
            self.scan = None

    def due(self, dt: float) -> bool:
        """Advance the scan clock by ``dt`` s; True when a scan is due (at most one per call)."""
        if not self.enabled:
            return False
        self._clock += dt
        if self._clock + 1e-9 < self.period:
            return False
        self._clock = min(self._clock - self.period, self.period)
        return True

    def fire(
        self,
        true_pose: Pose,
        odometric: Pose,
        index: SegmentIndex,
        rng: np.random.Generator,
        extra: FloatArray | None = None,
    ) -> LaserScan:
        """Take a scan from the robot's true pose; it becomes :attr:`scan`: the client's
        :class:`~saphira.client.sensors.laser.LaserScan`, with the odometric pose (reported in 0x60)
        as ``robot_pose`` and the true pose as ``global_pose``."""
        config = self.config
        x, y, th = true_pose
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        origin = (x + c * config.x - s * config.y, y + s * config.x + c * config.y)
        count = self.count
        first = self.start + th + config.th
        distances = cast_scan(index, origin, first, self.increment, count, config.max_range, extra, self._cache)
        noisy = distances + rng.standard_normal(distances.shape[0]) * config.noise
        ranges = np.maximum(np.minimum(noisy, config.max_range), 0.0)  # no return (inf) reads as the maximum range
        self.scans += 1
        angles = self._robot_angles(count)
        self.scan = LaserScan(ranges, angles, odometric, true_pose, config.max_range, config.x, config.y,
                              sequence=self.scans)  # fmt: skip
        return self.scan

    def packets(self) -> bytes:
        """The latest scan as the packets the session asked for (empty when off or not scanned yet)."""
        scan = self.scan
        if scan is None or not self.enabled:
            return b""
        flags = FLAG_MOVED if self.moved else 0
        self.moved = False
        extended = self.mode == MODE_EXTENDED
        return laser_stream(scan.ranges, extended=extended, pose=scan.robot_pose, flags=flags)

    def reset(self) -> None:
        """Back to power-on: off, the parameter file's field of view and resolution."""
        self.set_mode(MODE_OFF)
        self.start, self.end, self.increment = self.config.start, self.config.end, self.config.increment
        self.moved = False


LASER_COMMANDS: Final[dict[int, str]] = {
    Command.SIM_LRF_ENABLE: "enable",
    Command.OLD_SIM_LRF_ENABLE: "enable",
    Command.SIM_LRF_SET_FOV_START: "start",
    Command.OLD_SIM_LRF_START: "start",
    Command.SIM_LRF_SET_FOV_END: "end",
    Command.OLD_SIM_LRF_END: "end",
    Command.SIM_LRF_SET_RES: "increment",
    Command.OLD_SIM_LRF_INCREMENT: "increment",
}
"""Laser command number → what it sets, in AMRISim's two numberings (230–233 and SRISim's 35–38)."""


def laser_handlers(
    laser: SimLaser | None, ignored: Counter[int], label: str
) -> dict[int, Callable[[CommandPacket], None]]:
    """The server's handlers for the laser commands of one robot (``laser`` None: it has none)."""

    def handle(command: CommandPacket) -> None:
        what = LASER_COMMANDS[command.command]
        value = command.int_value
        if laser is None:
            ignored[command.command] += 1
            log.info("%s: laser command %d ignored: the robot has no laser", label, command.command)
            return
        if what == "enable":
            if value not in (MODE_OFF, MODE_NORMAL, MODE_EXTENDED):
                ignored[command.command] += 1
                return
            laser.set_mode(value)
        elif what == "start":
            laser.start = float(value)
        elif what == "end":
            laser.end = float(value)
        else:
            increment = abs(value) / 100.0
            if increment <= 0.0 or readings_for(laser.start, laser.end, increment) > MAX_READINGS:
                ignored[command.command] += 1
                log.info("%s: laser resolution %d/100 deg refused", label, value)
                return
            laser.increment = increment
        if laser.start > laser.end:
            laser.start, laser.end = laser.end, laser.start

    return dict.fromkeys(LASER_COMMANDS, handle)


class LaserDevice(SimDevice):
    """The robot's laser on the wire (:mod:`saphira.sim.devices`): the SIM_LRF commands, and a full scan
    after every SIP while it is on (AMRISim); off at the start and end of every session."""

    name = "laser"
    order = 20

    def handlers(self, installed: Mapping[int, Handler]) -> dict[int, Handler]:
        server = self.server
        return laser_handlers(server.robot.laser, server.stats.ignored, server.label)

    def start_session(self) -> None:
        self.server.robot.laser_off()

    def end_session(self) -> None:
        self.server.robot.laser_off()

    def packets(self) -> bytes:
        return self.server.robot.laser_packets()
