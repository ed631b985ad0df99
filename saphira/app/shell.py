"""``saphira shell``: the interactive Colbert evaluator (the manual's interaction area, docs/colbert.md §6).

The robot runs in the background (the scheduler in its own thread, real time) while the prompt
waits, so activities started at the prompt keep running between lines. Each line — or each group
of lines, when braces are still open — is evaluated in the one environment; an expression prints
its value and type. No error ends the shell: only ``exit`` (or ``quit``) or end of input does. With readline the
history is kept in ``~/.saphira_history`` (or ``$SAPHIRA_HISTORY``).

SIGTERM ends the shell: the robot is stopped and disconnected, and the exit status is 143. Ctrl-C at a
terminal only abandons the line being typed or run, as in Python's prompt; with input from a file
or a pipe (a script: no one to type ``exit``) it ends the shell as SIGTERM does, with status 130.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from saphira.app.commands import Command, add_verbosity
from saphira.app.robot_options import add_robot_options
from saphira.app.ros2 import add_ros2_options
from saphira.app.session import (
    ColbertConnection,
    connect_robot,
    lay_params_file,
    serve_live_view,
    session_clock,
    session_robot,
)
from saphira.colbert.evaluator import Evaluator
from saphira.core.interrupts import Interrupted, StopSignals
from saphira.robot import Robot
from saphira.ui.options import add_ui_options, ui_port_problem

if TYPE_CHECKING:
    from saphira.robot import Robot
    from saphira.sim.embedded import EmbeddedSim

PROMPT = "colbert> "
CONTINUATION = "     ... "
QUIT = "quit"
"""Alone on a line, the shell's synonym of ``exit``. Not a Colbert keyword (the manual has none), so a
variable named ``quit`` stays legal everywhere else."""


def _open_braces(text: str) -> int:
    """Unclosed ``{`` in ``text``, ignoring strings and comments (enough to know a definition goes on)."""
    depth = 0
    i = 0
    in_string = False
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return depth + 1  # an open comment also needs more lines
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return depth


class Shell:
    """Reads statements from ``read_line`` and evaluates them until ``exit`` or end of input."""

    def __init__(self, evaluator: Evaluator, read_line: Callable[[str], str] = input) -> None:
        self.evaluator = evaluator
        self.read_line = read_line

    def read_statement(self) -> str | None:
        """One complete input (several lines while braces are open); ``None`` at end of input."""
        lines: list[str] = []
        prompt = PROMPT
        while True:
            try:
                line = self.read_line(prompt)
            except EOFError:
                return "\n".join(lines) if lines else None
            lines.append(line)
            text = "\n".join(lines)
            if _open_braces(text) <= 0 and not line.rstrip().endswith("\\"):
                return text
            prompt = CONTINUATION

    def loop(self) -> int:
        number = 0
        while not self.evaluator.exit_requested:
            try:
                text = self.read_statement()
            except Interrupted:
                raise
            except KeyboardInterrupt:
                self.evaluator.output("(interrupted; type 'exit' to leave)")
                continue
            if text is None:
                break
            if not text.strip():
                continue
            if text.strip().removesuffix(";").strip() == QUIT:
                text = "exit"
            number += 1
            try:
                self.evaluator.eval_text(text, f"<prompt {number}>", interactive=True)
            except Interrupted:
                raise
            except KeyboardInterrupt:
                self.evaluator.output("(interrupted)")
            except Exception as exc:  # the shell must survive anything a line can do
                self.evaluator.output(f"error: {type(exc).__name__}: {exc}")
        return 0


def _history_file() -> Path:
    return Path(os.environ.get("SAPHIRA_HISTORY", Path.home() / ".saphira_history")).expanduser()


def _setup_readline() -> Callable[[], None]:
    """Enable line editing and persistent history when readline exists; returns the save function."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input() still works
        return lambda: None
    path = _history_file()
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    readline.set_history_length(1000)

    def save() -> None:
        with contextlib.suppress(OSError):
            readline.write_history_file(path)

    return save


def run_shell(args: argparse.Namespace) -> int:
    """The ``saphira shell`` command."""
    ui = getattr(args, "ui", None)
    clock = session_clock(args.robot, args.speed, ui, real_time=True)
    robot = session_robot(clock, getattr(args, "link_timeout", None))
    lay_params_file(robot, args.params)  # a bad file fails at once
    connection = ColbertConnection(robot)
    evaluator = Evaluator(robot, output=lambda text: print(text, flush=True), connection=connection)
    quiet = getattr(args, "quiet", False)  # -q, "only errors": no connection notes, as in ``saphira run``
    sim = None
    if args.robot:
        if not quiet:
            evaluator.output(f"connecting to {args.robot} ...")
        connect_robot(robot, args.robot, evaluator.output, reconnect=getattr(args, "reconnect", None), wait=False,
                      still_up=SHELL_UP,
                      connector=lambda: robot.connect(connection.connected_url or args.robot, wait=False))  # fmt: skip
    elif not args.no_sim:
        from saphira.sim.embedded import attach_simulator

        sim = attach_simulator(robot, args.world, args.params, seed=args.seed, wait=False)
        connection.settings["local"] = EMBEDDED_URL
        connection.connected_url = EMBEDDED_URL
        connection.connector = lambda url: _connect_embedded(robot, sim, url)
    live = serve_live_view(robot, evaluator, ui, sim, evaluator.output)
    ros2 = None
    if getattr(args, "ros2", False):
        from saphira.app.ros2 import start_ros2

        ros2 = start_ros2(robot, args, lambda: sim, evaluator.output)
    robot.scheduler.start_async()
    interactive = sys.stdin.isatty()
    ending = contextlib.ExitStack()
    ending.enter_context(StopSignals(line_interrupts=interactive))  # Ctrl-C at a terminal ends only the line
    try:
        if args.robot or not args.no_sim:
            robot.wait_connected(30.0)
            if not quiet:
                evaluator.output(f"connected; parameters from {robot.params.source}")
        for path in args.files:
            evaluator.load(path)
        save_history = _setup_readline() if interactive else (lambda: None)
        read = input if interactive else _plain_reader
        try:
            return Shell(evaluator, read).loop()
        finally:
            save_history()
    except Interrupted as exc:
        evaluator.output(f"({exc}: the robot is stopped and the shell ends)")
        raise  # saphira's main: the exit status interrupts.signalled(signum)
    finally:
        robot.scheduler.stop()
        if live is not None:
            live.stop()
        if ros2 is not None:
            ros2.close()
        if robot.connected:
            robot.disconnect()  # velocity 0, motors off, CLOSE
        ending.close()


SHELL_UP = " (the shell stays up; 'connect' reaches a robot again)"
"""What the shell adds when the robot link is lost: it goes on, with or without ``--reconnect``."""

EMBEDDED_URL = "sim://embedded"
"""What ``connect local`` reaches in a shell with the embedded simulator (an in-process line)."""


def _connect_embedded(robot: Robot, sim: EmbeddedSim, url: str) -> str:
    """The shell's connector with an embedded simulator: :data:`EMBEDDED_URL` reconnects to it, any
    other URL leaves it for that robot. Starts the connection; the evaluator waits for it."""
    if url == EMBEDDED_URL:
        sim.connect(wait=False)
    else:
        robot.connect(url, wait=False)
    return url


def _plain_reader(prompt: str) -> str:
    """Input without a prompt echo, for piped input (scripts and tests)."""
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``shell`` options."""
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to load first")
    add_robot_options(parser)
    parser.add_argument("--no-sim", action="store_true", help="start without a robot or simulator")
    add_ui_options(parser)
    add_ros2_options(parser)
    add_verbosity(parser)


COMMAND = Command(
    "shell",
    help="interactive Colbert evaluator",
    summary="the interactive Colbert evaluator, with or without a robot",
    description="Type Colbert statements, definitions, start/signal commands, load and help. An "
    "expression prints its value and type. Errors never end the shell; 'exit' or Ctrl-D does.",
    epilog="exit status: 0 after 'exit' or the end of input, 2 for a connection error or a bad option, "
    "143 after SIGTERM and 130 after Ctrl-C with input from a file or pipe (at a terminal Ctrl-C only "
    "abandons the line); either signal stops and disconnects the robot first.",
    add_arguments=add_arguments,
    run=run_shell,
    check=lambda args: ui_port_problem(args.ui),
)
