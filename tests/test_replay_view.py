"""``saphira replay REC --ui`` shows the recorded run as it was (issue 32 §3): the wake starts at the
robot's start pose (not at (0, 0), where the pose sat before the handshake), and the Activities panel
shows the recorded activities (a version 4 ``t`` line) instead of nothing.

The recording is made by ``saphira run --record`` in lock-step on the embedded simulator; the replay is
served on loopback and asked for a cycle as a page asks (a ``replay`` request); what a page would get
is the frame the view publishes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from saphira.app.cli import main
from saphira.record.playback import Playback
from saphira.record.recording import SourceError, read_recording
from saphira.ui.replay_view import ReplayView
from tests.realtime import wait_until

PATROL = """\
act patrol
{
  move(600);
  turn(90);
}
start patrol;
"""
"""Drives from the room's start pose (1500, 4000, 0) to about (2100, 4000), turns; the run ends with it."""


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("replay-view")
    act, rec = tmp / "patrol.act", tmp / "patrol.rec"
    act.write_text(PATROL)
    assert main(["run", str(act), "--world", "room", "--record", str(rec), "-q"]) == 0
    return rec


def served_frame(view: ReplayView, cycle: int) -> dict[str, Any]:
    """Ask the player for ``cycle`` as a page does; the frame it then publishes."""
    view.handle({"type": "replay", "action": "seek", "cycle": cycle})
    frame = wait_until(lambda: (f := view.hello().get("frame")) is not None and f["cycle"] == cycle and f,
                       f"the frame of cycle {cycle}")  # fmt: skip
    assert isinstance(frame, dict)
    return frame


def test_the_recording_keeps_the_activities_rows(recording: Path) -> None:
    rec = read_recording(recording)
    rows = [row for rows in rec.tasks.values() for row in rows]
    assert ["patrol", "running", 0, "activity", True] in rows
    assert ["patrol", "SUCCESS", 0, "activity", False] in rows  # and how it ended


def test_the_replay_view_shows_the_activities_and_a_wake_from_the_start_pose(recording: Path) -> None:
    view = ReplayView(Playback.open(recording))
    said: list[str] = []
    view.start("127.0.0.1", 0, say=said.append)
    try:
        view.handle({"type": "replay", "action": "speed", "speed": 64})
        view.handle({"type": "replay", "action": "play"})  # played cycle by cycle, as a page plays it
        played = wait_until(lambda: (f := view.hello().get("frame")) is not None and f["cycle"] >= 20 and f,
                            "the player to play 20 cycles")  # fmt: skip
        view.handle({"type": "replay", "action": "pause"})
        assert math.hypot(played["wake"][0][0] - 1500, played["wake"][0][1] - 4000) < 50, played["wake"][:3]
        mid = served_frame(view, 30)
        assert ["patrol", "running", 0, "activity", True] in mid["tasks"]
        first_x, first_y = mid["wake"][0]
        assert math.hypot(first_x - 1500, first_y - 4000) < 50, mid["wake"][:3]  # not (0, 0)
        assert all(math.hypot(x, y) > 1000 for x, y in mid["wake"])
        rows = read_recording(recording).tasks
        ended = next(c for c, r in rows.items() if ["patrol", "SUCCESS", 0, "activity", False] in r)
        end = served_frame(view, ended + 1)  # the frame after the player played that cycle
        assert ["patrol", "SUCCESS", 0, "activity", False] in end["tasks"]
        assert math.hypot(end["wake"][-1][0] - 2100, end["wake"][-1][1] - 4000) < 50
    finally:
        view.stop()


@pytest.mark.parametrize(
    "row",
    ['[["a","running",999999999,"activity",true]]', '[["a","running",0,"activity"]]', '{"a":1}', "[[1,2,3,4,5]]"],
)
def test_a_bad_activities_line_is_refused_where_it_stands(tmp_path: Path, row: str) -> None:
    rec = tmp_path / "bad.rec"
    rec.write_text(f"# saphira recording 4\n# robot x\n3 t {row}\n# end 1 events, cycle 3\n")
    with pytest.raises(SourceError, match=r"bad\.rec:3:"):
        read_recording(rec)
