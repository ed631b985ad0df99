"""Links chosen by URL scheme (:mod:`saphira.client.link.registry`): the Pioneer's, the bundled and a third party's.

A third-party protocol is a package on the path with a ``saphira.links`` entry point, built here in a
temporary folder (a ``dist-info`` with ``entry_points.txt``, as pip installs one) and used from a fresh
interpreter, so the registry finds it as it would find an installed package, and only on first use.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from saphira.app.cli import main
from saphira.client.link.base import ConnectError
from saphira.client.link.pioneer import PioneerLink
from saphira.client.link.registry import known_schemes, link_type
from saphira.client.transport import memory_pair
from saphira.robot import Robot
from tests.sim_process import Program
from tests.test_layers import CONNECT_TIMEOUT, run_fresh

PIGEON_LINK = '''
"""A third party's protocol: the Pioneer's packets under its own scheme, announcing the map it is on."""
from saphira.client.link.pioneer import PioneerLink
from saphira.client.link.registry import register_link


class PigeonLink(PioneerLink):
    paces_clock = True

    def connect(self, target):
        super().connect("tcp://" + str(target).split("://", 1)[1])
        self.map_name, self.map_changes = "loft.map", 1


register_link("pigeon", PigeonLink)
'''


def third_party(folder: Path) -> Path:
    """A folder holding the ``pigeon`` distribution: three links declared, one that works."""
    (folder / "pigeon_link.py").write_text(PIGEON_LINK)
    (folder / "silent_link.py").write_text('"""Registers nothing."""\n')
    (folder / "broken_link.py").write_text('raise ImportError("no carrier on this roof")\n')
    info = folder / "pigeon-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pigeon\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[saphira.links]\npigeon = pigeon_link\nsilent = silent_link\nbroken = broken_link\n"
    )
    return folder


@pytest.mark.parametrize(
    "url", ["tcp://127.0.0.1:8101", "TCP://robot", "unix:///tmp/s", "serial:///dev/ttyUSB0", "loop://", "/dev/ttyS0",
            "COM3", "C:\\robot"],
)  # fmt: skip
def test_the_pioneer_link_opens_its_transports_schemes_and_device_names(url: str) -> None:
    assert link_type(url) is PioneerLink


def test_a_transport_object_gets_the_pioneer_link() -> None:
    assert link_type(memory_pair()[0]) is PioneerLink


def test_an_unknown_scheme_names_the_known_ones_and_keeps_the_robot_link() -> None:
    robot = Robot()
    pioneer = robot.link
    with pytest.raises(ConnectError) as failure:
        robot.connect("carrier-pigeon://x")
    message = str(failure.value)
    assert message.startswith("unknown transport URL 'carrier-pigeon://x': no link for carrier-pigeon://")
    assert "known schemes: " in message and all(s in message for s in ("flat", "serial", "tcp", "unix", "usarsim"))
    assert robot.link is pioneer
    assert {"flat", "tcp", "usarsim"} <= set(known_schemes())


def test_saphira_run_reports_an_unknown_scheme_with_the_known_ones(tmp_path: Path) -> None:
    act = tmp_path / "idle.act"
    act.write_text('act idle { sfSMessage("idle"); }\nstart idle;\n')
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["run", str(act), "--robot", "carrier-pigeon://roof"])
    assert status == 2
    assert "no link for carrier-pigeon:// (known schemes: " in out.getvalue() + err.getvalue()


def test_a_third_party_link_comes_from_its_entry_point_on_first_use(tmp_path: Path) -> None:
    """The pigeon link is imported by its first URL, connects, announces a map to Colbert and hands back."""
    program = Program("--port", "0")
    try:
        address = program.addresses[0]
        answer = run_fresh(
            f"""
import json, sys
from saphira.client.link.base import ConnectError
from saphira.colbert.evaluator import Evaluator
from saphira.core.clock import RealTimeClock
from saphira.robot import Robot

robot = Robot(RealTimeClock())
pioneer = robot.link
imported_before = "pigeon_link" in sys.modules
robot.connect("pigeon://{address}", timeout={CONNECT_TIMEOUT})
pigeon = robot.link
ev = Evaluator(robot, output=print, read_init=False)
ev.eval_text("string m; int n; m = sfFlatMap(); n = sfFlatMapChanges();")
seen = [ev.value("m"), int(ev.value("n"))]
shares_events = pigeon.on_connect is pioneer.on_connect
robot.disconnect()
robot.connect("tcp://{address}", timeout={CONNECT_TIMEOUT})
given_back = robot.link is pioneer and robot.connected
robot.disconnect()
errors = []
for url in ("silent://x", "broken://x"):
    try:
        robot.connect(url)
    except ConnectError as exc:
        errors.append(str(exc))
print(json.dumps({{"imported_before": imported_before, "kind": type(pigeon).__name__, "paces": pigeon.paces_clock,
                   "seen": seen, "shares_events": shares_events, "given_back": given_back, "errors": errors}}))
""",
            extra_path=third_party(tmp_path),
        )
    finally:
        program.stop()
    assert answer["imported_before"] is False
    assert answer["kind"] == "PigeonLink" and answer["paces"] is True and answer["shares_events"] is True
    assert answer["seen"] == ["loft.map", 1]
    assert answer["given_back"] is True
    assert answer["errors"] == [
        "'silent://x': silent_link registered no link for silent:// (register_link)",
        "'broken://x': the link for broken:// (broken_link) cannot be loaded: no carrier on this roof",
    ]


def test_the_fresh_interpreter_reports_the_third_partys_scheme_as_known(tmp_path: Path) -> None:
    answer = run_fresh(
        "import json\nfrom saphira.client.link.registry import known_schemes\nprint(json.dumps(known_schemes()))",
        extra_path=third_party(tmp_path),
    )
    assert isinstance(answer, list) and {"pigeon", "silent", "broken", "flat", "tcp"} <= set(answer)
