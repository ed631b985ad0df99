"""The device seam: what a sensor on the Pioneer protocol is to the client (docs/architecture.md §1).

A :class:`Device` decodes the server packets whose ids it names, holds what they reported, starts
afresh with each session and, optionally, adds points to the LPS (:class:`LpsSource`, joined to the
sonar's pool so every occupancy query sees them) and Colbert built-ins (:class:`DeviceBinding` rows the
Colbert binding table installs). The reflector builds one of each registered device and holds them by
name (``reflector.devices``); the link's device layer (:mod:`saphira.client.link.devices`) dispatches
each packet to the device whose ``packet_ids`` hold its id.

Devices are registered, as links are, by entry points in the group ``saphira.devices``
(``gyro = "saphira.client.sensors.gyro:AnalogGyro"`` in ``pyproject.toml``); the
simulator's mirror is the group ``saphira.sim_devices`` (:mod:`saphira.sim.devices`). So a new sensor is
its codec (``protocol/``), its device (here), its simulated half (``sim/``) and two lines of
``pyproject.toml``, and no existing module changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from saphira.client.sensors.sonar import Region
from saphira.core.arrays import FloatArray
from saphira.core.plugins import registered_classes
from saphira.params.robot_params import RobotParams

if TYPE_CHECKING:
    from saphira.client.reflector import Reflector

__all__ = ["DEVICE_GROUP", "Device", "DeviceBinding", "DeviceError", "LpsSource", "device_types"]

DEVICE_GROUP = "saphira.devices"
"""The entry-point group devices are registered in (value: ``module:Class``)."""


class LpsSource(Protocol):
    """A range sensor's points in the LPS (robot frame), pooled with the sonar's by every occupancy query."""

    @property
    def version(self) -> int:
        """Changes whenever the points do (the key of the pool's cache)."""
        ...

    @property
    def size(self) -> int:
        """How many points there are now."""
        ...

    def move(self, cos_t: float, sin_t: float, dx: float, dy: float) -> None:
        """Re-express the points after the robot moved (dx, dy) and turned (cos_t, sin_t)."""
        ...

    def points(self, source: Region = Region.ALL) -> tuple[FloatArray, FloatArray]:
        """The points in the region ``source`` selects."""
        ...


class DeviceError(Exception):
    """A device's built-in was asked for what the device does not have (Colbert reports it as a runtime error)."""


class DeviceBinding(NamedTuple):
    """One Colbert built-in a device offers: ``call(robot, *args)`` (the :class:`~saphira.robot.Robot`
    session, whose ``reflector.devices`` hold the device) under ``name``, with a C ``signature``
    (``"float(int)"``) and a one-line ``help`` (which docs/colbert.md repeats). A :class:`DeviceError`
    it raises is reported as a Colbert runtime error."""

    name: str
    signature: str
    call: Callable[..., Any]
    help: str


class Device:
    """One sensor of the robot as the client sees it; subclasses override what they have.

    ``name`` keys ``reflector.devices``; ``packet_ids`` are the server packet ids :meth:`apply` takes.
    """

    name: ClassVar[str] = ""
    packet_ids: ClassVar[frozenset[int]] = frozenset()

    def __init__(self, reflector: Reflector) -> None:
        self.reflector = reflector
        """The robot's state (the SIP's pose, velocities) a device may need to read."""

    def configure(self, params: RobotParams) -> None:
        """The robot's parameters are known (on connect): adopt what concerns this device."""

    def apply(self, payload: bytes, now: float) -> None:
        """Fold one packet (``payload[0]`` in :attr:`packet_ids`) in; PacketError if it is malformed."""

    def restart(self) -> None:
        """A new session: nothing reported yet."""

    def lps_source(self) -> LpsSource | None:
        """The points this device adds to the LPS, if it is a range sensor."""
        return None

    @classmethod
    def bindings(cls) -> Sequence[DeviceBinding]:
        """The Colbert built-ins this device offers (none by default)."""
        return ()


@cache
def device_types() -> tuple[type[Device], ...]:
    """Every registered device class, by name (:mod:`saphira.core.plugins`)."""
    return tuple(registered_classes(DEVICE_GROUP, Device))
