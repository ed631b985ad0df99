"""The micro-task OS: states, signals, hierarchy, timeouts, failure isolation, async mode."""

from __future__ import annotations

import pytest

from saphira.core.clock import LockStepClock
from saphira.core.tasks import FIRST_USER_STATE, Phase, Scheduler, Task, TaskError, TaskState


class Recorder(Task):
    """Records the state it is called with; returns what a script says, else keeps a user state."""

    def __init__(self, name: str, script: dict[int, int] | None = None, **kw: object) -> None:
        super().__init__(name, **kw)  # type: ignore[arg-type]
        self.seen: list[int] = []
        self.script = script or {}
        self.terminated_with: int | None = None

    def step(self, state: int) -> int:
        self.seen.append(state)
        if state in self.script:
            return self.script[state]
        if state in (TaskState.INIT, TaskState.RESUME):
            return FIRST_USER_STATE
        if state == TaskState.INTERRUPT:
            return TaskState.SUSPEND
        return state

    def terminate(self, state: int) -> None:
        self.terminated_with = state


def test_first_call_is_init_then_user_state() -> None:
    s = Scheduler()
    t = s.add(Recorder("a"))
    s.run(3)
    assert t.seen == [TaskState.INIT, FIRST_USER_STATE, FIRST_USER_STATE]


def test_suspend_resume_interrupt_transitions() -> None:
    s = Scheduler()
    t = s.add(Recorder("a"))
    s.run(2)
    s.suspend("a")
    s.run(3)
    assert t.seen == [TaskState.INIT, FIRST_USER_STATE]
    assert s.task_suspended("a") == 1
    s.resume("a")
    s.run(1)
    assert t.seen[-1] == TaskState.RESUME
    s.interrupt("a")
    s.run(2)  # called with INTERRUPT, returns SUSPEND, then not called
    assert t.seen[-1] == TaskState.INTERRUPT
    assert s.get_task_state("a") == TaskState.SUSPEND
    s.resume("a")
    s.run(1)
    assert t.seen[-1] == TaskState.RESUME


def test_suspend_for_n_cycles_then_resume() -> None:
    s = Scheduler()
    t = s.add(Recorder("a", script={FIRST_USER_STATE: -3, TaskState.RESUME: 12}))
    s.run(2)  # INIT -> 11, then 11 -> -3
    assert s.get_task_state("a") == -3
    assert s.task_suspended("a") == 1
    calls = len(t.seen)
    s.run(3)
    assert len(t.seen) == calls  # skipped for exactly 3 cycles
    s.run(1)
    assert t.seen[-1] == TaskState.RESUME
    assert s.get_task_state("a") == 12


@pytest.mark.parametrize("end", [TaskState.SUCCESS, TaskState.FAILURE])
def test_finished_states_and_inquiries(end: TaskState) -> None:
    s = Scheduler()
    parent = s.add(Recorder("parent"))
    child = s.add(Recorder("child", script={FIRST_USER_STATE: end}), parent=parent)
    s.run(2)
    assert child.state == end
    assert s.task_finished("child") == 1
    s.run(5)
    assert s.find("child") is child  # finished children are kept for inspection
    assert child.seen == [TaskState.INIT, FIRST_USER_STATE]
    assert child.terminated_with == end


def test_remove_and_inactive() -> None:
    s = Scheduler()
    s.add(Recorder("a"))
    s.run(1)
    s.remove("a")
    assert s.task_finished("a") == 2
    s.run(1)
    assert s.get_task_state("a") == TaskState.INACTIVE
    assert s.task_finished("a") == 2
    assert s.task_suspended("a") == 0
    assert s.outcomes["a"] == TaskState.REMOVE


def test_top_level_finished_tasks_are_reaped_after_one_full_cycle() -> None:
    s = Scheduler()
    s.add(Recorder("a", script={TaskState.INIT: TaskState.SUCCESS}))
    s.run(1)
    assert s.get_task_state("a") == TaskState.SUCCESS
    s.run(1)
    assert "a" not in s
    assert s.outcomes["a"] == TaskState.SUCCESS


def test_timeout_in_cycles() -> None:
    s = Scheduler()
    t = s.add(Recorder("a"), timeout=5)
    s.run(4)
    assert t.state == FIRST_USER_STATE
    s.run(1)  # still running after its 5th cycle: ends in TIMEOUT at cycle 5
    assert t.state == TaskState.TIMEOUT
    assert len(t.seen) == 5 and s.cycle == 5
    assert t.terminated_with == TaskState.TIMEOUT


def test_timeout_counts_while_suspended() -> None:
    s = Scheduler()
    t = s.add(Recorder("a"), timeout=3, suspended=True)
    s.run(3)
    assert t.state == TaskState.TIMEOUT
    assert t.seen == []


def test_signals_propagate_through_three_levels() -> None:
    s = Scheduler()
    top = s.add(Recorder("top"))
    mid = s.add(Recorder("mid"), parent=top)
    leaf = s.add(Recorder("leaf"), parent="mid")
    s.run(2)
    s.interrupt("top")
    s.run(1)
    assert [t.seen[-1] for t in (top, mid, leaf)] == [TaskState.INTERRUPT] * 3
    assert all(s.task_suspended(n) for n in ("top", "mid", "leaf"))
    s.resume("top")
    s.run(1)
    assert [t.seen[-1] for t in (top, mid, leaf)] == [TaskState.RESUME] * 3
    s.suspend("mid", 2)
    assert (mid.state, leaf.state, top.state) == (-2, -2, FIRST_USER_STATE)
    s.run(3)
    assert (mid.seen[-1], leaf.seen[-1]) == (TaskState.RESUME, TaskState.RESUME)


def test_children_end_with_their_parent() -> None:
    s = Scheduler()
    top = s.add(Recorder("top", script={FIRST_USER_STATE: TaskState.FAILURE}))
    mid = s.add(Recorder("mid"), parent=top)
    leaf = s.add(Recorder("leaf"), parent=mid)
    s.run(2)
    assert top.state == TaskState.FAILURE
    assert mid.terminated_with == TaskState.REMOVE and leaf.terminated_with == TaskState.REMOVE
    s.run(1)
    assert "mid" not in s and "leaf" not in s
    s.run(1)
    assert "top" not in s


def test_failure_isolation_one_raises_fifty_unaffected() -> None:
    s = Scheduler()
    failures: list[str] = []
    s.on_task_failed.connect(lambda task: failures.append(task.name))
    good = [s.add(Recorder(f"good{i}")) for i in range(50)]

    def bad(state: int) -> int:
        if state == FIRST_USER_STATE:
            raise ZeroDivisionError("boom")
        return FIRST_USER_STATE

    s.add(bad, "bad")
    s.run(10)
    assert failures == ["bad"]
    assert all(len(t.seen) == 10 and t.state == FIRST_USER_STATE for t in good)
    assert s.outcomes["bad"] == TaskState.FAILURE


def test_failed_task_reports_its_error_with_location() -> None:
    s = Scheduler()

    def bad(state: int) -> int:
        return 1 // 0

    t = s.add(bad, "bad")
    s.run(1)
    assert t.state == TaskState.FAILURE
    assert t.error_message is not None
    assert "ZeroDivisionError" in t.error_message and "test_tasks.py:" in t.error_message


def test_unique_names_and_lookup() -> None:
    s = Scheduler()
    t = s.add(Recorder("a"))
    with pytest.raises(TaskError, match="already exists"):
        s.add(Recorder("a"))
    assert s.unique_name("a") == "a<2>"
    assert s.find("a") is t and s.find(t) is t and s.get("a") is t
    with pytest.raises(TaskError, match="no task named"):
        s.get("zz")


def test_phases_run_in_order() -> None:
    s = Scheduler()
    order: list[str] = []
    for phase in reversed(Phase):
        s.add(lambda state, p=phase: order.append(p.name), phase.name, phase=phase)
    s.run(1)
    assert order == [p.name for p in Phase]


def test_callbacks_startup() -> None:
    s = Scheduler()
    fired: list[int] = []
    s.on_startup.connect(lambda: fired.append(s.cycle))
    s.run(3)
    assert fired == [0]


def _trajectory(seed: int) -> list[tuple[int, int]]:
    import random

    rng = random.Random(seed)
    s = Scheduler(LockStepClock())
    log: list[tuple[int, int]] = []
    for i in range(20):

        def fn(state: int, i: int = i) -> int:
            log.append((s.cycle, i))
            return rng.choice([FIRST_USER_STATE, FIRST_USER_STATE, -2, TaskState.SUCCESS])

        s.add(fn, f"t{i}")
    s.run(50)
    return log


def test_lockstep_is_deterministic() -> None:
    assert _trajectory(7) == _trajectory(7)
    assert _trajectory(7) != _trajectory(8)


def test_pause_runs_cycles_in_foreground_lockstep() -> None:
    s = Scheduler(LockStepClock(0.1))
    s.pause(1000)
    assert s.cycle == 10
    s.pause(0)
    assert s.cycle == 11


def test_async_mode_background_thread() -> None:
    s = Scheduler(LockStepClock(0.1))
    counter = s.add(Recorder("a"))
    s.start_async()
    try:
        s.pause(500)
        assert s.cycle >= 5
        assert len(counter.seen) >= 5
    finally:
        s.stop()
    assert not s.running_async


def test_add_with_an_unknown_parent_leaves_the_task_unregistered() -> None:
    s = Scheduler()
    t = Recorder("orphan")
    with pytest.raises(TaskError, match="no task named"):
        s.add(t, parent="nobody")
    assert t.scheduler is None
    s.add(t)  # and it can still be scheduled
    assert s.find("orphan") is t


def test_stop_right_after_start_async_is_not_lost() -> None:
    for _ in range(50):
        s = Scheduler(LockStepClock(0.1))
        s.start_async()
        s.stop()
        assert not s.running_async
