"""ARIA's laser examples against ``saphira sim``, replayed byte for byte over real TCP.

ARIA cannot be compiled here, so a scripted client sends what an ARIA program sends. What it
reproduces, and where each piece comes from:

* The robot connection is the client side of a real capture (``aria-simpleConnect-amrisim.txt``):
  SYNC0/1/2 (each waiting for its echo, as ``ArRobotConnector`` does), OPEN, CONFIG, BATTERYINFO,
  ENABLE and the SETV/SETA/SETRV/SETRA limits, exactly those bytes. ``ArRobotConnector`` then calls
  the peer a simulator because the CONFIG reply's serial number is ``SIM``, which is what makes
  ``ArLaserConnector`` use the in-band simulated laser at all (checked here).
* ``laserConnect``, ``wanderAndLogData`` and ``triangleDriveToActionExample`` all connect their laser
  through ``ArLaserConnector::connectLasers``; for a simulator it wraps the ``lms2xx`` in an
  ``ArSimulatedLaser`` (AriaCoda ``src/ArLaserConnector.cpp``), whose ``blockingConnect`` sends
  ``comInt(36, -90)``, ``comInt(37, 90)``, ``comInt(38, 100)`` (start, end, increment × 100) and
  ``comInt(35, 2)`` (enable, extended packets) and waits for the first 0x60/0x61 packet
  (``src/ArSimulatedLaser.cpp``). The old ``ArSick`` path sends the same four commands. So do we.
* ARIA's laser thread reports "Lost connection to the laser … Nothing received for N seconds" when no
  complete scan (the packet whose readings reach the scan's total) has been processed for its
  timeout (8 s for the SICK, ``myTimeoutTime = 8``). The test reassembles scans by ARIA's rule
  (``simPacketHandler``: a scan is complete when first index + count reaches the total) and asserts
  that a complete 181-reading scan follows every SIP, i.e. the laser's silence is never longer than
  the SIP period (0.1 s) — eighty times inside ARIA's limit — without timing anything itself.
* The examples differ only in their actions, which reach the robot as VEL/RVEL/PULSE commands; the
  client sends a wander-like sequence of those while the scans flow, and a PULSE every 5 SIPs as
  ``ArRobot`` keeps the line alive.

Not reproduced: ARIA's threads and timing (the client is sequential and packet-driven), its action
resolver's exact command values, the log files wanderAndLogData writes, and ``ArLaserConnector``'s
argument parsing; the simulator runs in real time for about 3 s.
"""

from __future__ import annotations

import socket
from collections import deque
from pathlib import Path

from saphira.protocol import Command, PacketReceiver, decode_config, encode_command, read_capture
from saphira.protocol.capture import CLIENT_TO_SERVER
from saphira.protocol.laser import decode_laser
from tests.realtime import WAIT
from tests.sim_process import Program

CAPTURE = Path(__file__).resolve().parent / "data" / "captures" / "aria-simpleConnect-amrisim.txt"
ARIA_LASER_CONNECT = [
    encode_command(Command.OLD_SIM_LRF_START, -90),
    encode_command(Command.OLD_SIM_LRF_END, 90),
    encode_command(Command.OLD_SIM_LRF_INCREMENT, 100),
    encode_command(Command.OLD_SIM_LRF_ENABLE, 2),
]
WANDER = [(Command.VEL, 300), (Command.RVEL, 0), (Command.VEL, 150), (Command.RVEL, 20), (Command.VEL, 0)]
SIPS = 30


class AriaLikeClient:
    """A blocking socket that sends captured ARIA bytes and reads packets as ARIA's receiver does."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=WAIT)
        self.receiver = PacketReceiver(255)
        self.queue: deque[bytes] = deque()

    def packet(self) -> bytes:
        while not self.queue:
            data = self.sock.recv(4096)
            assert data, "the simulator closed the connection"
            self.queue.extend(self.receiver.feed(data))
        return self.queue.popleft()

    def send(self, raw: bytes) -> None:
        self.sock.sendall(raw)


def test_arias_laser_examples_get_a_full_scan_after_every_sip() -> None:
    program = Program("--port", "0", "--seed", "1")
    try:
        client = AriaLikeClient(program.addresses[0])
        captured = [r.raw for r in read_capture(CAPTURE) if r.direction == CLIENT_TO_SERVER]
        for n, sync in enumerate(captured[:3]):
            client.send(sync)
            assert client.packet()[0] == n
        for raw in captured[3:13]:  # OPEN, CONFIG, BATTERYINFO, ENABLE, SETV, SETA ×2, SETRV, SETRA ×2
            client.send(raw)
        config = next(decode_config(p) for p in iter(client.packet, None) if p[0] == 0x20)
        assert config.serial_number == "SIM"  # ARIA: the peer is a simulator, use its in-band laser
        for raw in ARIA_LASER_CONNECT:
            client.send(raw)

        sips = 0
        scans_per_sip: list[int] = []
        readings: list[int] = []
        expected_first = 0
        while sips < SIPS + 2:
            payload = client.packet()
            if payload[0] in (0x32, 0x33):
                sips += 1
                scans_per_sip.append(0)
                if sips % 5 == 0:
                    client.send(encode_command(*WANDER[sips // 5 % len(WANDER)]))
                    client.send(encode_command(Command.PULSE))
            elif payload[0] in (0x60, 0x61):
                assert payload[0] == 0x61  # extended, as 35 with 2 asks
                packet = decode_laser(payload)
                assert packet.count <= 32 and packet.total == 181
                assert packet.first == expected_first, "a scan's packets came out of order"
                readings += packet.ranges
                expected_first = packet.first + packet.count
                if packet.first + packet.count >= packet.total:  # ArSimulatedLaser: the scan is complete
                    assert len(readings) == 181 and scans_per_sip
                    scans_per_sip[-1] += 1
                    near = sum(1 for r in readings if r < 32000)
                    assert near > 0  # the simple world's walls are seen
                    readings, expected_first = [], 0
        client.send(encode_command(Command.CLOSE, 1))
        client.sock.close()
    finally:
        _, output = program.stop()
    # Until the four laser commands arrive no scan comes; from the next SIP on, one after every SIP.
    started = next(i for i, n in enumerate(scans_per_sip) if n)
    assert started <= 2
    assert scans_per_sip[started:-1] == [1] * len(scans_per_sip[started:-1])
    assert len(scans_per_sip[started:-1]) >= SIPS - 2
    assert b"Traceback" not in output
