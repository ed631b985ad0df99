# Drive a 1 m square by odometry: a state for each edge, a state for each quarter turn.

from pyrobot.geometry import *
from pyrobot.brain.behaviors.fsm import State, FSMBrain


class edge(State):
    def onActivate(self):
        self.startX = self.robot.x
        self.startY = self.robot.y

    def update(self):
        if distance(self.startX, self.startY, self.robot.x, self.robot.y) > 1.0:
            self.brain.edges += 1
            self.goto("turn")
        else:
            self.move(0.3, 0)


class turn(State):
    def onActivate(self):
        self.th = self.robot.th

    def update(self):
        if angleAdd(self.robot.th, -self.th) > 90:
            print("corner", self.brain.edges, "at", round(self.robot.x, 2), round(self.robot.y, 2))
            self.goto("edge")
        else:
            self.move(0, 0.2)


def INIT(engine):
    brain = FSMBrain(engine)
    brain.edges = 0
    brain.add(edge(1))
    brain.add(turn())
    return brain
