"""The Pioneer server against one bad client: handshake deadline, idle timer, world requests, exits.

Lock-step tests crank the in-process server by hand (:class:`tests.test_sim_server.Rig`); the rest
start ``saphira sim`` on 127.0.0.1 and poll observable conditions with a deadline, never sleeping.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from saphira.app import sim as standalone
from saphira.params.robot_params import find_params_file, load_params
from saphira.protocol import Command, PacketId, decode_simstat, encode_command, encode_sync, str_arg
from saphira.sim.lines import TcpLine
from saphira.sim.server import PioneerServer
from saphira.sim.session import ServerOptions
from saphira.sim.simulation import Simulation
from saphira.sim.world_requests import WorldAccess
from saphira.world.world import MAX_WALLS
from tests.realtime import WAIT
from tests.sim_process import Program
from tests.test_sim_server import Rig, open_world
from tests.test_sim_standalone import RawClient

ROOM = "width 8000\nheight 8000\nposition 2500 1500 90\n0 0 8000 0\n8000 0 8000 8000\n8000 8000 0 8000\n0 8000 0 0\n"


# --------------------------------------------------------------------------- the line


def test_a_client_that_never_completes_the_handshake_is_hung_up() -> None:
    rig = Rig(options=ServerOptions(handshake_timeout=0.5))
    rig.send(Command.PULSE)  # a valid packet, but not a handshake: it buys no time
    rig.cycle(5)
    assert rig.server.connected
    rig.send(Command.PULSE)
    rig.cycle(1)
    assert not rig.server.connected and rig.client.closed
    assert rig.server.stats.handshake_timeouts == 1


def test_a_session_under_way_is_not_hung_up_by_the_handshake_deadline() -> None:
    rig = Rig(options=ServerOptions(handshake_timeout=0.5))
    rig.open()
    rig.run(30)
    assert rig.server.is_open and rig.server.stats.handshake_timeouts == 0


def test_stray_bytes_do_not_keep_a_line_only_valid_packets_do() -> None:
    rig = Rig(options=ServerOptions(idle_timeout=3.0))
    for k in range(60):  # one garbage byte a second, never a packet
        if k % 10 == 0:
            rig.client.write(b"\x00")
        rig.cycle()
        if not rig.server.connected:
            break
    assert not rig.server.connected and k == 30
    live = Rig(options=ServerOptions(idle_timeout=3.0))
    live.open()
    live.run(60)  # a PULSE a second keeps it
    assert live.server.is_open


# --------------------------------------------------------------------------- LOADWORLD


def _load(rig: Rig, name: str) -> None:
    rig.send(Command.LOADWORLD, str_arg(name))
    rig.cycle()


def test_loadworld_reads_only_bundled_worlds_without_a_world_dir(tmp_path: Path) -> None:
    outside = tmp_path / "room.wld"
    outside.write_text(ROOM)
    rig = Rig()
    rig.open()
    _load(rig, str(outside))
    assert rig.simulation.world.name == "test" and rig.server.stats.worlds_refused == 1
    _load(rig, "corridor")
    assert rig.simulation.world.name == "corridor"
    assert rig.server.stats.handler_errors == 0


def test_loadworld_reads_files_under_the_world_dir_and_nothing_beside(tmp_path: Path) -> None:
    folder = tmp_path / "worlds"
    folder.mkdir()
    (folder / "inside.wld").write_text(ROOM)
    (tmp_path / "outside.wld").write_text(ROOM)
    (folder / "link.wld").symlink_to(tmp_path / "outside.wld")
    (folder / "loop.wld").symlink_to(folder / "loop.wld")
    rig = Rig(options=ServerOptions(worlds=WorldAccess(folder=folder)))
    rig.open()
    refusals = ("../outside.wld", str(tmp_path / "outside.wld"), "link.wld", "loop.wld", "/etc/passwd", "")
    for refused in refusals:
        _load(rig, refused)
        assert rig.simulation.world.name == "test", refused
    assert rig.server.stats.worlds_refused == len(refusals) and rig.server.stats.handler_errors == 0
    _load(rig, "inside.wld")
    assert rig.simulation.world.name == "inside"
    assert (rig.robot.x, rig.robot.y) == pytest.approx((2500.0, 1500.0))  # the world's start pose
    _load(rig, str(folder / "inside.wld"))
    assert rig.server.stats.worlds_refused == len(refusals)


def test_loadworld_opens_the_file_once_and_follows_no_link_in_the_world_dir(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A link whose target is inside the folder is refused too: a name checked and then opened again could
    be swapped for a link in between (the review's race loaded a world from outside 13 times in 20 s)."""
    folder = tmp_path / "worlds"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "inside.wld").write_text(ROOM)
    (folder / "link.wld").symlink_to(folder / "sub" / "inside.wld")
    (folder / "linked").symlink_to(folder / "sub")
    rig = Rig(options=ServerOptions(worlds=WorldAccess(folder=folder)))
    rig.open()
    for refused in ("link.wld", "linked/inside.wld", str(folder / "link.wld")):
        _load(rig, refused)
        assert rig.simulation.world.name == "test", refused
        assert caplog.records[-1].getMessage().endswith("is a symbolic link (links in --world-dir are not followed)")
    _load(rig, "sub/inside.wld")
    assert rig.simulation.world.name == "inside" and rig.server.stats.worlds_refused == 3


def test_loadworld_refuses_a_world_with_too_many_walls_naming_the_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The byte limit let a 16 MiB file hold ~900,000 walls: minutes and ~500 MB to load (the review's N9)."""
    walls = "".join(f"{k % 5000} 0 {k % 5000} 100\n" for k in range(MAX_WALLS))
    (tmp_path / "most.map").write_text(f"2D-Map\nLINES\n{walls}DATA\n")  # ARIA: read as one table
    (tmp_path / "over.map").write_text(f"2D-Map\nLINES\n{walls}1 1 2 2\nDATA\n")
    (tmp_path / "over.wld").write_text(
        walls.splitlines()[0] + "\n" + "".join(f"{k} 0 {k} 9\n" for k in range(MAX_WALLS))
    )
    rig = Rig(options=ServerOptions(worlds=WorldAccess(folder=tmp_path)))
    rig.open()
    for name, line in (("over.map", MAX_WALLS + 3), ("over.wld", MAX_WALLS + 1)):
        _load(rig, name)
        said = caplog.records[-1].getMessage()
        assert said.endswith(f"{tmp_path / name}:{line}:1: more than {MAX_WALLS} walls (the most a world may have)")
    assert rig.simulation.world.name == "test" and rig.server.stats.worlds_refused == 2
    _load(rig, "most.map")  # at the limit: loaded
    assert rig.simulation.world.name == "most" and len(rig.simulation.world.segments) == MAX_WALLS


def test_loadworld_checks_the_size_before_reading_and_survives_a_bad_world(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "big.wld").write_text(ROOM + "1 1 2 2\n" * 200)
    (tmp_path / "overflow.wld").write_text("width 6000\nheight 6000\npush 1e308 1e308 0\n1e308 0 1e308 10\npop\n")
    rig = Rig(options=ServerOptions(worlds=WorldAccess(folder=tmp_path, max_bytes=1000)))
    rig.open()
    _load(rig, "big.wld")
    assert f"has {(tmp_path / 'big.wld').stat().st_size} bytes; a client may load at most 1000" in caplog.text
    _load(rig, "overflow.wld")
    assert "overflow.wld" in caplog.text.splitlines()[-1]
    assert rig.simulation.world.name == "test" and rig.server.stats.worlds_refused == 2
    assert rig.server.stats.handler_errors == 0 and rig.server.is_open
    assert rig.sips(3)  # the session goes on


def test_a_background_load_changes_the_world_in_a_later_cycle(tmp_path: Path) -> None:
    (tmp_path / "room.wld").write_text(ROOM)
    rig = Rig(options=ServerOptions(worlds=WorldAccess(folder=tmp_path), load_in_background=True))
    rig.open()
    rig.send(Command.LOADWORLD, str_arg("room.wld"))
    rig.send(Command.LOADWORLD, str_arg("corridor"))  # one load at a time: refused while the first is read
    rig.cycle()
    deadline = time.monotonic() + WAIT
    while rig.simulation.world.name != "room" and time.monotonic() < deadline:
        assert rig.sips(1)  # SIPs go on meanwhile
    assert rig.simulation.world.name == "room"
    assert rig.server.stats.worlds_refused == 1


# --------------------------------------------------------------------------- the real program


def test_a_silent_client_loses_the_line_at_the_handshake_deadline() -> None:
    program = Program("--port", "0", "--handshake-timeout", "0.5")
    try:
        start = time.monotonic()
        host, port = program.addresses[0].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=WAIT) as silent:
            assert silent.recv(1) == b""  # hung up, not held for the 60 s idle timeout
        assert time.monotonic() - start < 30.0  # half the 60 s idle timeout, the only limit before
        with RawClient(program.addresses[0]) as client:
            client.open()
    finally:
        status, output = program.stop()
    assert status == 143, output  # stopped by SIGTERM
    assert b"simulator stopped (1 client(s) hung up without a handshake)" in output


def test_a_half_closed_client_does_not_turn_the_next_one_away() -> None:
    """Its last bytes and its FIN wait together with the next client's connection (the review's 2.5)."""
    simulation = Simulation(open_world(), 0)
    server = PioneerServer(simulation, simulation.add_robot(load_params(find_params_file("p3dx"))))
    line = TcpLine(server, "127.0.0.1", 0)
    address = ("127.0.0.1", int(line.address.rsplit(":", 1)[1]))
    try:
        with socket.create_connection(address, timeout=WAIT) as old:
            line.poll(0.0)
            old.sendall(encode_command(Command.VEL, 300)[:4])  # a partial packet
            old.shutdown(socket.SHUT_WR)  # then its FIN
            with socket.create_connection(address, timeout=WAIT) as new:
                line.poll(0.1)  # the old client's bytes, its FIN and the new client, all at once
                assert line.refused == 0 and server.connected
                new.sendall(encode_sync(0))
                server.receive(0.2)
                assert new.recv(16)[3] == 0  # the SYNC0 echo: the new client has the robot
    finally:
        server.hang_up("test over")
        line.close()


def _simstat_x(payload: bytes) -> float | None:
    return decode_simstat(payload).true_x if payload[0] == PacketId.SIMSTAT else None


def test_loadworld_of_a_large_world_leaves_the_sips_flowing(tmp_path: Path) -> None:
    walls = "".join(f"{1000 + (k * 37) % 15000} {1000 + (k * 91) % 15000} {1030 + (k * 37) % 15000} "
                    f"{1030 + (k * 91) % 15000}\n" for k in range(MAX_WALLS))  # fmt: skip
    (tmp_path / "big.wld").write_text("width 20000\nheight 20000\nposition 17500 17500 0\n" + walls)
    program = Program("--port", "0", "--world-dir", str(tmp_path))
    try:
        with RawClient(program.addresses[0]) as client:
            client.open()
            client.send(Command.SIM_STAT, 2)  # a SIMSTAT (with the true pose) before every SIP
            client.send(Command.LOADWORLD, str_arg("big.wld"))
            sent = last = time.monotonic()
            gaps = []
            while True:
                payload = client.packet()
                if payload[0] in (0x32, 0x33):
                    now = time.monotonic()
                    gaps.append(now - last)
                    last = now
                elif _simstat_x(payload) == 17500:
                    gaps.append(time.monotonic() - last)  # up to the first SIMSTAT in the new world
                    break
                client.send(Command.PULSE)
            loaded = time.monotonic() - sent
    finally:
        status, output = program.stop()
    assert status == 143, output  # stopped by SIGTERM
    assert loaded > 0.5, "the world read too fast to tell a stalled cycle"
    # Read in the cycle, 40k walls stopped the SIPs for seconds; in the worker thread the cycle only
    # waits for the GIL now and then (0.36 s at worst measured, 0.1 s the period). The world has the
    # most walls a world may have: its wall index is built in one pass, so the read is mostly parsing.
    assert max(gaps) < 1.0, (max(gaps), loaded)


# --------------------------------------------------------------------------- exits and options


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        ([], True),
        (["--host", "localhost"], True),
        (["--host", "0.0.0.0"], False),
        (["--host", ""], False),
        (["--host", "0.0.0.0", "--allow-exit"], True),
        (["--no-exit"], False),
        (["--unix", "/tmp/x.sock", "--host", "0.0.0.0"], True),
    ],
)
def test_clients_may_end_the_program_only_where_no_other_host_reaches(argv: list[str], allowed: bool) -> None:
    args = standalone.build_parser().parse_args(argv)
    line = None if args.pty or args.unix is not None else args.host
    assert standalone.exit_allowed(args, line) is allowed


def test_the_help_says_who_may_end_the_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert standalone.main(["--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--allow-exit" in help_text and "on another --host give --allow-exit" in help_text
    assert standalone.main(["--allow-exit", "--no-exit"]) == 2
    assert "argument --no-exit: not allowed with argument --allow-exit" in capsys.readouterr().err


def test_sim_exit_is_ignored_with_no_exit() -> None:
    program = Program("--port", "0", "--no-exit")
    try:
        with RawClient(program.addresses[0]) as client:
            client.open()
            client.send(Command.SIM_EXIT, 3)
            client.send(Command.PULSE)
            assert client.wait_for(lambda p: p[0] in (0x32, 0x33), limit=3)
        assert program.proc.poll() is None
    finally:
        status, output = program.stop()
    assert status == 143, output  # stopped by SIGTERM


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--world-dir", "/no/such/folder"], "argument --world-dir: /no/such/folder: not a folder"),
        (["--handshake-timeout", "nan"], "argument --handshake-timeout: must be a number of seconds >= 0"),
        (["--max-robots", "3"], "--max-robots needs --gamebots PORT"),
    ],
)
def test_bad_server_options_are_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert standalone.main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_in_process_simulator_still_loads_the_users_own_files(tmp_path: Path) -> None:
    """``saphira run``'s embedded simulator serves its own user: any file, as before (the size limit holds)."""
    from saphira.robot import Robot
    from saphira.sim.embedded import attach_simulator

    (tmp_path / "mine.wld").write_text(ROOM)
    robot = Robot()
    sim = attach_simulator(robot, "simple")
    robot.link.send_command(Command.LOADWORLD, robot.link.string_arg(str(tmp_path / "mine.wld")))
    robot.run(cycles=2)
    assert sim.simulation.world.name == "mine"
    robot.disconnect()
