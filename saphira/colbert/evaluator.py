"""The Colbert evaluator: running text in an environment, and the utility commands.

:class:`Evaluator` is what the manual's ``sfRunEvaluator`` provides (docs/colbert.md §6): it runs text
typed at the prompt or read from files and obeys the utility commands (``load``, ``cd``, ``help``,
``connect``, ``exit``...). It is thin, over two parts it assembles:

* it *is* an :class:`~saphira.colbert.environment.Environment` (the names, the registration API the
  manual's ``sfAddEval*`` functions are, ``help``), so a plugin's ``load_init(env)`` gets the evaluator;
* it *has* a :class:`~saphira.colbert.loader.Loader` (``.act``, ``.beh`` and plugin files, the load
  directory), whose methods it offers under the same names (``load``, ``unload``, ``resolve``...).

Running text:

* Top-level statements run as they are read; act definitions are compiled and registered; an
  expression typed at the prompt prints its value and type, e.g. ``7 (int)``.
* Loading stops at the first error. Everything before it stays loaded: for a syntax error, the
  complete top-level items before the error's line are run first (as the manual's incremental
  parser would have done), then the error is reported with file, line, column and a caret.
* ``connect``, ``disconnect`` and ``set`` go to the :class:`~saphira.colbert.bindings.context.Connection`
  the evaluator is given (``saphira shell`` and ``saphira run`` give
  :class:`saphira.app.session.ColbertConnection`); without one they are an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from saphira.colbert.bindings.context import Connection
from saphira.colbert.bindings.table import install_bindings
from saphira.colbert.checker import Checker
from saphira.colbert.compile.codegen import generated_line
from saphira.colbert.compile.compiler import Compiler
from saphira.colbert.compile.symbols import (
    VOID,
    ActSchema,
    ColbertCompileError,
    ColbertRuntimeError,
    format_value,
    runtime_message,
)
from saphira.colbert.environment import HELP_TOPICS, Environment
from saphira.colbert.loader import Loader
from saphira.colbert.syntax import ast
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.parser import parse, parse_interactive
from saphira.core.errors import SourceError, SourcePosition
from saphira.core.events import Event
from saphira.core.tasks import Scheduler

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["HELP_TOPICS", "Evaluator"]


class Evaluator(Environment):
    """A Colbert environment that runs text, loads files and obeys the utility commands.

    ``robot`` may be None (no motion, no behaviors); then activities run on ``scheduler`` (a fresh
    lock-step one by default). ``output`` receives every message, one line per call. ``connection``
    serves ``connect``, ``disconnect`` and ``set`` (None: the evaluator cannot connect).
    """

    def __init__(
        self,
        robot: Robot | None = None,
        *,
        output: Callable[[str], None] | None = None,
        scheduler: Scheduler | None = None,
        load_directory: str | Path | None = None,
        read_init: bool = True,
        bindings: bool = True,
        connection: Connection | None = None,
    ) -> None:
        super().__init__(robot, output=output, scheduler=scheduler)
        self.runtime.utility_handler = self.run_utility
        self.compiler = Compiler(self.symbols, self.runtime)
        self.loader = Loader(self, lambda text, filename: self.eval_text(text, filename, interactive=False),
                             load_directory=load_directory)  # fmt: skip
        self.connection = connection
        self.exit_requested = False
        if bindings:
            install_bindings(self)
        if read_init:
            self.read_init()

    # ================================================================== running text
    def eval_text(self, text: str, filename: str = "<prompt>", *, interactive: bool = True) -> bool:
        """Run Colbert text; report errors through ``output``. True when everything ran.

        ``interactive``: prompt rules (the final ``;`` is optional, expression values are printed).
        """
        with self.scheduler.lock:  # touch the tasks only between cycles when the scheduler runs in a thread
            return self._eval(text, filename, interactive)

    def _eval(self, text: str, filename: str, interactive: bool) -> bool:
        lines = text.split("\n")
        try:
            if interactive:
                program = parse_interactive(text, filename, self.symbols.struct_names())
            else:
                program = parse(text, filename, self.symbols.struct_names())
        except ColbertSyntaxError as exc:
            if not interactive:
                self._run_prefix(text, filename, exc)
            self.report(exc)
            return False
        return self._run_items(program.items, filename, lines, interactive)

    def check_text(self, text: str, filename: str = "<input>") -> list[SourceError]:
        """Every syntax, name and type error of a file, without running anything or changing this environment.

        The text is compiled against a copy of the symbols (a plugin it loads is loaded here, though);
        ``start`` of a name defined nowhere yet is left to run time, as loading leaves it. For a whole
        run's files, resolved together, see :mod:`saphira.colbert.checker`.
        """
        return Checker.scratch(self.loader).check_text(text, filename)

    def _run_items(self, items: Iterable[ast.TopLevel], filename: str, lines: list[str], interactive: bool) -> bool:
        for item in items:
            try:
                self._run_item(item, filename, lines, interactive)
            except ColbertCompileError as exc:
                self.report(exc)
                return False
            except _Abort as exc:
                if self.loader.depth > 0:  # say where the failed nested load was; at the prompt it is obvious
                    self.report(SourceError(str(exc), SourcePosition(filename, item.pos.line)))
                return False
            except Exception as exc:  # a runtime error at top level is reported, never raised
                line = generated_line(exc) or item.pos.line
                source = lines[line - 1] if 0 < line <= len(lines) else None
                self.report(SourceError(runtime_message(exc), SourcePosition(filename, line), source))
                return False
            if self.exit_requested:
                return True
        return True

    def _run_item(self, item: ast.TopLevel, filename: str, lines: list[str], interactive: bool) -> None:
        if isinstance(item, ast.VarDecl):
            self.compiler.declare(item, filename, lines)
        elif isinstance(item, ast.ActDef):
            self._define(item, lines)
        elif isinstance(item, ast.UTILITY_COMMANDS):
            self.run_utility(item)
        elif isinstance(item, ast.ExprStatement) and interactive:
            fn, ctype = self.compiler.compile_expression(item.expr, filename, lines)
            value = fn([None])
            if ctype != VOID:
                self.say(format_value(value, ctype))
        else:
            self.compiler.compile_statement(item, filename, lines)([None])

    def _define(self, act: ast.ActDef, lines: list[str]) -> None:
        program = self.compiler.compile_act(act, lines)
        existing = self.symbols.lookup(act.name)
        if isinstance(existing, ActSchema):
            existing.program = program
            running = self.runtime.instances_of(act.name)
            if running:
                names = ", ".join(a.name for a in running)
                self.say(
                    f"act {act.name} redefined; running instances keep the old definition until restarted: {names}"
                )
        else:
            self.symbols.symbols[act.name] = ActSchema(program)

    def _run_prefix(self, text: str, filename: str, error: ColbertSyntaxError) -> None:
        """Run the complete top-level items before a syntax error, as an incremental parser would have."""
        lines = text.split("\n")
        cut = error.line - 1  # number of lines kept
        for _ in range(20):
            if cut <= 0:
                return
            try:
                program = parse("\n".join(lines[:cut]), filename, self.symbols.struct_names())
            except ColbertSyntaxError:
                cut = _previous_item_start(lines, cut)
                continue
            self._run_items(program.items, filename, lines, False)
            return

    # ================================================================== loading (the loader's)
    @property
    def load_directory(self) -> Path:
        """Where ``load`` finds relative paths (``cd``, ``sfLoadDirectory``)."""
        return self.loader.load_directory

    @load_directory.setter
    def load_directory(self, path: Path) -> None:
        self.loader.load_directory = path

    @property
    def plugins(self) -> dict[Path, ModuleType]:
        """The loaded plugins, by resolved path, in the order they were loaded."""
        return self.loader.plugins

    @property
    def preloaded(self) -> set[Path]:
        """Plugins ``saphira run``'s check loaded already: the first ``load`` of each keeps it."""
        return self.loader.preloaded

    @property
    def brains(self) -> dict[Path, ModuleType]:
        """Brain files ``saphira run``'s check imported, by resolved path: the run calls their ``INIT``."""
        return self.loader.brains

    @property
    def on_plugin_failed(self) -> Event[[SourceError]]:
        """Emitted with the error when a plugin fails to load while a run goes on."""
        return self.loader.on_plugin_failed

    def load(self, path: str | Path) -> bool:
        """Load a Colbert file, a behavior file or a Python plugin (by extension); True on success."""
        return self.loader.load(path)

    def read_init(self) -> bool:
        """Load ``init.act`` from the load directory if it exists (the manual's autoconfiguration hook)."""
        return self.loader.read_init()

    def resolve(self, path: str | Path) -> Path:
        """A path as ``load`` sees it: absolute, or relative to the load directory."""
        return self.loader.resolve(path)

    def change_directory(self, path: str) -> None:
        """``cd``: change the load directory and print the new one."""
        self.loader.change_directory(path)

    def load_plugin(self, path: Path) -> set[str]:
        """Import a plugin and run its ``load_init(env)`` with this evaluator; the names it registered."""
        return self.loader.load_plugin(path)

    def unload(self, path: str | None = None) -> None:
        """Unload a plugin (the most recently loaded one without a path): ``load_exit(env)`` then forget it."""
        self.loader.unload(path)

    # ================================================================== utility commands
    def run_utility(self, command: ast.UtilityCommand) -> None:
        """Run ``load``, ``cd``, ``help``, ``connect``... (also when they appear inside code)."""
        if isinstance(command, ast.Load):
            if command.path is None:
                self.loader.list_plugins()
            elif not self.load(command.path):
                raise _Abort(f"load {command.path} failed")
        elif isinstance(command, ast.Unload):
            self.unload(command.path)
        elif isinstance(command, ast.ChangeDirectory):
            self.change_directory(command.path)
        elif isinstance(command, ast.PrintDirectory):
            self.say(str(self.load_directory))
        elif isinstance(command, ast.Help):
            self.say(self.help(command.topic))
        elif isinstance(command, ast.Connect):
            self._connection("connect").connect(command.kind, command.address, self.say)
        elif isinstance(command, ast.Disconnect):
            self._connection("disconnect").disconnect(self.say)
        elif isinstance(command, ast.Exit):
            self.runtime.suspend_all()  # leaving is not an error: no activity may command the robot any more
            if self.robot is not None and self.robot.connected:
                self.robot.disconnect()
            self.exit_requested = True
        elif isinstance(command, ast.SetOption):
            settings = self._connection("set").settings
            if command.value is not None:
                if command.name == "baud" and not command.value.isdigit():
                    raise ColbertRuntimeError(f"set baud: {command.value!r} is not a number")
                settings[command.name] = command.value
            self.say(f"{command.name} = {settings[command.name]}")

    def _connection(self, command: str) -> Connection:
        if self.connection is None:
            raise ColbertRuntimeError(f"{command}: there is no robot connection in this session")
        return self.connection


class _Abort(ColbertRuntimeError):
    """A nested ``load`` failed: its error is already reported; stop the enclosing load too."""


def _previous_item_start(lines: list[str], cut: int) -> int:
    """The last line before ``cut`` (1-based count of lines kept) that starts a top-level item at column 1."""
    for index in range(cut - 1, 0, -1):
        line = lines[index]
        if line[:1] and not line[:1].isspace() and not line.startswith(("}", "/*", "*", "//")):
            return index
    return 0
