"""The simulator's Pioneer protocol server, byte for byte: real ARIA captures replayed into it,
every command it handles, the session rules, and hostile input.

The server runs on an in-process pipe and is stepped by hand (one :class:`ServedSimulation` cycle
per 100 ms of clock time); the client side writes framed packets and reads the replies through the
same receiver a client uses.
"""

from __future__ import annotations

import logging
import math
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saphira.client.transport import MemoryTransport, TransportClosed, memory_pair
from saphira.core.clock import LockStepClock
from saphira.params.robot_params import find_params_file, load_params
from saphira.protocol import (
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT,
    Command,
    PacketId,
    RobotIdentity,
    Sip,
    SipLayout,
    decode_config,
    decode_frame,
    decode_simstat,
    decode_sip,
    decode_sync2_reply,
    encode_command,
    encode_packet,
    encode_sync,
    pose_arg,
    psos_str_arg,
    read_capture,
    str_arg,
)
from saphira.protocol.args import byte_pair
from saphira.robot import Robot
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.session import ServerOptions, SessionState, identity_for
from saphira.sim.simulation import Simulation
from saphira.world.world import World

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"
CONNECT = CAPTURES / "aria-simpleConnect-amrisim.txt"
MOTION = CAPTURES / "aria-simpleMotionCommands-amrisim.txt"
PERIOD = 0.1


def open_world(*segments: tuple[float, float, float, float]) -> World:
    walls = np.array(segments, dtype=np.float64).reshape(-1, 4)
    return World(name="test", source="<test>", segments=walls, bounds=(-5000.0, -5000.0, 5000.0, 5000.0))


def frames(stream: bytes) -> list[bytes]:
    """Split a server's output into frames, checking that nothing but whole, valid packets is there."""
    out = []
    pos = 0
    while pos < len(stream):
        assert stream[pos : pos + 2] == b"\xfa\xfb", f"garbage at byte {pos}"
        end = pos + 3 + stream[pos + 2]
        assert end <= len(stream), "truncated packet"
        out.append(decode_frame(stream[pos:end]))  # raises on a bad checksum
        pos = end
    return out


class Rig:
    """A server on an in-process line, a raw client end, and a hand-cranked clock."""

    def __init__(
        self,
        params: str = "p3dx",
        world: World | None = None,
        *,
        pose: tuple[float, float, float] = (0.0, 0.0, 0.0),
        options: ServerOptions | None = None,
        seed: int = 0,
        odometry_error: bool = False,
    ) -> None:
        self.simulation = Simulation(world or open_world(), seed, odometry_error=odometry_error)
        self.robot = self.simulation.add_robot(load_params(find_params_file(params)), pose)
        self.server = PioneerServer(self.simulation, self.robot, options=options)
        self.host = ServedSimulation(self.simulation, [self.server])
        self.now = 0.0
        self.client: MemoryTransport
        self.reattach()

    def reattach(self) -> None:
        self.client, server_end = memory_pair("test")
        self.server.attach(server_end, self.now)

    def send(self, command: int, arg: int | str | bytes | None = None) -> None:
        self.client.write(encode_command(command, arg))

    def cycle(self, n: int = 1) -> list[bytes]:
        """Run ``n`` cycles; the payloads the client received, each checked."""
        for _ in range(n):
            self.host.cycle(self.now)
            self.now += PERIOD
        try:
            data = self.client.read()
        except TransportClosed:
            data = b""
        return frames(data)

    def run(self, n: int) -> list[bytes]:
        """``n`` cycles of a live client: a PULSE every second keeps the watchdog quiet."""
        out = []
        for k in range(n):
            if k % 10 == 9:
                self.send(Command.PULSE)
            out += self.cycle()
        return out

    def handshake(self) -> list[bytes]:
        replies = []
        for n in range(3):
            self.client.write(encode_sync(n))
            replies += self.cycle()
        return replies

    def open(self) -> list[bytes]:
        self.handshake()
        self.send(Command.OPEN, 1)
        return self.cycle()

    def sips(self, n: int = 1) -> list[Sip]:
        layout = self.server.layout
        return [decode_sip(p, layout) for p in self.cycle(n) if p[0] & 0xF0 == 0x30]

    def sip(self) -> Sip:
        return self.sips()[-1]


# --------------------------------------------------------------------------- real bytes


def replay(path: Path, params: str) -> tuple[list[tuple[float, bytes]], Rig, list[tuple[float, bytes]]]:
    """Feed the client side of a capture into the server, each packet in the cycle of its timestamp.

    Returns (the capture's client packets with their times, the rig, the server's packets each with
    the time its cycle ended).
    """
    records = read_capture(path)
    client = [(r.t, r.raw) for r in records if r.direction == CLIENT_TO_SERVER]
    rig = Rig(params)
    replies: list[tuple[float, bytes]] = []
    last_cycle = math.floor(client[-1][0] / PERIOD) + 3
    pending = list(client)
    for k in range(last_cycle):
        while pending and math.floor(pending[0][0] / PERIOD) == k:
            if not rig.client.closed:
                rig.client.write(pending.pop(0)[1])
            else:
                pending.pop(0)
        end = rig.now = (k + 1) * PERIOD
        for payload in rig.cycle():
            replies.append((end, payload))
    return client, rig, replies


def test_replayed_aria_connect_gets_every_reply_aria_waits_for() -> None:
    client, rig, replies = replay(CONNECT, "p3dx")
    times = {packet: t for t, packet in reversed(client)}  # first time each packet was sent

    def first_reply(packet_id: int) -> float:
        return next(t for t, p in replies if p[0] == packet_id)

    for n in range(3):
        assert first_reply(n) - times[encode_sync(n)] <= PERIOD + 1e-9
    sync2 = next(p for _, p in replies if p[0] == PacketId.SYNC2)
    assert decode_sync2_reply(sync2) == RobotIdentity("P3DX", "Pioneer", "p3dx")
    open_time = times[encode_command(Command.OPEN, 1)]
    config_time = times[encode_command(Command.CONFIG, 1)]
    assert first_reply(PacketId.CONFIG) - config_time <= PERIOD + 1e-9
    config = decode_config(next(p for _, p in replies if p[0] == PacketId.CONFIG))
    assert (config.robot_class, config.subclass, config.serial_number) == ("Pioneer", "p3dx", "SIM")
    assert config.sip_cycle_time == 100 and config.watchdog == 2000
    assert config.trans_vel_max > 0 and config.rot_vel_max > 0
    sip_times = [t for t, p in replies if p[0] in (0x32, 0x33)]
    assert sip_times[0] - open_time <= PERIOD + 1e-9
    assert sip_times[0] > open_time
    # Nothing spontaneous before OPEN; then exactly one SIP per cycle until CLOSE.
    assert all(p[0] in (0, 1, 2) for t, p in replies if t <= open_time)
    close_time = times[encode_command(Command.CLOSE, 1)]
    assert all(t <= close_time + PERIOD for t in sip_times)
    assert len(sip_times) == len(set(sip_times)) == round((close_time - open_time) / PERIOD)
    for _, payload in replies:
        if payload[0] in (0x32, 0x33):
            sip = decode_sip(payload)
            assert len(sip.sonar) > 0 or sip.flags & 0x1E
            assert sip.temperature == -127 and sip.battery == 130
    # Same reply types, in the same order, as AMRISim gave ARIA.
    amrisim = [r.payload[0] for r in read_capture(CONNECT) if r.direction == SERVER_TO_CLIENT]
    ours = [p[0] for _, p in replies]
    assert list(dict.fromkeys(ours)) == list(dict.fromkeys(amrisim)) == [0, 1, 2, 0x20, 0x32]
    # ARIA's CLOSE ended the session and hung up; BATTERYINFO (62) was ignored and counted.
    assert rig.server.state is SessionState.WAITING and rig.client.closed
    assert rig.server.stats.ignored[62] == 1
    assert rig.server.stats.handler_errors == 0 and rig.server.receiver.stats.dropped == 0
    assert not rig.robot.drive.enabled


def test_replayed_aria_motion_session_moves_like_amrisim() -> None:
    _, rig, replies = replay(MOTION, "p3dx-sh")
    ours = [decode_sip(p) for _, p in replies if p[0] in (0x32, 0x33)]
    theirs = [
        decode_sip(r.payload) for r in read_capture(MOTION) if r.direction == SERVER_TO_CLIENT and r.payload[0] == 0x32
    ]
    # p3dx-sh reports positions in mm; compare where each run came to rest.
    for sip_list in (ours, theirs):
        last = sip_list[-1]
        assert last.left_vel == last.right_vel == 0

    def signed15(v: int) -> int:
        v &= 0x7FFF
        return v - 0x8000 if v >= 0x4000 else v

    ox, oy, oth = signed15(ours[-1].x), signed15(ours[-1].y), ours[-1].th
    tx, ty, tth = signed15(theirs[-1].x), signed15(theirs[-1].y), theirs[-1].th
    assert (tx, ty) == (1761, 32220 - 32768)
    assert ox == pytest.approx(tx, rel=0.03)
    assert oy == pytest.approx(ty, rel=0.05)
    assert math.degrees(oth * 0.001534) == pytest.approx(math.degrees(tth * 0.001534), abs=2.0)
    assert max(s.right_vel for s in ours) == 250  # the drive speeds ARIA asked for
    assert rig.server.stats.handler_errors == 0


# --------------------------------------------------------------------------- handshake and session


def test_handshake_echoes_only_bare_syncs_and_restarts_any_time() -> None:
    rig = Rig()
    rig.send(Command.VEL, 300)  # not a sync: ignored, no reply
    rig.client.write(encode_sync(1))  # out of order: answered with the client's number (AMRISim)
    assert [p[0] for p in rig.cycle(3)] == [1]
    assert rig.server.stats.handshake_ignored == 1
    assert [p for p in rig.handshake()][:2] == [bytes([0]), bytes([1])]
    assert rig.server.state is SessionState.SYNCED
    assert rig.cycle(5) == []  # no SIPs before OPEN
    # The client lost the SYNC2 echo and starts over: SYNC0 is answered again, not taken as PULSE.
    replies = rig.handshake()
    assert [p[0] for p in replies] == [0, 1, 2]
    assert rig.server.stats.sessions == 2
    rig.send(Command.OPEN, 1)
    assert [p[0] for p in rig.cycle()] == [0x32]


def test_identity_and_layout_follow_the_parameter_file() -> None:
    assert identity_for(load_params(find_params_file("p3dx"))) == RobotIdentity("P3DX", "Pioneer", "p3dx")
    psos = Rig("psos41m")
    assert psos.server.identity == RobotIdentity("Erratic", "Pioneer", "psos1m")
    assert psos.server.layout is SipLayout.PSOS
    reply = psos.handshake()[-1]
    assert decode_sync2_reply(reply).subclass == "psos1m"
    psos.send(Command.OPEN)  # PSOS clients send OPEN without an argument
    psos.send(Command.VEL, 200)
    psos.cycle(10)
    sip = psos.sip()
    assert sip.ptu == 0 and sip.timer == 0 and sip.digin == 0x30  # digin: the gripper, open and down
    assert 0 <= sip.th < 1024 and sip.x <= 0x7FFF
    assert sip.left_vel == sip.right_vel == round(200 / 2.5332)
    assert Rig("pion1m").server.identity.subclass == "pion1m"


def test_close_ends_the_session_stops_and_resets_the_robot() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.VEL, 400)
    rig.cycle(20)
    assert rig.robot.vel > 0 and rig.robot.odometry.x > 0
    rig.send(Command.CLOSE, 1)
    rig.cycle()
    assert rig.server.state is SessionState.WAITING and rig.client.closed
    assert rig.robot.vel == 0.0 and not rig.robot.drive.enabled
    assert (rig.robot.odometry.x, rig.robot.odometry.y, rig.robot.odometry.th) == (0.0, 0.0, 0.0)
    assert not rig.robot.sonar.enabled
    rig.reattach()
    rig.open()
    sip = rig.sip()
    assert (sip.x, sip.y) == (0, 0) and sip.motors_enabled
    assert rig.server.stats.sessions == 2 and rig.server.stats.sessions_ended == 1


def test_serial_line_stays_attached_after_close() -> None:
    rig = Rig(options=ServerOptions(hangup_on_close=False))
    rig.open()
    rig.send(Command.CLOSE, 1)
    assert rig.cycle(3) == []
    assert rig.server.state is SessionState.SYNCING and not rig.client.closed
    assert [p[0] for p in rig.handshake()] == [0, 1, 2]


def test_a_new_client_on_a_line_still_open_from_a_crashed_one_gets_through() -> None:
    """Serial line, client crashed while open: SIPs keep flowing, so the real link sends CLOSE,
    the server returns to the handshake, and the link connects (ARIA does the same)."""
    rig = Rig(options=ServerOptions(hangup_on_close=False))
    rig.open()
    rig.cycle(3)
    clock = LockStepClock()
    clock.add_listener(lambda: rig.host.cycle(clock.now()))
    robot = Robot(clock)
    robot.connect(rig.client)
    assert robot.connected and robot.link.counters.stale_closes >= 1
    assert rig.server.stats.sessions == 2 and rig.server.stats.sessions_ended == 1
    robot.motion.set_velocity(200)
    robot.run(2.0)
    assert robot.state.odo_x > 100.0


def test_sip_fields_in_the_arcos_layout() -> None:
    rig = Rig(pose=(0.0, 0.0, 0.0))
    rig.open()
    rig.send(Command.SETO, struct.pack("<Bhhh", 0x3B, 32000, -5000, 90))  # AMRISim's SETO x, y, th
    rig.send(Command.RVEL, 20)
    rig.send(Command.VEL, 100)
    rig.cycle(15)
    sip = rig.sip()
    odo = rig.robot.odometry
    assert sip.x == round(odo.x / 0.485) % 65536  # a wrapping 16-bit counter
    assert sip.x < 32000 / 0.485 - 65536 + 100
    assert sip.y == round(odo.y / 0.485) % 65536
    assert sip.th == round(math.radians(odo.th) / 0.001534)
    assert sip.rot_vel == round(rig.robot.rvel * 10) == 200
    left, right = rig.robot.wheel_velocities()
    assert (sip.left_vel, sip.right_vel) == (round(left), round(right))
    assert sip.packet_id == 0x33  # moving
    assert sip.flags == 0x1F and sip.battery == 130 and sip.battery_dv == 130
    assert sip.compass == rig.robot.compass // 2
    assert sip.temperature == -127 and sip.digin == 0xFF
    assert all(0 <= n < 16 for n, _ in sip.sonar) and 1 <= len(sip.sonar) <= 8


def test_config_and_simstat_packets() -> None:
    rig = Rig(pose=(1200.0, -300.0, 45.0))
    rig.open()
    rig.send(Command.SETV, 700)
    rig.send(Command.CONFIG, 1)
    config = decode_config(next(p for p in rig.cycle() if p[0] == PacketId.CONFIG))
    assert config.trans_vel_max == 700 and config.trans_vel_top == 2200 and config.rot_vel_top == 500
    assert config.name == "P3DX" and config.front_sonar == 1 and config.rear_sonar == 1
    rig.send(Command.SIM_STAT, 1)
    once = [p for p in rig.cycle(3) if p[0] == PacketId.SIMSTAT]
    assert len(once) == 1
    stat = decode_simstat(once[0])
    assert (stat.true_x, stat.true_y, stat.true_th) == (1200, -300, 45)
    assert stat.sim_interval == 100 and stat.gps_dop == -1
    rig.send(Command.SIM_STAT, 2)
    packets = rig.cycle(4)
    ids = [p[0] for p in packets]
    assert ids.count(PacketId.SIMSTAT) == 4 and ids.index(PacketId.SIMSTAT) < ids.index(0x32)
    rig.send(Command.SIM_STAT, 0)
    assert all(p[0] != PacketId.SIMSTAT for p in rig.cycle(3)[1:])


def test_sim_set_pose_reset_and_message(caplog: pytest.LogCaptureFixture) -> None:
    rig = Rig(pose=(100.0, 200.0, 0.0))
    rig.open()
    rig.send(Command.VEL, 300)
    rig.cycle(10)
    odometry = (rig.robot.odometry.x, rig.robot.odometry.y)
    rig.send(Command.SIM_SET_POSE, pose_arg(-1000, 2000, 90))
    rig.cycle()
    # It was put there, then drove on for one step along its new heading.
    assert tuple(rig.robot.pose) == pytest.approx((-1000.0, 2000.0 + 300 * PERIOD, 90.0))
    assert rig.robot.odometry.x > odometry[0]  # odometry carried on, unaffected by the jump
    rig.send(Command.SIM_RESET)
    rig.cycle()
    assert rig.robot.pose == (100.0, 200.0, 0.0) and rig.robot.vel == 0.0
    assert (rig.robot.odometry.x, rig.robot.odometry.y) == (0.0, 0.0)
    with caplog.at_level(logging.INFO, logger="saphira.sim.server"):
        rig.send(Command.SIM_MESSAGE, str_arg("Hello"))
        rig.cycle()
    assert "Hello" in caplog.text and rig.server.messages[-1] == "Hello"


def test_sim_exit_only_when_allowed() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.SIM_EXIT, 3)
    rig.cycle()
    assert rig.host.exit_code is None and rig.server.stats.ignored[Command.SIM_EXIT] == 1
    allowed = Rig(options=ServerOptions(allow_exit=True))
    allowed.open()
    allowed.send(Command.SIM_EXIT, 3)
    allowed.cycle()
    assert allowed.host.exit_code == 3


def test_single_step_mode_advances_the_world_only_on_step() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.VEL, 300)
    rig.cycle(10)
    rig.send(Command.STEP, 1)
    rig.cycle()
    frozen = rig.robot.pose
    sips = rig.sips(5)
    assert len(sips) == 5 and rig.robot.pose == frozen  # SIPs keep coming, the world stands still
    for _ in range(3):
        rig.send(Command.STEP)
    rig.cycle()
    assert rig.robot.pose.x == pytest.approx(frozen.x + 3 * 300 * PERIOD)
    rig.send(Command.STEP)
    rig.cycle()
    assert rig.robot.pose.x == pytest.approx(frozen.x + 4 * 300 * PERIOD)
    rig.send(Command.STEP, 0)
    rig.cycle(3)
    assert rig.robot.pose.x > frozen.x + 5 * 300 * PERIOD


def test_polling_sonar_and_enable() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.POLLING, str_arg(bytes([4, 5])))  # ARIA comStr: sonars 3 and 4
    seen = {n for sip in rig.sips(10) for n, _ in sip.sonar}
    assert seen == {3, 4}
    rig.send(Command.POLLING, psos_str_arg(bytes([1, 2, 1, 6])))  # PSOS style: 0, 1, 0, 5
    seen = {n for sip in rig.sips(10)[1:] for n, _ in sip.sonar}
    assert seen == {0, 1, 5}
    rig.send(Command.SONAR, 0)
    sips = rig.sips(5)
    assert sips[-1].flags & 0x1E == 0 and all(not s.sonar for s in sips[1:])
    rig.send(Command.ENABLE, 0)
    rig.send(Command.VEL, 300)
    rig.cycle(5)
    assert rig.robot.vel == 0.0 and not rig.sip().motors_enabled
    rig.send(Command.ENABLE, 1)
    rig.send(Command.VEL, 300)
    rig.cycle(5)
    assert rig.robot.vel > 0.0


def test_motion_commands_map_to_the_drive() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.VEL2, byte_pair(10, 20))  # left 10, right 20 units of Vel2Divisor (20 mm/s)
    rig.run(30)
    assert rig.robot.vel == pytest.approx(300.0)
    assert rig.robot.rvel == pytest.approx(math.degrees(100 * 0.0056))
    rig.send(Command.STOP)
    rig.send(Command.SETA, -1000)
    rig.cycle(10)
    assert rig.robot.vel == 0.0 and rig.robot.drive.trans_decel == 1000
    rig.send(Command.SETRV, 30)
    before = rig.robot.odometry.th
    rig.send(Command.DHEAD, -45)
    rig.run(40)
    assert rig.robot.odometry.th == pytest.approx(before - 45.0, abs=0.5)
    rig.send(Command.DCHEAD, 15)
    rig.send(Command.ROTATE, 10)  # ROTATE is a velocity, like RVEL
    rig.cycle(5)
    assert rig.robot.drive.rvel_target == 10
    rig.send(Command.VEL, 500)
    rig.cycle(5)
    rig.send(Command.ESTOP)
    rig.cycle()
    assert rig.robot.vel == 0.0 and rig.robot.rvel == 0.0
    rig.send(Command.SETO)
    rig.cycle()
    assert (rig.robot.odometry.x, rig.robot.odometry.y, rig.robot.odometry.th) == (0.0, 0.0, 0.0)
    rig.send(Command.DIGOUT, byte_pair(0x0F, 0x05))
    rig.send(Command.BATTEST, 121)
    sip = rig.sips(2)[-1]
    assert sip.digout == 0xF5 and sip.battery == 121


def test_unknown_and_unsupported_commands_are_ignored_and_counted() -> None:
    rig = Rig()
    rig.open()
    for command in (253, 255, 200, Command.SAY, Command.SIM_CTRL):
        rig.send(command, 1)
    assert [p[0] for p in rig.cycle()] == [0x32]
    assert rig.server.stats.ignored_total == 5 and rig.server.stats.ignored[253] == 1
    assert rig.server.state is SessionState.OPEN


# --------------------------------------------------------------------------- faults


def test_malformed_packets_are_dropped_and_counted_and_the_session_survives() -> None:
    rig = Rig()
    rig.open()
    good = encode_command(Command.VEL, 200)
    bad_checksum = good[:-1] + bytes([good[-1] ^ 0xFF])
    over_length = b"\xfa\xfb\xf0" + bytes(240)
    truncated = encode_command(Command.RVEL, 10)[:5]
    rig.client.write(bad_checksum + over_length + b"\x00\x13\xfa\xfa" + truncated)
    rig.cycle(10)  # the truncated packet expires after the partial timeout
    stats = rig.server.receiver.stats
    assert stats.bad_checksum == 1 and stats.too_long >= 1 and stats.expired == 1
    assert rig.robot.vel == 0.0
    rig.client.write(good)
    rig.cycle(10)
    assert rig.robot.vel == pytest.approx(200.0)
    assert rig.server.stats.handler_errors == 0


def test_a_client_vanishing_mid_packet_leaves_the_server_ready_for_the_next() -> None:
    rig = Rig()
    rig.open()
    rig.send(Command.VEL, 300)
    rig.cycle(5)
    rig.client.write(encode_command(Command.RVEL, 20)[:4])
    rig.client.close()
    rig.cycle(2)
    assert rig.server.state is SessionState.WAITING and rig.robot.vel == 0.0
    rig.reattach()
    rig.open()
    assert rig.server.stats.sessions == 2 and rig.server.is_open


def test_idle_timeout_hangs_up_a_silent_client() -> None:
    rig = Rig(options=ServerOptions(idle_timeout=3.0))
    rig.cycle(29)
    assert rig.server.connected
    rig.cycle(2)
    assert rig.server.transport is None and rig.client.closed


client_bytes = st.lists(st.binary(max_size=64), max_size=12)
command_args = st.one_of(
    st.none(),
    st.integers(-0xFFFF, 0xFFFF),
    st.binary(max_size=40).map(lambda b: bytes([0x2B]) + b),
    st.binary(max_size=40),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=client_bytes, opened=st.booleans())
def test_random_bytes_never_raise(chunks: list[bytes], opened: bool) -> None:
    rig = Rig()
    if opened:
        rig.open()
    for chunk in chunks:
        rig.client.write(chunk)
        rig.cycle()
    assert rig.server.stats.handler_errors == 0
    fed = sum(map(len, chunks))
    stats = rig.server.receiver.stats
    assert stats.packet_bytes + stats.garbage_bytes + rig.server.receiver.buffered == fed + (
        sum(len(encode_sync(0)) for _ in range(3)) + len(encode_command(Command.OPEN, 1)) if opened else 0
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands=st.lists(st.tuples(st.integers(0, 255), command_args), min_size=1, max_size=15))
def test_random_commands_never_raise(commands: list[tuple[int, int | bytes | None]]) -> None:
    rig = Rig("p3dx", open_world((1500.0, -2000.0, 1500.0, 2000.0)))
    rig.open()
    for number, arg in commands:
        payload = bytes([number]) + (b"" if arg is None else bytes(arg) if isinstance(arg, bytes) else b"")
        packet = encode_command(number, arg) if isinstance(arg, int) else encode_packet(payload, 200)
        if rig.client.closed:  # a CLOSE hung up: the next client comes along
            rig.reattach()
            rig.open()
        rig.client.write(packet)
        rig.cycle(2)
    rig.cycle(3)
    assert rig.server.stats.handler_errors == 0
    assert rig.server.stats.commands + rig.server.stats.handshake_ignored >= 1


def test_a_long_robot_name_is_cut_to_fit_the_sync2_reply() -> None:
    from saphira.params.robot_params import RobotParams
    from saphira.protocol.sync import encode_sync2_reply
    from saphira.sim.session import MAX_IDENTITY_TEXT, identity_for

    identity = identity_for(RobotParams(name="R" * 300))
    assert len(identity.name) == MAX_IDENTITY_TEXT
    assert encode_sync2_reply(identity)  # fits one packet
