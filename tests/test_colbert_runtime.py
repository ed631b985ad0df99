"""The Colbert executive: the manual's execution model (§7.8-§7.12), and activities driving the simulator.

The first half runs activities on a bare lock-step scheduler and checks, cycle by cycle, what breaks
and what does not. The second half runs the manual's example programs (§7.15) in lock-step with the
embedded simulator and checks where the simulated robot really went.
"""

from __future__ import annotations

import math

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.colbert.runtime import Activity
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import EmbeddedSim, attach_simulator
from saphira.world.wld import parse_wld

PATROL = """
act patrol(int a)            /* go back and forth a times; a<0 = forever */
{ while (a != 0)
  { a = a - 1;
    turnto(180); move(1000);
    turnto(0);   move(1000); } }
"""

APPROACH = """
act approach
{ int x;
  start patrol(-1) timeout 300 noblock;   /* patrol forever, but at most 30 s; run in parallel */
checking:
  if (sfGetTaskState("patrol") == sfTIMEOUT || sfIsStalled()) fail;
  x = sObjInFront();                        /* distance to nearest object in front */
  if (x > 2000) goto checking;
  suspend patrol;                           /* else its motions would conflict */
  move(x - 200);                            /* stop 20 cm short */
  succeed;
}
"""


class Session:
    """An evaluator whose output is collected, on a robot-less lock-step scheduler or a given robot."""

    def __init__(self, robot: Robot | None = None) -> None:
        self.lines: list[str] = []
        self.ev = Evaluator(robot, output=self.lines.append, read_init=False)
        self.sched = self.ev.scheduler

    def load(self, text: str) -> None:
        assert self.ev.eval_text(text, "test.act", interactive=False), self.lines

    def do(self, text: str) -> None:
        assert self.ev.eval_text(text), self.lines

    def cycle(self, n: int = 1) -> None:
        for _ in range(n):
            self.sched.step()

    def value(self, name: str) -> object:
        return self.ev.value(name)

    def act(self, name: str) -> Activity:
        activity = self.ev.activity(name)
        assert activity is not None, f"no activity {name}"
        return activity

    def state(self, name: str) -> int:
        return self.sched.get_task_state(name)


@pytest.fixture
def s() -> Session:
    return Session()


# ---------------------------------------------------------------------------------------- breaks


def test_a_run_of_assignments_executes_in_one_cycle(s: Session) -> None:
    s.load("int a; int b; int c; act run { a = 1; b = a + 1; c = b * 10; waitfor 0; }")
    s.do("start run")
    s.cycle()
    assert (s.value("a"), s.value("b"), s.value("c")) == (1, 2, 20)


def test_each_loop_iteration_costs_one_cycle(s: Session) -> None:
    s.load("int n; int after; act loop { while (n < 5) n = n + 1; after = 1; }")
    s.do("start loop")
    seen = []
    for _ in range(7):
        s.cycle()
        seen.append((s.value("n"), s.value("after")))
    # One iteration per cycle; the false test is a single break, so 'after' runs one cycle later.
    assert seen == [(1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (5, 0), (5, 1)]
    assert s.sched.outcomes.get("loop", s.state("loop")) == TaskState.SUCCESS


def test_goto_is_a_single_break(s: Session) -> None:
    s.load("int n; act spin { top: n = n + 1; goto top; }")
    s.do("start spin")
    s.cycle(4)
    assert s.value("n") == 4


def test_waitfor_that_holds_does_not_break_but_start_and_signals_do(s: Session) -> None:
    s.load(
        "int a; int b; int c;"
        "act child { waitfor 0; }"
        "act run { waitfor 1; a = 1; start child noblock; b = 1; suspend child; c = 1; }"
    )
    s.do("start run")
    s.cycle()
    assert (s.value("a"), s.value("b"), s.value("c")) == (1, 0, 0)
    s.cycle()
    assert (s.value("b"), s.value("c")) == (1, 0)
    assert s.state("child") == TaskState.SUSPEND
    s.cycle()
    assert s.value("c") == 1


def test_update_runs_every_cycle_even_while_waiting(s: Session) -> None:
    s.load("int polls; int go; act w { update polls = polls + 1; waitfor go; go = 2; }")
    s.do("start w")
    s.cycle(3)
    assert s.value("polls") == 3
    s.do("go = 1")
    s.cycle()
    assert (s.value("polls"), s.value("go")) == (4, 2)


def test_waitfor_timeout_continues_after_exactly_30_cycles(s: Session) -> None:
    s.load("int entered; int done; act w { entered = 1; waitfor done timeout 30; done = 2; }")
    s.do("start w")
    cycles = 0
    while s.value("entered") == 0:
        s.cycle()
    while s.value("done") == 0:
        s.cycle()
        cycles += 1
    assert cycles == 30
    assert s.value("done") == 2


def test_start_timeout_300_ends_in_timeout_at_cycle_300(s: Session) -> None:
    s.load("act forever { while (1) ; }")
    s.do("start forever timeout 300")
    s.cycle(299)
    assert s.state("forever") not in (TaskState.TIMEOUT, TaskState.INACTIVE)
    s.cycle()
    assert s.sched.outcomes.get("forever", s.state("forever")) == TaskState.TIMEOUT


def test_blocking_start_waits_for_the_child_and_sees_its_timeout(s: Session) -> None:
    s.load(
        "int state; int after; act forever { while (1) ; }"
        'act parent { start forever timeout 20; state = sfGetTaskState("forever"); after = 1; }'
    )
    s.do("start parent")
    s.cycle(20)
    assert s.value("after") == 0
    s.cycle(2)
    assert s.value("after") == 1
    assert s.value("state") == TaskState.TIMEOUT


def test_falling_off_the_end_succeeds_and_kills_the_children(s: Session) -> None:
    s.load("act child { waitfor 0; } act startb { start child noblock; }")
    s.do("start startb")
    s.cycle()
    assert s.state("child") == TaskState.INIT
    s.cycle()
    assert s.sched.outcomes["child"] == TaskState.REMOVE
    assert s.sched.outcomes.get("startb", s.state("startb")) == TaskState.SUCCESS


def test_finished_children_are_kept_for_inspection_top_level_ones_reaped(s: Session) -> None:
    s.load('int st; act quick { ; } act parent { start quick; st = sfTaskFinished("quick"); waitfor 0; }')
    s.do("start parent")
    s.cycle(10)
    assert s.value("st") == 1
    assert s.state("quick") == TaskState.SUCCESS
    s.do("start quick iname lone")
    s.cycle(3)
    assert s.sched.find("lone") is None  # reaped
    assert s.sched.outcomes["lone"] == TaskState.SUCCESS


def test_a_reaped_top_level_act_still_answers_how_it_ended(s: Session) -> None:
    """``sfGetTaskState("foo")`` after a top-level act succeeded was 0 (issue 32 §3): it is sfSUCCESS
    (sfFAILURE, sfTIMEOUT), and ``sfTaskFinished`` 1, until the name starts again; ``remove`` leaves nothing."""
    s.load("int st; int fin; act quick { ; } act bad { fail; } act slow { waitfor 0; } act gone { remove; }")
    for name in ("quick", "bad", "gone"):
        s.do(f"start {name}")
    s.do("start slow timeout 2")
    s.cycle(10)
    assert all(s.sched.find(name) is None for name in ("quick", "bad", "slow", "gone"))
    expected = {"quick": "sfSUCCESS", "bad": "sfFAILURE", "slow": "sfTIMEOUT", "gone": "sfINACTIVE"}
    for name, state in expected.items():
        s.do(f'st = sfGetTaskState("{name}") == {state}; fin = sfTaskFinished("{name}")')
        assert (s.value("st"), s.value("fin")) == (1, 2 if name == "gone" else 1), name
    s.do("start slow")
    s.do('st = sfGetTaskState("slow"); fin = sfTaskFinished("slow")')
    assert (s.value("st"), s.value("fin")) == (TaskState.INIT, 0)


def test_a_second_instance_under_a_name_in_use_is_an_error(s: Session) -> None:
    s.load("act w { waitfor 0; } act twice { start w noblock; start w noblock; }")
    s.do("start twice")
    s.cycle(3)
    assert any("test.act:1:51: act twice: an instance named 'w' already exists" in line for line in s.lines)
    assert s.act("twice").suspended


# ---------------------------------------------------------------------------------------- signals


def test_signals_to_self_reach_the_children(s: Session) -> None:
    s.load("int go; act child { waitfor 0; } act parent { start child noblock; waitfor go; suspend; }")
    s.do("start parent")
    s.cycle(3)
    s.do("go = 1")
    s.cycle()
    assert s.state("parent") == TaskState.SUSPEND
    assert s.state("child") == TaskState.SUSPEND


def test_interrupt_jumps_to_oninterrupt_and_resume_to_onresume(s: Session) -> None:
    s.load(
        "int handled; int resumed; int starts;"
        "act h { starts = starts + 1; waitfor 0;"
        "oninterrupt: handled = handled + 1; suspend;"
        "onresume: resumed = resumed + 1; waitfor 0; }"
    )
    s.do("start h")
    s.cycle(2)
    s.do("interrupt h")
    s.cycle(2)
    assert (s.value("handled"), s.state("h")) == (1, TaskState.SUSPEND)
    s.do("resume h")
    s.cycle()
    assert (s.value("resumed"), s.value("starts")) == (1, 1)


def test_resume_without_onresume_restarts_at_the_first_statement(s: Session) -> None:
    s.load("int starts; act h { starts = starts + 1; waitfor 0; }")
    s.do("start h")
    s.cycle(2)
    s.do("interrupt h")
    s.cycle(2)
    assert s.state("h") == TaskState.INTERRUPT  # no oninterrupt: stays interrupted, does nothing
    s.do("resume h")
    s.cycle()
    assert s.value("starts") == 2


def test_signals_by_name_and_errors_for_unknown_names(s: Session) -> None:
    s.load("act w { waitfor 0; }")
    s.do("start w")
    s.cycle()
    s.do("fail w")
    assert s.state("w") == TaskState.FAILURE
    assert not s.ev.eval_text("suspend nobody")
    assert s.lines == ["<prompt>:1: no activity or behavior named 'nobody'", "    suspend nobody"]


# ---------------------------------------------------------------------------------------- trace and errors


def test_trace_prints_only_on_state_change_with_act_relative_lines(s: Session) -> None:
    s.load("int go;\n\nact w\n{ int a;\n  a = 5;\n  waitfor go;\n  a = a + 1;\n}\n")
    s.do("trace w")
    s.do("start w")
    s.cycle(6)
    assert s.lines == ["w, line 2: a = 5  => 5"]
    s.do("go = 1")
    s.cycle(2)
    assert s.lines == [
        "w, line 2: a = 5  => 5",
        "w, line 3: waitfor go",
        "w, line 4: a = a + 1  => 6",
        "w: SUCCESS",
    ]


def test_untrace_stops_the_output(s: Session) -> None:
    s.load("int n; act spin { top: n = n + 1; goto top; }")
    s.do("start spin")
    s.do("trace spin")
    s.cycle(2)
    s.do("untrace spin")
    s.cycle(2)
    assert s.lines == [
        "spin, line 0: n = n + 1  => 1",
        "spin, line 0: goto top",
        "spin, line 0: n = n + 1  => 2",
        "spin, line 0: goto top",
    ]


def test_division_by_zero_suspends_only_the_offending_activity(s: Session) -> None:
    s.load(
        "int n1; int n2; int n3; int zero;\n"
        "act count1 { top: n1 = n1 + 1; goto top; }\n"
        "act count2 { top: n2 = n2 + 1; goto top; }\n"
        "act count3 { top: n3 = n3 + 1; goto top; }\n"
        "act bad\n{ int x;\n  x = 1;\n  x = x / zero;\n}\n"
    )
    for name in ("count1", "count2", "count3", "bad"):
        s.do(f"start {name}")
    s.cycle(5)
    assert s.lines == ["test.act:8:3: act bad: division by zero", "      x = x / zero;", "      ^"]
    assert s.state("bad") == TaskState.SUSPEND
    assert [s.value(n) for n in ("n1", "n2", "n3")] == [5, 5, 5]
    assert all(s.act(name).active for name in ("count1", "count2", "count3"))


def test_null_pointer_in_update_is_reported_with_its_line(s: Session) -> None:
    s.load("point *p; float x;\nact w\n{\n  update\n    x = p->x;\n  waitfor 0;\n}\n")
    s.do("start w")
    s.cycle()
    assert s.lines == ["test.act:5:5: act w: null pointer dereference", "        x = p->x;", "        ^"]


def test_runtime_error_names_the_instance_when_it_differs_from_the_schema(s: Session) -> None:
    s.load("int zero; act bad { zero = 1 / zero; }")
    s.do("start bad iname b2")
    s.cycle()
    assert s.lines[0] == "test.act:1:21: act bad (b2): division by zero"


# ---------------------------------------------------------------------------------------- redefinition


def test_running_instances_keep_the_old_definition(s: Session) -> None:
    s.load("int which; act w { top: which = 1; goto top; }")
    s.do("start w")
    s.cycle()
    s.load("act w { top: which = 2; goto top; }")
    assert s.lines[-1] == "act w redefined; running instances keep the old definition until restarted: w"
    s.do("which = 0")
    s.cycle()
    assert s.value("which") == 1
    s.do("start w iname w2")
    s.cycle(2)
    assert s.value("which") in (1, 2)
    s.do("remove w")
    s.cycle(2)
    assert s.value("which") == 2


# ---------------------------------------------------------------------------------------- with the simulator


def hall() -> object:
    """A 10 m x 6 m hall; the robot starts in the middle of its west half, facing east."""
    text = (
        "width 10000\nheight 6000\n0 0 10000 0\n10000 0 10000 6000\n10000 6000 0 6000\n0 6000 0 0\n"
        "position 3000 3000 0\n"
    )
    return parse_wld(text, "hall.wld")


def simulated(world: object = "room", **kw: object) -> tuple[Robot, EmbeddedSim, Session]:
    robot = Robot()
    sim = attach_simulator(robot, world=world, seed=0, **kw)  # type: ignore[arg-type]
    return robot, sim, Session(robot)


def runs(indices: list[int]) -> int:
    """How many separate stretches of consecutive cycles ``indices`` holds."""
    return sum(1 for i, n in enumerate(indices) if i == 0 or n != indices[i - 1] + 1)


def test_patrol_2_visits_both_ends_twice_and_succeeds() -> None:
    _, sim, s = simulated()
    s.load(PATROL)
    s.do("start patrol(2)")
    start = sim.true_pose
    xs: list[float] = []
    for _ in range(600):
        s.cycle()
        xs.append(sim.true_pose.x)
        if "patrol" not in s.sched:
            break
    assert s.sched.outcomes["patrol"] == TaskState.SUCCESS
    # The line runs from the start (x = 1500) to 1 m behind it (turnto(180), move(1000)) and back.
    far_end = [i for i, x in enumerate(xs) if abs(x - (start.x - 1000)) < 60]
    near_end = [i for i, x in enumerate(xs) if abs(x - start.x) < 60]
    assert runs(far_end) == 2
    assert runs(near_end) == 3  # where it starts, then back twice
    assert min(xs) > start.x - 1000 - 60 and max(xs) < start.x + 60
    assert abs(sim.true_pose.x - start.x) < 60 and abs(sim.true_pose.y - start.y) < 100


def test_approach_suspends_patrol_near_an_object_and_stops_200_mm_short() -> None:
    robot, sim, s = simulated(hall())
    s.load(PATROL + APPROACH)
    s.do("start approach")
    suspended_at = None
    for _ in range(400):
        s.cycle()
        patrol = s.ev.activity("patrol")
        if suspended_at is None and patrol is not None and patrol.suspended:
            suspended_at = sim.true_pose
        if "approach" not in s.sched:
            break
    assert s.sched.outcomes["approach"] == TaskState.SUCCESS
    assert s.sched.outcomes["patrol"] == TaskState.REMOVE  # ended with its parent
    radius = robot.params.robot_radius
    assert suspended_at is not None
    # Patrol turned west and drove toward the wall at x = 0; approach took over within 2 m of it.
    assert 1800 < suspended_at.x - radius <= 2000 + 60
    gap = sim.true_pose.x - radius
    assert abs(gap - 200) < 60


def test_interrupted_parent_suspends_children_behaviors_and_motion_and_resume_restores() -> None:
    robot, _, s = simulated(hall())
    s.load(
        "act spinner { rotate(20); waitfor 0; }"
        "act parent\n{ start sfConstantVelocity(150) priority 1 iname cv noblock;\n"
        "  start spinner noblock;\nonresume:\n  waitfor 0;\n}"
    )
    s.do("start parent")
    s.cycle(30)
    assert robot.state.rvel == pytest.approx(20, abs=3)
    assert robot.motion.target_vel() == pytest.approx(150)
    s.do("interrupt parent")
    s.cycle(20)
    assert s.state("parent") == TaskState.INTERRUPT
    assert s.state("spinner") == TaskState.INTERRUPT
    assert s.state("cv") == TaskState.SUSPEND
    assert abs(robot.state.rvel) < 1.0
    s.do("resume parent")
    s.cycle(20)
    assert all(s.sched.get(n).active for n in ("parent", "spinner", "cv"))
    assert robot.state.rvel == pytest.approx(20, abs=3)
    assert s.lines == []


def test_bump_and_go_backs_off_a_wall_it_hits() -> None:
    robot, sim, s = simulated(hall(), pose=(9000.0, 3000.0, 0.0))
    s.load(
        "act BumpAndGo\n{ int stalled;\n  update stalled = sfStalledMotor(0) || sfStalledMotor(1);\n"
        "NOCONTACT:\n  sfBehaviorControl = 1;\n  waitfor stalled;\n  sfBehaviorControl = 0;\n"
        "  move(-200);\n  turn(30);\n  goto NOCONTACT;\n}\n"
        "start sfConstantVelocity(200) priority 2;\nstart BumpAndGo;\n"
    )
    wall = 10000.0 - robot.params.robot_radius
    contact_cycle = None
    for cycle in range(200):
        s.cycle()
        if contact_cycle is None and sim.wall_contacts > 0:
            contact_cycle = cycle
        if contact_cycle is not None and s.act("BumpAndGo").line == 8:  # turning after the back-off
            break
    assert contact_cycle is not None
    assert sim.true_pose.x == pytest.approx(wall - 200, abs=40)
    for _ in range(30):
        s.cycle()
        if s.act("BumpAndGo").line == 5:  # waiting for the next contact, behaviors back in control
            break
    assert s.act("BumpAndGo").line == 5
    assert robot.motion.behavior_control
    assert math.isclose(robot.motion.target_vel(), 200, abs_tol=1)
    assert sim.true_pose.th == pytest.approx(30, abs=5)  # turned away from the wall
    assert s.lines == []


def test_motion_statements_block_in_acts_but_not_at_the_prompt() -> None:
    robot, sim, s = simulated(hall())
    s.load("int done; act go { move(500); done = 1; }")
    s.do("move(300)")
    s.cycle()
    assert robot.motion.remaining_distance() > 250  # the prompt did not wait
    s.cycle(40)
    x0 = sim.true_pose.x
    s.do("start go")
    s.cycle(3)
    assert s.value("done") == 0
    s.cycle(60)
    assert s.value("done") == 1
    assert sim.true_pose.x - x0 == pytest.approx(500, abs=30)


def test_motion_timeout_stops_the_motion_and_continues() -> None:
    robot, sim, s = simulated(hall())
    s.load("int done; act go { move(3000) timeout 10; done = 1; }")
    s.do("start go")
    s.cycle(11)
    assert s.value("done") == 1
    s.cycle(15)
    assert abs(robot.state.vel) < 5
    assert sim.true_pose.x - 3000 < 800


def test_motion_needs_a_connected_robot(s: Session) -> None:
    assert not s.ev.eval_text("move(100)")
    assert s.lines == ["<prompt>:1: direct motion needs a robot session", "    move(100)"]


def test_start_suspend_option_waits_for_resume(s: Session) -> None:
    s.load("int n; act count { top: n = n + 1; goto top; }")
    s.do("start count suspend")
    s.cycle(3)
    assert (s.state("count"), s.value("n")) == (TaskState.SUSPEND, 0)
    s.do("resume count")
    s.cycle(3)
    assert s.value("n") == 3


def test_a_bad_signal_target_is_a_runtime_error_of_the_activity(s: Session) -> None:
    s.load("act w\n{\n  waitfor 1;\n  interrupt ghost;\n}\n")
    s.do("start w")
    s.cycle()
    assert s.lines[0] == "test.act:4:3: act w: no activity or behavior named 'ghost'"
    assert s.state("w") == TaskState.SUSPEND


def test_raw_packets_as_in_packet_act() -> None:
    robot, sim, s = simulated(hall())
    s.load(
        "int got; int kind;\n"
        "act DoPackets\n{ int i; int x;\n  remove packets;\n  remove motor;\n"
        "  waitfor sfIsConnected timeout 100;\n  if (!sfIsConnected) fail;\n"
        "  sfRobotCom(sfCOMPULSE);\n  sfRobotComInt(sfCOMVEL, 300);\n  i = 0;\n"
        "  while (i < 30)\n  { if (sfWaitClientPacket(1000))\n    { i = i + 1;\n"
        "      kind = sfReadClientByte();\n      sfProcessClientPacket(kind);\n"
        "      if (i % 10 == 0)\n      { sfRobotCom(sfCOMPULSE);\n        sfRobotComInt(sfCOMVEL, 300);\n"
        '        x = sfRobot.ax;\n        sfSMessage("%d packets received", i); } } }\n'
        "  sfRobotComInt(sfCOMVEL, 0);\n  got = i;\n}\n"
    )
    x0 = sim.true_pose.x
    s.do("start DoPackets")
    s.cycle(60)
    assert s.lines == ["10 packets received", "20 packets received", "30 packets received"]
    assert (s.value("got"), s.value("kind")) == (30, 0x33)  # SIPs, parsed into sfRobot as read
    assert "packets" not in s.sched and "motor" not in s.sched
    assert robot.state.ax > 500 and sim.true_pose.x - x0 > 500
    s.cycle(20)
    stopped_at = sim.true_pose.x
    s.cycle(10)
    assert sim.true_pose.x == pytest.approx(stopped_at, abs=1.0)  # the final VEL 0 reached the robot
