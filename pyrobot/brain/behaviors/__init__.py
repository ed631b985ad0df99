"""Pyro's behavior-based brains: behaviors that fire fuzzy rules, grouped in states, blended per controller.

A :class:`Behavior` says in ``update`` what it wants with rules, ``self.IF(truth, controller, value,
name)``; its ``effects`` weigh it on each controller (``{'translate': .3, 'rotate': .3}``). A
:class:`State` holds behaviors and may move the brain to another state with ``goto``. Each step a
:class:`BehaviorBasedBrain` runs the active states' active behaviors, then sets each controller to the
rules' values averaged with weights *truth × effect*, calls ``controls['update']`` when it is given,
and only then carries out the states' activations and ``goto``s (so a step sees one set of states).
An :class:`FSMBrain` runs the same states with no blending: its states drive the robot themselves.

Names and calls are Pyro's (``IF``, ``Effects``, ``onActivate``, ``goto``); the semantics are written
from Pyro's documentation and the behavior of its example brains.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pyrobot.brain import Brain
from saphira.brain import BrainEngine
from saphira.pyro_robot import PyroRobot

__all__ = ["Behavior", "BehaviorBasedBrain", "FSMBrain", "State"]

Rule = tuple[float, str, float, str]
"""One fired rule: truth, controller, value, rule name."""


class BrainStateError(ValueError):
    """A state or behavior name used twice, a ``goto`` to no such state, a ``pop`` with nothing pushed."""


class Behavior:
    """A collection of fuzzy rules. Subclass it: ``setup`` once, ``update`` every step it is active."""

    def __init__(self, status: int = 0, effects: dict[str, float] | None = None, name: str = "") -> None:
        self.status = status
        self.type = type(self).__name__
        self.name = name or self.type
        self.effects: dict[str, float] = dict(effects or {})
        self.rules: list[Rule] = []
        self.robot: PyroRobot | None = None
        self.brain: BehaviorBasedBrain | None = None
        self.engine: BrainEngine | None = None
        self.state: State | None = None

    def setup(self) -> None:
        """Once, when the behavior is added to its state."""

    def onActivate(self) -> None:
        """When the behavior becomes active."""

    def onDeactivate(self) -> None:
        """When the behavior stops being active."""

    def update(self) -> None:
        """Every step while active: fire rules with :meth:`IF`."""

    def Effects(self, controller: str, amount: float = 1.0) -> None:
        """Weigh this behavior's rules on ``controller`` by ``amount``."""
        self.effects[controller] = float(amount)

    def IF(self, truth: Any, controller: str, amount: float = 1.0, name: str = "") -> None:
        """Fire a rule: with ``truth`` (a number or a Fuzzy), ``controller`` should be ``amount``."""
        if controller not in self.effects:
            declared = ", ".join(self.effects) or "none"
            raise KeyError(
                f"behavior {self.name!r} fires a rule on {controller!r} but has no effect on it "
                f"(effects: {declared}; give one in the constructor or with Effects())"
            )
        self.rules.append((float(truth), controller, float(amount), name or f"Rule{len(self.rules) + 1}"))


class State:
    """A set of behaviors that are active together; ``goto`` hands control to another state."""

    def __init__(self, status: int = 0, name: str = "") -> None:
        self.debug = 0
        self.status = status
        self.type = type(self).__name__
        self.name = name or self.type
        self.behaviors: dict[str, Behavior] = {}
        self.activatelist: list[str] = []
        self.deactivatelist: list[str] = []
        self.controls: dict[str, Callable[..., Any]] = {}
        self.robot: PyroRobot | None = None
        self.engine: BrainEngine | None = None
        self.brain: BehaviorBasedBrain | None = None

    # ----------------------------------------------------------------- hooks
    def setup(self) -> None:
        """Once, when the state is added to its brain (add behaviors here)."""

    def onActivate(self) -> None:
        """When the state becomes active."""

    def onDeactivate(self) -> None:
        """When the state stops being active."""

    def onGoto(self, args: tuple[Any, ...] = ()) -> None:
        """When another state's ``goto`` names this one, with the extra arguments it gave."""

    def update(self) -> None:
        """Every step while active, after the behaviors: by default :meth:`step`."""
        self.step()

    def step(self) -> None:
        """Every step while active (the state's own logic)."""

    # ----------------------------------------------------------------- structure
    def add(self, behavior: Behavior) -> None:
        """Add a behavior to this state; it is set up at once."""
        if behavior.name in self.behaviors:
            raise BrainStateError(f"state {self.name!r} already has a behavior {behavior.name!r}")
        self.behaviors[behavior.name] = behavior
        behavior.engine, behavior.robot, behavior.brain = self.engine, self.robot, self.brain
        behavior.state = self
        behavior.setup()
        if behavior.status:
            behavior.onActivate()

    def setcontrols(self, controls: dict[str, Callable[..., Any]]) -> None:
        self.controls = controls

    def _brain(self) -> BehaviorBasedBrain:
        if self.brain is None:
            raise BrainStateError(f"state {self.name!r} is not in a brain yet (brain.add(state) first)")
        return self.brain

    def getState(self, name: str) -> State:
        """The brain's state called ``name``."""
        states = self._brain().states
        if name not in states:
            raise BrainStateError(f"no state {name!r} (states: {', '.join(states)})")
        return states[name]

    # ----------------------------------------------------------------- transitions (after this step)
    def goto(self, name: str, *args: Any) -> None:
        """Leave this state for ``name`` at the end of the step; ``name``'s ``onGoto`` gets ``args``."""
        target = self.getState(name)
        if self.debug:
            print(f"Leaving state {self.name!r}; going to state {name!r}...")
        self.deactivate(self.name)
        self.activate(name)
        target.onGoto(args)
        self._brain().goto(name)

    def activate(self, name: str) -> None:
        """Make state ``name`` active at the end of the step."""
        if name not in self.activatelist:
            self.activatelist.append(name)

    def deactivate(self, name: str) -> None:
        """Make state ``name`` inactive at the end of the step."""
        if name not in self.deactivatelist:
            self.deactivatelist.append(name)

    def push(self, name: str | None = None) -> None:
        """Remember state ``name`` (this one by default) for a later :meth:`pop`."""
        name = name or self.name
        self.getState(name)
        self._brain().stack.append(name)

    def pop(self) -> None:
        """``goto`` the state last pushed."""
        stack = self._brain().stack
        if not stack:
            raise BrainStateError(f"pop without a push in state {self.name!r}")
        self.goto(stack.pop())

    # ----------------------------------------------------------------- a step
    def run(self) -> None:
        """Run the active behaviors (their rules go to the brain), then :meth:`update`."""
        brain = self._brain()
        for behavior in list(self.behaviors.values()):
            if behavior.status:
                behavior.rules = []
                behavior.update()
                for truth, controller, amount, rule in behavior.rules:
                    brain.desire(truth, controller, amount, rule, behavior, self)
        self.update()

    # ----------------------------------------------------------------- the robot, for the state's own logic
    def _robot(self) -> PyroRobot:
        if self.robot is None:
            raise BrainStateError(f"state {self.name!r} is not in a brain yet (brain.add(state) first)")
        return self.robot

    def move(self, translate: float, rotate: float) -> None:
        self._robot().move(translate, rotate)

    def translate(self, value: float) -> None:
        self._robot().translate(value)

    def rotate(self, value: float) -> None:
        self._robot().rotate(value)

    def motors(self, left: float, right: float) -> None:
        self._robot().motors(left, right)

    def stop(self) -> None:
        self._robot().stop()

    def hasA(self, feature: str) -> bool:
        return self._robot().hasA(feature)

    def requires(self, feature: str) -> bool:
        return self._robot().requires(feature)


class BehaviorBasedBrain(Brain):
    """Runs states of behaviors and blends their rules into ``controls`` (controller name → setter).

    Made in every shape Pyro's brains use: ``BehaviorBasedBrain({'translate': robot.translate, 'rotate':
    robot.rotate, 'update': robot.update}, engine)``, ``BehaviorBasedBrain(controllers=..., engine=engine)``,
    ``FSMBrain(engine)`` and ``FSMBrain("Square Brain", engine)`` (Pyro took any first argument as the
    controllers, and an FSM never used them: a name there names the brain). Without controllers the
    robot's ``translate`` and ``rotate`` are used.
    """

    def __init__(
        self,
        controllers: Mapping[str, Callable[..., Any]] | BrainEngine | str | None = None,
        engine: BrainEngine | None = None,
        name: str = "",
        **kwargs: Any,
    ) -> None:
        if isinstance(controllers, BrainEngine) and engine is None:  # FSMBrain(engine)
            controllers, engine = None, controllers
        if isinstance(controllers, str):  # FSMBrain("Square Brain", engine)
            name = name or controllers
            controllers = None
        if controllers is not None and not isinstance(controllers, Mapping):
            raise TypeError(
                f"{type(self).__name__}'s controllers are a dict of name → setter, not {type(controllers).__name__}"
            )
        self.states: dict[str, State] = {}
        self.stack: list[str] = []
        self.activeState: State | None = None
        self.desires: list[tuple[float, str, float, str, str, str]] = []
        self.history: list[dict[str, float]] = [{}, {}, {}]
        self._weights: dict[tuple[str, str, str], float] = {}
        if controllers is None and engine is not None:
            controllers = {"translate": engine.robot.translate, "rotate": engine.robot.rotate}
        self.controls: dict[str, Callable[..., Any]] = dict(controllers or {})
        super().__init__(name or type(self).__name__, engine, **kwargs)

    def set_controls(self, controls: dict[str, Callable[..., Any]]) -> None:
        self.controls = dict(controls)

    # ----------------------------------------------------------------- states
    def add(self, state: State) -> None:
        """Add a state; it is set up at once (and activated when made with status 1)."""
        if state.name in self.states:
            raise BrainStateError(f"the brain already has a state {state.name!r}")
        self.states[state.name] = state
        state.engine, state.robot, state.brain = self.engine, self.robot, self
        state.setup()
        if state.status:
            state.onActivate()

    def _state(self, name: str) -> State:
        if name not in self.states:
            raise BrainStateError(f"no state {name!r} (states: {', '.join(self.states)})")
        return self.states[name]

    def activate(self, name: str) -> None:
        state = self._state(name)
        state.status = 1
        state.onActivate()
        self.goto(name)

    def deactivate(self, name: str) -> None:
        state = self._state(name)
        state.status = 0
        state.onDeactivate()
        if self.activeState is state:
            self.activeState = None

    def goto(self, name: str) -> None:
        self.activeState = self._state(name)

    def reset(self) -> None:
        self.states = {}
        self.desires = []

    # ----------------------------------------------------------------- a step
    def desire(self, truth: float, controller: str, amount: float, rule: str, behavior: Behavior, state: State) -> None:
        """Take one fired rule of ``behavior`` in ``state`` into this step's blend."""
        self.desires.append((truth, controller, amount, rule, behavior.name, state.name))
        self._weights[(state.name, behavior.name, controller)] = behavior.effects[controller]

    def step(self) -> None:
        """Run the active states, blend their behaviors' rules, drive the controllers, then switch states."""
        self.desires = []
        self._weights = {}
        for state in list(self.states.values()):
            state.setcontrols(self.controls)
            if state.status == 1:
                state.run()
        self.history = [self.blend(), *self.history[:2]]
        for controller, value in self.history[0].items():
            setter = self.controls.get(controller)
            if setter is not None:
                setter(value)
        update = self.controls.get("update")
        if update is not None:
            update()
        self._switch_states()

    def blend(self) -> dict[str, float]:
        """Each controller's value this step: its rules' values averaged with weights truth × effect."""
        weighted: dict[str, float] = {}
        weights: dict[str, float] = {}
        for truth, controller, amount, _rule, behavior, state in self.desires:
            weight = truth * self._weights[(state, behavior, controller)]
            weighted[controller] = weighted.get(controller, 0.0) + weight * amount
            weights[controller] = weights.get(controller, 0.0) + weight
        return {c: (weighted[c] / weights[c] if weights[c] > 0.0 else 0.0) for c in weights}

    def _switch_states(self) -> None:
        for state in list(self.states.values()):
            deactivate, activate = state.deactivatelist, state.activatelist
            state.deactivatelist, state.activatelist = [], []
            for name in deactivate:
                self.deactivate(name)
            for name in activate:
                self.activate(name)

    def stop_all(self) -> None:
        """Set every controller but ``update`` to 0."""
        for controller, setter in self.controls.items():
            if controller != "update":
                setter(0.0)


class FSMBrain(BehaviorBasedBrain):
    """A finite-state machine of :class:`State`s that drive the robot themselves (no blending).

    ``FSMBrain(engine)``; states that add behaviors still have their rules blended into ``controls``.
    """

    def activate(self, name: str) -> None:
        state = self._state(name)
        state.status = 1
        state.onActivate()
