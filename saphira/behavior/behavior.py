"""Defining fuzzy behaviors in Python: the counterpart of the manual's behavior grammar (docs/colbert.md §10).

A behavior reads like a ``BeginBehavior … EndBehavior`` block::

    @dataclass(kw_only=True)
    class GoToParams:                       # Params
        speed: Annotated[float, "mm/s"] = 200.0
        goal: Annotated[Point, "the goal point artifact"]
        radius: Annotated[float, "success radius, mm"] = 100.0

    @dataclass
    class GoToVars(FuzzyVars[GoToParams]):  # the fuzzy variables the update computes
        too_left: float = 0.0
        too_right: float = 0.0
        near_goal: float = 0.0

    def init(ctx: BehaviorContext[GoToParams, GoToVars]) -> None:     # Init
        ctx.pointlist.add(ctx.p.goal)  # the LPS keeps the goal's local coordinates current

    def update(ctx: BehaviorContext[GoToParams, GoToVars]) -> None:   # Update
        v, phi = ctx.v, point_phi(ctx.p.goal)
        v.too_right = straight_up(phi, 10.0, 30.0)
        v.too_left = down_straight(phi, -30.0, -10.0)
        v.near_goal = down_straight(point_dist(ctx.p.goal), 0.0, 5.0 * ctx.p.radius)

    my_goto = behavior(
        "my_goto", params=GoToParams, vars=GoToVars, init=init, update=update,
        rules=[                                                              # Rules
            Rule("Goal right", when=lambda v: v.too_left, then=turn_right()),
            Rule("Goal left", when=lambda v: v.too_right, then=turn_left()),
            Rule("Go", when=lambda v: f_not(v.near_goal), then=speed(lambda v: v.p.speed)),
            Rule("Arrive", when=lambda v: v.near_goal, then=speed(0.0)),
        ],
        activity=Activity(turn=lambda v: f_not(v.near_goal), speed=1.0, goal=lambda v: v.near_goal),
    )

Every cycle the executive calls ``update(ctx)``, evaluates each rule's antecedent on ``ctx.v`` (a
truth in [0, 1]) and its action, then the activity expressions. Rule and activity expressions take the
behavior instance's variables ``v``; ``v.p`` is the instance's parameters. Each running instance has
its own ``v`` (fuzzy variables and any private state) and ``p``.

The data level is :class:`BehaviorDef` (name, parameter specs, init/update callables, named rules,
activity expressions). :func:`behavior` builds one from a parameter dataclass; a compiler for the
manual's ``.beh`` files can construct :class:`BehaviorDef` directly, without subclassing anything.

Choices the manual leaves open, made here:

* Actions: ``Turn Left|Right <modifier>`` (:func:`turn_left`, :func:`turn_right`; no modifier means
  Moderately), ``Turn <direction> <modifier>`` with a direction variable (:func:`turn`, e.g. the
  preferred turn direction), ``Speed <v>`` (:func:`speed`). The manual's ``Accel`` / ``Decel``
  consequents (:func:`accel`, :func:`decel`) become speed recommendations relative to the current
  velocity setpoint: ``Accel dv`` recommends ``setpoint + dv`` (the setpoint being reflected, or the
  reported velocity when there is none), so a rule that keeps firing keeps accelerating. Two additions
  make proportional control expressible: :func:`turn_by` (a signed heading change, left positive) and
  :func:`go_straight` (a heading change of 0). Any value may be a constant or an expression of ``v``.
* Activity outputs default to 0 (Table 5.1): a behavior without activity expressions has no effect.
* Parameters are ``sfFLOAT`` (a number) or ``sfPTR`` (anything else: an artifact, checked against the
  annotated class). Arguments are given positionally in declaration order, as in the manual, or by name.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

from saphira.behavior.blend import Channel, Consequent, TurnModifier
from saphira.behavior.fuzzy import (
    down_straight,
    f_and,
    f_eq,
    f_greater,
    f_not,
    f_or,
    f_smaller,
    straight_up,
)
from saphira.client.artifacts import PointList
from saphira.client.motion import MotionControl
from saphira.client.reflector import Reflector, RobotState
from saphira.client.sensors.sonar import Sonar
from saphira.core.errors import SaphiraError
from saphira.params.robot_params import RobotParams

if TYPE_CHECKING:
    from saphira.behavior.executive import BehaviorExecutive

__all__ = [
    "REQUIRED",
    "Action",
    "ActionKind",
    "Activity",
    "BehaviorContext",
    "BehaviorDef",
    "BehaviorError",
    "FuzzyVars",
    "LpsPen",
    "NoParams",
    "ParamKind",
    "ParamSpec",
    "Rule",
    "TurnDir",
    "TurnModifier",
    "accel",
    "behavior",
    "decel",
    "down_straight",
    "f_and",
    "f_eq",
    "f_greater",
    "f_not",
    "f_or",
    "f_smaller",
    "go_straight",
    "param",
    "speed",
    "straight_up",
    "turn",
    "turn_by",
    "turn_left",
    "turn_right",
]

P = TypeVar("P")
V = TypeVar("V")
T = TypeVar("T")
V_contra = TypeVar("V_contra", contravariant=True)


class BehaviorError(SaphiraError, ValueError):
    """A behavior definition or invocation that cannot work: bad arguments, a malformed rule."""


class TurnDir(IntEnum):
    """Turn directions: the manual's ``sfLEFTTURN`` / ``sfRIGHTTURN`` (the sign of a heading change)."""

    LEFT = 1
    RIGHT = -1


# ----------------------------------------------------------------------------------------- parameters
class _Required:
    """Marks a parameter without a default."""

    _instance: _Required | None = None

    def __new__(cls) -> _Required:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that must be given."""


class ParamKind(Enum):
    """The manual's two parameter types."""

    FLOAT = "sfFLOAT"
    POINTER = "sfPTR"


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One declared parameter: its name, type, default (``REQUIRED`` if none) and meaning.

    ``accepts`` restricts a pointer parameter to instances of these classes (empty: any object).
    ``optional`` lets a pointer parameter be ``None``. ``integer`` makes a number parameter an int
    (it must then be a whole number).
    """

    name: str
    kind: ParamKind = ParamKind.FLOAT
    default: object = REQUIRED
    doc: str = ""
    accepts: tuple[type, ...] = ()
    optional: bool = False
    integer: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def check(self, value: object, behavior_name: str, position: int) -> object:
        """``value`` as this parameter holds it (numbers become float); :class:`BehaviorError` if wrong."""
        where = f"{behavior_name}: parameter {position} ({self.name})"
        if self.kind is ParamKind.FLOAT:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise BehaviorError(f"{where} must be a number (sfFLOAT), got {_describe(value)}")
            number = float(value)
            if not math.isfinite(number):
                raise BehaviorError(f"{where} must be a finite number, got {number}")
            if self.integer:
                if not number.is_integer():
                    raise BehaviorError(f"{where} must be a whole number, got {number}")
                return int(number)
            return number
        if value is None:
            if self.optional:
                return None
            raise BehaviorError(f"{where} must be given (sfPTR), got None")
        if self.accepts and not isinstance(value, self.accepts):
            wanted = " or ".join(cls.__name__ for cls in self.accepts)
            raise BehaviorError(f"{where} must be a {wanted}, got {_describe(value)}")
        return value


def _describe(value: object) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{text} ({type(value).__name__})"


@overload
def param(default: T, doc: str = "") -> T: ...
@overload
def param(*, doc: str = "") -> Any: ...
def param(default: object = REQUIRED, doc: str = "") -> Any:
    """A parameter field with its meaning (no default: it must be given); ``Annotated[T, "doc"]`` is
    the other way to document one (ruff's RUF009 prefers it in dataclass bodies)."""
    metadata = {"doc": doc}
    if default is REQUIRED:
        return dataclasses.field(metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclass
class NoParams:
    """The parameters of a behavior that takes none (``sfStop``)."""


def param_specs(params: type[Any]) -> tuple[ParamSpec, ...]:
    """The parameter specs of a parameter dataclass, in declaration order.

    A field annotated ``float`` (or ``int``, then holding whole numbers) is ``sfFLOAT``; anything else
    is ``sfPTR`` and accepts instances of the annotated class(es); ``X | None`` may be ``None``. A string
    in ``Annotated[...]`` is the parameter's meaning: ``speed: Annotated[float, "mm/s"] = 200.0``, as is
    the ``doc`` of :func:`param`: ``speed: float = param(200.0, "mm/s")``.
    """
    if not dataclasses.is_dataclass(params):
        raise BehaviorError(f"behavior parameters must be a dataclass, got {params!r}")
    hints = typing.get_type_hints(params, include_extras=True)
    specs: list[ParamSpec] = []
    for f in dataclasses.fields(params):
        if not f.init:
            continue
        hint = hints.get(f.name, object)
        doc = ""
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            doc = " ".join(e for e in extras if isinstance(e, str))
        doc = str(f.metadata.get("doc", "")) or doc
        default: object = REQUIRED
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        if hint in (float, int):
            specs.append(ParamSpec(f.name, ParamKind.FLOAT, default, doc, integer=hint is int))
            continue
        members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        optional = type(None) in members
        classes = tuple(m for m in members if isinstance(m, type) and m is not type(None) and m is not object)
        if any(not isinstance(m, type) for m in members):
            classes = ()  # a generic alias or protocol: accept anything
        specs.append(ParamSpec(f.name, ParamKind.POINTER, default, doc, classes, optional))
    return tuple(specs)


# ----------------------------------------------------------------------------------------- rules
class ActionKind(Enum):
    """What a rule recommends (the manual's consequents ``Turn_left``/``Turn_right``, ``Accel``, ``Decel``)."""

    TURN = "turn"
    SPEED = "speed"
    ACCEL = "accel"
    DECEL = "decel"


@dataclass(frozen=True, slots=True)
class Action(Generic[V_contra]):
    """A rule's consequent. ``TURN``: ``direction`` (> 0 left, < 0 right, 0 none) times ``value``
    degrees; ``SPEED``: ``value`` mm/s; ``ACCEL`` / ``DECEL``: the velocity setpoint ± ``value``.
    """

    kind: ActionKind
    value: float | Callable[[V_contra], float]
    direction: float | Callable[[V_contra], float] = 1.0


def turn_left(modifier: float | Callable[[V], float] = TurnModifier.MODERATELY) -> Action[V]:
    """``Turn Left <modifier>``: a heading change of +modifier degrees."""
    return Action(ActionKind.TURN, _plain(modifier), 1.0)


def turn_right(modifier: float | Callable[[V], float] = TurnModifier.MODERATELY) -> Action[V]:
    """``Turn Right <modifier>``: a heading change of -modifier degrees."""
    return Action(ActionKind.TURN, _plain(modifier), -1.0)


def turn(
    direction: float | Callable[[V], float], modifier: float | Callable[[V], float] = TurnModifier.MODERATELY
) -> Action[V]:
    """``Turn <direction> <modifier>``: left when the direction is positive (:class:`TurnDir`)."""
    return Action(ActionKind.TURN, _plain(modifier), _plain(direction))


def turn_by(degrees: float | Callable[[V], float]) -> Action[V]:
    """A signed heading change in degrees, left positive (proportional steering)."""
    return Action(ActionKind.TURN, _plain(degrees), 1.0)


def go_straight() -> Action[Any]:
    """A heading change of 0: keep the current heading."""
    return Action(ActionKind.TURN, 0.0, 1.0)


def speed(value: float | Callable[[V], float]) -> Action[V]:
    """``Speed <value>``: a velocity of ``value`` mm/s."""
    return Action(ActionKind.SPEED, _plain(value))


def accel(delta: float | Callable[[V], float]) -> Action[V]:
    """``Accel <delta>``: the current velocity setpoint plus ``delta`` mm/s."""
    return Action(ActionKind.ACCEL, _plain(delta))


def decel(delta: float | Callable[[V], float]) -> Action[V]:
    """``Decel <delta>``: the current velocity setpoint minus ``delta`` mm/s."""
    return Action(ActionKind.DECEL, _plain(delta))


def _plain(value: float | Callable[[V], float]) -> float | Callable[[V], float]:
    """Constants become plain floats (an enum member such as a TurnModifier included)."""
    return value if callable(value) else float(value)


@dataclass(frozen=True, slots=True)
class Rule(Generic[V_contra]):
    """``Name: If <when> Then <then>``: ``when`` is a truth in [0, 1] (a constant or an expression).

    A rule written for a base class of a behavior's variables serves every behavior whose variables
    derive from it, so behaviors can share rule lists.
    """

    name: str
    when: float | Callable[[V_contra], float]
    then: Action[V_contra] | Consequent


@dataclass(frozen=True, slots=True)
class Activity(Generic[V_contra]):
    """The activity outputs (Table 5.1): ``turn``/``speed`` context weights, ``goal`` (> 0.8 ends the
    behavior in SUCCESS) and ``progress``. Each is a constant or an expression of the variables."""

    turn: float | Callable[[V_contra], float] = 0.0
    speed: float | Callable[[V_contra], float] = 0.0
    goal: float | Callable[[V_contra], float] = 0.0
    progress: float | Callable[[V_contra], float] = 0.0


class FuzzyVars(Generic[P]):
    """Base class for a behavior's variables: its fuzzy variables and any private state.

    ``p`` is the instance's parameters; the executive sets it before ``init`` runs.
    """

    p: P


class LpsPen(Protocol):
    """What a behavior's ``draw`` gets: lines and boxes in the LPS (mm, the robot at the origin facing
    +x), in a colour named as the drawing API's ``sfColor<Name>`` (``"Red"``, ``"SteelBlue"``…).

    The live view calls ``draw`` once per frame, only while a page is watching, after the behavior's
    ``update`` of that cycle (:mod:`saphira.ui.liveview`); without a page it costs nothing."""

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str, dashed: bool = False) -> None: ...

    def box(self, xmin: float, ymin: float, xmax: float, ymax: float, color: str, dashed: bool = False) -> None: ...


# ----------------------------------------------------------------------------------------- the context
class BehaviorContext(Generic[P, V]):
    """What ``init`` and ``update`` see: the instance (``p``, ``v``) and the robot (``robot``, ``sonar``…).

    ``robot`` is the reflected robot state (the manual's ``sfRobot``), ``sonar`` the sonar buffers with
    the occupancy functions, ``pointlist`` the artifacts of the LPS, ``motion`` the setpoints.
    """

    __slots__ = ("_executive", "_reflector", "name", "p", "v")

    def __init__(self, name: str, p: P, v: V, reflector: Reflector, executive: BehaviorExecutive) -> None:
        self.name = name
        self.p = p
        self.v = v
        self._reflector = reflector
        self._executive = executive

    @property
    def robot(self) -> RobotState:
        return self._reflector.state

    @property
    def sonar(self) -> Sonar:
        return self._reflector.sonar

    @property
    def pointlist(self) -> PointList:
        return self._reflector.pointlist

    @property
    def motion(self) -> MotionControl:
        return self._reflector.motion

    @property
    def robot_params(self) -> RobotParams:
        return self._reflector.params

    @property
    def robot_radius(self) -> float:
        return self._reflector.params.robot_radius

    @property
    def cycle(self) -> int:
        return self._executive.cycle

    @property
    def preferred_turn_dir(self) -> TurnDir:
        """The shared default turn direction when the front is blocked (``sfPreferredTurnDir``)."""
        return self._executive.preferred_turn_dir

    @preferred_turn_dir.setter
    def preferred_turn_dir(self, value: TurnDir) -> None:
        self._executive.preferred_turn_dir = value


# ----------------------------------------------------------------------------------------- definitions
class _CompiledRule:
    """A rule ready to run: fast callables, and the fixed consequent when nothing in it varies."""

    __slots__ = ("direction", "fixed", "kind", "name", "truth", "value")

    def __init__(self, rule: Rule[Any], index: int) -> None:
        self.name = rule.name or f"rule {index + 1}"
        self.truth = _as_function(rule.when)
        then = rule.then
        if isinstance(then, Consequent):
            then = Action(ActionKind.TURN if then.channel is Channel.TURN else ActionKind.SPEED, then.value)
        if not isinstance(then, Action):
            raise BehaviorError(f"rule {self.name!r}: 'then' must be an action such as turn_left(), got {then!r}")
        self.kind = then.kind
        self.value = _as_function(then.value)
        self.direction = _as_function(then.direction)
        self.fixed: Consequent | None = None
        varies = callable(then.value) or callable(then.direction)
        if self.kind in (ActionKind.TURN, ActionKind.SPEED) and not varies:
            self.fixed = self.consequent(None, 0.0)

    def consequent(self, v: Any, setpoint: float) -> Consequent:
        """This cycle's consequent; ``setpoint`` is the velocity that Accel and Decel are relative to."""
        kind = self.kind
        if kind is ActionKind.TURN:
            d = self.direction(v)
            sign = 1.0 if d > 0.0 else -1.0 if d < 0.0 else 0.0
            return Consequent(Channel.TURN, sign * self.value(v))
        if kind is ActionKind.SPEED:
            return Consequent(Channel.SPEED, self.value(v))
        if kind is ActionKind.ACCEL:
            return Consequent(Channel.SPEED, setpoint + self.value(v))
        return Consequent(Channel.SPEED, setpoint - self.value(v))


def _as_function(expr: float | Callable[[Any], float]) -> Callable[[Any], float]:
    if callable(expr):
        return expr
    constant = float(expr)
    return lambda v: constant


@dataclass(frozen=True, eq=False)
class BehaviorDef(Generic[P, V]):
    """A behavior schema: what ``start_behavior`` instantiates (the manual's ``behavior`` structure).

    ``make_params(values)`` builds an instance's parameter object from the checked argument values
    (keyed by parameter name); ``make_vars()`` its fresh variables. ``init(ctx)`` runs once when the
    instance starts, ``update(ctx)`` every cycle before the rules.
    """

    name: str
    params: tuple[ParamSpec, ...]
    make_params: Callable[[dict[str, Any]], P]
    make_vars: Callable[[], V]
    update: Callable[[BehaviorContext[P, V]], None]
    rules: tuple[Rule[V], ...]
    activity: Activity[V] = Activity()
    init: Callable[[BehaviorContext[P, V]], None] | None = None
    doc: str = ""
    draw: Callable[[BehaviorContext[P, V], LpsPen], None] | None = None
    """Draws what the behavior looks at (its lanes, its sensitivity boxes) for a live view."""
    compiled_rules: tuple[_CompiledRule, ...] = field(init=False, repr=False)
    activity_functions: tuple[Callable[[V], float], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise BehaviorError("a behavior needs a name")
        names = [spec.name for spec in self.params]
        if len(set(names)) != len(names):
            raise BehaviorError(f"behavior {self.name!r}: duplicate parameter names in {names}")
        clash = set(names) & _START_OPTIONS
        if clash:
            raise BehaviorError(
                f"behavior {self.name!r}: parameter names {sorted(clash)} clash with start_behavior options"
            )
        object.__setattr__(self, "rules", tuple(self.rules))
        compiled = tuple(_CompiledRule(rule, i) for i, rule in enumerate(self.rules))
        object.__setattr__(self, "compiled_rules", compiled)
        a = self.activity
        functions = tuple(_as_function(e) for e in (a.turn, a.speed, a.goal, a.progress))
        object.__setattr__(self, "activity_functions", functions)

    @property
    def rule_names(self) -> tuple[str, ...]:
        """The rules' names, as the Behaviors window shows them."""
        return tuple(rule.name for rule in self.compiled_rules)

    def bind(self, args: Sequence[object], kwargs: Mapping[str, object]) -> P:
        """The parameter object for these arguments: positional in declaration order, then by name.

        Raises :class:`BehaviorError` naming the parameter on a wrong count, name or type.
        """
        specs = self.params
        if len(args) > len(specs):
            raise BehaviorError(
                f"{self.name} takes {len(specs)} parameter{'s' if len(specs) != 1 else ''}"
                f" ({', '.join(s.name for s in specs) or 'none'}), got {len(args)}"
            )
        values: dict[str, Any] = {}
        for i, spec in enumerate(specs):
            if i < len(args):
                if spec.name in kwargs:
                    raise BehaviorError(f"{self.name}: parameter {spec.name!r} given twice")
                raw = args[i]
            elif spec.name in kwargs:
                raw = kwargs[spec.name]
            elif spec.required:
                raise BehaviorError(f"{self.name}: parameter {i + 1} ({spec.name}) is required")
            else:
                values[spec.name] = spec.default
                continue
            values[spec.name] = spec.check(raw, self.name, i + 1)
        unknown = set(kwargs) - {s.name for s in specs}
        if unknown:
            raise BehaviorError(
                f"{self.name} has no parameter {', '.join(sorted(unknown))}"
                f" (its parameters: {', '.join(s.name for s in specs) or 'none'})"
            )
        return self.make_params(values)

    def signature(self) -> str:
        """``name(speed=200.0, goal, radius=100.0)``: for help texts and error messages."""
        parts = [s.name if s.required else f"{s.name}={s.default!r}" for s in self.params]
        return f"{self.name}({', '.join(parts)})"


_START_OPTIONS = frozenset({"name", "priority", "timeout", "parent", "suspended", "defn"})


def behavior(
    name: str,
    *,
    params: type[P],
    vars: type[V] | Callable[[], V],
    update: Callable[[BehaviorContext[P, V]], None],
    rules: Sequence[Rule[V]],
    activity: Activity[V] | None = None,
    init: Callable[[BehaviorContext[P, V]], None] | None = None,
    doc: str | None = None,
    draw: Callable[[BehaviorContext[P, V], LpsPen], None] | None = None,
) -> BehaviorDef[P, V]:
    """Define a behavior from a parameter dataclass (see the module docstring for the shape)."""
    specs = param_specs(params)

    def make_params(values: dict[str, Any]) -> P:
        return params(**values)

    return BehaviorDef(
        name=name,
        params=specs,
        make_params=make_params,
        make_vars=vars,
        update=update,
        rules=tuple(rules),
        activity=activity if activity is not None else Activity(),
        init=init,
        doc=(doc if doc is not None else (update.__doc__ or "")).strip(),
        draw=draw,
    )
