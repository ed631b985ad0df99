"""The simulator's mirror of the device seam: the devices a Pioneer server steps and sends after each SIP.

:class:`SimDevice` is one simulated sensor or accessory on the wire (the client's half is
:class:`saphira.client.sensors.device.Device`): the commands it handles, the packets it sends after
each SIP, and what it does when a session starts or ends. The server
(:class:`~saphira.sim.server.PioneerServer`) builds one of each registered device for its robot.

Devices are registered by entry points in the group ``saphira.sim_devices`` (``module:Class``) and run
in the order of their :attr:`SimDevice.order`, then name: their packets go out in that order, and
where two handle one command number, the earlier one's handler is installed over the later one's and
gets it as the fallback (:meth:`SimDevice.handlers`), as the accessories' GRIPPERVAL and
GRIPPERPACREQUEST fall back to the laser's old SRISim numbers 36 and 37.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from saphira.core.plugins import registered_classes
from saphira.protocol.command_packet import CommandPacket

if TYPE_CHECKING:
    from saphira.sim.server import PioneerServer

__all__ = ["SIM_DEVICE_GROUP", "Handler", "SimDevice", "sim_device_types"]

SIM_DEVICE_GROUP = "saphira.sim_devices"
"""The entry-point group simulated devices are registered in (value: ``module:Class``)."""

Handler = Callable[[CommandPacket], None]


class SimDevice:
    """One simulated device of the robot ``server`` serves; subclasses override what they have."""

    name: ClassVar[str] = ""
    order: ClassVar[int] = 100
    """Lower runs first: its packets go out first and its handlers take precedence on a shared number."""

    def __init__(self, server: PioneerServer) -> None:
        self.server = server

    def handlers(self, installed: Mapping[int, Handler]) -> dict[int, Handler]:
        """The commands this device handles; ``installed`` holds the handlers installed before it
        (the server's and later devices'), the fallback for a number it shares."""
        return {}

    def start_session(self) -> None:
        """A client completed the handshake."""

    def end_session(self) -> None:
        """The client left: back to the state at start-up."""

    def packets(self) -> bytes:
        """What goes out after this cycle's SIP (nothing by default)."""
        return b""


@cache
def sim_device_types() -> tuple[type[SimDevice], ...]:
    """Every registered simulated device class, by :attr:`SimDevice.order` then name (:mod:`saphira.core.plugins`)."""
    found = registered_classes(SIM_DEVICE_GROUP, SimDevice)
    return tuple(sorted(found, key=lambda kind: (kind.order, kind.name)))
