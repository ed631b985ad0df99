"""Which ROS 2 graph a run joins: the domain and how far discovery reaches, read as ROS 2 reads them.

ROS 2 (Iron and later) takes the domain from ``ROS_DOMAIN_ID`` (default 0) and how far discovery
reaches from ``ROS_AUTOMATIC_DISCOVERY_RANGE``: ``SUBNET`` (the default: multicast on the network),
``LOCALHOST`` (this host only), ``OFF`` (no automatic discovery), ``SYSTEM_DEFAULT`` (the DDS
implementation's own settings); ``ROS_STATIC_PEERS`` (``;``-separated hosts) are reached whatever the
range. Humble's ``ROS_LOCALHOST_ONLY=1`` means ``LOCALHOST``; ``ROS_DISTRO`` says which layout
``ros_discovery_info`` takes (:func:`gid_size`, :mod:`saphira.ros2.graph`). Like rmw_cyclonedds, the range becomes
a Cyclone DDS configuration fragment appended to the user's own (``CYCLONEDDS_URI``): the loopback
interface without multicast and the static peers, or no peers at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from xml.sax.saxutils import quoteattr

from saphira.core.errors import SaphiraError

__all__ = ["MAX_DOMAIN_ID", "Discovery", "Range", "discovery_from", "gid_size"]

_GID_24 = ("ardent", "bouncy", "crystal", "dashing", "eloquent", "foxy", "galactic", "humble")
"""The distributions whose ``rmw_dds_common/msg/Gid`` is ``char[24]`` (Iron on, rmw_dds_common 2.0: ``char[16]``)."""
MAX_DOMAIN_ID = 232
"""The largest domain id whose ports fit (DDS's port mapping, as ROS 2 documents it)."""


class Range(Enum):
    """``ROS_AUTOMATIC_DISCOVERY_RANGE``'s values."""

    SUBNET = "SUBNET"
    LOCALHOST = "LOCALHOST"
    OFF = "OFF"
    SYSTEM_DEFAULT = "SYSTEM_DEFAULT"


@dataclass(frozen=True)
class Discovery:
    """A domain and its reach; :meth:`config` is what Cyclone DDS is given."""

    domain: int = 0
    range: Range = Range.SUBNET
    peers: tuple[str, ...] = ()
    user_config: str = ""
    gid_size: int = 16
    """The bytes of a gid in ``ros_discovery_info``: 16 from Iron on, 24 in Humble (:mod:`saphira.ros2.graph`)."""

    def config(self) -> str:
        """The Cyclone DDS configuration: the user's (``CYCLONEDDS_URI``), then the range's fragment."""
        fragment = ""
        peers = "".join(f"<Peer address={quoteattr(p)}/>" for p in self.peers)
        if self.range is Range.LOCALHOST:
            fragment = (
                '<General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>'
                "<AllowMulticast>false</AllowMulticast></General>"
                "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>32"
                f'</MaxAutoParticipantIndex><Peers><Peer address="localhost"/>{peers}</Peers></Discovery>'
            )
        elif self.range is Range.OFF or (self.range is Range.SUBNET and peers):
            multicast = "false" if self.range is Range.OFF else "default"
            fragment = (
                f"<General><AllowMulticast>{multicast}</AllowMulticast></General>"
                "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>32"
                f"</MaxAutoParticipantIndex>{f'<Peers>{peers}</Peers>' if peers else ''}</Discovery>"
            )
        domain = f'<CycloneDDS><Domain Id="any">{fragment}</Domain></CycloneDDS>' if fragment else ""
        return ",".join(part for part in (self.user_config, domain) if part)

    def warning(self) -> str | None:
        """What a run that reaches beyond this host should say: who can drive it (None on this host only)."""
        if self.range in (Range.LOCALHOST, Range.OFF) and not self.peers:
            return None
        return (f"warning: ROS 2 domain {self.domain} reaches beyond this host: any host there can read the robot "
                "and publish /cmd_vel to it (as with RosAria); ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST keeps it on "
                "this host (docs/ros2.md)")  # fmt: skip

    def describe(self) -> str:
        """One line for the console: ``domain 7, this host only``."""
        reach = {
            Range.SUBNET: "the local network (multicast)", Range.LOCALHOST: "this host only",
            Range.OFF: "no automatic discovery", Range.SYSTEM_DEFAULT: "Cyclone DDS's own settings",
        }[self.range]  # fmt: skip
        more = f", peers {', '.join(self.peers)}" if self.peers else ""
        return f"domain {self.domain}, {reach}{more}"


def _domain(text: str, where: str) -> int:
    try:
        domain = int(text)
    except ValueError:
        raise SaphiraError(f"{where}: {text!r} is not a domain id (a whole number 0-{MAX_DOMAIN_ID})") from None
    if not 0 <= domain <= MAX_DOMAIN_ID:
        raise SaphiraError(f"{where}: domain id {domain} is outside 0-{MAX_DOMAIN_ID}")
    return domain


def gid_size(env: Mapping[str, str]) -> int:
    """The gid size of the distribution ``ROS_DISTRO`` names: 24 for Humble and older, else 16 (Jazzy's)."""
    return 24 if env.get("ROS_DISTRO", "").strip().lower() in _GID_24 else 16


def discovery_from(env: Mapping[str, str] | None = None, domain: int | None = None) -> Discovery:
    """The discovery ROS 2 would use with these environment variables; ``domain`` overrides ``ROS_DOMAIN_ID``."""
    env = os.environ if env is None else env
    chosen = domain if domain is not None else _domain(env.get("ROS_DOMAIN_ID", "").strip() or "0", "ROS_DOMAIN_ID")
    if not 0 <= chosen <= MAX_DOMAIN_ID:
        raise SaphiraError(f"domain id {chosen} is outside 0-{MAX_DOMAIN_ID}")
    text = env.get("ROS_AUTOMATIC_DISCOVERY_RANGE", "").strip().upper()
    if text:
        try:
            reach = Range(text)
        except ValueError:
            names = ", ".join(r.value for r in Range)
            raise SaphiraError(f"ROS_AUTOMATIC_DISCOVERY_RANGE: {text!r} is not one of {names}") from None
    else:
        reach = Range.LOCALHOST if env.get("ROS_LOCALHOST_ONLY", "").strip() == "1" else Range.SUBNET
    peers = tuple(p.strip() for p in env.get("ROS_STATIC_PEERS", "").split(";") if p.strip())
    return Discovery(chosen, reach, peers, env.get("CYCLONEDDS_URI", "").strip(), gid_size(env))
