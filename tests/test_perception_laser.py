"""Interpretation over a laser: the side lines come from the latest scan when the robot has a laser.

Runs in lock-step with the embedded simulator, odometry error on, judged against the simulator's true
pose (as tests/test_perception.py does for the sonar): the same drive along a wall with a sonar-only
P3-DX and with a P3-DX that has only a laser (tests/data/laser-params/p3dx-laser.p).
"""

from __future__ import annotations

import math
from pathlib import Path

from saphira.client.artifacts import ArtifactType, Category
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import norm2_angle, to_global
from saphira.params.robot_params import params_for_file
from saphira.perception import perception_for
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.world.wld import parse_wld

LASER_P3DX = Path(__file__).resolve().parent / "data" / "laser-params" / "p3dx-laser.p"
ROOM = "width 10000\nheight 8000\n0 0 10000 0\n10000 0 10000 8000\n10000 8000 0 8000\n0 8000 0 0\n"
DOORWAY = (
    "width 12000\nheight 8000\n0 0 5000 0\n6000 0 12000 0\n12000 0 12000 8000\n12000 8000 0 8000\n"
    "0 8000 0 0\n5000 0 5000 -3000\n6000 0 6000 -3000\n5000 -3000 6000 -3000\n"
)
"""A room whose south wall has a 1000 mm doorway (x 5000 .. 6000) into a closet."""


def offset(a: object) -> float:
    """Signed distance from the robot to the line of a local artifact (left positive)."""
    th = math.radians(a.th)  # type: ignore[attr-defined]
    return -math.sin(th) * a.x + math.cos(th) * a.y  # type: ignore[attr-defined]


def drive_along_the_wall(laser: bool) -> tuple[list[float], list[float]]:
    """Drive 5 m along the wall y = 0, 1 m to its right; the right wall hypothesis's errors each cycle
    (degrees, mm) once the first metre is behind."""
    params = params_for_file(LASER_P3DX if laser else "p3dx")
    robot = Robot(params=params)
    sim = attach_simulator(robot, parse_wld(ROOM, "<room>"), params, pose=(1500.0, 1000.0, 0.0), seed=3)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text("sfInitInterpretationProcs();"), lines
    per = perception_for(robot.reflector, robot.scheduler)
    robot.motion.set_velocity(300)
    angle_errors, distance_errors = [], []
    while sim.true_pose.x < 6500.0:
        robot.step()
        wall, true = per.right_wall, sim.true_pose
        if true.x < 2500.0:
            continue
        assert wall.viewable and wall.cat == Category.PERCEPT and wall.type == ArtifactType.WALL
        assert not per.left_wall.viewable
        assert per.interpretation.right.laser is laser
        angle_errors.append(abs(norm2_angle(wall.th + true.th)))
        distance_errors.append(abs(-offset(wall) - true.y))
        assert wall.length > 500.0
    assert (robot.reflector.laser.scans > 100) is laser and (robot.reflector.laser.scan is not None) is laser
    return angle_errors, distance_errors


def test_a_laser_gives_a_wall_hypothesis_at_least_as_accurate_as_the_sonar() -> None:
    sonar_angle, sonar_distance = drive_along_the_wall(laser=False)
    laser_angle, laser_distance = drive_along_the_wall(laser=True)
    print(
        f"sonar: max {max(sonar_angle):.2f} deg {max(sonar_distance):.1f} mm; "
        f"laser: max {max(laser_angle):.2f} deg {max(laser_distance):.1f} mm"
    )
    assert max(laser_angle) <= max(sonar_angle) and max(laser_distance) <= max(sonar_distance)
    assert sum(laser_distance) <= sum(sonar_distance)
    assert max(laser_angle) <= 1.0 and max(laser_distance) <= 20.0


def test_a_laser_finds_a_doorway_in_the_side_wall() -> None:
    """The right wall's 1000 mm doorway becomes one door hypothesis where it is, measured without any
    sonar cone correction; nothing else is taken for a break."""
    params = params_for_file(LASER_P3DX)
    robot = Robot(params=params)
    sim = attach_simulator(robot, parse_wld(DOORWAY, "<doorway>"), params, pose=(1500.0, 1000.0, 0.0), seed=3)
    per = perception_for(robot.reflector, robot.scheduler)
    per.start_interpretation()
    robot.motion.set_velocity(300)
    seen: dict[int, tuple[float, float, float, int]] = {}
    while sim.true_pose.x < 8000.0:
        robot.step()
        for hyp in per.interpretation.breaks:
            where = to_global(sim.true_pose, hyp.artifact.x, hyp.artifact.y)
            seen[id(hyp.artifact)] = (where.x, where.y, hyp.artifact.width, hyp.artifact.type)
    assert len(seen) == 1, seen
    ((x, y, width, kind),) = seen.values()
    assert kind == ArtifactType.DOOR
    assert math.hypot(x - 5500.0, y) <= 100.0 and abs(width - 1000.0) <= 100.0
