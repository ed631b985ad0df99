"""``saphira shell`` on a real pseudo-terminal: statements, definitions, start, signals, load, help,
history, and no exit on errors. Each step waits for the output it expects (never for a fixed time)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.realtime import WAIT
from tests.sim_process import PROJECT

TIMEOUT = WAIT


class Terminal:
    """``saphira shell`` with its stdin/stdout on a pty, so it runs interactively (prompt, readline)."""

    def __init__(self, *args: str, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "saphira", "shell", *args], cwd=PROJECT, env=env,
            stdin=slave, stdout=slave, stderr=slave, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.seen = ""

    def expect(self, text: str) -> str:
        """Read until ``text`` appears after what was already consumed; returns the output up to it."""
        deadline = time.monotonic() + TIMEOUT
        while text not in self.seen:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"never saw {text!r}; got {self.seen[-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096).decode(errors="replace")
                except OSError:
                    chunk = ""
                assert chunk, f"the shell ended before printing {text!r}: {self.seen[-2000:]!r}"
                self.seen += chunk
        head, _, self.seen = self.seen.partition(text)
        return head

    def send(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def run(self, line: str) -> str:
        """Send a line and return what it printed before the next prompt."""
        self.send(line)
        return self.expect("colbert> ")

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            os.close(self.master)


def test_shell_session_on_a_terminal(tmp_path: Path) -> None:
    history = tmp_path / "history"
    env = dict(os.environ, SAPHIRA_HISTORY=str(history), SAPHIRA_LOAD=str(tmp_path), TERM="dumb")
    (tmp_path / "extra.act").write_text('act greet(string who) { sfSMessage("hello, %s", who); }\n')
    term = Terminal("--no-sim", env=env)
    term.expect("colbert> ")
    assert "42 (int)" in term.run("6 * 7")
    assert "expected" in term.run("foo(;")  # a syntax error: the shell carries on
    assert "division by zero" in term.run("1 / 0")
    term.run('act ticker { int n; n = 0; while (1) { n = n + 1; sfSMessage("tick %d", n); waitfor 0 timeout 3; } }')
    term.send("start ticker;")
    term.expect("tick 2")
    term.run("suspend ticker;")
    assert "1 (int)" in term.run('sfTaskSuspended("ticker")')
    term.run("resume ticker;")
    assert "0 (int)" in term.run('sfTaskSuspended("ticker")')
    term.run("remove ticker;")
    assert "2 (int)" in term.run('sfTaskFinished("ticker")')  # removed: absent or being reaped
    term.run("load extra.act")
    term.send('start greet("world");')
    term.expect("hello, world")
    assert "sfSetVelocity" in term.run("help sfSetVelocity")
    term.send("exit")
    assert term.close() == 0
    saved = history.read_text()
    assert "6 * 7" in saved and "load extra.act" in saved
