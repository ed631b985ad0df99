"""Registration and map building in office worlds (maps/simple.smap, AMROffice), lock-step with the
embedded simulator, odometry error on: walls' directions keep the heading, rooms are not corridors."""

from __future__ import annotations

import math

import numpy as np

from saphira.behavior.library import start_wander_stack
from saphira.client.artifacts import Corridor
from saphira.core.geometry import Pose, norm2_angle
from saphira.perception import Perception, perception_for
from saphira.perception.ekf import PoseFilter
from saphira.perception.mapfile import load_map_file, read_map_file
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator


def wander(
    world: str, seed: int, map_name: str | None, minutes: float = 3.0, speed: float = 300.0
) -> tuple[Robot, EmbeddedSim, Perception, list[float]]:
    """The demo stack's wander with registration running; the registered position error each cycle."""
    robot = Robot()
    sim = attach_simulator(robot, world, "p3dx", seed=seed)
    if map_name:
        load_map_file(robot.reflector.pointlist, map_name)
    per = perception_for(robot.reflector, robot.scheduler)
    per.start_registration()
    start_wander_stack(robot, speed)
    errors = []
    for _ in range(robot.clock.cycles_for(minutes * 60.0)):
        true = sim.true_pose
        robot.step()
        errors.append(math.hypot(true.x - robot.state.ax, true.y - robot.state.ay))
    return robot, sim, per, errors


def test_a_wander_in_the_office_loop_stays_registered() -> None:
    """simple.wld with its map: walls that match no map line still give the heading (issue 11 gap:
    500-800 mm of along-track error after 3 minutes; measured p95 148 mm, max 192 mm now)."""
    _, _, per, errors = wander("simple", 0, "simple")
    p95 = float(np.percentile(errors, 95))
    matches = per.registration.matches
    print(f"simple.wld 3 min: p95 {p95:.0f} mm, max {max(errors):.0f} mm, matches {matches}")
    assert matches["direction"] >= 1 and matches["side"] >= 1
    assert p95 <= 250.0 and max(errors) <= 350.0


def test_map_building_in_offices_adds_corridors_only_where_there_are_corridors() -> None:
    """From an empty map: in AMROffice (offices, no corridor on its map) nothing is taken for a
    corridor; in simple.wld every corridor built lies on one of the loop's four corridors."""
    _, _, per, _ = wander("AMROffice", 0, None)
    office = [a for a in per.registration.builder.built if isinstance(a, Corridor)]
    _, _, per, _ = wander("simple", 0, None)
    built = [a for a in per.registration.builder.built if isinstance(a, Corridor)]
    truth = [e for e in read_map_file("simple") if e.kind == "CORRIDOR"]
    print(f"corridors built: AMROffice {len(office)}; simple {[(round(c.ax), round(c.ay), c.ath) for c in built]}")
    assert office == []
    assert built
    for c in built:
        on = [
            t for t in truth
            if abs(norm2_angle(2.0 * (t.th - c.ath))) <= 10.0
            and abs(-math.sin(math.radians(t.th)) * (c.ax - t.x) + math.cos(math.radians(t.th)) * (c.ay - t.y)) <= 300.0
        ]  # fmt: skip
        assert on, c
    assert len(built) == len({id(c) for c in built})


def test_map_building_in_offices_at_200_mm_s_adds_no_corridor() -> None:
    """Issue 34 §3: at 200 mm/s one reading of a corridor is shorter than BUILD_LENGTH, so map building
    takes the extent seen along the travel; in AMROffice's rooms that must still not make a corridor.
    Two things keep it so: the extent restarts at every turn (MAX_BEND), and the travel with both walls
    parallel counts only from the hypothesis's start (it used to count from the last reading of the
    previous one: 4323 mm of 'paired' travel 455 mm into a new hypothesis, which built a corridor)."""
    _, _, per, _ = wander("AMROffice", 0, None, speed=200.0)
    built = [a for a in per.registration.builder.built if isinstance(a, Corridor)]
    print(f"AMROffice at 200 mm/s: corridors built {[(round(c.ax), round(c.ay), c.ath) for c in built]}")
    assert per.registration.builder.built  # map building ran: it added the doors it saw
    assert built == []


def test_pose_filter_heading_alone() -> None:
    f = PoseFilter(Pose(0.0, 0.0, 0.0), 100.0, 5.0)
    innovation = math.radians(3.0)
    assert f.heading_mahalanobis(innovation, math.radians(2.0)) < 6.63
    pose = f.update_heading(innovation, math.radians(2.0))
    assert 2.0 < pose.th < 3.0 and pose.x == 0.0 and pose.y == 0.0
    assert f.sigma[2] < 2.0 and abs(f.sigma[0] - 100.0) < 1e-6
