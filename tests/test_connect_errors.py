"""A connection error is one line that names the robot's URL, printed once, with exit status 2.

``saphira run`` (in this process, ``saphira.app.cli.main``) against a robot port that accepts and closes
at once (tests/fault_link.py's proxy, refusing) and one that never answers (tests/silent_robot.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from saphira.app.cli import main
from tests.fault_link import FaultProxy
from tests.silent_robot import silent_robot, url

ACT = Path(__file__).resolve().parent.parent / "colbert" / "direct.act"


def test_a_robot_port_that_closes_at_once_is_an_error_naming_its_url(capsys: pytest.CaptureFixture[str]) -> None:
    proxy = FaultProxy(("127.0.0.1", 9))  # nothing behind it: every client is turned away
    proxy.set_fault("refuse")
    try:
        assert main(["run", str(ACT), "--robot", proxy.url]) == 2
    finally:
        proxy.close()
    err = capsys.readouterr().err
    assert re.fullmatch(rf"saphira run: {proxy.url}: [Cc]onnection (closed|reset) by peer\n", err), err


def test_a_silent_robot_s_error_is_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Real time (a --robot run): the handshake's 5 tries of 1 s."""
    with silent_robot() as listener:
        robot = url(listener)
        assert main(["run", str(ACT), "--robot", robot]) == 2
    err = capsys.readouterr().err
    assert err == (f"saphira run: no answer from the robot at {robot} after 5 tries of 1 s (is it "
                   "switched on, and is this the right port?)\n")  # fmt: skip
