"""The project's own documentation: docs/colbert.md documents every binding, its examples run, and the
shell's ``help`` answers from it (statements included)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from saphira.app.shell import Shell
from saphira.behavior.library import SAPHIRA_NAMES, predefined_behaviors
from saphira.colbert.compile.symbols import BEHAVIOR, Constant, Function
from saphira.colbert.evaluator import Evaluator
from saphira.colbert.reference import load_reference, parse_reference, reference_path
from saphira.core.tasks import TaskState
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from tests.sim_process import PROJECT, Program

DOC = PROJECT / "docs" / "colbert.md"
_BLOCK_RE = re.compile(r"^```colbert\n(.*?)^```\n(?:\n```output\n(.*?)^```\n)?", re.M | re.S)
EXAMPLES = [(m.group(1), m.group(2)) for m in _BLOCK_RE.finditer(DOC.read_text(encoding="utf-8"))]


def bound_names() -> list[str]:
    """Every name the binding table registers: functions, variables, constants, behaviors, structs."""
    ev = Evaluator(read_init=False)
    return sorted([*ev.symbols.symbols, *ev.symbols.structs])


def test_the_reference_is_the_checkout_doc_and_ships_in_the_wheel() -> None:
    assert reference_path().resolve() == DOC.resolve()
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]["docs"] == "saphira/_data/docs"


def test_every_binding_in_the_table_is_documented() -> None:
    reference = load_reference()
    missing = [name for name in bound_names() if not reference.documents(name)]
    assert not missing, f"not documented in docs/colbert.md: {missing}"


def test_documented_function_headings_match_the_real_signatures() -> None:
    reference = load_reference()
    ev = Evaluator(read_init=False)
    for name, sym in ev.symbols.symbols.items():
        if not isinstance(sym, Function):
            continue
        heading = reference.lookup(name)[0].heading_for(name)
        m = re.fullmatch(rf"{name}\((.*)\) → (.+)", heading)
        assert m, f"{name}: heading {heading!r} is not 'name(args) → type'"
        args = [a.strip() for a in m[1].split(",") if a.strip()]
        varargs = bool(args) and args[-1] == "..."
        fixed = [a for a in args if a != "..."]
        assert (len(fixed), varargs) == (len(sym.arg_types), sym.varargs), f"{name}: {heading} vs {sym.signature()}"
        types = [re.sub(r"\w+$", "", a).replace(" ", "") for a in fixed]
        assert types == [str(t).replace(" ", "") for t in sym.arg_types], f"{name}: {heading} vs {sym.signature()}"
        assert m[2].replace(" ", "") == str(sym.return_type).replace(" ", ""), f"{name}: {heading}"


def test_documented_behaviors_list_their_real_parameters() -> None:
    reference = load_reference()
    defined = predefined_behaviors()
    for manual_name, name in SAPHIRA_NAMES.items():
        heading = reference.lookup(manual_name)[0].heading_for(manual_name)
        params = [p.strip().rsplit(" ", 1)[-1].lstrip("*") for p in heading[heading.index("(") + 1 : -1].split(",")]
        assert [p for p in params if p] == [spec.name for spec in defined[name].params], heading


def test_reference_entries_parse_as_documented() -> None:
    text = (
        "## Things\n"
        "- `a(int x) → int` — first line\n"
        "  goes on.\n"
        "- `b`, `c` — shared.\n"
        "- `fam<NAME>` — a family.\n"
        "```colbert\n- `d` — inside a fence: not an entry\n```\n"
    )
    ref = parse_reference(text)
    assert ref.lookup("a")[0].text == "first line goes on."
    assert ref.lookup("c")[0].names == ("b", "c") and ref.lookup("c")[0].section == "Things"
    assert ref.lookup("famX")[0].text == "a family." and not ref.lookup("fam") and not ref.lookup("d")


@pytest.mark.parametrize("source", [src for src, _ in EXAMPLES], ids=[f"block{i}" for i in range(len(EXAMPLES))])
def test_every_example_compiles(source: str) -> None:
    ev = Evaluator(read_init=False)
    assert ev.check_text(source, "docs/colbert.md") == []


RUNNABLE = [(src, out) for src, out in EXAMPLES if out is not None]


@pytest.mark.parametrize("source, expected", RUNNABLE, ids=[f"run{i}" for i in range(len(RUNNABLE))])
def test_examples_with_output_print_it_against_the_simulator(source: str, expected: str) -> None:
    robot = Robot()  # lock-step clock
    attach_simulator(robot, "room", "p3dx", seed=1)
    lines: list[str] = []
    ev = Evaluator(robot, output=lines.append, read_init=False)
    assert ev.eval_text(source, "docs/colbert.md", interactive=False), lines
    wanted = expected.strip().splitlines()

    def printed_all() -> bool:
        it = iter(lines)
        return all(any(w == line for line in it) for w in wanted)

    assert robot.run_until(printed_all, max_cycles=600), f"expected {wanted}, printed {lines}"
    assert not [line for line in lines if "error" in line.lower()], lines


def scripted_shell(*lines: str) -> tuple[Shell, list[str]]:
    out: list[str] = []
    ev = Evaluator(output=out.append, read_init=False)
    feed = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return Shell(ev, read), out


def test_help_on_statements_and_bindings_comes_from_the_reference() -> None:
    shell, out = scripted_shell("help move", "help turnto", "help sfSetVelocity", "help sfGoToPos", "help sfCOMVEL")
    assert shell.loop() == 0
    text = "\n".join(out)
    assert "move(mm) [timeout n] [noblock];: drive `mm` millimetres forward" in text
    assert "sfRemoveTask" not in text  # `help move` used to list the names containing "move"
    assert "turnto(deg) [timeout n] [noblock];: turn to the absolute heading" in text
    assert "sfSetVelocity(int mms) → void: set the translational velocity setpoint" in text
    assert "sfGoToPos(float speed, point *goal, float radius): move to `goal`" in text
    assert "const int sfCOMVEL = 11: client command VEL (11)" in text


def test_help_on_every_binding_shows_documented_text() -> None:
    ev = Evaluator(read_init=False)
    reference = load_reference()
    for name in bound_names():
        if name in ev.symbols.structs:
            continue
        answer = ev.help(name)
        assert reference.lookup(name)[0].text.split(" ")[0] in answer, (name, answer)
        sym = ev.symbols.lookup(name)
        if isinstance(sym, Constant) and sym.type != BEHAVIOR:
            assert answer.startswith(f"const {sym.type} {name}"), answer


def test_a_plugin_name_without_reference_entry_keeps_its_registered_help() -> None:
    ev = Evaluator(read_init=False)
    ev.add_function("myThing", lambda: 1, "int", [], help="returns one")
    assert ev.help("myThing") == "int myThing(): returns one"


def test_quit_leaves_the_shell_like_exit_and_stays_a_legal_name() -> None:
    shell, out = scripted_shell("int quit;", "quit = 3;", "quit + 1", "quit;", "6 * 7")
    assert shell.loop() == 0
    assert shell.evaluator.exit_requested
    assert "4 (int)" in out and "42 (int)" not in out  # nothing after quit ran
    assert not [line for line in out if "unknown" in line]


def test_saphira_shell_answers_help_and_quits() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "saphira", "shell", "--no-sim"], cwd=PROJECT, input="help turnto\nquit\n6 * 7\n",
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "turnto(deg) [timeout n] [noblock];" in result.stdout
    assert "42 (int)" not in result.stdout and "unknown name" not in result.stdout


def test_architecture_doc_exists_and_is_cited_instead_of_the_spec() -> None:
    """Citations must point inside the project: a clone has docs/, not the spec's reference files."""
    assert (PROJECT / "docs" / "architecture.md").is_file()
    assert (PROJECT / "docs" / "protocol.md").is_file()
    citing = [
        f"{path.relative_to(PROJECT)}:{n}"
        for folder in ("saphira", "pyrobot", "behaviors", "bench", "tests")
        for path in sorted((PROJECT / folder).rglob("*"))
        if path.suffix in (".py", ".lark", ".beh") and path.name != Path(__file__).name
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"ARCHITECTURE\.md|ARCHITECTURE §|\bdigest §|pioneer-protocol\.md|protocol reference", line)
    ]
    assert not citing, f"cite docs/architecture.md, docs/colbert.md or docs/protocol.md instead: {citing}"


def test_the_architecture_docs_worked_blending_example_holds() -> None:
    from saphira.behavior.blend import BehaviorOutput, FiredRule, blend, turn_left, turn_right

    goal = BehaviorOutput("goal", 1, 1.0, 0.0, [FiredRule(1.0, turn_right(10))])
    weak = BehaviorOutput("avoid", 0, 0.6, 0.0, [FiredRule(0.5, turn_left(30))])
    full = BehaviorOutput("avoid", 0, 1.0, 0.0, [FiredRule(1.0, turn_left(30))])
    assert blend([weak, goal]).turn == pytest.approx(14.0)
    assert blend([full, goal]).turn == pytest.approx(30.0)
    text = (PROJECT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "= +14°" in text and "turn +30°" in text


def test_the_behavior_file_example_compiles() -> None:
    from saphira.colbert.beh.compiler import check_behavior_text

    blocks = re.findall(r"^```beh\n(.*?)^```\n", DOC.read_text(encoding="utf-8"), re.M | re.S)
    assert blocks
    for block in blocks:
        assert check_behavior_text(block, "docs/colbert.md", Evaluator(read_init=False)) == []


def test_the_motion_tolerances_documented_are_the_runtimes() -> None:
    runtime = Evaluator(read_init=False).runtime
    colbert = DOC.read_text(encoding="utf-8")
    architecture = (PROJECT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"the distance left is within {runtime.move_tolerance:g} mm" in colbert
    assert colbert.count(f"Done within {runtime.turn_tolerance:g} degrees") == 2
    assert f"within {runtime.move_tolerance:g} mm (move) or {runtime.turn_tolerance:g}° (turn, turnto)" in architecture


# --------------------------------------------------------------------------- the API reference's examples
def docstring_blocks() -> dict[str, str]:
    """Every literal block (``::`` then an indented block) in the docstrings of what the API reference
    documents (docs/api.py's modules and their submodules), keyed ``module:n``."""
    import ast
    import importlib
    import pkgutil
    import runpy
    import textwrap

    modules: tuple[str, ...] = runpy.run_path(str(PROJECT / "docs" / "api.py"))["MODULES"]  # not as __main__
    names: list[str] = []
    for top in modules:
        module = importlib.import_module(top)
        names.append(top)
        if hasattr(module, "__path__"):
            names += [info.name for info in pkgutil.walk_packages(module.__path__, f"{top}.")]
    blocks: dict[str, str] = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        docs = [ast.get_docstring(node, clean=True) for node in ast.walk(tree) if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]  # fmt: skip
        found = [
            textwrap.dedent(m[1]) for doc in docs if doc for m in re.finditer(r"::\n\n((?:(?: {4}.*)?\n)+)", doc + "\n")
        ]
        blocks.update({f"{name}:{n}": block for n, block in enumerate(found)})
    return blocks


NOTATION = {
    "saphira.perception.mapfile:0": "the map file grammar (keywords and fields), not a file",
}
"""Literal blocks that show a notation rather than something to run, and why."""


def _run_robot_example(block: str, tmp_path: Path) -> None:
    """The typical use: against ``saphira sim`` as it says (its URL pointed at this test's simulator)."""
    import contextlib
    import io

    program = Program("--port", "0")
    try:
        code = block.replace("tcp://127.0.0.1:8101", f"tcp://{program.addresses[0]}")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "saphira/robot.py", "exec"), {"Robot": Robot})
    finally:
        program.stop()
    ahead = re.fullmatch(r"(-?\d+) mm ahead\n", out.getvalue())
    assert ahead and int(ahead[1]) > 300, out.getvalue()  # 300 mm/s for 2 s, accelerating from rest


def _run_behavior_example(block: str, tmp_path: Path) -> None:
    """The behavior-definition fragment, with the names it uses imported, drives to a goal 1.5 m ahead."""
    import saphira.behavior.behavior as api
    from saphira.behavior import fuzzy
    from saphira.client.artifacts import Point, create_global_point
    from saphira.core import geometry

    names = {**vars(api), **vars(fuzzy), **vars(geometry), "Point": Point}
    namespace = {k: v for k, v in names.items() if not k.startswith("_") and k != "annotations"}
    code = "from dataclasses import dataclass\nfrom typing import Annotated\n" + block
    exec(compile(code, "behavior.py", "exec", dont_inherit=True), namespace)  # annotations evaluated as written
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx", odometry_error=False)
    x, y, _ = sim.true_pose
    goal = create_global_point(robot.state.global_pose, x + 1500, y)
    task = robot.start_behavior(namespace["my_goto"], goal=goal)
    assert robot.run_until(lambda: task.finished, max_cycles=300)
    assert abs(sim.true_pose.x - (x + 1500)) < 250 and task.state == TaskState.SUCCESS


def _run_brain_example(block: str, tmp_path: Path) -> None:
    """The brain file runs as ``saphira run`` runs it: stepped on the simulator, it wanders off."""
    from saphira.brain import load_brain

    (tmp_path / "wander.py").write_text(block)
    robot = Robot()
    sim = attach_simulator(robot, "room", "p3dx")
    start = sim.true_pose
    task = load_brain(tmp_path / "wander.py", robot)
    robot.run(seconds=10.0)
    assert not task.finished and abs(sim.true_pose.x - start.x) + abs(sim.true_pose.y - start.y) > 500


def _run_experiment_example(block: str, tmp_path: Path) -> None:
    """The experiment file loads, with the files it names beside it."""
    from saphira.app.batch.experiment import load_experiment

    (tmp_path / "batch_wander.act").write_text((PROJECT / "experiments" / "wander" / "batch_wander.act").read_text())
    (tmp_path / "metrics.py").write_text("def collect(trial):\n    return {'mean_speed': 1.0}\n")
    (tmp_path / "exp.toml").write_text(block)
    experiment = load_experiment(tmp_path / "exp.toml")
    assert len(experiment.trials()) == 3 * 2 * 8  # seeds x grid x samples


def _run_tune_example(block: str, tmp_path: Path) -> None:
    """The [tune] section, under the shipped avoid-tuning run, loads and names the activity's globals."""
    from saphira.app.batch.tune import check_space, load_tune

    activity = PROJECT / "experiments" / "avoid_tuning" / "avoid_wander.act"
    run = f'[run]\nactivity = "{activity}"\nworld = "room"\nduration = 10\nseeds = [0, 1]\n'
    (tmp_path / "tune.toml").write_text(run + block)
    exp, spec = load_tune(tmp_path / "tune.toml")
    check_space(exp, spec)
    assert (spec.trials, spec.held_out, sorted(spec.space)) == (20, [100, 101, 102], ["front", "standoff"])


def _run_multi_wander_example(block: str, tmp_path: Path) -> None:
    """PettingZoo's import idiom gives the parallel environment of three robots."""
    namespace: dict[str, object] = {}
    exec(compile(block, "multi_wander_v0.py", "exec"), namespace)
    env = namespace["env"]
    assert getattr(env, "possible_agents", None) == ["robot_0", "robot_1", "robot_2"]


RUNNERS = {
    "saphira.robot:0": _run_robot_example,
    "saphira.app.batch.tune:0": _run_tune_example,
    "saphira.learn.multi_wander_v0:0": _run_multi_wander_example,
    "saphira.behavior.behavior:0": _run_behavior_example,
    "saphira.brain:0": _run_brain_example,
    "saphira.app.batch.experiment:0": _run_experiment_example,
}


def test_every_docstring_example_of_the_api_reference_is_run_or_a_named_notation() -> None:
    assert sorted(docstring_blocks()) == sorted([*RUNNERS, *NOTATION])


@pytest.mark.parametrize("key", sorted(RUNNERS))
def test_docstring_example_runs(key: str, tmp_path: Path) -> None:
    RUNNERS[key](docstring_blocks()[key], tmp_path)


# --------------------------------------------------------------------------- docs/python.md, the tutorial
TUTORIAL = PROJECT / "docs" / "python.md"
TUTORIAL_BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```\n", TUTORIAL.read_text(encoding="utf-8"), re.M | re.S)
TUTORIAL_CHECKS = [
    r"battery 1\d\.\d V, moving at [1-9]\d* mm/s\n",  # connect and drive, over TCP
    r"odometry says x = 2[2-4]\d\d mm, the simulator says 2[2-4]\d\d mm\n",  # 3 s at 300 mm/s from x 1500
    r"sonar ranges: \[(\d+, ){15}\d+\]\nnearest thing ahead: 2[01]\d\d mm\n",  # the box 2200 mm ahead
    r"stopped ([5-9]\d\d|1[01]\d\d) mm from the box\n",  # stop_at 500 mm from the sonars, 250 mm ahead
    r"wall contacts: 0, heading now -?\d+ degrees\n",  # blended: the avoider turned it away
]


def test_the_tutorials_install_is_the_readmes_quick_start_that_ci_runs() -> None:
    install = [body.strip() for lang, body in TUTORIAL_BLOCKS if lang == "sh" and "pip install" in body]
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert install and f"\n{install[0]} && .venv/bin/saphira run colbert/demo.act" in readme


def test_the_tutorials_code_runs_against_saphira_sim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files named in a block's first line are written; every Python block runs as a program (the
    TCP one against a ``saphira sim`` of its own) and prints what it says; the ``saphira run`` line runs."""
    import contextlib
    import io

    for _lang, body in TUTORIAL_BLOCKS:
        named = re.match(r"(?:# |/\* )(\w+\.(?:py|act))", body)
        if named:
            (tmp_path / named[1]).write_text(body)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    program = Program("--port", "0")
    try:
        printed = []
        for body in (body for lang, body in TUTORIAL_BLOCKS if lang == "python"):
            code = body.replace("tcp://127.0.0.1:8101", f"tcp://{program.addresses[0]}")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, str(TUTORIAL), "exec", dont_inherit=True), {"__name__": "__main__"})
            printed.append(out.getvalue())
    finally:
        program.stop()
        sys.modules.pop("approach", None)
    assert len(printed) == len(TUTORIAL_CHECKS)
    for check, out in zip(TUTORIAL_CHECKS, printed, strict=True):
        assert re.fullmatch(check, out), (check, out)
    [command] = [body.strip() for lang, body in TUTORIAL_BLOCKS if lang == "sh" and "saphira run" in body]
    done = subprocess.run([sys.executable, "-m", *shlex.split(command)], capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    x = re.search(r"true pose \(simulator\): \((\d+), ", done.stdout)
    assert x and 2600 < int(x[1]) < 3300, done.stdout  # stopped short of the box's face at x 3700
