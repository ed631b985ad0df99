"""ARIA's gripperExample, as a script: open and lower the gripper, drive up to a box until a break
beam sees it, close the paddles on it, lift it, back away with it, and put it down again.

The gripper's state comes back in every SIP (paddles open / closed / between, the two break beams, the
lift at its top); the commands are sent at once. The embedded simulator uses ``gripper.wld`` beside this
file, a box 0.7 m ahead; for ``saphira sim`` give it the same: ``saphira sim --world examples/gripper.wld``.

    python examples/gripper.py [--robot tcp://127.0.0.1:8101]
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from example_args import connect, main_guard, parse_args

from saphira.client.sensors import accessories as gripper
from saphira.protocol.gripper import GripState
from saphira.robot import Robot

WORLD = str(Path(__file__).with_name("gripper.wld"))


def main() -> None:
    args = parse_args("pick up the box ahead with the gripper")
    with Robot() as robot:
        connect(robot, args, world=WORLD)
        state = robot.reflector.accessories.state

        def wait(what: str, done: Callable[[], bool], seconds: float = 10.0) -> None:
            ok = robot.run_until(done, max_cycles=robot.clock.cycles_for(seconds))
            print(f"{what}: {'done' if ok else 'not done'} (grip {state.grip.name}, beams {state.beams})")

        gripper.gripper_open(robot)
        gripper.gripper_down(robot)
        wait("open", lambda: state.grip is GripState.OPEN)
        robot.motion.set_velocity(100)  # creep up to the box: the inner beam breaks when it is in the throat
        wait("box between the paddles", lambda: bool(state.beams & 1), seconds=30.0)
        robot.motion.set_velocity(0)
        gripper.gripper_close(robot)
        wait("closed on the box", lambda: state.grip is GripState.CLOSED)
        gripper.gripper_up(robot)
        wait("lifted", lambda: state.lift_maxed)
        robot.motion.set_position(-500)  # back away 500 mm with the box
        wait("backed away", lambda: robot.motion.done_position(20.0))
        gripper.gripper_down(robot)
        gripper.gripper_open(robot)
        wait("put down", lambda: state.grip is GripState.OPEN)


if __name__ == "__main__":
    main_guard(main)
