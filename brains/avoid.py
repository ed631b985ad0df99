"""A Pyro-style obstacle-avoiding brain: wander, and turn away from what the sonars see ahead.

Run it with ``saphira run brains/avoid.py --world AMROffice`` (the embedded simulator), or on any robot
with ``--robot URL`` (``tcp://``, ``flat://``, ``usarsim://``). It is Pyro's classic avoider (the USARSim tutorial's
brain skeleton, slide 14): each step reads the front, front-left and front-right sonar groups and
either cruises, veers away from the nearer side, or stops and turns on the spot until the way ahead
is clear; a stall backs it off. In the open, with no echo on any sonar for a few seconds, it has
wandered out of the building (AMROffice's map is open to the south): it turns round and goes back.
Distances are in metres (``robot.range.units``).
"""

from saphira.brain import Brain, BrainEngine

CLEAR = 1.0
"""m: nothing nearer than this ahead: cruise."""
CLOSE = 0.55
"""m: something this near ahead: stop and turn on the spot."""
SIDE = 0.45
"""m: a wall this near to the front-left or front-right: veer away from it."""
OPEN_STEPS = 10
"""Steps (1 s) with no echo on any sonar that mean the robot is out in the open."""
TURN_ROUND_STEPS = 30
"""Steps turning on the spot at 0.6 of the top turn rate (100 deg/s): about 180 degrees."""


class Avoid(Brain):
    """Wander without touching anything."""

    def setup(self, **kwargs: object) -> None:
        self.robot.range.units = "METERS"
        self.turn_direction = 0.0
        self.backing = 0
        self.turning_round = 0
        self.open_steps = 0
        self.steps = 0
        self.destroyed = False

    def nearest(self, group: str) -> float:
        return min(s.distance() for s in self.robot.range[group])

    def step(self) -> None:
        self.steps += 1
        if self.robot.stall:
            self.backing = 10
        if self.backing:
            self.backing -= 1
            self.robot.move(-0.15, 0.0)
            return
        if self.turning_round:
            self.turning_round -= 1
            self.robot.move(0.0, 0.6)
            return
        self.open_steps = self.open_steps + 1 if self.nearest("all") >= self.robot.range.max_range_mm / 1000 else 0
        if self.open_steps >= OPEN_STEPS:
            self.open_steps = 0
            self.turning_round = TURN_ROUND_STEPS
        front = self.nearest("front")
        left = self.nearest("front-left")
        right = self.nearest("front-right")
        if front < CLOSE or min(left, right) < CLOSE * 0.6:
            if not self.turn_direction:  # keep turning one way until the way is clear
                self.turn_direction = 1.0 if left > right else -1.0
            self.robot.move(0.0, 0.6 * self.turn_direction)
            return
        self.turn_direction = 0.0
        if left < SIDE or right < SIDE:
            self.robot.move(0.2, 0.4 if left > right else -0.4)
        elif front < CLEAR:
            self.robot.move(0.25, 0.3 if left > right else -0.3)
        else:
            self.robot.move(0.45, 0.0)

    def destroy(self) -> None:
        self.destroyed = True
        self.robot.stop()
        print(f"brain {self.name} destroyed after {self.steps} steps", flush=True)


def INIT(engine: BrainEngine) -> Brain:
    return Avoid("Avoid", engine)
