"""Sonar interpretation and environment tracking (demo.act's FindAndFollow; see docs/colbert.md).

Segment fitting is checked on synthetic points; everything else runs in lock-step with the embedded
simulator, odometry error on, and is judged against the simulator's true pose: a percept's local
coordinates are what the robot perceives, so they are put into the world frame with the true pose of
the same cycle.
"""

from __future__ import annotations

import math

import numpy as np

from saphira.behavior.library import find_behavior
from saphira.client.artifacts import ArtifactType, Category, create_global_point
from saphira.client.sensors.sonar import RingBuffer
from saphira.colbert.evaluator import Evaluator
from saphira.core.geometry import norm2_angle, to_global
from saphira.core.tasks import TaskState
from saphira.perception import Perception, perception_for
from saphira.perception.lines import find_gaps, fit_segment
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.world.wld import parse_wld

ROOM = """width 10000
height 8000
0 0 10000 0
10000 0 10000 8000
10000 8000 0 8000
0 8000 0 0
"""

CORRIDOR_DOORS = [
    (3500.0, 7000.0),
    (9500.0, 7000.0),
    (14500.0, 7000.0),
    (19500.0, 7000.0),
    (5500.0, 5000.0),
    (10500.0, 5000.0),
    (16000.0, 5000.0),
    (20500.0, 5000.0),
]
"""Door centres of maps/corridor.wld (1000 mm openings in the corridor walls at y = 5000 and 7000)."""


# ------------------------------------------------------------------------------ line fitting
def test_fit_segment_ignores_outliers_and_finds_the_gap() -> None:
    rng = np.random.default_rng(1)
    xs = np.concatenate([np.arange(-1500.0, -300.0, 50.0), np.arange(400.0, 1500.0, 50.0)])
    angle = math.radians(5.0)
    ys = 1000.0 + xs * math.tan(angle) + rng.normal(0.0, 10.0, xs.size)
    outliers_x, outliers_y = np.array([0.0, 50.0, 100.0]), np.array([3500.0, 3600.0, 3400.0])
    seg = fit_segment(np.concatenate([xs, outliers_x]), np.concatenate([ys, outliers_y]))
    assert seg is not None
    assert abs(seg.th - 5.0) < 0.5
    assert abs(seg.normal_distance - 1000.0 * math.cos(angle)) < 15.0
    assert seg.inliers == xs.size and seg.total == xs.size + 3
    gaps = find_gaps(seg, 350.0)
    assert len(gaps) == 1
    assert abs(gaps[0].width - 750.0 / math.cos(angle)) < 10.0  # x = -350 .. 400


def test_ring_buffer_hands_out_its_newest_entries_oldest_first() -> None:
    buffer = RingBuffer(5)
    for i in range(7):
        buffer.add(float(i), -float(i), valid=i != 5)
    assert buffer.added == 7
    xs, ys = buffer.recent(3)
    assert list(xs) == [4.0, 6.0] and list(ys) == [-4.0, -6.0]  # entry 5 was invalid
    assert list(buffer.recent(10)[0]) == [2.0, 3.0, 4.0, 6.0]
    buffer.clear()
    assert buffer.added == 0 and buffer.recent(3)[0].size == 0


def test_fit_segment_needs_enough_points() -> None:
    assert fit_segment(np.array([0.0, 100.0, 200.0]), np.array([0.0, 0.0, 0.0])) is None


# ------------------------------------------------------------------------------ helpers
def start(world: str, pose: tuple[float, float, float] | None = None, seed: int = 0) -> tuple[Robot, EmbeddedSim]:
    robot = Robot()
    the_world = parse_wld(ROOM, "<room>") if world == "room" else world
    sim = attach_simulator(robot, the_world, "p3dx", pose=pose, seed=seed)
    return robot, sim


def offset(a: object) -> float:
    """Signed distance from the robot to the line of a local artifact (left positive)."""
    th = math.radians(a.th)
    return -math.sin(th) * a.x + math.cos(th) * a.y


# ------------------------------------------------------------------------------ walls
def test_wall_hypothesis_driving_5_m_along_a_wall_1_m_away() -> None:
    robot, sim = start("room", (1500.0, 1000.0, 0.0))
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text("sfInitInterpretationProcs(); float th; int seen; float dist;"), lines
    per = perception_for(robot.reflector, robot.scheduler)
    robot.motion.set_velocity(300)
    angle_errors, distance_errors = [], []
    while sim.true_pose.x < 6500.0:
        robot.step()
        wall, true = per.right_wall, sim.true_pose
        if true.x < 2500.0:
            continue  # the first metre fills the buffer
        assert wall.viewable and wall.cat == Category.PERCEPT and wall.type == ArtifactType.WALL
        assert not per.left_wall.viewable  # nothing on the left within range
        # truth: the wall y = 0 lies at -true.th relative to the robot, true.y to its right
        angle_errors.append(abs(norm2_angle(wall.th + true.th)))
        distance_errors.append(abs(-offset(wall) - true.y))
        assert wall.length > 500.0
    assert max(angle_errors) <= 3.0 and max(distance_errors) <= 50.0
    read = "th = sfRightWallHyp->th; seen = sfRightWallHyp->viewable; dist = sfPointNormalDist(sfRightWallHyp);"
    assert ev.eval_text(read), lines
    assert ev.value("seen") == 1
    assert abs(norm2_angle(ev.value("th") - per.right_wall.th)) < 1e-3
    assert abs(ev.value("dist") - offset(per.right_wall)) < 1.0 and ev.value("dist") < -800.0
    assert abs(sim.true_pose.th - robot.state.ath) > 1.0  # odometry really drifted meanwhile


# ------------------------------------------------------------------------------ corridors and doors
def drive_corridor(per: Perception, robot: Robot, sim: EmbeddedSim, until_x: float) -> list[float]:
    """Follow the sensed corridor (the current environment) east until ``until_x``; returns |y - 6000|."""
    robot.start_behavior(find_behavior("avoid_collision"), priority=0)
    robot.start_behavior(find_behavior("constant_velocity"), 300, priority=2)
    robot.start_behavior(find_behavior("stop"), priority=3)
    follow = None
    deviations = []
    for _ in range(1500):
        robot.step()
        env = per.current_environment
        if follow is None and env is not None:
            pose = robot.state.global_pose
            goal = create_global_point(pose, *to_global(pose, 30000.0, 0.0)[:2])
            follow = robot.start_behavior(find_behavior("follow_corridor"), env, goal, priority=1)
        if follow is not None:
            deviations.append(abs(sim.true_pose.y - 6000.0))
        if sim.true_pose.x >= until_x:
            break
    assert follow is not None and follow.state == TaskState.RESUME
    return deviations


def test_doors_of_the_corridor_world_are_found() -> None:
    robot, sim = start("corridor", (2600.0, 6000.0, 0.0))
    per = perception_for(robot.reflector, robot.scheduler)
    per.start_awareness()
    seen: dict[int, tuple[float, float, int]] = {}  # id(hypothesis) -> world position when last refined
    counts: dict[int, int] = {}
    held: list[object] = []  # every hypothesis stays alive, so no id is reused
    robot.run(cycles=1)
    x0 = sim.true_pose.x

    def record() -> None:
        for hyp in per.interpretation.breaks:
            key = id(hyp)
            if counts.get(key) != hyp.detections:
                if key not in counts:
                    held.append(hyp)
                counts[key] = hyp.detections
                where = to_global(sim.true_pose, hyp.artifact.x, hyp.artifact.y)
                seen[key] = (where.x, where.y, hyp.artifact.type)
                assert hyp.artifact in robot.reflector.pointlist and hyp.artifact.cat == Category.PERCEPT

    robot.scheduler.add(lambda state: record() or TaskState.RESUME, "record")
    drive_corridor(per, robot, sim, 21300.0)
    driven = (sim.true_pose.x - x0) / 1000.0
    passed = [d for d in CORRIDOR_DOORS if d[0] + 500.0 < sim.true_pose.x - 300.0]
    found, false = set(), 0
    for x, y, kind in seen.values():
        near = min(passed, key=lambda d: math.hypot(d[0] - x, d[1] - y))
        if kind == ArtifactType.DOOR and math.hypot(near[0] - x, near[1] - y) <= 300.0:
            found.add(near)
        else:
            false += 1
    print(f"doors: {len(found)} of {len(passed)} passed found, {false} false over {driven:.1f} m")
    assert len(found) >= 0.8 * len(passed) and len(passed) >= 7
    assert false <= driven / 10.0


def test_corridor_hypothesis_from_two_parallel_walls() -> None:
    robot, sim = start("corridor", (2600.0, 6300.0, 0.0))
    per = perception_for(robot.reflector, robot.scheduler)
    per.start_interpretation()
    robot.motion.set_velocity(250)
    corridor = None
    for _ in range(60):
        robot.step()
        if per.corridor is not None:
            corridor = corridor or per.corridor
            assert per.corridor is corridor  # one object while in the same corridor
    assert corridor is not None and corridor.viewable and corridor.type == ArtifactType.CORRIDOR
    assert abs(corridor.width - 2000.0) <= 150.0
    true = sim.true_pose
    centre = to_global(true, corridor.x, corridor.y, corridor.th)
    assert abs(centre.y - 6000.0) <= 100.0
    assert abs(norm2_angle(centre.th)) <= 3.0 or abs(norm2_angle(centre.th + 180.0)) <= 3.0


def test_find_and_follow_of_demo_act_follows_the_corridor() -> None:
    robot, sim = start("corridor")  # the world's start: the corridor's centre line, facing east
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.load("colbert/demo.act"), lines
    assert {"side segment", "test wall", "test wall break", "test matching", "test where"} <= {
        t.name for t in robot.scheduler.tasks
    }
    robot.run(cycles=30)
    assert robot.scheduler.find("follow") is None  # FindAndFollow is started suspended
    assert ev.eval_text("resume FindAndFollow;"), lines
    followed, xs, worst = 0, [], 0.0
    for _ in range(500):
        robot.step()
        follow = robot.scheduler.find("follow")
        if follow is not None and follow.state == TaskState.RESUME:
            followed += 1
            xs.append(sim.true_pose.x)
            worst = max(worst, abs(sim.true_pose.y - 6000.0))
    env = ev.value("sfCurrentEnvironment")
    assert env is not None and env.type == ArtifactType.CORRIDOR
    print(f"FindAndFollow: followed {followed} cycles over {max(xs) - min(xs):.0f} mm, worst {worst:.0f} mm off")
    assert max(xs) - min(xs) >= 5000.0
    assert worst <= 300.0
    assert sim.wall_contacts == 0


def test_find_and_follow_from_off_the_centre_line_and_askew() -> None:
    robot, sim = start("corridor", (3000.0, 5500.0, 20.0))
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.load("colbert/demo.act") and ev.eval_text("resume FindAndFollow;"), lines
    x0, worst = None, 0.0
    while sim.true_pose.x < 19000.0 and robot.clock.cycle < 800:
        robot.step()
        follow = robot.scheduler.find("follow")
        if follow is None or follow.state != TaskState.RESUME:
            continue
        x0 = sim.true_pose.x if x0 is None else x0
        if sim.true_pose.x - x0 >= 2000.0:  # converged after 2 m
            worst = max(worst, abs(sim.true_pose.y - 6000.0))
    assert x0 is not None and sim.true_pose.x - x0 >= 12000.0
    assert worst <= 300.0 and sim.wall_contacts == 0


def test_task_sets_start_once_under_the_manuals_names_and_suspend() -> None:
    robot, _ = start("corridor", (2600.0, 6000.0, 0.0))
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text("sfInitAwareProcs(); sfInitInterpretationProcs(); sfInitInterpretationProcs();"), lines
    names = [t.name for t in robot.scheduler.tasks]
    assert [n for n in names if n in ("side segment", "test wall", "test wall break", "test where")] == [
        "side segment",
        "test wall",
        "test wall break",
        "test where",
    ]
    assert "test matching" not in names
    assert ev.value("sfCurrentEnvironment") is None and ev.value("sfLeftWallHyp").viewable is False
    assert ev.eval_text('sfSuspendTask("test wall", 0);'), lines
    robot.motion.set_velocity(250)
    robot.run(cycles=40)
    per = perception_for(robot.reflector, robot.scheduler)
    assert not per.left_wall.viewable and per.corridor is None and ev.value("sfCurrentEnvironment") is None
    assert ev.eval_text('sfResumeTask("test wall");'), lines
    robot.run(cycles=3)
    assert per.left_wall.viewable and per.right_wall.viewable
    assert ev.value("sfCurrentEnvironment") is per.corridor is not None
    assert ev.eval_text("int t; t = sfCurrentEnvironment->type;"), lines
    assert ev.value("t") == ArtifactType.CORRIDOR
