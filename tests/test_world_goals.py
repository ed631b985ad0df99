"""A world's named goals: goal points on the pointlist (Colbert's ``sfFindGoal``/``sfFindArtifact``), drawn with
their names in the live view's world layer and in ``--plot`` (issue 34 §2)."""

from __future__ import annotations

import math
from pathlib import Path

from saphira.colbert.evaluator import Evaluator
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.ui.snapshot import world_outline
from saphira.world.world import load_world

LAB2003 = Path(__file__).parent / "data" / "pyro-worlds" / "lab2003.wld"

GO_TO_COFFEE = """
act coffee
{
  point *g;
  g = sfFindGoal("coffee machine");
  sfSMessage("goal %d %s at %.0f %.0f", g->id, g->name, g->ax, g->ay);
  start sfGoToPos(300.0, g, 100.0) priority 1 timeout 600;
  if (sfGetTaskState("sfGoToPos") == sfSUCCESS) sfSMessage("reached %s", g->name);
}
start sfStop priority 2;
start coffee;
"""


def test_a_colbert_activity_goes_to_a_named_goal_of_a_2003_world() -> None:
    robot = Robot()
    sim = attach_simulator(robot, LAB2003, "p3dx", seed=0, odometry_error=False)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text(GO_TO_COFFEE), lines
    for _ in range(robot.clock.cycles_for(90.0)):
        if any(line.startswith("reached") for line in lines):
            break
        robot.step()
    assert lines[0] == "goal 2 coffee machine at 6000 7000", lines
    assert lines[-1] == "reached coffee machine", lines
    true = sim.true_pose  # in the world, not only in the robot's estimate
    assert math.hypot(true.x - 6000, true.y - 7000) < 150, true


def test_goals_are_artifacts_found_by_id_and_by_name_and_replaced_with_the_world() -> None:
    robot = Robot()
    robot.reflector.pointlist.create_global_artifact(1, 7, 0.0, 0.0, 0.0)  # a user's point: goal ids follow it
    attach_simulator(robot, LAB2003, "p3dx", seed=0)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    script = (
        'sfSMessage("%d %d %s", sfFindArtifact(8)->id, sfFindArtifact(10)->cat, sfFindArtifact(10)->name);'
        'sfSMessage("%d %d", sfFindGoal("Chris")->id, sfFindGoal("nobody") == NULL);'
        'sfLoadWorldFile("room");'
    )
    assert ev.eval_text(script), lines
    assert lines[:2] == ["8 2 goal 3", "8 1"], lines
    for _ in range(3):  # the simulator loads the new world, which has no goals: the old ones go
        robot.step()
    assert ev.eval_text('sfSMessage("%d %d", sfFindGoal("Chris") == NULL, sfFindArtifact(7)->id);'), lines
    assert lines[-1] == "1 7", lines


def test_the_live_views_world_layer_carries_the_goals_and_their_names() -> None:
    outline = world_outline(load_world(LAB2003))
    assert outline["goals"] == [[11390, 4334, "Chris"], [6000, 7000, "coffee machine"], [2000, 6000, "goal 3"]]


def test_the_plot_draws_the_goals_labelled_with_their_names() -> None:
    import matplotlib.pyplot as plt

    from saphira.app.plot import draw_run

    world = load_world(LAB2003)
    fig = draw_run([(1500.0, 1500.0, 0.0), (3000.0, 1500.0, 0.0)], world=world)
    try:
        ax = fig.axes[0]
        labels = {t.get_text(): t.xy for t in ax.texts}
        assert labels == {"Chris": (11.39, 4.334), "coffee machine": (6.0, 7.0), "goal 3": (2.0, 6.0)}
        assert "goals" in [t.get_text() for t in ax.get_legend().get_texts()]
    finally:
        plt.close(fig)
