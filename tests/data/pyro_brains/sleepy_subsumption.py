# A brain that sleeps inside step(), as Pyro's subsumption example does: forward, then a
# one-second pause; Pyro stepped it in a thread of its own, so the robot's I/O went on meanwhile.

import time

from pyrobot.brain import Brain


class Sleepy(Brain):
    def setup(self):
        self.steps = 0
        self.cycles_asleep = []

    def step(self):
        self.steps += 1
        self.robot.move(0.3, 0.0)
        before = self.engine.saphira.clock.cycle
        time.sleep(1)
        self.cycles_asleep.append(self.engine.saphira.clock.cycle - before)
        self.robot.move(0.0, 0.3)

    def destroy(self):
        print("Sleepy stepped", self.steps, "times")
        print("cycles asleep", min(self.cycles_asleep), "to", max(self.cycles_asleep))


def INIT(engine):
    return Sleepy("Sleepy", engine)
