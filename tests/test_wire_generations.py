"""PSOS 4.x and ARCOS wire details, the client's Colbert bindings against the simulator in lock-step,
one robot of each generation (docs/protocol.md §11): string arguments (POLLING) and DIGOUT."""

from __future__ import annotations

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.protocol.sip import decode_sip
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator

PSOS, ARCOS = "pion1m", "p3dx"


class Session:
    """A robot connected to the embedded simulator, with a Colbert evaluator whose output is kept."""

    def __init__(self, params: str) -> None:
        self.robot = Robot()
        self.sim: EmbeddedSim = attach_simulator(self.robot, "simple", params, seed=3)
        self.lines: list[str] = []
        self.ev = Evaluator(self.robot, output=self.lines.append, read_init=False)
        self.fired: list[int] = []
        self.robot.link.on_packet_in.connect(self._sip)

    def _sip(self, payload: bytes) -> None:
        if payload[0] & 0xF0 == 0x30:
            self.fired.extend(n for n, _ in decode_sip(payload, self.robot.link.layout).sonar)

    def do(self, text: str) -> None:
        assert self.ev.eval_text(text), self.lines

    def value(self, text: str) -> str:
        start = len(self.lines)
        self.do(text)
        return self.lines[start]


@pytest.mark.parametrize("params", [PSOS, ARCOS])
def test_polling_fires_exactly_the_sonars_asked_for(params: str) -> None:
    s = Session(params)
    assert s.robot.link.layout.name == ("PSOS" if params == PSOS else "ARCOS")
    s.do(r'sfRobotComStr(sfCOMPOLLING, "\003\004\003\006")')  # sonars 2, 3, 2, 5
    s.robot.run(cycles=3)
    s.fired.clear()
    s.robot.run(cycles=20)
    assert set(s.fired) == {2, 3, 5}, s.fired
    assert s.fired.count(2) == pytest.approx(2 * s.fired.count(3), abs=2)
    assert s.sim.stats.handler_errors == 0


def test_a_psos_string_goes_nul_terminated_and_a_counted_one_with_its_count() -> None:
    s = Session(PSOS)
    sent: list[bytes] = []
    s.robot.link.on_packet_out.connect(sent.append)
    s.do('sfRobotComStr(sfCOMPOLLING, "\\001\\002")')
    s.do('sfRobotComStrn(sfCOMPOLLING, "\\001\\002", 2)')
    assert sent[0][3:-2] == bytes((3, 0x2B, 1, 2, 0))
    assert sent[1][3:-2] == bytes((3, 0x2B, 2, 1, 2))


@pytest.mark.parametrize(
    ("params", "command", "expected"),
    [
        (PSOS, "sfRobotComInt(sfCOMDIGOUT, 5)", 0x05),  # PSOS: the output bits themselves
        (ARCOS, "sfRobotCom2Bytes(sfCOMDIGOUT, 0x0F, 0x05)", 0xF5),  # ARCOS: mask 0x0F, states 0x05
    ],
)
def test_digout_changes_the_reported_outputs(params: str, command: str, expected: int) -> None:
    s = Session(params)
    s.robot.run(cycles=2)
    assert s.value("sfRobot.digoutput") == "255 (int)"
    s.do(command)
    s.robot.run(cycles=2)
    assert s.value("sfRobot.digoutput") == f"{expected} (int)"
    assert s.sim.server.digout == expected
