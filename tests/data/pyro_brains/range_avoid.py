# Wander, slowing and turning away from what the front sonars see.

from pyrobot.brain import Brain


class RangeAvoid(Brain):
    def setup(self):
        self.robot.range.units = "METERS"
        self.steps = 0

    def choose(self, front, left, right):
        if front < 0.6:
            return 0.0, 0.4
        if left < 0.7:
            return 0.1, -0.3
        if right < 0.7:
            return 0.1, 0.3
        return 0.4, 0.0

    def step(self):
        self.steps += 1
        front = min([s.distance() for s in self.robot.range["front"]])
        left = min([s.distance() for s in self.robot.range["left-front"]])
        right = min([s.distance() for s in self.robot.range["right-front"]])
        translate, rotate = self.choose(front, left, right)
        self.robot.move(translate, rotate)

    def destroy(self):
        print("RangeAvoid stepped", self.steps, "times")


def INIT(engine):
    assert engine.robot.requires("range-sensor") and engine.robot.requires("continuous-movement")
    return RangeAvoid("RangeAvoid", engine)
