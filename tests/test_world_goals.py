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


MAP_WITH_GOALS = """\
;; a room's map whose goals the client loads itself (no simulator tells it)
WALL  2000 0 0 4000
GOAL  3000 1000 0 "printer"
GOAL  500 2500 90 "door of room 2" ; a name with spaces
"""


def test_a_map_files_goals_reach_the_pointlist_and_colbert_drives_to_one(tmp_path: Path) -> None:
    """sfLoadMapFile's GOAL lines become goal points as a world's are: found by sfFindGoal and by id,
    kept when the simulator loads another world (only the world's own goals are replaced)."""
    (tmp_path / "room2.smap").write_text(MAP_WITH_GOALS)
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", seed=0, odometry_error=False)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    script = (
        f'sfMapDir = "{tmp_path}";'
        'sfSMessage("%d", sfLoadMapFile("room2"));'
        'sfSMessage("%d %s %.0f %.0f %.0f", sfFindGoal("door of room 2")->id, sfFindGoal("door of room 2")->name,'
        ' sfFindGoal("door of room 2")->ax, sfFindGoal("door of room 2")->ay, sfFindGoal("door of room 2")->ath);'
        "start sfStop priority 2;"
        'start sfGoToPos(300.0, sfFindGoal("printer"), 100.0) priority 1 timeout 300;'
    )
    assert ev.eval_text(script), lines
    assert lines[:2] == ["0", "2 door of room 2 500 2500 90"], lines  # the WALL has no id, the printer is 1
    for _ in range(robot.clock.cycles_for(30.0)):
        robot.step()
        if math.hypot(sim.true_pose.x - 3000, sim.true_pose.y - 1000) < 100:
            break
    assert math.hypot(sim.true_pose.x - 3000, sim.true_pose.y - 1000) < 150, sim.true_pose
    assert ev.eval_text('sfLoadWorldFile("simple");'), lines
    for _ in range(3):
        robot.step()
    assert ev.eval_text('sfSMessage("%d", sfFindGoal("printer")->id);'), lines
    assert lines[-1] == "1", lines


def test_saphira_map_writes_a_worlds_goals_and_a_saved_map_keeps_them(tmp_path: Path) -> None:
    from saphira.perception.mapfile import load_map_file, named_goals, save_map_file
    from saphira.perception.worldmap import world_map_text

    world = load_world(LAB2003)
    (tmp_path / "lab.smap").write_text(world_map_text(world))
    robot = Robot()  # a client with no simulator: the map is all it knows of the world
    loaded = load_map_file(robot.reflector.pointlist, tmp_path / "lab.smap")
    assert named_goals(loaded) == list(world.goals)
    assert robot.reflector.pointlist.find_goal("coffee machine") is loaded[-2]
    saved = save_map_file(robot.reflector.pointlist, tmp_path / "again.smap")
    assert named_goals(load_map_file(Robot().reflector.pointlist, saved)) == list(world.goals)
