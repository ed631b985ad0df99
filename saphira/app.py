"""``saphira run``: load activity files into one Colbert environment and run them on a robot.

With ``--robot URL`` the robot is real (or any Pioneer server) and the cycle runs in real time. Without
it, the embedded simulator is attached and the run is lock-step: as fast as the CPU allows, and the
same every time for a given seed. Messages from activities print as plain lines on stdout; on a
terminal a status line is redrawn below them. The run ends when no top-level activity or behavior is
left running (or suspended, waiting), when ``--duration`` runs out, or on Ctrl-C; the robot is then
stopped and disconnected, a summary is printed and, with ``--plot``, the path is drawn.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from saphira.clock import Clock, LockStepClock, RealTimeClock
from saphira.colbert.evaluator import Evaluator
from saphira.colbert.runtime import Activity
from saphira.recording import Recorder
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.tasks import TaskState, state_name
from saphira.trace import RunTrace, status_line

EXIT_OK = 0
EXIT_ACTIVITY_FAILED = 1
EXIT_LOAD_ERROR = 2


class Console:
    """Plain message lines on stdout; a status line kept below them when stdout is a terminal."""

    def __init__(self, stream: TextIO | None = None, *, status: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.show_status = self.stream.isatty() if status is None else status
        self._status_shown = False

    def message(self, text: str) -> None:
        self._clear()
        print(text, file=self.stream, flush=True)

    def status(self, text: str) -> None:
        if self.show_status:
            width = 160
            self.stream.write("\r" + text[:width].ljust(min(width, len(text))) + "\x1b[K")
            self.stream.flush()
            self._status_shown = True

    def _clear(self) -> None:
        if self._status_shown:
            self.stream.write("\r\x1b[K")
            self._status_shown = False


@dataclass
class Outcome:
    """Final states of the top-level activities seen during a run."""

    states: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> list[str]:
        return [n for n, s in self.states.items() if s in (TaskState.FAILURE, TaskState.TIMEOUT)]


class Session:
    """One ``saphira run``: robot, optional embedded simulator, evaluator, trace and recorder."""

    def __init__(self, args: argparse.Namespace, console: Console | None = None) -> None:
        self.args = args
        self.console = console or Console()
        realtime = bool(args.robot) or bool(getattr(args, "realtime", False))
        clock: Clock = RealTimeClock() if realtime else LockStepClock()
        self.robot = Robot(clock)
        self.sim: EmbeddedSim | None = None
        self.trace = RunTrace(self.robot)
        self.robot.scheduler.add(self.trace)
        self.recorder = Recorder(self.robot, args.record) if getattr(args, "record", None) else None
        self.evaluator = Evaluator(self.robot, output=self.console.message, read_init=False)
        self.evaluator.connector = self._connect_url
        self.outcome = Outcome()
        self._top_level: dict[str, Activity] = {}

    # ------------------------------------------------------------------ connection
    def connect(self) -> None:
        if self.args.robot:
            self.console.message(f"connecting to {self.args.robot} ...")
            self.robot.connect(self.args.robot)
        else:
            self.sim = attach_simulator(self.robot, self.args.world, self.args.params, seed=self.args.seed)
            sim = self.sim
            self.trace.truth = lambda: sim.true_pose
        identity = self.robot.link.identity
        who = f"{identity.name} ({identity.robot_class} {identity.subclass})" if identity else self.robot.link.url
        self.console.message(f"connected to {who}; parameters from {self.robot.params.source}")

    def _connect_url(self, url: str) -> None:
        if self.sim is not None and not self.robot.connected:
            self.sim.connect()
        elif not self.robot.connected:
            self.robot.connect(url)

    # ------------------------------------------------------------------ running
    def load(self) -> bool:
        return all(self.evaluator.load(path) for path in self.args.files)

    def _watch_activities(self) -> None:
        for task in self.robot.scheduler.tasks:
            if isinstance(task, Activity) and task.parent is None:
                self._top_level[task.name] = task
        for name, task in self._top_level.items():
            if task.scheduler is not None:
                self.outcome.states[name] = task.state
            elif name in self.robot.scheduler.outcomes:
                self.outcome.states[name] = self.robot.scheduler.outcomes[name]

    def _anything_running(self) -> bool:
        from saphira.behavior.executive import BehaviorTask

        return any(
            t.parent is None and not t.finished and t.state != TaskState.REMOVE
            for t in self.robot.scheduler.tasks
            if isinstance(t, Activity | BehaviorTask)
        )

    def run(self) -> int:
        duration = getattr(self.args, "duration", None)
        limit = self.robot.clock.cycles_for(duration) if duration else None
        start_cycle = self.robot.scheduler.cycle
        wall_start = time.monotonic()
        interrupted = False
        try:
            while limit is None or self.robot.scheduler.cycle - start_cycle < limit:
                self.robot.step()
                self._watch_activities()
                if self.robot.scheduler.cycle % 5 == 0:
                    self.console.status(status_line(self.robot, self._running_names()))
                if limit is None and not self._anything_running():
                    break
                if self.evaluator.exit_requested:
                    break
        except KeyboardInterrupt:
            interrupted = True
        self._finish(wall_start, interrupted)
        return EXIT_ACTIVITY_FAILED if self.outcome.failed else EXIT_OK

    def _running_names(self) -> str:
        names = [t.name for t in self.robot.scheduler.tasks if t.parent is None and t.active and t.calls
                 and t.name not in ("packets", "motor", "trace", "simulator") and not t.name.startswith("recorder")]
        return " ".join(names[:6])

    def _finish(self, wall_start: float, interrupted: bool) -> None:
        robot = self.robot
        if robot.connected:
            robot.motion.halt()
            robot.run(cycles=2)
            robot.disconnect()
            robot.run(cycles=1)
        if self.recorder is not None:
            self.recorder.close()
        self.console.message(self.summary(time.monotonic() - wall_start, interrupted))
        if getattr(self.args, "plot", None):
            from saphira.plot import plot_run

            world = self.sim.simulation.world if self.sim is not None else None
            trace = self.trace
            path, estimate = (trace.true_path, trace.path) if trace.true_path else (trace.path, [])
            out = plot_run(self.args.plot, path, trace.hits, world, title=" ".join(self.args.files),
                           radius=robot.params.robot_radius, estimate=estimate)  # fmt: skip
            self.console.message(f"plot written to {out}")

    def summary(self, wall_seconds: float, interrupted: bool) -> str:
        robot = self.robot
        cycles = robot.scheduler.cycle
        sim_seconds = cycles * robot.clock.period
        lines = [
            f"--- {'interrupted' if interrupted else 'done'}: {cycles} cycles, {sim_seconds:.1f} s robot time "
            f"in {wall_seconds:.1f} s ({sim_seconds / max(wall_seconds, 1e-9):.0f}x real time)",
            f"    travelled {self.trace.distance / 1000:.2f} m; final pose ({robot.state.ax:.0f}, "
            f"{robot.state.ay:.0f}, {robot.state.ath:.1f})",
            f"    cycle time {robot.scheduler.stats.summary(robot.clock.overruns)}",
            f"    link: {robot.link.counters.sips} SIPs, {robot.link.counters.packets_sent} packets sent, "
            f"{robot.link.receiver.stats.dropped} dropped",
        ]
        if self.sim is not None:  # truth beside belief
            from saphira.perception.truth import pose_error_line

            lines.insert(2, pose_error_line(robot.state.global_pose, self.sim.true_pose))
        if self.sim is not None:
            lines.append(f"    simulator: {self.sim.wall_contacts} wall contacts")
        for name, state in sorted(self.outcome.states.items()):
            lines.append(f"    activity {name}: {state_name(state) if state <= 10 else 'still running'}")
        return "\n".join(lines)


def run_files(args: argparse.Namespace) -> int:
    """The ``saphira run`` command."""
    session = Session(args)
    try:
        session.connect()
        if not session.load():
            session.robot.disconnect()
            return EXIT_LOAD_ERROR
        return session.run()
    finally:
        if session.recorder is not None:
            session.recorder.close()
