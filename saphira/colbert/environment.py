"""The Colbert environment: the names a program sees (globals, acts, bindings, structs) and their help.

:class:`Environment` is the part of ``sfRunEvaluator`` (docs/colbert.md §6) that holds names: the
:class:`~saphira.colbert.compile.symbols.SymbolTable`, the runtime activities run on, the Python
registration API the manual's ``sfAddEval*`` functions are (``add_function``, ``add_variable``,
``add_constant``, ``add_struct``, ``add_help``) and the text ``help`` prints. Loading files is
:mod:`saphira.colbert.loader`'s, running text :class:`~saphira.colbert.evaluator.Evaluator`'s, which is
an environment too: a plugin's ``load_init(env)`` and the bindings register into it. Every message goes
through ``output``, one line per call, so a command-line front end only prints lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from saphira.colbert.compile.manual_names import not_in_colbert
from saphira.colbert.compile.symbols import (
    BEHAVIOR,
    ActSchema,
    Constant,
    CType,
    Function,
    GlobalVariable,
    LinkedVariable,
    Slot,
    StructType,
    SymbolTable,
    parse_type,
    runtime_message,
    struct_type,
)
from saphira.colbert.reference import load_reference
from saphira.colbert.runtime import Activity, ColbertRuntime
from saphira.core.errors import SaphiraError, SourceError
from saphira.core.tasks import Scheduler

if TYPE_CHECKING:
    from saphira.robot import Robot

__all__ = ["HELP_TOPICS", "Environment"]

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


class Environment:
    """Globals, act schemas, bindings and structs of one Colbert session, the runtime that runs its
    activities, and their help.

    ``robot`` may be None (no motion, no behaviors); then activities run on ``scheduler`` (a fresh
    lock-step one by default). ``output`` receives every message, one line per call.
    """

    def __init__(
        self,
        robot: Robot | None = None,
        *,
        output: Callable[[str], None] | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.robot = robot
        self.scheduler = robot.scheduler if robot is not None else (scheduler or Scheduler())
        self.output: Callable[[str], None] = output or print
        self.symbols = SymbolTable()
        self.runtime = ColbertRuntime(self.scheduler, self.symbols, robot=robot, output=self.say)
        self.topics: dict[str, str] = dict(HELP_TOPICS)

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
        """The running activity instance called ``name``, or None."""
        task = self.scheduler.find(name)
        return task if isinstance(task, Activity) else None

    # ================================================================== output
    def say(self, text: str) -> None:
        """Send ``text`` to ``output``, one line per call."""
        for line in text.split("\n"):
            self.output(line)

    def report(self, exc: BaseException) -> None:
        """Say an error: a located one with its file, line, column and caret."""
        if isinstance(exc, SourceError):
            self.say(exc.pretty())
        elif isinstance(exc, SaphiraError):
            self.say(str(exc))
        else:  # pragma: no cover - defensive
            self.say(runtime_message(exc))
