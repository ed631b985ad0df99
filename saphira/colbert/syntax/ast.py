"""The typed syntax tree of Colbert programs and of ``.beh`` behavior files.

Produced by :mod:`saphira.colbert.syntax.parser` and :mod:`saphira.colbert.beh.parser`; consumed by the
compiler. Every node is an immutable dataclass with a ``pos`` (1-based line and column of the node's
first character). Nodes carry syntax only: names are not resolved and expressions are not typed (the
compiler does both), but literals keep their kind (int, float, string) so the manual's implicit casts
can be applied. Sequences are tuples. The parser has already rejected everything the manual says
Colbert lacks, so a tree that exists is well formed:

* labels (``Label``, ``HandlerLabel``) appear only in ``ActDef.body``; a label name is defined once and
  every ``Goto`` names a label of its own act; ``Goto`` appears only inside acts;
* ``VarDecl`` appears only in ``Program.items``, ``ActDef.locals`` and ``BehaviorCode.locals``;
* ``ActDef.update`` contains no ``While``, ``Goto`` or label;
* an assignment is always an ``Assign`` statement whose target is a ``Name``, a ``FieldAccess`` or a
  ``Unary`` ``*`` dereference (Colbert has no embedded assignment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

from saphira.core.errors import SourcePosition


class Pos(NamedTuple):
    """Where a node starts: 1-based line and column (tabs count as one column)."""

    line: int
    column: int

    def at(self, filename: str) -> SourcePosition:
        """This position in ``filename``, as used by :class:`saphira.core.errors.SourceError`."""
        return SourcePosition(filename, self.line, self.column)


# ---- types --------------------------------------------------------------------------------------------

BASIC_TYPES = frozenset({"int", "float", "string", "ptr", "void", "behavior"})


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A type as written: a basic type (see :data:`BASIC_TYPES`) or a struct name, plus ``*`` levels.

    ``robot *r`` gives ``TypeRef("robot", 1)``. Whether a struct name exists is the compiler's question.
    """

    name: str
    pointer_depth: int
    pos: Pos

    @property
    def is_struct(self) -> bool:
        return self.name not in BASIC_TYPES


# ---- expressions --------------------------------------------------------------------------------------

UnaryOperator: TypeAlias = Literal["-", "+", "!", "~", "*", "&"]
BinaryOperator: TypeAlias = Literal[
    "*", "/", "%", "+", "-", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||"
]


@dataclass(frozen=True, slots=True)
class IntLiteral:
    """An integer literal (decimal, ``0x`` hex or ``0`` octal, as in C)."""

    value: int
    pos: Pos


@dataclass(frozen=True, slots=True)
class FloatLiteral:
    """A floating-point literal such as ``2.23``, ``.5``, ``1e3`` or ``300.0f``."""

    value: float
    pos: Pos


@dataclass(frozen=True, slots=True)
class StringLiteral:
    """A string literal with its C escapes (``\\n``, ``\\001``, ``\\x41``, ...) already decoded."""

    value: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class Name:
    """A variable, constant, behavior or act name used as a value."""

    name: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class Unary:
    """``op operand``: negation, plus, logical not, bitwise not, ``*`` dereference, ``&`` address-of."""

    op: UnaryOperator
    operand: Expr
    pos: Pos


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` with C precedence already applied; ``pos`` is where ``left`` starts."""

    op: BinaryOperator
    left: Expr
    right: Expr
    pos: Pos


@dataclass(frozen=True, slots=True)
class Call:
    """``function(args)``: only named functions can be called (function pointers are not accessible)."""

    function: str
    args: tuple[Expr, ...]
    pos: Pos


@dataclass(frozen=True, slots=True)
class FieldAccess:
    """``target.field`` (``arrow`` False) or ``target->field`` (``arrow`` True)."""

    target: Expr
    field: str
    arrow: bool
    pos: Pos


@dataclass(frozen=True, slots=True)
class SizeOf:
    """``sizeof(type)``."""

    type: TypeRef
    pos: Pos


Expr: TypeAlias = IntLiteral | FloatLiteral | StringLiteral | Name | Unary | Binary | Call | FieldAccess | SizeOf

# ---- declarations -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VarDecl:
    """One declared variable; ``int a, *b;`` gives two. Colbert variables start at 0 (no initializers)."""

    name: str
    type: TypeRef
    pos: Pos


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an act: ``act patrol(int a)`` has ``Param("a", TypeRef("int", 0))``."""

    name: str
    type: TypeRef
    pos: Pos


# ---- statements ---------------------------------------------------------------------------------------

SignalKind: TypeAlias = Literal[
    "stop", "suspend", "succeed", "fail", "interrupt", "resume", "remove", "trace", "untrace"
]
MotionCommand: TypeAlias = Literal["move", "turn", "turnto", "speed", "rotate"]
ConnectKind: TypeAlias = Literal["serial", "local", "server"]
SetOptionName: TypeAlias = Literal["serial", "baud", "local", "server"]


@dataclass(frozen=True, slots=True)
class Block:
    """``{ s1; s2; }``; ``{}`` is a block with no statements."""

    body: tuple[Statement, ...]
    pos: Pos


@dataclass(frozen=True, slots=True)
class EmptyStatement:
    """A lone ``;``."""

    pos: Pos


@dataclass(frozen=True, slots=True)
class ExprStatement:
    """An expression evaluated for its effect (usually a call); at the prompt its value is printed."""

    expr: Expr
    pos: Pos


@dataclass(frozen=True, slots=True)
class Assign:
    """``target = value;``: target is a ``Name``, a ``FieldAccess`` or a ``Unary("*", ...)``."""

    target: Expr
    value: Expr
    pos: Pos


@dataclass(frozen=True, slots=True)
class If:
    """``if (condition) then [else otherwise]``."""

    condition: Expr
    then: Statement
    otherwise: Statement | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class While:
    """``while (condition) body`` — Colbert's only loop."""

    condition: Expr
    body: Statement
    pos: Pos


@dataclass(frozen=True, slots=True)
class Goto:
    """``goto label;`` to a label at the top level of the same act."""

    label: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class WaitFor:
    """``waitfor condition [timeout n];`` — ``timeout`` counts 100 ms cycles."""

    condition: Expr
    timeout: Expr | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class Start:
    """``start schema[(args)] [iname s] [timeout n] [priority p] [noblock] [suspend];``.

    ``args`` is empty both for ``start foo`` and ``start foo()``. Each option appears at most once.
    """

    schema: str
    args: tuple[Expr, ...]
    iname: str | None
    timeout: Expr | None
    priority: Expr | None
    noblock: bool
    suspend: bool
    pos: Pos


@dataclass(frozen=True, slots=True)
class Signal:
    """``signal [iname];`` — without a target the activity signals itself."""

    signal: SignalKind
    target: str | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class Motion:
    """A direct-motion statement ``command(argument) [timeout n] [noblock];``.

    The parentheses are optional (``move 500;``). ``halt`` is the separate :class:`Halt`.
    """

    command: MotionCommand
    argument: Expr
    timeout: Expr | None
    noblock: bool
    pos: Pos


@dataclass(frozen=True, slots=True)
class Halt:
    """``halt;`` — stops all direct motion."""

    pos: Pos


# Utility commands: their arguments are not C syntax (any non-blank characters on the same line) and
# the terminating ``;`` is optional.


@dataclass(frozen=True, slots=True)
class Load:
    """``load [file]``: load a Colbert file or plugin; without a file, list the loaded plugins."""

    path: str | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class Unload:
    """``unload [file]``: without a file, unload the most recently loaded plugin."""

    path: str | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class ChangeDirectory:
    """``cd path``: change the load directory."""

    path: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class PrintDirectory:
    """``pwd``: print the load directory."""

    pos: Pos


@dataclass(frozen=True, slots=True)
class Help:
    """``help [topic]``: list topics, or help on a topic or on functions whose names contain it."""

    topic: str | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class Connect:
    """``connect serial|local|server [address]``; without an address the configured default is used."""

    kind: ConnectKind
    address: str | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class Disconnect:
    """``disconnect``."""

    pos: Pos


@dataclass(frozen=True, slots=True)
class Exit:
    """``exit``: disconnect if needed, then leave."""

    pos: Pos


@dataclass(frozen=True, slots=True)
class SetOption:
    """``set serial|baud|local|server [value]``; without a value the current setting is shown."""

    name: SetOptionName
    value: str | None
    pos: Pos


UtilityCommand: TypeAlias = (
    Load | Unload | ChangeDirectory | PrintDirectory | Help | Connect | Disconnect | Exit | SetOption
)
UTILITY_COMMANDS = (Load, Unload, ChangeDirectory, PrintDirectory, Help, Connect, Disconnect, Exit, SetOption)
"""The classes of :data:`UtilityCommand`, for ``isinstance`` checks (which narrow to the union)."""

Statement: TypeAlias = (
    Block
    | EmptyStatement
    | ExprStatement
    | Assign
    | If
    | While
    | Goto
    | WaitFor
    | Start
    | Signal
    | Motion
    | Halt
    | UtilityCommand
)

# ---- acts and programs --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Label:
    """``name:`` at the top level of an act body; a target for ``goto``."""

    name: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class HandlerLabel:
    """``oninterrupt:`` (``event="interrupt"``) or ``onresume:`` (``event="resume"``).

    Where execution continues when the activity receives that signal.
    """

    event: Literal["interrupt", "resume"]
    pos: Pos


BodyItem: TypeAlias = Statement | Label | HandlerLabel


@dataclass(frozen=True, slots=True)
class ActDef:
    """``act name[(params)] { locals  [update statement]  body }``.

    ``update`` runs on every scheduler call before the body. ``end_line`` is the line of the closing
    brace. Trace and runtime-error line numbers are relative to ``pos.line`` (the ``act`` keyword).
    """

    name: str
    params: tuple[Param, ...]
    locals: tuple[VarDecl, ...]
    update: Statement | None
    body: tuple[BodyItem, ...]
    filename: str
    pos: Pos
    end_line: int


TopLevel: TypeAlias = VarDecl | ActDef | Statement


@dataclass(frozen=True, slots=True)
class Program:
    """A parsed file or prompt input: global declarations, act definitions and statements, in order."""

    filename: str
    items: tuple[TopLevel, ...]


# ---- behavior files (.beh, docs/colbert.md §10) ---------------------------------------------------------------

BehaviorParamType: TypeAlias = Literal["float", "ptr"]
TurnDirection: TypeAlias = Literal["left", "right"]
TurnModifier: TypeAlias = Literal["very_slowly", "slowly", "moderately", "sharply", "very_sharply"]
ActivityChannel: TypeAlias = Literal["turn", "speed", "goal", "progress"]


@dataclass(frozen=True, slots=True)
class FuzzyVar:
    """A fuzzy variable (set in Init/Update) or a parameter used as a truth value."""

    name: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class FuzzyConstant:
    """A constant truth value, e.g. ``1.0``."""

    value: float
    pos: Pos


@dataclass(frozen=True, slots=True)
class FuzzyNot:
    """``Not x`` = 1 − x."""

    operand: FuzzyExpr
    pos: Pos


@dataclass(frozen=True, slots=True)
class FuzzyAnd:
    """``x And y`` = min(x, y)."""

    left: FuzzyExpr
    right: FuzzyExpr
    pos: Pos


@dataclass(frozen=True, slots=True)
class FuzzyOr:
    """``x Or y`` = max(x, y)."""

    left: FuzzyExpr
    right: FuzzyExpr
    pos: Pos


FuzzyExpr: TypeAlias = FuzzyVar | FuzzyConstant | FuzzyNot | FuzzyAnd | FuzzyOr


@dataclass(frozen=True, slots=True)
class BehaviorParam:
    """``sfFLOAT name`` or ``sfPTR name`` in the Params section."""

    name: str
    type: BehaviorParamType
    pos: Pos


@dataclass(frozen=True, slots=True)
class TurnAction:
    """``Turn Left|Right|var [modifier|var]``.

    ``direction`` is ``"left"``/``"right"`` or a variable holding the direction; ``modifier`` is one of
    the named magnitudes, a variable holding the turn in degrees, or None for the default.
    """

    direction: TurnDirection | FuzzyVar
    modifier: TurnModifier | FuzzyVar | None
    pos: Pos


@dataclass(frozen=True, slots=True)
class SpeedAction:
    """``Speed value``: a speed in mm/s, given as a number or a variable."""

    value: float | FuzzyVar
    pos: Pos


@dataclass(frozen=True, slots=True)
class Rule:
    """``[name] If condition Then action``; ``name`` (a word or a string) is shown in the UI."""

    name: str | None
    condition: FuzzyExpr
    action: TurnAction | SpeedAction
    pos: Pos


@dataclass(frozen=True, slots=True)
class BehaviorCode:
    """An Init or Update section: local declarations, then straight-line Colbert statements."""

    locals: tuple[VarDecl, ...]
    statements: tuple[Statement, ...]
    pos: Pos


@dataclass(frozen=True, slots=True)
class ActivitySetting:
    """``Turn|Speed|Goal|Progress expr`` in the Activity section."""

    channel: ActivityChannel
    value: FuzzyExpr
    pos: Pos


@dataclass(frozen=True, slots=True)
class BehaviorDef:
    """``BeginBehavior name Params ... Rules ... Init ... Update ... Activity ... EndBehavior``."""

    name: str
    params: tuple[BehaviorParam, ...]
    rules: tuple[Rule, ...]
    init: BehaviorCode
    update: BehaviorCode
    activity: tuple[ActivitySetting, ...]
    filename: str
    pos: Pos


@dataclass(frozen=True, slots=True)
class BehaviorFile:
    """A parsed ``.beh`` file: one or more behavior definitions."""

    filename: str
    behaviors: tuple[BehaviorDef, ...]
