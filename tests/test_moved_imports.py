"""The import paths of saphira 0.1 keep working after the layout moved them (issue 37).

Every old module of the table (saphira/_moved.py, README's "Moved in 0.2", CHANGELOG.md) imports,
is the new module itself (the same objects), and warns with a DeprecationWarning that names the new
path and the importing line. Before, ``from saphira.tasks import Task`` was a ModuleNotFoundError.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from saphira._moved import MOVED, STANDING
from saphira.app.cli import main

OLD_MODULES = sorted(old for old in MOVED if old not in STANDING)


def _fresh_import(name: str) -> object:
    sys.modules.pop(name, None)
    return importlib.import_module(name)


@pytest.mark.parametrize("old", OLD_MODULES)
def test_an_old_module_path_is_the_new_module_with_a_warning(old: str) -> None:
    new = f"saphira.{MOVED[old]}"
    with pytest.warns(DeprecationWarning, match=rf"saphira\.{old} moved to {new} in saphira 0\.2") as caught:
        module = _fresh_import(f"saphira.{old}")
    assert module is importlib.import_module(new)
    assert module.__spec__ is not None and module.__spec__.name == new  # the new module is left as it was
    assert any(w.filename == __file__ for w in caught)  # the warning names the importing line


@pytest.mark.parametrize("old", STANDING)
def test_an_old_module_that_is_now_a_package_still_gives_its_names(old: str) -> None:
    package = importlib.import_module(f"saphira.{old}")
    new = importlib.import_module(f"saphira.{MOVED[old]}")
    names = [
        name
        for name, value in vars(new).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == new.__name__
    ]
    assert names
    for name in names:
        with pytest.warns(DeprecationWarning, match=rf"saphira\.{old}\.{name} moved to {new.__name__}\.{name}"):
            assert getattr(package, name) is getattr(new, name)
    with pytest.raises(AttributeError):
        _ = package.no_such_name  # type: ignore[attr-defined]


def test_the_names_plugins_import_work_and_submodules_stay_single() -> None:
    with pytest.warns(DeprecationWarning):
        from saphira.batch.trial import run_trial as old_run_trial  # type: ignore[import-not-found]
        from saphira.tasks import Task, TaskState  # type: ignore[import-not-found]

        from saphira.params import load_params  # type: ignore[attr-defined]
    from saphira.app.batch.trial import run_trial
    from saphira.core.tasks import Task as NewTask
    from saphira.params.robot_params import load_params as new_load_params

    assert Task is NewTask and TaskState.SUSPEND == 4
    assert old_run_trial is run_trial and load_params is new_load_params
    assert sys.modules["saphira.batch.trial"] is sys.modules["saphira.app.batch.trial"]
    from saphira.app import batch  # a submodule of a standing package is the submodule, not an old name

    assert inspect.ismodule(batch) and batch.__name__ == "saphira.app.batch"


def test_no_old_path_hides_a_module_that_exists() -> None:
    """The finder comes first on sys.meta_path: an old name must never shadow a real module."""
    for old in OLD_MODULES:
        parent = f"saphira.{old}".rpartition(".")[0]
        try:
            search = importlib.import_module(parent).__path__
        except (ImportError, AttributeError):
            continue
        assert importlib.machinery.PathFinder.find_spec(f"saphira.{old}", search) is None, old


def test_a_plugin_of_0_1_checks_and_is_told_where_its_imports_went(tmp_path: Path) -> None:
    plugin = tmp_path / "old_plugin.py"
    plugin.write_text(
        textwrap.dedent("""\
        from saphira.tasks import TaskState
        from saphira.geometry import Pose


        def load_init(env):
            env.output(f"pose {Pose(1.0, 2.0, 3.0).x:g} state {int(TaskState.SUSPEND)}")
        """),
        encoding="utf-8",
    )
    for old in ("saphira.tasks", "saphira.geometry"):
        sys.modules.pop(old, None)  # as in a fresh interpreter, where the first import warns
    with pytest.warns(DeprecationWarning) as caught:
        status = main(["check", str(plugin)])
    assert status == 0
    places = {(w.filename, w.lineno, str(w.message).split(" in saphira")[0]) for w in caught}
    assert (str(plugin), 1, "saphira.tasks moved to saphira.core.tasks") in places
    assert (str(plugin), 2, "saphira.geometry moved to saphira.core.geometry") in places


def test_the_changelog_lists_every_move() -> None:
    changelog = (Path(__file__).resolve().parent.parent / "CHANGELOG.md").read_text(encoding="utf-8")
    for old, new in MOVED.items():
        assert f"| `saphira.{old}` | `saphira.{new}`" in changelog, old


def test_the_compilers_former_re_exports_import_from_it_with_a_warning() -> None:
    """``saphira.colbert.compile.compiler`` holds only ``Compiler`` now (issue 36); what it re-exported
    still imports from it, naming the module that defines each name."""
    from saphira._moved import MOVED_NAMES
    from saphira.colbert.compile import codegen, compiler, symbols

    assert compiler.__all__ == ["Compiler"]
    for name, where in MOVED_NAMES["colbert.compile.compiler"].items():
        if name in vars(compiler):  # one the compiler itself uses: its own import, the same object
            assert vars(compiler)[name] is getattr(symbols if where.endswith("symbols") else codegen, name)
            continue
        with pytest.warns(DeprecationWarning, match=rf"compiler\.{name} moved to saphira\.{where}\.{name}") as caught:
            value = getattr(compiler, name)
        assert value is getattr(symbols if where.endswith("symbols") else codegen, name)
        assert caught[0].filename == __file__
    with pytest.raises(AttributeError):
        _ = compiler.no_such_name  # type: ignore[attr-defined]
