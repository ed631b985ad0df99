"""Nothing runs before it compiles: ``saphira run`` checks every file, names included, before any robot is reached.

Through real ``saphira run`` and ``saphira check`` subprocesses; the robot that must not be reached is
a real listening socket, which is asked afterwards whether anyone knocked.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.silent_robot import knocked, silent_robot, url
from tests.test_cli import saphira

PLUGIN = '''"""Registers a behavior, as a Python behavior file does, and starts one on the robot at load."""
from saphira.behavior.library import predefined_behaviors


def load_init(env):
    env.add_behavior("pluginStop", predefined_behaviors()["stop"])
    env.robot.start_behavior(predefined_behaviors()["stop"], priority=9)
'''

LIBRARY = "int laps;\nact lap(int n) { laps = n; }\n"

MAIN = """act tour()
{
  start lap(laps + 1);                     /* lap and laps: library.act */
  start later(2);                          /* defined below */
  start myGoto(sfCreateLocalPoint(500.0, 0.0, 0.0), 100.0) priority 1 noblock;   /* go_to.beh */
  start pluginStop priority 3 noblock;     /* plugin.py */
}
act later(int n) { laps = laps + n; }
start tour();
"""


def files(tmp_path: Path, **texts: str) -> list[str]:
    paths = []
    for name, text in texts.items():
        path = tmp_path / name.replace("_", ".")
        path.write_text(text)
        paths.append(str(path))
    return paths


GO_TO = str(Path(__file__).resolve().parent.parent / "behaviors" / "go_to.beh")


def test_run_reports_every_error_of_every_file_and_reaches_no_robot(tmp_path: Path) -> None:
    good, broken, typo = files(
        tmp_path,
        good_act="act fine() { move(100); }\nstart fine();\n",
        broken_act="act f\n{\n  move(100\n}\n",
        typo_act="act go()\n{\n  start sfAvoidColision(1.0, 1.0, 8.0, 300.0) priority 0;\n  sfSetVelocit(100);\n}\n",
    )
    with silent_robot() as robot:
        result = saphira("run", good, broken, typo, "--robot", url(robot), timeout=60)
        assert not knocked(robot)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{broken}:4:1: " in result.stdout
    assert (
        f"{typo}:3:3: cannot start 'sfAvoidColision': there is no act or behavior of that name; "
        "did you mean 'sfAvoidCollision'?"
    ) in result.stdout
    assert f"{typo}:4:3: unknown function 'sfSetVelocit'; did you mean 'sfSetVelocity'" in result.stdout
    assert "3 errors in 2 of 3 files: nothing was run" in result.stdout
    assert "connecting" not in result.stdout and "connected" not in result.stdout


def test_run_on_the_embedded_simulator_attaches_it_only_once_everything_compiles(tmp_path: Path) -> None:
    (typo,) = files(tmp_path, typo_act="act go() { start sfStopp; }\nstart go();\n")
    result = saphira("run", typo, timeout=60)
    assert result.returncode == 2
    message = "cannot start 'sfStopp': there is no act or behavior of that name; did you mean 'sfStop'?"
    assert f"{typo}:1:12: {message}" in result.stdout
    assert "connected" not in result.stdout and "--- done" not in result.stdout


def test_check_and_run_resolve_names_against_every_file_and_plugin(tmp_path: Path) -> None:
    plugin, library, main = files(tmp_path, plugin_py=PLUGIN, library_act=LIBRARY, main_act=MAIN)
    result = saphira("check", plugin, library, GO_TO, main, timeout=60)
    assert result.returncode == 0, result.stdout
    assert result.stdout.endswith("0 errors in 4 files\n")
    run = saphira("run", plugin, library, GO_TO, main, "--duration", "2", timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "activity tour: SUCCESS" in run.stdout


def test_check_reports_every_error_of_an_act_and_the_starts_no_file_can_satisfy(tmp_path: Path) -> None:
    library, main = files(
        tmp_path,
        library_act=LIBRARY,
        main_act="act tour()\n{\n  lap(1);\n  laps = lapz;\n  start later(1, 2);\n  start lap(1) priority 2;\n"
        "  start nowhere;\n}\nact later(int n) { laps = n; }\n",
    )
    result = saphira("check", library, main, timeout=60)
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith(main)]
    assert lines == [
        f"{main}:3:3: 'lap' is an act, not a function; run it with 'start lap'",
        f"{main}:4:10: unknown name 'lapz'; did you mean 'laps'?",
        f"{main}:5:3: act 'later' takes 1 argument, 2 given",
        f"{main}:6:25: 'priority' applies only to behaviors; 'lap' is an act",
        f"{main}:7:3: cannot start 'nowhere': there is no act or behavior of that name",
    ]
    assert result.stdout.endswith("5 errors in 1 of 2 files\n")


def test_a_name_a_file_loaded_while_running_may_define_is_a_warning(tmp_path: Path) -> None:
    (main,) = files(tmp_path, main_act='act go()\n{\n  sfLoadEvalFile("more.act");\n  start fromMore;\n}\n')
    result = saphira("check", main, timeout=60)
    assert result.returncode == 0, result.stdout
    assert (
        f"warning: {main}:4:3: cannot start 'fromMore': there is no act or behavior of that name, unless a file "
        f"loaded while running defines it ({main}:3)"
    ) in result.stdout


def test_a_broken_brain_or_plugin_fails_the_run_before_the_robot_is_reached(tmp_path: Path) -> None:
    brain, plugin = files(
        tmp_path,
        brain_py="import saphira\n\n\ndef INIT(engine):\n    return (\n",
        plugin_py="def load_init(env):\n    env.add_constant('HALF', 'int', 1)\n    return 1 / 0\n",
    )
    with silent_robot() as robot:
        result = saphira("run", brain, plugin, "--robot", url(robot), timeout=60)
        assert not knocked(robot)
    assert result.returncode == 2
    assert f"{brain}:5:12: plugin failed to load: SyntaxError: '(' was never closed" in result.stdout
    assert f"{plugin}:3: plugin failed to load: ZeroDivisionError: division by zero" in result.stdout
    assert "2 errors in 2 files: only the plugins' load_init and load_exit ran" in result.stdout


def test_a_brain_is_imported_once_when_the_run_starts_it(tmp_path: Path) -> None:
    (brain,) = files(tmp_path, brain_py="import saphira.no_such_module\n\n\ndef INIT(engine):\n    return None\n")
    result = saphira("run", brain, "--duration", "1", timeout=60)
    assert result.returncode == 2
    assert result.stdout.count("No module named 'saphira.no_such_module'") == 1, result.stdout


COUNTING_PLUGIN = '''"""Counts its load_init and load_exit in a file beside it; registers a behavior the .act starts."""
from pathlib import Path

from saphira.behavior.library import predefined_behaviors

LOG = Path(__file__).with_name("ran.log")


def load_init(env):
    with LOG.open("a") as log:
        log.write("init " + Path(__file__).name + "\\n")
    env.add_behavior(Path(__file__).stem + "Stop", predefined_behaviors()["stop"])


def load_exit(env):
    with LOG.open("a") as log:
        log.write("exit " + Path(__file__).name + "\\n")
'''

COUNTING_BRAIN = '''"""A brain that does nothing but count how often its file is imported."""
from pathlib import Path

from saphira.brain import Brain

with Path(__file__).with_name("ran.log").open("a") as log:
    log.write("import brain.py\\n")


class Idle(Brain):
    def step(self):
        pass


def INIT(engine):
    return Idle("Idle", engine)
'''


def ran(tmp_path: Path) -> list[str]:
    log = tmp_path / "ran.log"
    return log.read_text().splitlines() if log.is_file() else []


def test_a_run_runs_each_plugin_s_load_init_and_each_brain_s_import_once(tmp_path: Path) -> None:
    first, brain, _second, main = files(
        tmp_path,
        first_py=COUNTING_PLUGIN,
        brain_py=COUNTING_BRAIN,
        second_py=COUNTING_PLUGIN,
        main_act=f'load "{tmp_path / "second.py"}";\n'
        "act go() { start firstStop noblock; start secondStop noblock; }\nstart go();\n",
    )
    result = saphira("run", first, brain, main, "--duration", "1", timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "activity go: " in result.stdout
    assert sorted(ran(tmp_path)) == ["import brain.py", "init first.py", "init second.py"]  # second: by main.act


RAISING_PLUGIN = (
    'from pathlib import Path\n\n\ndef load_init(env):\n    Path(__file__).with_name("ran.log")'
    '.open("a").write("init\\n")\n    env.robot.motion.set_velocity(400)\n    return 1 / 0\n'
)


def test_any_load_failure_stops_the_run_before_it_reaches_the_robot(tmp_path: Path) -> None:
    """A plugin whose load_init raises, a brain whose import raises, a .beh that does not load: each is an
    error at its file and line, exit status 2, and the robot (a real listening port) is never reached
    (issue 32, item 2)."""
    plugin, brain, beh, main = files(
        tmp_path,
        broken_py=RAISING_PLUGIN,
        brain_py="import saphira.no_such_module\n\n\ndef INIT(engine):\n    return None\n",
        broken_beh="BeginBehavior Broken\nParams\nRules\n  If too_close Then Speed 0.0\nUpdate\n"
        "  too_close = down_straight(sfNoSuchThing(), 300, 600);\nActivity\n  Speed too_close\nEndBehavior\n",
        main_act="act fine() { move(100); }\nstart fine();\n",
    )
    expected = {
        plugin: f"{plugin}:7: plugin failed to load: ZeroDivisionError: division by zero",
        brain: f"{brain}:1: brain failed to load: ModuleNotFoundError: No module named 'saphira.no_such_module'",
        beh: f"{beh}:6:29: unknown function 'sfNoSuchThing'",
    }
    with ThreadPoolExecutor(len(expected)) as pool:  # three runs at once: each waits for its interpreter
        runs = {broken: pool.submit(_run_against_a_silent_robot, broken, main) for broken in expected}
    for broken, says in expected.items():
        result, reached = runs[broken].result()
        assert not reached, f"{broken}: the robot was reached: {result.stdout}"
        assert result.returncode == 2, result.stdout + result.stderr
        assert says in result.stdout, result.stdout
        assert "1 error in 1 of 2 files: " in result.stdout, result.stdout
        assert "connecting" not in result.stdout and "--- " not in result.stdout, result.stdout
    assert ran(tmp_path) == ["init"]  # the plugin's load_init ran once, and nothing after it


def _run_against_a_silent_robot(*files: str) -> tuple[subprocess.CompletedProcess[str], bool]:
    """``saphira run FILES --robot`` a port that never accepts; what it did, and whether it knocked."""
    with silent_robot() as robot:
        result = saphira("run", *files, "--robot", url(robot), timeout=60)
        return result, knocked(robot)


def test_a_load_init_that_raises_never_attaches_the_embedded_simulator(tmp_path: Path) -> None:
    plugin, main = files(tmp_path, broken_py=RAISING_PLUGIN, main_act="act fine() { move(100); }\nstart fine();\n")
    result = saphira("run", plugin, main, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{plugin}:7: plugin failed to load: ZeroDivisionError: division by zero" in result.stdout
    assert "1 error in 1 of 2 files: only the plugins' load_init and load_exit ran" in result.stdout
    assert "connected" not in result.stdout and "travelled" not in result.stdout, result.stdout


def test_check_runs_a_plugin_s_load_init_and_load_exit_once(tmp_path: Path) -> None:
    (plugin,) = files(tmp_path, first_py=COUNTING_PLUGIN)
    result = saphira("check", plugin, timeout=60)
    assert result.returncode == 0, result.stdout
    assert "firstStop" in result.stdout
    assert ran(tmp_path) == ["init first.py", "exit first.py"]


def test_a_plugin_before_an_act_that_does_not_compile_runs_once_and_reaches_no_robot(tmp_path: Path) -> None:
    plugin, broken = files(tmp_path, first_py=COUNTING_PLUGIN, broken_act="act go() { start firstStopp; }\n")
    with silent_robot() as robot:
        result = saphira("run", plugin, broken, "--robot", url(robot), timeout=60)
        assert not knocked(robot)
    assert result.returncode == 2, result.stdout
    assert f"{broken}:1:12: cannot start 'firstStopp': there is no act or behavior of that name; did you mean " in (
        result.stdout
    )
    assert "1 error in 1 of 2 files: only the plugins' load_init and load_exit ran" in result.stdout
    assert ran(tmp_path) == ["init first.py", "exit first.py"]
