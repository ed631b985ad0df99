# An avoider with the thresholds Pyro's Avoid brain uses, in Pyro's default units (no units set):
# turn on the spot when the front is under 0.5, veer when a front side is under 0.8.

from pyrobot.brain import Brain


class Avoid(Brain):
    def decide(self, front, left, right):
        if front < 0.5:
            return 0.0, 0.3
        if left < 0.8:
            return 0.1, -0.3
        if right < 0.8:
            return 0.1, 0.3
        return 0.5, 0.0

    def step(self):
        front = min([s.distance() for s in self.robot.range["front"]])
        left = min([s.distance() for s in self.robot.range["left-front"]])
        right = min([s.distance() for s in self.robot.range["right-front"]])
        self.robot.move(*self.decide(front, left, right))


def INIT(engine):
    return Avoid("Avoid", engine)
