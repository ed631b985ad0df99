"""``saphira run``: load activity files into one Colbert environment and run them on a robot.

With ``--robot URL`` the robot is real (or any Pioneer server) and the cycle runs in real time. Without
it, the embedded simulator is attached and the run is lock-step: as fast as the CPU allows, and the
same every time for a given seed. Messages from activities print as plain lines on stdout; on a
terminal a status line is redrawn below them. The run ends when no top-level activity or behavior is
left running (or suspended, waiting), when ``--duration`` runs out, on Ctrl-C or SIGTERM (at the end
of the cycle: :mod:`saphira.core.interrupts`), when the reader of stdout goes away, or when the robot link is
lost (exit status 2; ``--reconnect`` waits for the robot instead: :mod:`saphira.client.link.watch`); the robot is then
stopped and disconnected, the recording closed, a summary printed and, with ``--plot``, the path drawn.
The summary's part lines (each top-level activity, each Python part that failed: :mod:`saphira.core.parts`)
decide the exit status: 1 when one of them failed, 130 / 143 when a signal ended the run, 141 (128 +
SIGPIPE, as a shell reports a program a closed pipe ended) when the reader of stdout went away.
With ``--ui`` the run serves the live view (:mod:`saphira.ui`), runs in real time (times ``--speed``
with the embedded simulator) and, without ``--duration``, goes on until stopped: a person is watching.
With ``--foxglove`` the embedded simulator runs in real time (times ``--speed``) too. With ``--ros2``
(:mod:`saphira.app.ros2`) it joins the ROS 2 graph, in real time too, and also goes on until stopped: a peer
drives.
"""

from __future__ import annotations

import argparse
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from saphira.app.commands import Command, add_verbosity
from saphira.app.console import Console
from saphira.app.exposure import exit_allowed
from saphira.app.progress import RunProgress
from saphira.app.replay import add_foxglove_option
from saphira.app.robot_options import add_robot_options
from saphira.app.ros2 import add_ros2_options
from saphira.app.session import (
    ColbertConnection,
    connect_robot,
    lay_params_file,
    serve_live_view,
    session_clock,
    session_robot,
)
from saphira.app.trace import PLOT_SCANS, RunTrace, status_line
from saphira.brain import BrainError, BrainTask, is_brain_file, load_brain
from saphira.client.link.watch import LinkWatch
from saphira.colbert.evaluator import Evaluator
from saphira.colbert.runtime import Activity
from saphira.core.argtypes import plot_file, positive_seconds
from saphira.core.clock import RealTimeClock
from saphira.core.errors import SaphiraError
from saphira.core.interrupts import StopSignals
from saphira.core.jit import warm_up
from saphira.core.outfile import EXISTING_OUTPUT
from saphira.core.parts import PartFailures
from saphira.core.tasks import Task, TaskKind, TaskState, state_name
from saphira.record.mcap_export import FoxgloveServer, McapRecorder, open_recorder
from saphira.record.recording import Recorder
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.ui.options import add_ui_options, ui_port_problem
from saphira.ui.requests import PageExit

if TYPE_CHECKING:
    from saphira.ros2.bag import BagRecorder
    from saphira.ros2.bridge import Ros2Bridge
    from saphira.ui.liveview import LiveView

EXIT_OK = 0
EXIT_ACTIVITY_FAILED = 1
EXIT_LOAD_ERROR = 2
EXIT_LINK_LOST = 2
"""The robot link was lost (a connection error, as README says of status 2)."""
EXIT_SIGNALLED = 128
"""Plus the signal's number: 130 for Ctrl-C (SIGINT), 143 for SIGTERM, as a shell reports a killed program."""

HALT_CYCLES = 2
"""Cycles given to the stop command before disconnecting (the robot hears it, and reports standing)."""
STOP_CYCLES = HALT_CYCLES + 1
"""Cycles the end of a connected run takes: halt, then disconnect and let the close go out."""


@dataclass
class Outcome:
    """Final states of the top-level activities seen during a run."""

    states: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Activities left suspended by a runtime error, and where it happened (``file:line:col``)."""

    @property
    def failed(self) -> list[str]:
        return [n for n, s in self.states.items() if s in (TaskState.FAILURE, TaskState.TIMEOUT) or n in self.errors]


class Session:
    """One ``saphira run``: robot, optional embedded simulator, evaluator, trace and recorder."""

    def __init__(self, args: argparse.Namespace, console: Console | None = None) -> None:
        self.args = args
        self.console = console or Console(quiet=bool(getattr(args, "quiet", False)))
        self.signals = StopSignals()
        self.wall_start = time.monotonic()
        speed: float | None = getattr(args, "speed", None)  # only ever given with the embedded simulator
        if getattr(args, "realtime", False) or (getattr(args, "ros2", False) and speed is None):
            speed = 1.0  # a ROS 2 graph lives in wall-clock time (a peer drives, RosAria's watchdog counts)
        self.ui_address: tuple[str, int] | None = getattr(args, "ui", None)
        self.live: LiveView | None = None
        self.foxglove: FoxgloveServer | None = None
        # Foxglove, like the live view, is watched by a person: the embedded simulator then runs in real
        # time (x --speed), not lock-step (a 30 s run would be over before Foxglove connects).
        self.watched = self.ui_address is not None or getattr(args, "foxglove", None) is not None
        self.ros2: Ros2Bridge | None = None
        clock = session_clock(args.robot, speed, self.ui_address, real_time=self.watched and not args.robot)
        self.robot = session_robot(clock, getattr(args, "link_timeout", None))
        self.watch: LinkWatch | None = None
        self.sim: EmbeddedSim | None = None
        plot = bool(getattr(args, "plot", None))  # hits and scans are kept only for a plot
        self.trace = RunTrace(self.robot, hits=plot, scans=PLOT_SCANS if plot else 0)
        self.robot.scheduler.add(self.trace)
        # opened by connect(): a run that never starts writes nothing
        self.recorder: Recorder | McapRecorder | BagRecorder | None = None
        connection = ColbertConnection(self.robot, self._connect_url)  # a file's connect keeps the run's robot
        self.evaluator = Evaluator(self.robot, output=self.console.message, read_init=False, connection=connection)
        self.outcome = Outcome()
        self.parts = PartFailures()
        self.robot.scheduler.on_task_failed.connect(self.parts.task_failed)
        self.evaluator.on_plugin_failed.connect(self.parts.plugin_failed)
        self._top_level: dict[str, Activity] = {}
        self._top_parts: dict[tuple[str, str], Task] = {}
        """The top-level brains and behaviors seen, by (kind, name): each gets a summary line."""
        self.brains: list[BrainTask] = []

    def _recorder(self, path: str) -> Recorder | McapRecorder | BagRecorder:
        """``--record``: a saphira recording, MCAP for Foxglove, or with ``--ros2`` a ROS 2 bag (``.mcap``)."""
        if getattr(self.args, "ros2", False) and path.lower().endswith(".mcap"):
            from saphira.app.ros2 import open_bag_recorder

            return open_bag_recorder(self.robot, path, lambda: self.sim)
        return open_recorder(self.robot, path)

    # ------------------------------------------------------------------ connection
    def _files_exist(self) -> None:
        for path in self.args.files:  # a mistyped name fails before a robot is reached, as a bad option does
            resolved = self.evaluator.resolve(path)
            if not resolved.is_file():
                raise SaphiraError(f"{resolved}: {'a folder, not a file' if resolved.is_dir() else 'no such file'}")

    def compile(self) -> bool:
        """Compile every file together before any robot is reached: print every error; False if any.

        The check ``saphira check`` makes (:mod:`saphira.app.check`): syntax, names and types, and
        the acts and behaviors ``start`` names, against what all the files (and plugins) define. The
        plugins are loaded here, once, for the run (the robot not yet connected), and the brains
        imported (their ``INIT`` is called once connected): a plugin's ``load_init`` or a brain's import
        that raises is an error too, so no robot is reached.
        """
        from saphira.app.check import compile_for_run, error_count

        self._files_exist()
        errors = compile_for_run(self.args.files, self.evaluator)
        for error in errors:
            self.console.message(error.pretty())
        if errors:
            done = [what for what, any_ran in (("the plugins' load_init and load_exit", self.evaluator.preloaded),
                                               ("the brains' imports", self.evaluator.brains)) if any_ran]  # fmt: skip
            ran = f"only {' and '.join(done)} ran" if done else "nothing was run"
            self.console.message(f"{error_count(errors, self.args.files)}: {ran}")
        return not errors

    def connect(self) -> None:
        self._files_exist()
        if getattr(self.args, "ros2", False):  # a graph it cannot join ends the run before the robot is reached
            from saphira.app.ros2 import start_ros2

            self.ros2 = start_ros2(self.robot, self.args, lambda: self.sim, self.console.message)
        if getattr(self.args, "record", None):  # a temporary beside the file, in place when the run ends
            self.recorder = self._recorder(self.args.record)
            self.evaluator.output = self.recorder.tap.tee(self.evaluator.output)  # the messages too
        params = getattr(self.args, "params", None)
        if lay_params_file(self.robot, params) and self.recorder is not None:  # a bad file fails before connecting
            self.recorder.note("params", str(params))
        if self.args.robot:
            self.console.note(f"connecting to {self.args.robot} ...")
            reconnect: float | None = getattr(self.args, "reconnect", None)
            self.watch = connect_robot(self.robot, self.args.robot, self.console.message, reconnect=reconnect)
        else:
            pose = getattr(self.args, "pose", None)  # saphira batch: a start pose other than the world's
            self.sim = attach_simulator(self.robot, self.args.world, params, seed=self.args.seed, pose=pose)
            sim = self.sim
            self.trace.truth = lambda: sim.true_pose
            if self.recorder is not None:  # a replay's plot and export draw the world's walls
                self.recorder.note("world", str(self.args.world))
        if getattr(self.args, "foxglove", None) is not None:
            control = None
            if getattr(self.args, "foxglove_control", False):
                from saphira.app.ros2 import drive_task

                control = drive_task(self.robot)
            self.foxglove = FoxgloveServer(self.robot, self.args.foxglove, say=self.console.message,
                                           log=getattr(self.args, "foxglove_log", False), control=control)  # fmt: skip
            self.foxglove.channels.world = self.sim.simulation.world if self.sim is not None else None
            self.evaluator.output = self.foxglove.tap.tee(self.evaluator.output)
            if self.sim is not None and self.ui_address is None:
                pace = self.robot.clock.speed if isinstance(self.robot.clock, RealTimeClock) else 1.0
                self.console.note(
                    f"the simulator runs at {pace:g}x real time while Foxglove watches (--speed F to change)"
                )
        self.live = serve_live_view(self.robot, self.evaluator, self.ui_address, self.sim, self.console.message)
        if self.live is not None and self.ui_address is not None:  # Connect→Exit: a Ctrl-C from the page
            self.live.exit = PageExit(self.signals.request, exit_allowed(self.args, self.ui_address[0]))
        # From here a stop signal waits for the end of the cycle, so the robot is stopped cleanly.
        self.signals.deferring = True
        identity = self.robot.link.identity
        who = f"{identity.name} ({identity.robot_class} {identity.subclass})" if identity else self.robot.link.url
        self.console.note(f"connected to {who}; parameters from {self.robot.params.source}")

    def _connect_url(self, url: str) -> str:
        """A file's ``connect`` keeps the run's robot; returns what it really is connected to."""
        if self.sim is not None:
            if not self.robot.connected:
                self.sim.connect()
            return "sim://embedded"
        if not self.robot.connected:
            self.robot.connect(url)
        return self.robot.link.url

    # ------------------------------------------------------------------ running
    def load(self) -> bool:
        for path in self.args.files:
            if not is_brain_file(path):
                # a plugin compile() loaded stays (one that failed to load stopped the run in compile())
                if not self.evaluator.load(path) and not str(path).endswith(".py"):
                    return False
                continue
            module = self.evaluator.brains.get(self.evaluator.resolve(path).resolve())  # imported by compile()
            try:  # a .py with INIT(engine): a Pyro-style brain (saphira/brain.py)
                self.brains.append(load_brain(path, self.robot, self.evaluator, module))
            except BrainError as exc:
                self.console.message(str(exc))
                return False
        return True

    def _watch_activities(self) -> None:
        for task in self.robot.scheduler.tasks:
            if isinstance(task, Activity) and task.parent is None:
                self._top_level[task.name] = task
            elif task.parent is None and task.kind in (TaskKind.BRAIN, TaskKind.BEHAVIOR):
                self._top_parts[(task.kind.value, task.part_name)] = task
        for name, task in self._top_level.items():
            if task.scheduler is not None:
                self.outcome.states[name] = task.state
                if task.trapped and task.suspended and task.error_position is not None:
                    self.outcome.errors[name] = str(task.error_position)
                else:  # resumed after the error (or never had one)
                    self.outcome.errors.pop(name, None)
            elif name in self.robot.scheduler.outcomes:
                self.outcome.states[name] = self.robot.scheduler.outcomes[name]

    def _anything_running(self) -> bool:
        from saphira.behavior.executive import BehaviorTask

        return any(
            t.parent is None
            and not t.finished
            and t.state != TaskState.REMOVE
            and not (isinstance(t, Activity) and t.trapped and t.suspended)  # disabled by a runtime error
            for t in self.robot.scheduler.tasks
            if isinstance(t, Activity | BehaviorTask | BrainTask)
        )

    def _cycles_left(self, end: int | None) -> bool:
        """Whether another cycle fits before ``end``, keeping back the cycles stopping the robot takes.

        ``--duration`` is robot time from the session's first cycle: connecting, running the activities
        and stopping the robot all count, so a run of D seconds ends after D / period cycles (unless the
        handshake alone took longer: it is never cut short).
        """
        if end is None:
            return True
        return self.robot.scheduler.cycle + (STOP_CYCLES if self.robot.connected else 0) < end

    def run(self) -> int:
        warm_up()  # the kernels of what the files loaded (behaviors, perception), before the first cycle
        duration = getattr(self.args, "duration", None)
        end = self.robot.clock.cycles_for(duration) if duration else None
        watched = self.live is not None or self.ros2 is not None  # a person, or a ROS 2 graph, drives: run on
        progress = RunProgress(self.console, self.robot, open_ended=end is None and not watched)
        progress.start()
        interrupted = ""
        signum: int | None = None  # the signal that stopped the run early, if one did
        try:
            while self._cycles_left(end):
                if self.signals.received is not None:
                    interrupted, signum = self.signals.name, self.signals.received
                    break
                if self.console.reader_gone():  # `| head` has its lines: end as a closed pipe ends a program
                    interrupted, signum = "output closed", signal.SIGPIPE
                    break
                if self.watch is not None and self.watch.lost:  # the activities have had a cycle to see it
                    break
                self.robot.step()
                self._watch_activities()
                if self.robot.scheduler.cycle % 5 == 0:
                    self.console.status(status_line(self.robot, self._running_names()))
                progress.cycle(self._running_names)
                if end is None and not watched and not self._anything_running():
                    break
                if self.evaluator.exit_requested:
                    break
        except KeyboardInterrupt as exc:  # a second signal, or Ctrl-C outside the main thread
            interrupted, signum = str(exc) or "SIGINT", getattr(exc, "signum", signal.SIGINT)
        if self.watch is not None:
            self.watch.ending()
        self._finish(interrupted)
        if signum is not None:  # a script tells an interrupted run from a finished one
            return EXIT_SIGNALLED + signum
        if self.watch is not None and self.watch.lost:
            return EXIT_LINK_LOST
        return EXIT_ACTIVITY_FAILED if self.failure_lines() else EXIT_OK

    def _running_names(self) -> str:
        names = [
            t.name
            for t in self.robot.scheduler.tasks
            if t.parent is None
            and t.active
            and t.calls
            and t.name not in ("packets", "motor", "trace", "simulator")
            and not t.name.startswith("recorder")
        ]
        return " ".join(names[:6])

    def _finish(self, interrupted: str) -> None:
        robot = self.robot
        for brain in self.brains:  # Pyro's destructor, on every ending (signals included)
            brain.destroy()
        self.evaluator.runtime.suspend_all()
        if robot.connected:
            robot.motion.halt()
            robot.run(cycles=HALT_CYCLES)
            robot.disconnect()
            robot.run(cycles=STOP_CYCLES - HALT_CYCLES)
        if self.recorder is not None:
            self.recorder.close()
        if self.console.quiet:  # only errors: the parts that failed
            for line in self.failure_lines():
                self.console.message(line)
        else:
            self.console.message(self.summary(time.monotonic() - self.wall_start, interrupted))
        if getattr(self.args, "plot", None):
            from saphira.app.plot import plot_run

            simulation = self.sim.simulation if self.sim is not None else None
            trace = self.trace
            path, estimate = (trace.true_path, trace.path) if trace.true_path else (trace.path, [])
            out = plot_run(self.args.plot, path, trace.hits, simulation.world if simulation else None,
                           title=" ".join(self.args.files), radius=robot.params.robot_radius, estimate=estimate,
                           scans=trace.scans, objects=simulation.objects if simulation else None)  # fmt: skip
            self.console.note(f"plot written to {out}")

    def _activity_line(self, name: str) -> str:
        where = self.outcome.errors.get(name)
        if where is not None:
            return f"    activity {name}: error (suspended) at {where}"
        state = self.outcome.states[name]
        return f"    activity {name}: {state_name(state) if state <= 10 else 'still running'}"

    def part_lines(self) -> list[tuple[str, bool]]:
        """The summary's lines for what ran, each with whether it is a failure: every top-level activity,
        every top-level brain and behavior that did not fail, each Python part that failed, and runtime
        errors no activity line shows."""
        failed = self.outcome.failed
        lines = [(self._activity_line(name), name in failed) for name in sorted(self.outcome.states)]
        for (kind, name), task in self._top_parts.items():
            if (kind, name) not in self.parts.failures:  # a failed one has its failure line below
                ended = state_name(task.state) if task.finished else "still running"
                lines.append((f"    {kind} {name}: {ended}", False))
        lines += [(f"    {line}", True) for line in self.parts.lines()]
        if self.ros2 is not None and self.ros2.failure is not None:
            lines.append((f"    {self.ros2.failure}", True))
        errors = self.evaluator.runtime.error_count
        if errors and not self.outcome.errors:  # trapped and since resumed, or in a child activity
            lines.append((f"    activities: {errors} runtime error(s), reported above", True))
        return lines

    def failure_lines(self) -> list[str]:
        """The part lines that are failures: the run's exit status is 1 when there is one."""
        return [line for line, failed in self.part_lines() if failed]

    def summary(self, wall_seconds: float, interrupted: str = "") -> str:
        """What the run did. ``interrupted`` names what stopped it early ("SIGTERM"), if anything did."""
        robot, link = self.robot, self.robot.link
        cycles = robot.scheduler.cycle
        sim_seconds = cycles * robot.clock.period
        ended = f"interrupted ({interrupted})" if interrupted else "done"
        watch = self.watch
        if watch is not None and watch.lost:
            ended = watch.lost
        lines = [
            f"--- {ended}: {cycles} cycles, {sim_seconds:.1f} s robot time "
            f"in {wall_seconds:.1f} s ({sim_seconds / max(wall_seconds, 1e-9):.0f}x real time)",
            f"    travelled {self.trace.distance / 1000:.2f} m; final pose ({robot.state.ax:.0f}, "
            f"{robot.state.ay:.0f}, {robot.state.ath:.1f}) by odometry",
            f"    cycle time {robot.scheduler.stats.summary(robot.clock.overruns)}",
            f"    link: {link.counters.sips} {link.STATE_REPORTS}, {link.counters.packets_sent} packets sent, "
            f"{link.dropped} dropped",
        ]
        if watch is not None and watch.losses:
            lines[-1] += f"; lost {watch.losses}x, reconnected {watch.reconnects}x"
        if self.sim is not None:  # truth beside belief
            from saphira.perception.truth import pose_error_line

            true = self.sim.true_pose
            lines[2:2] = [
                f"    true pose (simulator): ({true.x:.0f}, {true.y:.0f}, {true.th:.1f})",
                pose_error_line(robot.state.global_pose, true),
            ]
            lines.append(f"    simulator: {self.sim.wall_contacts} wall contacts")
        if self.ros2 is not None:
            lines.append(self.ros2.summary())
        lines += [line for line, _ in self.part_lines()]
        return "\n".join(lines)


def run_files(args: argparse.Namespace) -> int:
    """The ``saphira run`` command."""
    session = Session(args)
    with session.signals:
        try:
            if not session.compile():
                return EXIT_LOAD_ERROR
            session.connect()
            if not session.load():
                session.robot.disconnect()
                return EXIT_LOAD_ERROR
            return session.run()
        finally:
            if session.recorder is not None:
                session.recorder.close()
            if session.live is not None:
                session.live.stop()
            if session.foxglove is not None:
                session.foxglove.stop()
            if session.ros2 is not None:
                session.ros2.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``run`` options."""
    parser.add_argument("files", nargs="+", metavar="FILE", help=".act, .beh or .py files, loaded in order")
    add_robot_options(parser)
    parser.add_argument(
        "--duration",
        type=positive_seconds,
        metavar="S",
        help="run for S seconds of robot time, connecting and stopping the robot included "
        "(default: until the activities end)",
    )
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="pace the embedded simulator in real time instead of as fast as possible",
    )
    parser.add_argument(
        "--plot",
        metavar="PNG",
        type=plot_file,
        help="write the trajectory over the world, with sonar hits, as PNG (or any format "
        "matplotlib writes, by extension: .pdf, .svg ...; needs matplotlib: pip install "
        f"'saphira[plot]') when the run ends; {EXISTING_OUTPUT}",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="record every packet, both ways, with cycle stamps, the "
        "behaviors and the messages; a .mcap FILE is written as MCAP instead (saphira export). It is written "
        "beside FILE and moved into place when the run ends (a killed run's too), and only if the robot was "
        "reached: a run that fails before it starts leaves an existing FILE as it was",
    )
    add_ui_options(parser, allow_exit=True)
    add_foxglove_option(parser)
    add_ros2_options(parser)
    add_verbosity(parser)


COMMAND = Command(
    "run",
    help="run activity files",
    arguments="FILE...",
    summary="run Colbert activities (.act), behaviors (.beh), Python plugins and Pyro-style brains\n"
    "(.py) against a robot (--robot URL) or, by default, the embedded simulator in lock-step",
    description="Load the files into one Colbert environment and run the scheduler. Top-level "
    "activities started by the files run until they finish, --duration runs out, or Ctrl-C or SIGTERM "
    "(either stops the robot at the end of the cycle, closes the recording and prints the summary); "
    "without --duration the run says so at the start and, off a terminal, prints a progress line every "
    "10 minutes of robot time. Every file is compiled before the robot is reached (as 'saphira check'); "
    "the plugins are loaded then, their load_init run once for the run, and the brains imported (INIT is "
    "called once connected); a load_init or an import that raises is an error too, and no robot is reached. "
    "Messages from activities print as plain lines; a live status line shows on a terminal; -q leaves "
    "only the messages and errors.",
    epilog="exit status: 0 when every top-level activity succeeded (or none ran), 1 when one failed "
    "or timed out or a brain, behavior, plugin or task raised during the run (each failure is a line of "
    "the summary), 2 for a load or connection error (a lost robot link included) or a bad option, 130 after "
    "Ctrl-C and 143 after SIGTERM (the robot stopped and the summary printed first), 141 when the reader of "
    "its output went away ('| head': the robot stopped at once).",
    add_arguments=add_arguments,
    run=run_files,
    check=lambda args: ui_port_problem(args.ui),
)
