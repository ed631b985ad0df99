"""``--ros2`` on ``saphira run`` and ``saphira shell``: the run joins the ROS 2 graph (:mod:`saphira.ros2`).

Here the bridge is given what only the app knows: whether the global pose stands on a map (a simulated
run's world, a map file loaded, registration or localization running), the walls ``/map`` draws (the
map's, else the simulated world's), how ``/initialpose`` sets the pose (the localizer when it runs, else
the global pose), and the activities ``/behaviors`` lists.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.core.geometry import Pose

if TYPE_CHECKING:
    from saphira.core.arrays import FloatArray
    from saphira.record.snapshot import FrameSource
    from saphira.robot import Robot
    from saphira.ros2.bag import BagRecorder
    from saphira.ros2.bridge import Ros2Bridge
    from saphira.sim.embedded import EmbeddedSim

__all__ = ["add_ros2_options", "drive_task", "frame_source", "open_bag_recorder", "ros2_misuse", "start_ros2"]

INSTALL = "--ros2 needs Eclipse Cyclone DDS's Python binding and mcap: pip install 'saphira[ros2]'"


def add_ros2_options(parser: argparse.ArgumentParser) -> None:
    """``--ros2`` and ``--ros2-domain N``."""
    parser.add_argument(
        "--ros2", action="store_true",
        help="join the ROS 2 graph as a node (Cyclone DDS, no ROS installation): /odom, /tf, /scan, /sonar, /map "
        "... published, /cmd_vel and /initialpose obeyed (docs/ros2.md); the domain is ROS_DOMAIN_ID's and "
        "discovery reaches what ROS_AUTOMATIC_DISCOVERY_RANGE (or ROS_LOCALHOST_ONLY) says; the embedded "
        "simulator then runs in real time. With --record X.mcap the file is a ROS 2 bag (ros2msg, CDR). "
        "Needs: pip install 'saphira[ros2]'",
    )  # fmt: skip
    parser.add_argument("--ros2-domain", type=int, metavar="N", help="the ROS 2 domain (default: ROS_DOMAIN_ID, or 0)")


def installed() -> bool:
    """Whether the ros2 extra is there (Cyclone DDS's binding, and mcap for bags)."""
    try:
        import cyclonedds  # noqa: F401
        import mcap  # noqa: F401
    except ImportError:
        return False
    return True


def ros2_misuse(args: argparse.Namespace) -> str | None:
    """Why ``--ros2`` on ``run`` or ``shell`` cannot be used (not installed, a bad domain), or None."""
    if not hasattr(args, "ros2_domain"):  # another command ('export --ros2' says it itself)
        return None
    if getattr(args, "ros2_domain", None) is not None and not getattr(args, "ros2", False):
        return "--ros2-domain needs --ros2"
    if not getattr(args, "ros2", False):
        return None
    if not installed():
        return INSTALL
    from saphira.core.errors import SaphiraError
    from saphira.ros2.discovery import discovery_from

    try:
        discovery_from(domain=args.ros2_domain)
    except SaphiraError as exc:
        return str(exc)
    return None


def _map_walls(robot: Robot) -> FloatArray:
    from saphira.client.artifacts import Category
    from saphira.perception.mcl import map_walls

    return map_walls([a for a in robot.reflector.pointlist if a.cat == Category.ARTIFACT])


def frame_source(robot: Robot, sim: Callable[[], EmbeddedSim | None]) -> FrameSource:
    """What a run's ROS 2 messages are made from (see the module docstring); ``sim`` gives the embedded
    simulator (None until it is attached, and with a robot)."""
    from saphira.perception import LOCALIZE, TEST_MATCHING
    from saphira.record.extras import behavior_state
    from saphira.record.snapshot import FrameSource

    has_map = [False]  # whether the pointlist held a map the last time walls() looked (every few seconds)

    def walls() -> FloatArray | None:
        found = _map_walls(robot)
        has_map[0] = len(found) > 0
        simulator = sim()
        return found if len(found) or simulator is None else simulator.simulation.world.segments

    def anchored() -> bool:
        tasks = robot.scheduler
        return has_map[0] or sim() is not None or LOCALIZE in tasks or TEST_MATCHING in tasks

    from saphira.colbert.runtime import Activity
    from saphira.perception.occupancy import TASK_NAME as OCC_GRID
    from saphira.perception.occupancy import occupancy_grid_for
    from saphira.record.snapshot import Grid

    def grid() -> Grid | None:
        if OCC_GRID not in robot.scheduler:  # the evidence grid is kept only while its task runs
            return None
        kept = occupancy_grid_for(robot.reflector)
        if not kept.seen.size:
            return None
        return Grid(kept.probabilities(), kept.seen_cells(), kept.origin, kept.resolution)

    def behaviors() -> dict[str, Any]:
        names = [t.name for t in robot.scheduler.tasks if isinstance(t, Activity) and t.parent is None and t.active]
        return {"activities": names, **behavior_state(robot)}

    return FrameSource(robot, anchored=anchored, walls=walls, grid=grid, behaviors=behaviors,
                       clock=robot.clock.is_lockstep)  # fmt: skip


def start_ros2(
    robot: Robot, args: argparse.Namespace, sim: Callable[[], EmbeddedSim | None], say: Callable[[str], None]
) -> Ros2Bridge:
    """The bridge for this run, added to its scheduler (before the robot is reached: a graph it cannot join
    stops the run before anything moves); ``sim`` gives the embedded simulator once attached."""
    from saphira.perception import LOCALIZE, perception_for
    from saphira.ros2.bridge import Ros2Bridge
    from saphira.ros2.discovery import discovery_from

    def set_pose(x: float, y: float, th: float) -> None:
        if LOCALIZE in robot.scheduler:
            perception_for(robot.reflector, robot.scheduler).localizer.reset(Pose(x, y, th))
        robot.reflector.set_global_pose(x, y, th)

    source = frame_source(robot, sim)
    discovery = discovery_from(domain=getattr(args, "ros2_domain", None))
    bridge = Ros2Bridge(robot, discovery, source, set_pose=set_pose)
    robot.scheduler.add(bridge, robot.scheduler.unique_name("ros2"))
    say(f"ros2: on the ROS 2 graph ({discovery.describe()}): /odom /tf /scan /sonar /map ...; /cmd_vel drives")
    warning = discovery.warning()
    if warning is not None:
        say(warning)
    return bridge


def open_bag_recorder(robot: Robot, path: str, sim: Callable[[], EmbeddedSim | None]) -> BagRecorder:
    """``run --record RUN.mcap --ros2``: a ROS 2 bag of the run (``sim`` gives the simulator once connected)."""
    from saphira.ros2.bag import BagRecorder

    return BagRecorder(robot, path, lambda: frame_source(robot, sim))


def drive_task(robot: Robot) -> Callable[[float, float], None]:
    """``--foxglove-control``: ``/cmd_vel`` commands from any thread (linear x m/s, angular z rad/s) driving the
    robot as ``--ros2``'s do (:mod:`saphira.ros2.drive`: limits, watchdog), applied each cycle by a task."""
    from saphira.core.tasks import Phase, TaskState
    from saphira.ros2.drive import Drive

    drive = Drive(robot)

    def step(state: int) -> int:
        drive.step()
        return TaskState.RESUME if state == TaskState.INIT else state

    robot.scheduler.add(step, robot.scheduler.unique_name("teleop"), phase=Phase.ACTIVITIES)
    return lambda linear, angular: drive.offer(linear, angular)
