"""The Colbert evaluator: one environment of typed globals and act schemas, loading, and the utility commands.

:class:`Evaluator` is what the manual's ``sfRunEvaluator`` provides (docs/colbert.md §6): it runs text
typed at the prompt or read from files, loads ``.act`` files and Python plugins, answers ``help``, and
offers the Python registration API that the manual's ``sfAddEval*`` functions are (``add_function``,
``add_variable``, ``add_constant``, ``add_struct``, ``add_help``). Every message goes through the
``output`` callback, one line per call, so a command-line front end only prints lines.

* Top-level statements run as they are read; act definitions are compiled and registered; an
  expression typed at the prompt prints its value and type, e.g. ``7 (int)``.
* Loading stops at the first error. Everything before it stays loaded: for a syntax error, the
  complete top-level items before the error's line are run first (as the manual's incremental
  parser would have done), then the error is reported with file, line, column and a caret.
* The load directory starts as ``$SAPHIRA_LOAD`` if set, else the current directory (docs/colbert.md §6;
  Appendix A.2); ``sfLoadDirectory`` reads and changes it. ``init.act`` in it is loaded at start.
* A plugin is a ``.py`` file; ``load_init(env)`` runs after it is imported, ``load_exit(env)`` before
  it is unloaded or reloaded. Names it registered are removed again when it is unloaded. A plugin
  that fails to load while a run goes on is reported with its line, announced on ``on_plugin_failed``
  (the run lists it; one given to ``saphira run`` fails its check instead, before any robot),
  and the motion channels its ``load_init`` set before raising are stopped.
* ``connect local|serial|server [address]`` builds a transport URL (see :meth:`Evaluator.connect_url`)
  and hands it to :attr:`Evaluator.connector` (default: ``robot.connect``).
"""

from __future__ import annotations

import linecache
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from saphira.client.link.base import ConnectError
from saphira.colbert.compile.compiler import (
    BEHAVIOR,
    VOID,
    ActSchema,
    ColbertCompileError,
    ColbertRuntimeError,
    Compiler,
    Constant,
    CType,
    Function,
    GlobalVariable,
    LinkedVariable,
    Slot,
    StructType,
    SymbolTable,
    format_value,
    generated_line,
    parse_type,
    runtime_message,
    struct_type,
)
from saphira.colbert.manual_names import install_manual_names, not_in_colbert
from saphira.colbert.reference import load_reference
from saphira.colbert.runtime import Activity, ColbertRuntime
from saphira.colbert.syntax import ast
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.limits import read_source
from saphira.colbert.syntax.parser import parse, parse_interactive
from saphira.core.errors import SaphiraError, SourceError, SourcePosition
from saphira.core.events import Event
from saphira.core.modules import fresh_module
from saphira.core.tasks import Scheduler

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["HELP_TOPICS", "Evaluator"]

MAX_LOAD_DEPTH = 16
CONNECT_TIMEOUT = 30.0
"""Seconds ``connect`` waits for the handshake before giving up."""

HELP_TOPICS: dict[str, str] = {
    "commands": (
        "Utility commands (no C syntax, no ';' needed):\n"
        "  load [file]        load a Colbert (.act), behavior (.beh) or plugin (.py) file; no file: list plugins\n"
        "  unload [file]      unload a plugin (calls its load_exit); no file: the last one loaded\n"
        "  cd <dir>, pwd      change or show the load directory\n"
        "  help [topic|name]  this help; 'help' alone lists the topics\n"
        "  connect local|serial|server [address], disconnect\n"
        "  set serial|baud|local|server [value]   show or change the connection defaults\n"
        "  exit               disconnect and leave"
    ),
    "loading": (
        "load <file> reads a Colbert file, a behavior file (.beh) or a Python plugin (.py).\n"
        "Paths are relative to the load directory (see 'help directories') unless absolute.\n"
        "Top-level statements run as the file is read; an error stops the load there and what was\n"
        "loaded before stays. Loading a file again redefines its acts: running instances keep the\n"
        "old definition until they are started again. A plugin's load_init(env) registers functions,\n"
        "variables, constants and structs; load_exit(env) runs when it is unloaded or reloaded."
    ),
    "directories": (
        "The load directory is where 'load' looks for relative paths. It starts as $SAPHIRA_LOAD if set,\n"
        "else the directory Saphira was started from. 'pwd' shows it, 'cd <dir>' changes it, and the\n"
        "string variable sfLoadDirectory reads and sets it. init.act there is loaded at start."
    ),
    "communication": (
        "connect local [url|port|path] the simulator on this host: a port, a unix socket path\n"
        "                             ('saphira sim --unix PATH') or a URL (default: 'set local')\n"
        "connect server [host[:port]] a robot server over TCP (default port 8101)\n"
        "connect serial [device]      a robot on a serial port at 'set baud' (default 9600)\n"
        "disconnect                   close the connection; sfIsConnected tells whether one is up\n"
        "connect waits up to 30 s for the robot and replaces a connection that is up.\n"
        "Defaults come from SAPHIRA_COMPIPE, SAPHIRA_COMSERVER, SAPHIRA_COMSERIAL, SAPHIRA_SERIALBAUD."
    ),
    "movement": (
        "Direct motion statements (inside an act they block until done, except speed and rotate):\n"
        "  move(mm)      move forward (negative: back)       turn(deg)    turn left (negative: right)\n"
        "  turnto(deg)   turn to an absolute heading         speed(mm/s)  set the velocity\n"
        "  rotate(deg/s) set the rotational velocity         halt         stop both, give back to behaviors\n"
        "Options: 'timeout n' (cycles of 100 ms), 'noblock'. At the prompt they never block.\n"
        "Functions: sfSetVelocity, sfSetRVelocity, sfSetHeading, sfSetDHeading, sfSetPosition,\n"
        "sfSetMaxVelocity, sfDonePosition, sfDoneHeading, sfTargetVel, sfTargetHead."
    ),
    "activities": (
        "act name(type param, ...) { locals; update stmt; body }   define an activity schema\n"
        "start name(args) [iname s] [timeout n] [priority p] [noblock] [suspend]\n"
        "Signals: stop|suspend|resume|interrupt|succeed|fail|remove|trace|untrace [iname]\n"
        'Inquiries: sfGetTaskState("iname"), sfTaskFinished("iname"), sfTaskSuspended("iname")'
    ),
    "types": (
        "int, float, string, ptr (any pointer), behavior, imported structs (robot, point, ...) and\n"
        "pointers to them. Any float operand makes arithmetic float; assignments and arguments\n"
        "convert to the declared type. No arrays, casts, typedefs, initializers or pointer arithmetic."
    ),
}


class Evaluator:
    """The Colbert environment: globals, schemas, bindings, loading and the utility commands.

    ``robot`` may be None (no motion, no behaviors); then activities run on ``scheduler`` (a fresh
    lock-step one by default). ``output`` receives every message, one line per call.
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
    ) -> None:
        self.robot = robot
        self.scheduler = robot.scheduler if robot is not None else (scheduler or Scheduler())
        self.output: Callable[[str], None] = output or print
        self.symbols = SymbolTable()
        self.runtime = ColbertRuntime(self.scheduler, self.symbols, robot=robot, output=self._say)
        self.runtime.utility_handler = self.run_utility
        self.compiler = Compiler(self.symbols, self.runtime)
        env_dir = os.environ.get("SAPHIRA_LOAD")
        self.load_directory = Path(load_directory or env_dir or Path.cwd()).expanduser().resolve()
        self.plugins: dict[Path, ModuleType] = {}
        self._plugin_names: dict[Path, set[str]] = {}
        self.on_plugin_failed: Event[[SourceError]] = Event("plugin_failed")
        self.preloaded: set[Path] = set()
        """Plugins ``saphira run``'s check loaded already: the first ``load`` of each keeps it (no second load_init)."""
        self.brains: dict[Path, ModuleType] = {}
        """Brain files ``saphira run``'s check imported, by resolved path: the run calls their ``INIT``."""
        self.settings: dict[str, str] = {
            "serial": os.environ.get("SAPHIRA_COMSERIAL", "/dev/ttyS0"),
            "baud": os.environ.get("SAPHIRA_SERIALBAUD", "9600"),
            "local": os.environ.get("SAPHIRA_COMPIPE", "tcp://127.0.0.1:8101"),
            "server": os.environ.get("SAPHIRA_COMSERVER", "localhost"),
        }
        self.connector: Callable[[str], str | None] | None = None
        """Starts (or makes) the connection ``connect`` asks for; returns the URL really used, or None
        for the one given. Default: ``robot.connect(url, wait=False)``."""
        self.connected_url = ""
        self.exit_requested = False
        self.topics: dict[str, str] = dict(HELP_TOPICS)
        self._load_depth = 0
        self._plugin_serial = 0
        if bindings:
            from saphira.colbert.bindings.table import install_bindings

            install_bindings(self)
            install_manual_names(self)
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
            self._report(exc)
            return False
        return self._run_items(program.items, filename, lines, interactive)

    def load(self, path: str | Path) -> bool:
        """Load a Colbert file or a Python plugin (by extension); True on success."""
        resolved = self.resolve(path)
        if not resolved.is_file():
            self._say(f"load: no such file: {resolved}")
            return False
        if resolved.suffix == ".py":
            return self._load_plugin(resolved)
        if resolved.suffix == ".beh":
            from saphira.colbert.beh.compiler import define_behaviors

            try:
                define_behaviors(self, resolved)
            except SourceError as exc:
                self._report(exc)
                return False
            return True
        if self._load_depth >= MAX_LOAD_DEPTH:
            self._say(f"load: files nested more than {MAX_LOAD_DEPTH} deep (does {resolved.name} load itself?)")
            return False
        try:
            text = read_source(resolved, what="Colbert file")
        except SourceError as exc:
            self._report(exc)
            return False
        self._load_depth += 1
        try:
            return self.eval_text(text, str(resolved), interactive=False)
        finally:
            self._load_depth -= 1

    def read_init(self) -> bool:
        """Load ``init.act`` from the load directory if it exists (the manual's autoconfiguration hook)."""
        init = self.load_directory / "init.act"
        return self.load(init) if init.is_file() else True

    def resolve(self, path: str | Path) -> Path:
        """A path as ``load`` sees it: absolute, or relative to the load directory."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.load_directory / p

    def check_text(self, text: str, filename: str = "<input>") -> list[SourceError]:
        """Every syntax, name and type error of a file, without running anything or changing this environment.

        The text is compiled against a copy of the symbols (a plugin it loads is loaded here, though);
        ``start`` of a name defined nowhere yet is left to run time, as loading leaves it. For a whole
        run's files, resolved together, see :mod:`saphira.colbert.checker`.
        """
        from saphira.colbert.checker import Checker

        return Checker.scratch(self).check_text(text, filename)

    def _run_items(self, items: Iterable[ast.TopLevel], filename: str, lines: list[str], interactive: bool) -> bool:
        for item in items:
            try:
                self._run_item(item, filename, lines, interactive)
            except ColbertCompileError as exc:
                self._report(exc)
                return False
            except _Abort as exc:
                if self._load_depth > 0:  # say where the failed nested load was; at the prompt it is obvious
                    self._report(SourceError(str(exc), SourcePosition(filename, item.pos.line)))
                return False
            except Exception as exc:  # a runtime error at top level is reported, never raised
                line = generated_line(exc) or item.pos.line
                source = lines[line - 1] if 0 < line <= len(lines) else None
                self._report(SourceError(runtime_message(exc), SourcePosition(filename, line), source))
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
                self._say(format_value(value, ctype))
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
                self._say(
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

    # ================================================================== utility commands
    def run_utility(self, command: ast.UtilityCommand) -> None:
        """Run ``load``, ``cd``, ``help``, ``connect``... (also when they appear inside code)."""
        if isinstance(command, ast.Load):
            if command.path is None:
                self._list_plugins()
            elif not self.load(command.path):
                raise _Abort(f"load {command.path} failed")
        elif isinstance(command, ast.Unload):
            self.unload(command.path)
        elif isinstance(command, ast.ChangeDirectory):
            self.change_directory(command.path)
        elif isinstance(command, ast.PrintDirectory):
            self._say(str(self.load_directory))
        elif isinstance(command, ast.Help):
            for line in self.help(command.topic).split("\n"):
                self._say(line)
        elif isinstance(command, ast.Connect):
            self.connect(command.kind, command.address)
        elif isinstance(command, ast.Disconnect):
            self.disconnect()
        elif isinstance(command, ast.Exit):
            self.runtime.suspend_all()  # leaving is not an error: no activity may command the robot any more
            if self.robot is not None and self.robot.connected:
                self.robot.disconnect()
            self.exit_requested = True
        elif isinstance(command, ast.SetOption):
            if command.value is not None:
                if command.name == "baud" and not command.value.isdigit():
                    raise ColbertRuntimeError(f"set baud: {command.value!r} is not a number")
                self.settings[command.name] = command.value
            self._say(f"{command.name} = {self.settings[command.name]}")

    def change_directory(self, path: str) -> None:
        """``cd``: change the load directory and print the new one."""
        target = self.resolve(path).resolve()
        if not target.is_dir():
            raise ColbertRuntimeError(f"cd: no such directory: {target}")
        self.load_directory = target
        self._say(str(target))

    def connect_url(self, kind: str, address: str | None) -> str:
        """The transport URL for ``connect kind [address]`` (docs/colbert.md §6, docs/architecture.md §4)."""
        if kind == "local":
            # The manual's local pipe (SAPHIRA_COMPIPE): a port number on this host, a unix-domain
            # socket path (what 'saphira sim --unix PATH' listens on), or any URL.
            value = address or self.settings["local"]
            if value.isdigit():
                return f"tcp://127.0.0.1:{value}"
            if "://" in value:
                return value
            if "/" in value:
                return f"unix://{Path(value).expanduser()}"
            raise ColbertRuntimeError(f"connect local: {value!r} is neither a URL, a socket path nor a port number")
        if kind == "server":
            value = address or self.settings["server"]
            return value if "://" in value else f"tcp://{value}"
        value = address or self.settings["serial"]
        return value if "://" in value else f"serial://{value}?baud={self.settings['baud']}"

    def connect(self, kind: str, address: str | None) -> None:
        """``connect``: start the connection, then wait for the handshake unless inside an activity.

        The wait releases the scheduler's lock (see :meth:`Robot.wait_connected`), so a background
        scheduler keeps running the cycles that carry the handshake; it ends after
        :data:`CONNECT_TIMEOUT` seconds. Inside an activity (a running task) the connection is only
        started, as the manual's ``sfConnectToRobot`` then ``waitfor sfIsConnected`` pattern expects:
        blocking there would stop the very cycles the handshake needs. An existing connection is
        closed once the new line is open (``connect server X`` while connected moves to X; if X
        cannot be opened, the old connection stays).
        """
        url = self.connect_url(kind, address)
        robot = self.robot
        if self.connector is None and robot is None:
            raise ColbertRuntimeError("there is no robot session to connect")
        previous = ""
        line = robot.link.transport if robot is not None else None
        if robot is not None and (robot.connected or robot.link.connecting):
            previous = self.connected_url or robot.link.url
        used = url
        try:
            if self.connector is not None:
                used = self.connector(url) or url
            elif robot is not None:
                robot.connect(url, wait=False)
            if previous and robot is not None and robot.link.transport is not line:
                self._say(f"disconnected from {previous}")
            if robot is not None and robot.link.connecting and self.scheduler.current is None:
                robot.wait_connected(CONNECT_TIMEOUT)
        except ConnectError as exc:
            raise ColbertRuntimeError(f"connect {used}: {exc}") from exc
        self.connected_url = used
        if robot is not None and robot.link.connecting:
            self._say(f"connecting to {used}")
            return
        identity = robot.link.identity if robot is not None else None
        who = f" ({identity.name}, {identity.robot_class} {identity.subclass})" if identity else ""
        self._say(f"connected to {used}{who}")

    def disconnect(self) -> None:
        """``disconnect``: stop the robot, send CLOSE and close the line (the robot session stays)."""
        robot = self.robot
        if robot is None or not (robot.connected or robot.link.connecting):
            self._say("not connected")
            return
        url = self.connected_url or robot.link.url
        robot.disconnect()
        self._say(f"disconnected from {url}")

    # ================================================================== plugins
    def _load_plugin(self, path: Path) -> bool:
        key = path.resolve()
        if key in self.preloaded:
            self.preloaded.discard(key)
            return key in self.plugins
        try:
            self.load_plugin(path)
        except Exception as exc:  # a broken plugin is reported, never raised
            error = plugin_error(path, exc)
            self._say(error.pretty())
            self.on_plugin_failed.emit(error)
            return False
        return True

    def load_plugin(self, path: Path) -> set[str]:
        """Import a Python plugin and run its ``load_init(env)`` with this evaluator; the names it registered.

        Raises what the plugin raised; the plugin is then not loaded and what it registered is removed.
        """
        key = path.resolve()
        if key in self.plugins:
            self.unload(str(key))
        self._plugin_serial += 1
        module_name = f"saphira_colbert_plugin_{self._plugin_serial}_{key.stem}"
        before = set(self.symbols.symbols) | set(self.symbols.structs)
        motion = self.robot.motion if self.robot is not None else None
        takes = motion.takes() if motion is not None else {}
        try:
            with fresh_module(key, module_name) as module:
                init = getattr(module, "load_init", None)
                if callable(init):
                    init(self)
        except BaseException:
            if motion is not None:  # what the failed load_init set going does not run on
                motion.stop_channels([ch for ch, n in motion.takes().items() if n != takes[ch] and motion.direct[ch]])
            for name in (set(self.symbols.symbols) | set(self.symbols.structs)) - before:
                self.symbols.symbols.pop(name, None)
                self.symbols.structs.pop(name, None)
            raise
        self.plugins[key] = module
        names = (set(self.symbols.symbols) | set(self.symbols.structs)) - before
        self._plugin_names[key] = names
        return names

    def unload(self, path: str | None = None) -> None:
        """Unload a plugin (the most recently loaded one without a path): ``load_exit(env)`` then forget it."""
        if not self.plugins:
            raise ColbertRuntimeError("unload: no plugin is loaded")
        key = next(reversed(self.plugins)) if path is None else self.resolve(path).resolve()
        module = self.plugins.get(key)
        if module is None:
            raise ColbertRuntimeError(f"unload: {key} is not loaded")
        try:
            exit_fn = getattr(module, "load_exit", None)
            if callable(exit_fn):
                exit_fn(self)
        finally:
            del self.plugins[key]
            sys.modules.pop(module.__name__, None)
            for name in self._plugin_names.pop(key, set()):
                self.symbols.symbols.pop(name, None)
                self.symbols.structs.pop(name, None)

    def _list_plugins(self) -> None:
        if not self.plugins:
            self._say("no plugins loaded")
        for key in self.plugins:
            self._say(str(key))

    # ================================================================== registration API (sfAddEval*)
    def add_function(
        self,
        name: str,
        fn: Callable[..., Any],
        return_type: str | CType = "void",
        arg_types: Iterable[str | CType] = (),
        *,
        varargs: bool = False,
        help: str = "",
    ) -> Function:
        """Expose ``fn`` as a Colbert function (``sfAddEvalFn``); ``varargs`` accepts extra arguments."""
        function = Function(name, fn, parse_type(return_type), tuple(parse_type(t) for t in arg_types), varargs, help)
        self._register(name, function, help)
        return function

    def add_variable(
        self,
        name: str,
        type: str | CType,
        *,
        getter: Callable[[], Any] | None = None,
        setter: Callable[[Any], None] | None = None,
        value: Any = None,
        help: str = "",
    ) -> None:
        """A global: linked to Python through ``getter``/``setter`` (``sfAddEvalVar``), or a plain one."""
        ctype = parse_type(type)
        if getter is not None:
            self._register(name, LinkedVariable(ctype, getter, setter, help), help)
            return
        var = self.symbols.declare_global(name, ctype)
        if value is not None:
            assert isinstance(var, GlobalVariable)
            self.symbols.values[var.index] = value
        if help:
            self.add_help(name, help)

    def add_constant(self, name: str, type: str | CType, value: Any, *, help: str = "") -> None:
        """A named constant (``sfAddEvalConst``); behaviors are constants of type ``behavior``."""
        self._register(name, Constant(parse_type(type), value, help), help)

    def add_behavior(self, name: str, definition: Any, *, help: str = "") -> None:
        """Make a behavior definition startable from Colbert under ``name``."""
        self._register(name, Constant(BEHAVIOR, definition, help), help)

    def add_struct(
        self,
        name: str,
        slots: Mapping[str, str | CType | Slot],
        *,
        size: int | None = None,
        factory: Callable[[], Any] | None = None,
        help: str = "",
    ) -> StructType:
        """Import a struct type (``sfAddEvalStruct``): slots read and write attributes of Python objects."""
        struct = struct_type(name, slots, size=size, factory=factory, help=help)
        self.symbols.structs[name] = struct
        if help:
            self.add_help(name, help)
        return struct

    def add_help(self, name: str, text: str) -> None:
        """Help text for a name (``sfAddHelp``); ``help <name>`` shows it."""
        self.symbols.help[name] = text

    def get_help(self, name: str) -> str | None:
        """The help text registered for ``name`` (``sfGetHelp``), or None."""
        return self.symbols.help.get(name)

    def _register(self, name: str, symbol: Any, help: str) -> None:
        existing = self.symbols.lookup(name)
        if isinstance(existing, GlobalVariable | ActSchema):
            raise ValueError(f"cannot register '{name}': it is already {self.symbols.describe(name)}")
        self.symbols.symbols[name] = symbol
        if help:
            self.add_help(name, help)

    # ================================================================== help
    def help(self, topic: str | None = None) -> str:
        """The text ``help [topic]`` prints.

        A name's text comes from the language reference (``docs/colbert.md``, see
        :mod:`saphira.colbert.reference`), which also documents the statements (``help move``); a name
        it does not document (a plugin's) shows the help it was registered with.
        """
        if topic is None:
            names = ", ".join(sorted([*self.topics, "structs", "robot"]))
            return (
                f"Help topics: {names}\n"
                "help <name> shows the functions, variables and constants whose names contain it.\n"
                "Every statement and name is described in the language reference, docs/colbert.md."
            )
        if topic in self.topics:
            return self.topics[topic]
        if topic == "structs":
            return "\n".join(self._struct_help(s) for s in self.symbols.structs.values()) or "no structs"
        if topic in self.symbols.structs:
            return self._struct_help(self.symbols.structs[topic])
        reference = load_reference()
        if topic in self.symbols.symbols or topic in self.symbols.help or topic in reference.entries:
            return self._entry(topic)
        absent = not_in_colbert(topic)
        if absent is not None and topic not in self.symbols.symbols:
            return absent
        candidates = set(self.symbols.symbols) | set(self.symbols.help) | set(reference.entries)
        matches = sorted(n for n in candidates if topic in n)
        if not matches:
            return f"no help on '{topic}' (type 'help' for the topics)"
        return "\n".join(self._entry(n, brief=len(matches) > 1) for n in matches)

    def _entry(self, name: str, *, brief: bool = False) -> str:
        """``head: text`` for one name; ``brief``: one line, the text cut after its first sentence."""
        sym = self.symbols.lookup(name)
        reference = load_reference()
        documented = reference.lookup(name)
        texts = [entry.text for entry in documented] or [self.symbols.help.get(name, "")]
        if documented and name not in reference.entries:  # a family entry (sfCOM<NAME>): own text first
            texts.insert(0, self.symbols.help.get(name, ""))
        if documented and (isinstance(sym, Function) or sym is None or getattr(sym, "type", None) == BEHAVIOR):
            head = documented[0].heading_for(name)  # the reference's heading names the arguments
        elif isinstance(sym, Function):
            head = sym.signature()
        elif isinstance(sym, GlobalVariable | LinkedVariable):
            head = f"{sym.type} {name}"
        elif isinstance(sym, Constant):
            head = f"const {sym.type} {name}"
            if documented and sym.type != BEHAVIOR and isinstance(sym.value, int | float | str):
                head += f" = {sym.value!r}"
        elif isinstance(sym, ActSchema):
            params = ", ".join(f"{t} {p}" for p, t in sym.program.params)
            head = f"act {name}({params})"
        else:
            head = name
        text = " / ".join(t for t in texts if t)
        if not text:
            return head
        if brief:
            first = text.split(" / ")[0].split(". ")[0].rstrip(".")
            return f"{head}: {first if len(first) <= 80 else first[:77] + '...'}"
        return f"{head}: {text}"

    @staticmethod
    def _struct_help(struct: StructType) -> str:
        slots = ", ".join(f"{slot.type} {slot.name}" for slot in struct.slots.values())
        text = f"struct {struct.name} {{ {slots} }}"
        return f"{text}\n  {struct.help}" if struct.help else text

    # ================================================================== inspection
    def value(self, name: str) -> Any:
        """The current value of a global, linked variable or constant (for tests and tools)."""
        return self.symbols.read(name)

    def activity(self, name: str) -> Activity | None:
        task = self.scheduler.find(name)
        return task if isinstance(task, Activity) else None

    # ================================================================== output
    def _say(self, text: str) -> None:
        for line in text.split("\n"):
            self.output(line)

    def _report(self, exc: BaseException) -> None:
        if isinstance(exc, SourceError):
            self._say(exc.pretty())
        elif isinstance(exc, SaphiraError):
            self._say(str(exc))
        else:  # pragma: no cover - defensive
            self._say(runtime_message(exc))


class _Abort(ColbertRuntimeError):
    """A nested ``load`` failed: its error is already reported; stop the enclosing load too."""


def plugin_error(path: Path, exc: BaseException, what: str = "plugin failed to load") -> SourceError:
    """A plugin's import or ``load_init`` error at the plugin's own line that raised it (or called what did).

    ``what`` starts the message (a brain's import, a plugin's ``load_exit``).
    """
    message = f"{what}: {type(exc).__name__}: {exc}"
    plugin = str(path.resolve())
    if isinstance(exc, SyntaxError) and exc.filename == plugin:
        position = SourcePosition(str(path), exc.lineno or 0, exc.offset or 0)
        return SourceError(f"{what}: SyntaxError: {exc.msg}", position, (exc.text or "").rstrip())
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == plugin and frame.lineno is not None:
            line = frame.lineno
    source = linecache.getline(plugin, line).rstrip("\n") if line else None
    return SourceError(message, SourcePosition(str(path), line), source or None)


def _previous_item_start(lines: list[str], cut: int) -> int:
    """The last line before ``cut`` (1-based count of lines kept) that starts a top-level item at column 1."""
    for index in range(cut - 1, 0, -1):
        line = lines[index]
        if line[:1] and not line[:1].isspace() and not line.startswith(("}", "/*", "*", "//")):
            return index
    return 0
