"""The layers at run time: a robot program loads only the layers it uses (issue 25).

``Robot().connect("tcp://…")`` to a Pioneer must not drag in a simulator, a foreign protocol package or
the live view: the link is chosen by the URL's scheme from :mod:`saphira.client.link.registry`, and the
Flat and Gamebots links are loaded (through their ``saphira.links`` entry points) only for their own
schemes. Each check runs in a fresh interpreter, so nothing another test imported can hide a stray import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.realtime import WAIT
from tests.sim_process import PROJECT, Program

ABOVE_THE_ROBOT = ("saphira.sim", "saphira.flat", "saphira.gamebots", "saphira.pyro_robot", "saphira.brain",
                   "saphira.colbert", "saphira.record", "saphira.ui", "saphira.app")  # fmt: skip
"""Layers above the robot session, which a Pioneer client never needs: the simulators, the other protocols,
Pyro's brains, Colbert, recording, the live view and the commands."""

CONNECT_TIMEOUT = WAIT
"""Wall seconds the fresh interpreter's handshake may take (the first run compiles kernels)."""


def run_fresh(script: str, *, extra_path: Path | None = None) -> Any:
    """Run ``script`` in a new interpreter with the project on its path; the JSON it prints last."""
    path = str(PROJECT) if extra_path is None else os.pathsep.join([str(PROJECT), str(extra_path)])
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT,
        env=dict(os.environ, PYTHONPATH=path),
        capture_output=True,
        text=True,
        timeout=120.0,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def loaded_from(prefixes: tuple[str, ...]) -> str:
    """Python that lists the modules under ``prefixes`` the interpreter has loaded."""
    return f"sorted(m for m in sys.modules if any(m == p or m.startswith(p + '.') for p in {prefixes!r}))"


def test_a_pioneer_connection_loads_no_simulator_protocol_package_or_live_view() -> None:
    program = Program("--port", "0")
    try:
        address = program.addresses[0]
        answer = run_fresh(
            f"""
import json, sys
from saphira.core.clock import RealTimeClock
from saphira.robot import Robot

robot = Robot(RealTimeClock())
robot.connect("tcp://{address}", timeout={CONNECT_TIMEOUT})
robot.run(cycles=3)
connected, model = robot.connected, robot.params.subclass
robot.disconnect()
print(json.dumps({{"connected": connected, "model": model, "loaded": {loaded_from(ABOVE_THE_ROBOT)}}}))
"""
        )
    finally:
        program.stop()
    assert answer["connected"] is True and answer["model"] == "p3dx"
    assert answer["loaded"] == []


SIMULATORS_AND_OTHERS = (
    "saphira.gamebots",
    "saphira.app",
    "saphira.ui",
    "saphira.sim",
    "saphira.flat.server",
)


def test_a_flat_url_loads_the_flat_link_through_its_entry_point_and_no_other_protocol_or_simulator() -> None:
    """A ``flat://`` client needs Flat's wire and robot (flat.codec, flat.robot), not Flat's or our simulator."""
    answer = run_fresh(
        f"""
import json, sys
from saphira.client.link.registry import link_type

before = {loaded_from(("saphira.flat",))}
kind = link_type("flat://127.0.0.1:1095")
print(json.dumps({{"before": before, "kind": kind.__module__ + "." + kind.__qualname__,
                   "paces": kind.paces_clock, "loaded": {loaded_from(SIMULATORS_AND_OTHERS)}}}))
"""
    )
    assert answer["before"] == []
    assert answer["kind"] == "saphira.flat.client.link.FlatLink" and answer["paces"] is True
    assert answer["loaded"] == []
