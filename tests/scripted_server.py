"""A byte-level robot server for link tests: scripted faults on top of the real codec.

It is stepped by the lock-step clock (one ``tick`` per cycle), reads the client's bytes through the
same receiver a robot would use, and answers with real packets. Fault switches reproduce the cases
the link must survive: a lost SYNC1 reply, a stale open session, a silent robot, SIPs stopping,
and random loss of the client's packets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from saphira.client.transport import MemoryTransport, TransportClosed
from saphira.protocol.command_packet import CommandPacket, decode_command
from saphira.protocol.commands import Command
from saphira.protocol.framing import MAX_COUNT_SERVER, encode_packet
from saphira.protocol.receiver import PacketReceiver
from saphira.protocol.sip import Sip, encode_sip
from saphira.protocol.sync import RobotIdentity, encode_sync, encode_sync2_reply


@dataclass
class ScriptedServer:
    transport: MemoryTransport
    identity: RobotIdentity = field(default_factory=lambda: RobotIdentity("scripted", "Pioneer", "p3dx"))
    silent: bool = False
    drop_sync1_replies: int = 0
    doubled_sync0_replies: int = 0
    """Answer this many SYNC0s twice: what a link sees when it resent SYNC0 after a stall and both echoes arrive."""
    stale_session: bool = False
    send_sips: bool = True
    client_loss: float = 0.0
    seed: int = 1
    x: int = 0
    log: list[CommandPacket] = field(default_factory=list)
    sync_seq: int = 0
    opened: bool = False
    closes: int = 0

    def __post_init__(self) -> None:
        self.receiver = PacketReceiver(MAX_COUNT_SERVER)
        self.rng = random.Random(self.seed)
        self.opened = self.stale_session

    def tick(self) -> None:
        try:
            data = self.transport.read()
        except TransportClosed:
            return
        for payload in self.receiver.feed(data):
            if self.client_loss and self.rng.random() < self.client_loss:
                continue
            self.handle(payload)
        if self.opened and self.send_sips and not self.transport.closed:
            self.transport.write(encode_sip(Sip(x=self.x, y=0, th=0, battery=130)))

    def handle(self, payload: bytes) -> None:
        if self.silent:
            return
        n = payload[0]
        if self.sync_seq < 3 and not self.opened:
            if n == 1 and self.drop_sync1_replies > 0:
                self.drop_sync1_replies -= 1
                return
            if n == 0 and self.doubled_sync0_replies > 0:
                self.doubled_sync0_replies -= 1
                self.transport.write(encode_sync(0))
            if n in (0, 1, 2):
                self.transport.write(encode_sync2_reply(self.identity) if n == 2 else encode_sync(n))
                self.sync_seq = n + 1
            return
        packet = decode_command(payload)
        self.log.append(packet)
        if packet.command == Command.OPEN:
            self.opened = True
        elif packet.command == Command.CLOSE:
            self.closes += 1
            self.opened = False
            self.sync_seq = 0
        elif packet.command == Command.CONFIG:
            self.transport.write(encode_packet(b"\x20Pioneer\x00p3dx\x00SIM\x00"))

    def last(self, command: int) -> int | None:
        values = [p.int_arg for p in self.log if p.command == command]
        return values[-1] if values else None
