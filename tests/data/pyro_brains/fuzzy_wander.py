# A behavior-based wanderer: fuzzy rules keep it off what is ahead; a state turns it round when boxed in.

from pyrobot.brain.fuzzy import *
from pyrobot.brain.behaviors import *


class Avoid(Behavior):
    def setup(self):
        self.fired = 0

    def away(self, angle):
        if angle < 0.0:
            return 0.4
        return -0.4

    def update(self):
        self.fired += 1
        close, angle = min([(s.distance(), s.angle()) for s in self.robot.range["front-all"]])
        far = self.robot.range.getMaxvalue() * 0.3
        self.IF(Fuzzy(0.3, far) << close, "translate", 0.0, "TooClose")
        self.IF(Fuzzy(0.3, far) >> close, "translate", 0.4, "Clear")
        self.IF(Fuzzy(0.3, far) << close, "rotate", self.away(angle), "TooClose")
        self.IF(Fuzzy(0.3, far) >> close, "rotate", 0.0, "Clear")


class TurnAround(State):
    def onActivate(self):
        self.turns = 0

    def update(self):
        self.turns += 1
        if min([s.distance() for s in self.robot.range["front"]]) < 0.9:
            self.move(0, 0.4)
        else:
            print("TurnAround: clear after", self.turns, "steps")
            self.goto("Wander")


class Wander(State):
    def setup(self):
        self.add(Avoid(1, {"translate": 0.3, "rotate": 0.3}))

    def update(self):
        if min([s.distance() for s in self.robot.range["front"]]) < 0.5:
            self.goto("TurnAround")


def INIT(engine):
    engine.robot.range.units = "METERS"
    brain = BehaviorBasedBrain({"translate": engine.robot.translate,
                                "rotate": engine.robot.rotate,
                                "update": engine.robot.update}, engine)
    brain.add(Wander())
    brain.add(TurnAround())
    brain.activate("Wander")
    return brain
