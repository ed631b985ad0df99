"""A Colbert activity's runtime error stops what it and its children drive, in the same cycle (issue 37, N3).

The activity starts a child that turns (``sfSetRVelocity``), drives (``sfSetVelocity``), waits a second,
then fails: a division by zero, a null dereference or a binding that refuses its argument. Before the
fix the activity was suspended but its setpoint stayed in force (``VEL 300`` every cycle, into the
wall of ``room``). Lock-step runs of the embedded simulator through the CLI, with a recording to read
what went on the wire.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from saphira.app.cli import main
from saphira.protocol.commands import ArgType, Command
from saphira.record.recording import read_recording

FAILING = """\
act spin { sfSetRVelocity(10); waitfor 0 timeout 1000; }
act crash(int kind) {
  int z;
  point *p;
  start spin noblock;
  sfSetVelocity(300);
  waitfor 0 timeout 10;
  z = 0;
  if (kind == 0) { sfSetVelocity(300 / z); }
  if (kind == 1) { z = p->x; }
  if (kind == 2) { sfStalledMotor(7); }
  sfSetVelocity(100);
}
start crash(KIND);
"""
"""Drives at 300 mm/s towards the wall 4.5 m ahead for 1 s, then fails on line 9, 10 or 11."""


def drive_commands(packets: list[bytes]) -> list[tuple[Command, int]]:
    """(VEL or RVEL, signed argument) of framed client packets."""
    found = []
    for p in packets:
        if p[3] in (Command.VEL, Command.RVEL) and len(p) > 8:
            value = int.from_bytes(p[5:7], "little")
            found.append((Command(p[3]), -value if p[4] == ArgType.NEGINT else value))
    return found


@pytest.mark.parametrize(
    ("kind", "line", "message"),
    [
        (0, 9, "division by zero"),
        (1, 10, "null pointer dereference"),
        (2, 11, "sfStalledMotor: 7 is neither sfLEFT nor sfRIGHT"),
    ],
)
def test_an_activity_s_error_stops_the_channels_it_and_its_children_hold(
    kind: int, line: int, message: str, tmp_path: Path, capsys
) -> None:
    act = tmp_path / "crash.act"
    act.write_text(textwrap.dedent(FAILING).replace("KIND", str(kind)), encoding="utf-8")
    rec = tmp_path / "run.rec"
    status = main(["run", str(act), "--world", "room", "--duration", "20", "--record", str(rec)])
    out = capsys.readouterr().out
    lines = [text.strip() for text in out.splitlines() if text.startswith("    ")]
    assert status == 1
    assert f"{act}:{line}:20: act crash: {message}" in out
    assert f"activity crash: error (suspended) at {act}:{line}:20" in lines
    assert "simulator: 0 wall contacts" in lines  # before the fix: 1, driven into the wall
    travelled = next(text for text in lines if text.startswith("travelled"))
    assert float(travelled.split()[1]) < 0.5  # 1 s at 300 mm/s and the braking, not 19 s more

    recording = read_recording(rec)
    assert recording.problem == ""
    failed = min(c for c, texts in recording.messages.items() if any(message in t[2] for t in texts))
    before = [cmd for c in sorted(recording.sent) if c < failed for cmd in drive_commands(recording.sent[c])]
    assert (Command.VEL, 300) in before and (Command.RVEL, 10) in before
    after = [cmd for c in sorted(recording.sent) if c >= failed for cmd in drive_commands(recording.sent[c])]
    assert after[:2] in ([(Command.VEL, 0), (Command.RVEL, 0)], [(Command.RVEL, 0), (Command.VEL, 0)])
    assert set(after) <= {(Command.VEL, 0), (Command.RVEL, 0)}  # before the fix: VEL 300 every cycle
