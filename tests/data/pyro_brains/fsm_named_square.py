# Pyro's FSM square, with the brain made as Pyro's own example makes it: FSMBrain("Square Brain", engine).

from pyrobot.geometry import *
from pyrobot.brain.behaviors import State, FSMBrain


class edge(State):
    def onActivate(self):
        self.startX = self.robot.x
        self.startY = self.robot.y

    def update(self):
        if distance(self.startX, self.startY, self.robot.x, self.robot.y) > 1.0:
            self.goto("turn")
        else:
            self.move(0.3, 0)


class turn(State):
    def onActivate(self):
        self.th = self.robot.th

    def update(self):
        if angleAdd(self.robot.th, -self.th) > 90:
            self.brain.corners += 1
            print("corner", self.brain.corners)
            self.goto("edge")
        else:
            self.move(0, 0.2)


def INIT(engine):
    brain = FSMBrain("Square Brain", engine)
    brain.corners = 0
    brain.add(edge(1))
    brain.add(turn())
    return brain
