# Creep along on the wheels until something is near ahead, reporting what the robot says of itself.

from pyrobot.brain import Brain, avg


class Wheels(Brain):
    def setup(self):
        self.robot.range.units = "MM"
        print("robot", self.robot.type, "sonar", self.robot.hasA("sonar"), "gripper", self.robot.hasA("gripper"))
        self.seen = []

    def step(self):
        self.robot.update()
        front = [s.value for s in self.robot.range["front"]]
        self.seen.append(avg(front))
        bearing = self.robot.range["front-left"][0].angle(unit="radians")
        if bearing <= 0:
            raise ValueError("front-left should be to the left")
        if avg(front) < 600:
            self.robot.stop()
        else:
            self.robot.motors(0.2, 0.3)

    def destroy(self):
        print("nearest ahead", round(min(self.seen)), "mm over", len(self.seen), "steps")


def INIT(engine):
    return Wheels("Wheels", engine)
