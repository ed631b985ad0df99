"""The robot link against a byte-level scripted server, in lock-step; and real bytes from a capture."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.client.link.base import ConnectError, LinkState
from saphira.client.motion import RotMode, TransMode
from saphira.client.reflector import Reflector
from saphira.client.transport import memory_pair
from saphira.core.clock import LockStepClock
from saphira.params.robot_params import find_params_file, load_params
from saphira.protocol.capture import SERVER_TO_CLIENT, read_capture, stream_bytes
from saphira.protocol.commands import Command
from saphira.protocol.packet_ids import PacketId
from saphira.protocol.receiver import PacketReceiver
from saphira.protocol.sip import SipLayout, decode_sip
from saphira.robot import Robot
from tests.scripted_server import ScriptedServer


def make(**faults: object) -> tuple[Robot, ScriptedServer]:
    robot = Robot(LockStepClock())
    client, server_end = memory_pair()
    server = ScriptedServer(server_end, **faults)  # type: ignore[arg-type]
    robot.clock.add_listener(server.tick)  # type: ignore[attr-defined]
    robot.link.connect(client)
    return robot, server


def test_clean_handshake_opens_enables_and_requests_config() -> None:
    robot, server = make()
    events: list[str] = []
    robot.scheduler.on_connect.connect(lambda: events.append("connect"))
    robot.wait_connected(5.0)
    assert robot.link.identity is not None and robot.link.identity.subclass == "p3dx"
    assert robot.params.source.endswith("p3dx.p")
    assert [p.command for p in server.log[:3]] == [Command.OPEN, Command.ENABLE, Command.CONFIG]
    assert robot.link.config is not None and robot.link.config.serial_number == "SIM"
    assert events == ["connect"]
    assert robot.clock.cycle < 10


def test_lost_sync1_reply_is_retried() -> None:
    robot, _ = make(drop_sync1_replies=1)
    robot.wait_connected(10.0)
    assert robot.link.counters.sync_timeouts == 1
    assert robot.connected


def test_a_stale_sync_echo_is_ignored_not_a_restart() -> None:
    """Two echoes of SYNC0 (the link resent it after a stall and both answers came): the second is stale.

    Restarting the handshake on it kept two handshakes in flight, each echo restarting the other, until
    the link gave up after 50 attempts (seen on a loaded machine, where a stall outlasts the sync timeout).
    """
    robot, _ = make(doubled_sync0_replies=3)
    robot.wait_connected(10.0)
    assert robot.connected
    assert robot.link.counters.sync_attempts == 3  # SYNC0, SYNC1, SYNC2: the stale echoes started nothing


def test_stale_session_is_closed_first() -> None:
    robot, server = make(stale_session=True)
    robot.wait_connected(10.0)
    assert robot.link.counters.stale_closes >= 1
    assert server.closes >= 1
    assert robot.connected


def test_silent_robot_fails_with_a_clear_error_after_the_limit() -> None:
    robot, _ = make(silent=True)
    with pytest.raises(ConnectError, match=r"no answer from the robot at sim:client after 5 tries of 1 s"):
        robot.wait_connected(60.0)
    assert robot.link.state == LinkState.FAILED
    assert 49 <= robot.clock.cycle <= 52  # 5 × 1 s of lock-step time


def test_sips_stopping_fires_disconnect_and_stops_setpoints_then_reconnect() -> None:
    robot, server = make()
    reasons: list[str] = []
    robot.link.on_disconnect.connect(reasons.append)
    robot.wait_connected(5.0)
    robot.motion.set_velocity(250)
    robot.run(cycles=3)
    assert server.last(Command.VEL) == 250
    server.send_sips = False
    robot.run(cycles=85)  # the default link timeout: ARIA's 8 s
    assert len(reasons) == 1 and "no SIP for 8.0 s" in reasons[0]
    assert server.last(Command.VEL) == 0 and server.closes == 1  # it may still hear us: stopped and closed
    assert robot.link.state == LinkState.DISCONNECTED
    assert robot.motion.trans_mode == TransMode.NONE and robot.motion.rot_mode == RotMode.NONE
    sent_before = len(server.log)
    robot.run(cycles=20)
    assert len(server.log) == sent_before  # nothing more goes out

    client, server_end = memory_pair("again")
    server2 = ScriptedServer(server_end)
    robot.clock.add_listener(server2.tick)  # type: ignore[attr-defined]
    robot.connect(client)
    assert robot.connected
    robot.motion.set_velocity(100)
    robot.run(cycles=2)
    assert server2.last(Command.VEL) == 100


def test_setpoint_reflection_survives_30_percent_packet_loss() -> None:
    robot, server = make(client_loss=0.3, seed=4)
    robot.motion.turn_command = Command.HEAD  # absolute headings, resent: what a lossy link needs
    robot.wait_connected(20.0)
    for target in (100, 200, 300, 150):
        robot.motion.set_velocity(target)
        robot.motion.set_heading(target / 10)
        robot.run(cycles=4)
    robot.run(cycles=30)  # a few refresh periods
    assert server.last(Command.VEL) == 150
    assert server.last(Command.HEAD) == 15
    lost = robot.link.counters.packets_sent - len(server.log)
    assert lost > 0.15 * robot.link.counters.packets_sent  # loss really happened


def test_pulse_keeps_an_idle_link_alive() -> None:
    robot, server = make()
    robot.wait_connected(5.0)
    before = len(server.log)
    robot.run(seconds=5.0)
    pulses = [p for p in server.log[before:] if p.command == Command.PULSE]
    assert 4 <= len(pulses) <= 6


def test_bad_url_is_a_connect_error() -> None:
    robot = Robot()
    with pytest.raises(ConnectError, match="unknown transport URL"):
        robot.connect("carrier-pigeon://x")


def test_real_capture_server_stream_through_receiver_and_reflector(captures_dir: Path) -> None:
    records = read_capture(captures_dir / "aria-simpleMotionCommands-amrisim.txt")
    stream = stream_bytes(records, SERVER_TO_CLIENT)
    receiver = PacketReceiver()
    payloads = receiver.feed(stream)
    assert receiver.stats.garbage_bytes == 0 and receiver.buffered == 0 and receiver.stats.dropped == 0
    assert receiver.stats.packet_bytes == len(stream)
    kinds = [p[0] for p in payloads]
    assert set(kinds) <= {
        PacketId.SYNC0,
        PacketId.SYNC1,
        PacketId.SYNC2,
        PacketId.CONFIG,
        PacketId.SIP_STOPPED,
    }
    reflector = Reflector(load_params(find_params_file("p3dx-sh")))
    sips = [decode_sip(p, SipLayout.ARCOS) for p in payloads if p[0] == PacketId.SIP_STOPPED]
    assert len(sips) == 301
    assert all(s.extra == b"" for s in sips)
    for sip in sips:
        reflector.apply_sip(sip)
    st = reflector.state
    assert st.odo_x == pytest.approx(1761, abs=1.0)
    assert st.odo_y == pytest.approx(-548, abs=1.0)
    assert st.odo_th == pytest.approx(-46.9, abs=0.1)
    assert (st.ax, st.ay, st.ath) == pytest.approx((st.odo_x, st.odo_y, st.odo_th), abs=1e-6)
    assert len(reflector.sonar.buckets) == 16 and sum(b.count for b in reflector.sonar.buckets) > 0


def test_packet_rates_count_sips_per_second_of_clock_time() -> None:
    robot, server = make()
    robot.wait_connected(5.0)
    robot.run(seconds=3.0)
    assert robot.state.motor_packet_count == 10  # one SIP per 100 ms cycle
    assert robot.state.sonar_packet_count == 0  # the scripted robot sends no sonar
    server.send_sips = False  # the SIP already sent at the end of the last cycle still arrives
    robot.run(cycles=5)
    assert robot.state.motor_packet_count == 6


def test_a_parameter_file_that_does_not_load_fails_the_connection_cleanly(tmp_path: Path) -> None:
    from saphira.core.errors import SourceError, SourcePosition

    robot, server = make()

    def broken(identity: object) -> object:
        raise SourceError("bad number 'x'", SourcePosition(str(tmp_path / "p3dx.p"), 7))

    robot.link._choose_params = broken  # type: ignore[assignment]
    with pytest.raises(ConnectError, match=r"p3dx.p:7: bad number"):
        robot.wait_connected(5.0)
    assert robot.link.state == LinkState.FAILED and server.closes == 1
    assert "packets" in robot.scheduler  # the reader task survives for the next connection


def test_a_timed_out_handshake_is_abandoned() -> None:
    robot, _ = make(silent=True)
    with pytest.raises(ConnectError, match="within 2 s"):
        robot.wait_connected(2.0)
    assert robot.link.state == LinkState.FAILED and robot.link.transport is None


def test_a_server_that_ignores_close_cannot_hold_the_handshake_forever() -> None:
    robot, server = make(stale_session=True)
    server.handle = lambda payload: None  # type: ignore[method-assign]  # keeps streaming SIPs, ignores CLOSE
    with pytest.raises(ConnectError, match="handshake did not finish"):
        robot.wait_connected(30.0)
    assert robot.clock.cycle < 100


def test_disconnect_reports_once_when_the_line_is_already_dead() -> None:
    robot, server = make()
    robot.wait_connected(5.0)
    reasons: list[str] = []
    robot.link.on_disconnect.connect(reasons.append)
    server.transport.close()
    robot.disconnect()
    assert len(reasons) == 1
