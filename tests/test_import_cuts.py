"""The layers of issue 25, as the source says them: who imports whom at run time (type-only imports aside).

Imports are read with ``ast`` so a lazy import inside a function counts as well; an import under
``if TYPE_CHECKING:`` does not (it never runs). Each test names a cut: a lower room that must not reach a
higher one, or one definition that must not be repeated.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

from saphira.behavior.executive import BehaviorTask
from saphira.brain import BrainTask
from saphira.colbert.runtime import Activity
from saphira.core.tasks import Task
from tests.sim_process import PROJECT

SAPHIRA = PROJECT / "saphira"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(path: Path, module: str) -> set[str]:
    """The modules ``path`` (module ``module``) imports when it runs (at import time or later), without
    type-only imports."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def _imports_under(package: str) -> dict[str, set[str]]:
    """Every module of ``package`` (a dotted name under saphira) and the saphira modules it imports."""
    folder = PROJECT.joinpath(*package.split("."))
    paths = sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]
    return {
        _module_name(p): {m for m in _runtime_imports(p, _module_name(p)) if m.startswith("saphira")} for p in paths
    }


def _reaching(package: str, *targets: str) -> list[str]:
    """``importer -> imported`` for every import from ``package`` into one of ``targets``."""
    return [
        f"{importer} -> {imported}"
        for importer, imported_set in _imports_under(package).items()
        for imported in sorted(imported_set)
        if any(imported == t or imported.startswith(t + ".") for t in targets)
    ]


def test_the_import_reader_sees_lazy_imports_and_skips_type_only_ones(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from saphira.robot import Robot\n"
        "def f() -> None:\n    from ..ui.snapshot import capture\n"
    )
    assert _runtime_imports(probe, "saphira.core.probe") == {"typing", "typing.TYPE_CHECKING", "saphira.ui.snapshot",
                                                            "saphira.ui.snapshot.capture"}  # fmt: skip


def test_recording_imports_nothing_of_the_live_view_or_the_commands() -> None:
    assert _reaching("saphira.record", "saphira.ui", "saphira.app") == []


def test_the_simulator_and_the_robot_session_are_independent_siblings() -> None:
    assert _reaching("saphira.sim", "saphira.robot") == []
    assert _reaching("saphira.robot", "saphira.sim") == []


def test_the_simulator_takes_the_sip_layout_from_the_protocol_not_from_the_client_link() -> None:
    from saphira.protocol.sip import PSOS_SUBCLASSES, SipLayout, layout_for
    from saphira.protocol.sync import RobotIdentity

    assert _reaching("saphira.sim", "saphira.client.link") == []
    assert "pion1m" in PSOS_SUBCLASSES
    psos = RobotIdentity("Pioneer", "Pioneer", "Pion1M")
    arcos = RobotIdentity("Pioneer", "Pioneer", "p3dx")
    assert (layout_for(psos), layout_for(arcos)) == (SipLayout.PSOS, SipLayout.ARCOS)


def test_a_task_says_its_kind_so_supervision_needs_no_knowledge_of_the_layers_above() -> None:
    from saphira.core.tasks import TaskKind

    assert Task.kind is TaskKind.TASK
    assert (BehaviorTask.kind, Activity.kind, BrainTask.kind) == (TaskKind.BEHAVIOR, TaskKind.ACTIVITY, TaskKind.BRAIN)
    from saphira.client.link import watch
    from saphira.core import parts

    above = ("saphira.colbert", "saphira.brain", "saphira.behavior", "saphira.app")
    assert _reaching(parts.__name__, *above) == []
    assert _reaching(watch.__name__, *above) == []
    assert not (SAPHIRA / "app" / "parts.py").exists() and not (SAPHIRA / "app" / "link_watch.py").exists()


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def test_the_float_array_alias_is_defined_once() -> None:
    from saphira.core.arrays import FloatArray

    defining = [
        _module_name(path)
        for folder in ("saphira", "behaviors", "pyrobot")
        for path in sorted((PROJECT / folder).rglob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(isinstance(t, ast.Name) and t.id == "FloatArray" for t in _targets(node))
    ]
    assert defining == ["saphira.core.arrays"]
    assert FloatArray == np.typing.NDArray[np.float64]


def test_the_live_view_imports_nothing_of_the_commands() -> None:
    assert _reaching("saphira.ui", "saphira.app") == []


def test_below_the_app_no_module_names_a_wire_protocols_package_even_for_typing() -> None:
    """Issue 25: nothing below ``app`` names ``flat`` or ``gamebots`` (the links come from the URL-scheme
    registry). The import-linter contract skips type-only imports; this reads the source for any mention."""
    protocols = re.compile(r"\bsaphira\.(flat|gamebots)\b|from saphira import (flat|gamebots)\b")
    naming = []
    for path in sorted(SAPHIRA.rglob("*.py")):
        package = path.relative_to(SAPHIRA).parts[0]
        if package in ("app", "flat", "gamebots"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")) and protocols.search(stripped):
                naming.append(f"{path.relative_to(SAPHIRA)}:{number}: {stripped}")
    assert naming == []


def test_colberts_parts_name_no_evaluator_not_even_for_types() -> None:
    """Issue 36: the bindings, the ``.beh`` compiler, the checker and the loader reach the session through
    what they are given (a BindingContext, an Environment, a Loader), so they sit below the evaluator in
    colbert's import contract, type-only imports (which lint-imports does not count) included."""
    naming = [
        f"{path.relative_to(SAPHIRA)}:{node.lineno}"
        for path in sorted((SAPHIRA / "colbert").rglob("*.py"))
        if path.name != "evaluator.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ImportFrom) and node.module == "saphira.colbert.evaluator"
    ]
    assert naming == []
