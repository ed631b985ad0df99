"""The laser on the client side: THE scan type, its reassembly from packets, and the reflector's LPS ring.

:class:`LaserScan` is the one scan type: the Pioneer protocol's packets (reassembled here), Flat's and
Gamebots' wire messages (``flat.codec.LaserReading``, ``gamebots.codec.RangeScannerMessage``, converted
by their links) and the Pioneer simulator's laser (:class:`saphira.sim.laser.SimLaser`) all come as one.

:class:`ReflectedLaser` is the laser device (:mod:`saphira.client.sensors.device`): the link's device
layer hands it the 0x60/0x61 packets.

A simulator sends each scan as several 0x60/0x61 packets (:mod:`saphira.protocol.laser`).
:class:`LaserAssembler` puts them back together: a packet with index 0 starts a scan and records the
robot's pose (as ARIA's ``ArSimulatedLaser`` does), each next packet must continue where the last one
ended, and the scan is complete when its last reading arrives. When the indices wrap back to 0 before
that, or skip (a packet lost), or the total changes, the partial scan is dropped and counted — a scan
is never stitched from two.

:class:`ReflectedLaser` keeps the latest complete :class:`LaserScan` (robot pose at scan time,
ranges, angles) and a :class:`LaserRing` of its points in the LPS. The ring is moved with the robot
like the sonar buffers; it joins the sonar's LPS pool (:meth:`saphira.client.sensors.sonar.Sonar.join`), so the
occupancy queries read it too.

Choices made here:

* A reading at the laser's maximum range (or beyond) is "no return" and gives no point.
* Occupancy queries see laser points out to :data:`~saphira.client.sensors.sonar.NO_ECHO` (5 m), the horizon their
  answers are defined for; a point joins the query's region (front, sides, back) by its bearing from
  the robot's centre, with the sonar's ±60° partition. Laser and sonar points are simply pooled: the
  nearest wins, whichever sensor saw it.
* The ring holds the latest scan only; a new scan replaces it (a laser sees all around each cycle,
  unlike a sonar ring, so there is nothing older to keep).
* The link asks for the laser (:func:`laser_request`) only from a simulator — CONFIG serial ``SIM``
  or the name ``MobileSim``/``AMRISim``/``saphira-sim``, as ARIA decides — since a real robot's laser
  is on its own serial port, and these command numbers mean other things to a real controller.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final

import numpy as np

from saphira.client.sensors.device import Device, DeviceBinding, DeviceError
from saphira.client.sensors.sonar import NO_ECHO, Region, move_points, region_mask
from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose, change_vp, cos_sin
from saphira.params.laser import LaserConfig, laser_config
from saphira.params.robot_params import RobotParams
from saphira.protocol.commands import Command
from saphira.protocol.config import ConfigPacket
from saphira.protocol.laser import LASER_IDS, LaserPacket, decode_laser
from saphira.protocol.sync import RobotIdentity

if TYPE_CHECKING:
    from saphira.client.reflector import Reflector
    from saphira.robot import Robot

SIMULATOR_NAMES: Final = frozenset({"mobilesim", "amrisim", "saphira-sim"})


@dataclass(frozen=True)
class LaserScan:
    """One complete scan: ``ranges`` (mm) at ``angles`` (degrees in the robot frame, the mount's
    heading included), taken from the laser at (``mount_x``, ``mount_y``) on the body.

    ``robot_pose`` and ``global_pose`` are the odometric and global robot poses when the scan was
    taken: on the client the reflector's when its first packet arrived, in the simulator the robot's
    odometric and true pose. ``reported_pose`` is the odometric pose a 0x60 packet carries (x mm,
    y mm, th deg, in the server's 16-bit frame), None for 0x61 and the other protocols.
    ``sequence`` counts the scans of whoever keeps them (the reflector numbers those it keeps).
    """

    ranges: FloatArray
    angles: FloatArray
    robot_pose: Pose
    global_pose: Pose
    max_range: float
    mount_x: float = 0.0
    mount_y: float = 0.0
    reported_pose: tuple[int, int, int] | None = None
    reflectance: tuple[int, ...] = ()
    sequence: int = 0

    @property
    def count(self) -> int:
        return int(self.ranges.shape[0])

    def points(self) -> tuple[FloatArray, FloatArray]:
        """Robot-frame x, y (mm, at scan time) of every reading with a return (below ``max_range``)."""
        keep = self.ranges < min(self.max_range, 0xFFFF)  # the wire's u16 caps longer ranges
        rad = np.radians(self.angles[keep])
        r = self.ranges[keep]
        return self.mount_x + r * np.cos(rad), self.mount_y + r * np.sin(rad)


class LaserRing:
    """The latest scan's points in the LPS (robot frame), moved with the robot."""

    def __init__(self) -> None:
        self.xs: FloatArray = np.zeros(0)
        self.ys: FloatArray = np.zeros(0)
        self.version = 0
        """Bumped by every change to the points, so :meth:`Sonar.points` can cache what it pools."""

    def replace(self, xs: FloatArray, ys: FloatArray) -> None:
        self.xs, self.ys = np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)
        self.version += 1

    def clear(self) -> None:
        self.replace(np.zeros(0), np.zeros(0))

    @property
    def size(self) -> int:
        return int(self.xs.size)

    def move(self, cos_t: float, sin_t: float, dx: float, dy: float) -> None:
        """Re-express the points after the robot moved (dx, dy) and turned (cos_t, sin_t)."""
        self.xs, self.ys = self.xs.copy(), self.ys.copy()  # new arrays: whoever holds the old ones keeps them
        move_points(self.xs, self.ys, cos_t, sin_t, dx, dy)
        self.version += 1

    def points(self, source: Region = Region.ALL) -> tuple[FloatArray, FloatArray]:
        """The points within :data:`NO_ECHO` of the robot in the region ``source`` selects."""
        mask = (np.hypot(self.xs, self.ys) < NO_ECHO) & region_mask(self.xs, self.ys, source)
        return self.xs[mask], self.ys[mask]


@dataclass
class AssemblerCounters:
    packets: int = 0
    scans: int = 0
    broken: int = 0
    """Partial scans dropped (a lost packet, indices that wrapped early, a changed total)."""
    stray: int = 0
    """Packets that did not start a scan and continued none (the middle of a scan joined late)."""


@dataclass
class LaserAssembler:
    """Reassembles scans from their packets (see the module docstring for the rules); the laser device
    owns one (:class:`ReflectedLaser`)."""

    counters: AssemblerCounters = field(default_factory=AssemblerCounters)
    _ranges: list[int] = field(default_factory=list)
    _refl: list[int] = field(default_factory=list)
    _total: int = 0
    _first: LaserPacket | None = None
    _poses: tuple[Pose, Pose] = (Pose(), Pose())

    def reset(self) -> None:
        self._ranges.clear()
        self._refl.clear()
        self._first = None

    def feed(self, packet: LaserPacket, robot_pose: Pose, global_pose: Pose) -> LaserPacket | None:
        """Take one packet; the scan's first packet when this one completes it, else None.

        The complete scan's readings are then in :meth:`ranges` and :meth:`reflectance`.
        """
        self.counters.packets += 1
        if packet.first == 0:
            if self._first is not None:
                self.counters.broken += 1
            self.reset()
            self._first, self._total, self._poses = packet, packet.total, (robot_pose, global_pose)
        elif self._first is None:
            self.counters.stray += 1
            return None
        elif packet.first != len(self._ranges) or packet.total != self._total:
            self.counters.broken += 1
            self.reset()
            return None
        self._ranges.extend(packet.ranges)
        self._refl.extend(packet.reflectance)
        if len(self._ranges) < self._total:
            return None
        first, self._first = self._first, None
        self.counters.scans += 1
        return first

    @property
    def poses(self) -> tuple[Pose, Pose]:
        """(odometric, global) robot pose when the last scan's first packet arrived."""
        return self._poses

    def ranges(self) -> FloatArray:
        return np.array(self._ranges, dtype=np.float64)

    def reflectance(self) -> tuple[int, ...]:
        return tuple(self._refl)

    def scan(self, first: LaserPacket, config: LaserConfig) -> LaserScan:
        """The scan :meth:`feed` just completed (``first`` its first packet), as ``config``'s laser took it."""
        ranges = self.ranges()
        angles = config.th + np.array(config.angles(ranges.shape[0]), dtype=np.float64)
        at_odo, at_global = self._poses
        return LaserScan(ranges, angles, at_odo, at_global, config.max_range, config.x, config.y,
                         first.pose, self.reflectance())  # fmt: skip


class ReflectedLaser(Device):
    """The laser device: configuration, the scan being reassembled from its 0x60/0x61 packets, the latest
    scan and the LPS ring. Flat's and Gamebots' links hand it whole scans (:meth:`keep`, through
    :meth:`~saphira.client.reflector.Reflector.apply_laser_scan`)."""

    name = "laser"
    packet_ids = LASER_IDS

    def __init__(self, reflector: Reflector, config: LaserConfig | None = None) -> None:
        super().__init__(reflector)
        self.config = config or LaserConfig()
        self.assembler = LaserAssembler()
        """The scan being reassembled, and the counts of packets, scans and broken scans."""
        self.ring = LaserRing()
        self.scan: LaserScan | None = None
        self.scans = 0
        """Complete scans taken in (``sfLaserScans``), whichever link brought them."""

    def configure(self, params: RobotParams) -> None:
        """The laser the parameter file declares (or the default one): no scan of another laser is kept."""
        self.config = laser_config(params, assume=True) or LaserConfig()
        self.ring = LaserRing()
        self.scan = None
        self.scans = 0

    def restart(self) -> None:
        """A new session: no scan yet, none being reassembled."""
        self.ring.clear()
        self.scan = None
        self.assembler.reset()

    def lps_source(self) -> LaserRing:
        return self.ring

    def apply(self, payload: bytes, now: float) -> None:
        """Fold one 0x60/0x61 packet in (PacketError if malformed); a scan it completes is kept."""
        state = self.reflector.state
        first = self.assembler.feed(decode_laser(payload), state.odo_pose, state.global_pose)
        if first is not None:
            self.reflector.apply_laser_scan(self.assembler.scan(first, self.config))

    @classmethod
    def bindings(cls) -> Sequence[DeviceBinding]:
        """``sfLaserCount``... (docs/colbert.md; Saphira had no laser built-ins: they follow its sonar ones)."""
        return [
            DeviceBinding("sfLaserCount", "int()", _count, "readings in the latest laser scan (0: none yet)"),
            DeviceBinding("sfLaserScans", "int()", lambda r: laser_of(r).scans, "complete laser scans received"),
            DeviceBinding("sfLaserRange", "int(int)", lambda r, i: round(float(_reading(r, i)[0])),
                          "range of laser reading i, mm"),
            DeviceBinding("sfLaserAngle", "float(int)", lambda r, i: _reading(r, i)[1],
                          "bearing of laser reading i, degrees"),
            DeviceBinding("sfLaserXCoord", "float(int)", lambda r, i: _coord(r, i)[0],
                          "x of laser reading i (robot frame)"),
            DeviceBinding("sfLaserYCoord", "float(int)", lambda r, i: _coord(r, i)[1],
                          "y of laser reading i (robot frame)"),
        ]  # fmt: skip

    def keep(self, scan: LaserScan, robot_pose: Pose) -> LaserScan:
        """Make ``scan``, numbered as the next one, the latest and its points the LPS ring, moved from the
        scan's robot pose to ``robot_pose`` (the odometric pose now)."""
        self.scans += 1
        scan = self.scan = replace(scan, sequence=self.scans)
        xs, ys = scan.points()
        self.ring.replace(xs, ys)
        dx, dy, dth = change_vp(scan.robot_pose, robot_pose)  # the motion since, in the scan's frame
        if dx or dy or dth:
            self.ring.move(*cos_sin(dth), dx, dy)
        return scan


def laser_of(robot: Robot) -> ReflectedLaser:
    """The robot's laser device."""
    return robot.reflector.device("laser", ReflectedLaser)


def _count(robot: Robot) -> int:
    scan = laser_of(robot).scan
    return 0 if scan is None else scan.count


def _reading(robot: Robot, index: int) -> tuple[float, float]:
    """(range mm, bearing deg) of reading ``index`` of the latest scan; DeviceError naming what is missing."""
    scan = laser_of(robot).scan
    if scan is None:
        raise DeviceError("no laser scan has arrived (does the robot have a laser?)")
    if not 0 <= index < scan.count:
        raise DeviceError(f"there is no laser reading {index} (the scan has {scan.count})")
    return float(scan.ranges[index]), float(scan.angles[index])


def _coord(robot: Robot, index: int) -> tuple[float, float]:
    """Reading ``index``'s point in the robot frame when the scan was taken."""
    r, angle = _reading(robot, index)
    scan = laser_of(robot).scan
    assert scan is not None  # _reading checked it
    rad = math.radians(angle)
    return scan.mount_x + r * math.cos(rad), scan.mount_y + r * math.sin(rad)


def is_simulator(identity: RobotIdentity | None, config: ConfigPacket | None) -> bool:
    """ARIA's test: the SYNC2 name is a simulator's, or the CONFIG serial number is ``SIM``."""
    named = identity is not None and identity.name.lower() in SIMULATOR_NAMES
    return named or (config is not None and config.serial_number == "SIM")


def laser_request(
    params: RobotParams, identity: RobotIdentity | None, config: ConfigPacket | None
) -> list[tuple[int, int]]:
    """The commands that ask a simulator for the robot's laser, or none (see the module docstring).

    Field of view and resolution first (SIM_LRF_SET_FOV_START/END, SIM_LRF_SET_RES in 1/100
    degree), then SIM_LRF_ENABLE 1: 0x60 packets, which carry the robot's pose at scan time.
    """
    laser = laser_config(params)  # None unless the file declares a laser
    if laser is None or not is_simulator(identity, config):
        return []
    return [
        (Command.SIM_LRF_SET_FOV_START, round(laser.start)),
        (Command.SIM_LRF_SET_FOV_END, round(laser.end)),
        (Command.SIM_LRF_SET_RES, round(laser.increment * 100.0)),
        (Command.SIM_LRF_ENABLE, 1),
    ]
