"""The embedded simulator: a simulated robot in the client's own process, stepped with its clock.

:func:`attach_simulator` builds a :class:`~saphira.sim.simulation.Simulation` with one robot and its
:class:`~saphira.sim.server.PioneerServer`, joins the server to the client's
:class:`~saphira.robot.Robot` with an in-process byte pipe (:func:`~saphira.client.transport.memory_pair`)
and connects the robot's link through it. The client cannot tell it from a real robot: every command
and SIP goes through the packet codec, the receiver and the link, exactly as over TCP.

Timing: with a :class:`~saphira.core.clock.LockStepClock` the server is a clock listener, so it runs once
at the end of every client cycle: it handles the commands the client sent in cycle *k*, the world
advances one ``clock.period``, a SIP goes out, and the client reads it in cycle *k + 1*. Any other
clock (real time) gets the same order from a scheduler task in the last phase (``OBSERVE``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from saphira.client.transport import memory_pair
from saphira.core.clock import LockStepClock
from saphira.core.geometry import Pose
from saphira.core.tasks import Phase, Task, TaskState
from saphira.params.robot_params import RobotParams, params_for_file
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.session import ServerOptions, ServerStats
from saphira.sim.simulation import SimRobot, Simulation
from saphira.sim.world_requests import WorldAccess
from saphira.world.world import World, load_world

if TYPE_CHECKING:
    from saphira.robot import Robot  # the simulator only drives the robot it is given: sim and robot are siblings

TASK_NAME = "simulator"
"""The scheduler task that steps the simulator when the clock is not lock-step."""


class EmbeddedSim:
    """A simulator attached to one client :class:`~saphira.robot.Robot`.

    ``simulation`` is the world and its robots; ``sim_robot`` the simulated robot (true pose
    ``.pose``, ``.stalled``, drive state); ``server`` its protocol server, whose ``stats`` count
    SIPs, sessions, watchdog stops and contacts (:attr:`wall_contacts`); ``host`` runs the cycles.
    """

    def __init__(self, robot: Robot, simulation: Simulation, sim_robot: SimRobot, server: PioneerServer) -> None:
        self.robot = robot
        self.simulation = simulation
        self.sim_robot = sim_robot
        self.server = server
        self.host = ServedSimulation(simulation, [server], robot.clock.period)
        self._task: Task | None = None
        self._attached = False
        self._goals_world: World | None = None
        robot.link.on_connect.connect(self._place_robot)

    def _place_robot(self) -> None:
        """The world frame is the global frame: on connection the client starts at the true pose."""
        pose = self.sim_robot.pose
        self.robot.reflector.set_global_pose(pose.x, pose.y, pose.th)

    @property
    def stats(self) -> ServerStats:
        return self.server.stats

    @property
    def wall_contacts(self) -> int:
        """How many times the robot's body has come up against a wall (or another robot)."""
        return self.server.stats.wall_contacts

    @property
    def true_pose(self) -> Pose:
        """Where the simulated robot really is (world frame: mm, mm, deg)."""
        return self.sim_robot.pose

    @property
    def attached(self) -> bool:
        return self._attached

    def step(self) -> None:
        """One simulator cycle at the client clock's current time (normally called by the clock)."""
        self.host.cycle(self.robot.clock.now())
        if self.simulation.world is not self._goals_world:
            self._place_goals()

    def _place_goals(self) -> None:
        """The world's goals become named goal points on the client's pointlist (docs/colbert.md, goals).

        The world frame is the global frame, so a goal's world pose is its global pose. Done when the
        simulator starts and again when it loads another world (``sfLoadWorldFile``), whose goals
        replace the old ones.
        """
        self._goals_world = self.simulation.world
        self.robot.reflector.pointlist.place_goals(self._goals_world.goals)

    def start(self) -> None:
        """Hook the simulator to the client's clock (or scheduler); idempotent."""
        if self._attached:
            return
        clock = self.robot.clock
        if isinstance(clock, LockStepClock):
            clock.add_listener(self.step)
        else:
            scheduler = self.robot.scheduler
            self._task = scheduler.add(self._run_task, scheduler.unique_name(TASK_NAME), phase=Phase.OBSERVE)
        self._attached = True

    def connect(self, *, wait: bool = True, timeout: float = 30.0) -> None:
        """Give the server a fresh in-process line and connect the robot's link through it.

        Also used to reconnect after the robot disconnected (a disconnect closes the line).
        """
        self.start()
        client_end, server_end = memory_pair("sim")
        self.server.attach(server_end, self.robot.clock.now())
        self.robot.connect(client_end, wait=wait, timeout=timeout)

    def detach(self) -> None:
        """Unhook the simulator: the session ends, the line closes and the client sees the robot go."""
        if not self._attached:
            return
        clock = self.robot.clock
        if isinstance(clock, LockStepClock):
            clock.remove_listener(self.step)
        elif self._task is not None and self._task.scheduler is not None:
            self.robot.scheduler.remove(self._task)
        self._task = None
        self._attached = False
        self.server.hang_up("simulator detached")

    def _run_task(self, state: int) -> int:
        self.step()
        return TaskState.RESUME if state == TaskState.INIT else state


def attach_simulator(
    robot: Robot,
    world: str | Path | World = "simple",
    params: str | Path | RobotParams | None = "p3dx",
    *,
    seed: int = 0,
    pose: Pose | None = None,
    odometry_error: bool = True,
    wait: bool = True,
    options: ServerOptions | None = None,
) -> EmbeddedSim:
    """Simulate a robot for ``robot`` in ``world`` and connect ``robot`` to it.

    ``world`` is a :class:`World`, a path, or a bundled name; ``params`` a :class:`RobotParams`, a
    ``.p`` path or a bundled name (resolved as ARIA would: its model's built-in parameters, the
    model's own file, then this file; None means ``p3dx``). ``pose`` (x, y, th in the world frame)
    defaults to the world's start pose. ``seed`` seeds every random draw of the simulation: the same seed and the same
    client give the same run. With ``wait`` the robot runs cycles until connected (raising
    :class:`~saphira.client.link.base.ConnectError` if it cannot). ``options`` tune the server (watchdog, …).

    The client chooses its parameters from the SYNC2 subclass, as with a real robot; give it the
    same file with ``robot.link.user_params`` when the file departs from its model's values.
    """
    robot_params = params if isinstance(params, RobotParams) else params_for_file(params or "p3dx")
    the_world = world if isinstance(world, World) else load_world(world)
    simulation = Simulation(the_world, seed, odometry_error=odometry_error)
    sim_robot = simulation.add_robot(robot_params, pose)
    # In-process, the client is the simulator's own user: LOADWORLD may read any of their files.
    options = options or ServerOptions(worlds=WorldAccess(any_file=True))
    server = PioneerServer(simulation, sim_robot, options=options, period=robot.clock.period)
    embedded = EmbeddedSim(robot, simulation, sim_robot, server)
    try:
        embedded.connect(wait=wait)
    except BaseException:
        embedded.detach()  # leave no orphaned simulator on the robot's clock
        raise
    return embedded
