"""``saphira replay`` fails in one line with its documented status: a --ui port another program holds, a
recording with nothing in it (a header and an end line, or a header alone).

The command runs in this process (``saphira.app.cli.main``, as the program does); the recording of the
first test is made by the real recorder against tests/scripted_server.py.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from saphira.app.cli import main
from tests.test_recording import record_session


def test_replay_ui_on_a_port_another_program_holds_says_so_in_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "session.rec"
    record_session(rec)
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        with pytest.raises(SystemExit) as exit_:  # a usage error, as run's and shell's
            main(["replay", str(rec), "--ui", str(port)])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert err == f"saphira replay: cannot serve the live view on 127.0.0.1:{port}: Address already in use\n"
    assert out == ""


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("# saphira recording 3\n# robot (not connected yet)\n# end 0 events, cycle 0\n", "its end line counts 0"),
        ("# saphira recording 3\n", "no end line: it stops at line 1 (byte offset 22), before its first event"),
    ],
)
def test_a_recording_without_events_is_empty_exit_2_and_draws_no_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str
) -> None:
    rec = tmp_path / "nothing.rec"
    rec.write_text(text)
    plot = tmp_path / "nothing.png"
    for args in (
        ["replay", str(rec)],
        ["replay", str(rec), "--plot", str(plot)],
        ["export", str(rec), "-o", str(tmp_path / "x.mcap")],
    ):
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert err == f"saphira {args[0]}: {rec}: empty recording: no events ({why})\n"
        assert out == ""
    assert not plot.exists()
