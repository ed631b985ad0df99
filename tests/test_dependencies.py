"""The declared dependencies match what the code imports.

A user installs ``saphira`` with its runtime dependencies only; what only the tests and benchmarks
use (scikit-fuzzy, the reference for defuzzification, and the packages it imports without declaring
them) belongs to the ``test`` extra. The imports are read from the source with ``ast``, so a lazily
imported package (``serial`` inside a function) counts as well.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.sim_process import PROJECT

PYPROJECT = tomllib.loads((PROJECT / "pyproject.toml").read_text())
PROJECT_TABLE = PYPROJECT["project"]


def dist_name(requirement: str) -> str:
    """``"scikit-fuzzy>=0.5.0"`` → ``"scikit-fuzzy"``, normalised as PEP 503 does."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name[0]).lower()


def imported_distributions(*folders: str) -> set[str]:
    """The third-party distributions every ``import`` under the folders resolves to."""
    paths = [path for folder in folders for path in (PROJECT / folder).rglob("*.py")]
    # the project's own packages, and its modules by name (bench_x imports bench_y)
    local = {"saphira", "pyrobot", "behaviors", "tests", "bench"} | {path.stem for path in paths}
    modules: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    modules -= set(sys.stdlib_module_names) | local
    by_module = packages_distributions()
    unknown = sorted(m for m in modules if m not in by_module)
    assert not unknown, f"imports no installed distribution provides: {unknown}"
    return {dist_name(d) for m in modules for d in by_module[m]}


def test_runtime_dependencies_are_exactly_what_the_runtime_imports() -> None:
    runtime = {dist_name(r) for r in PROJECT_TABLE["dependencies"]}
    extras = PROJECT_TABLE["optional-dependencies"]
    optional = {dist_name(r) for extra in ("plot", "foxglove", "ros2", "learn") for r in extras[extra]}
    used = imported_distributions("saphira", "pyrobot", "behaviors")
    assert used - optional == runtime, "runtime dependencies must be the packages saphira and behaviors/ import"
    assert optional <= used, "each optional extra is what a feature imports"
    assert {dist_name(r) for r in extras["foxglove"]} <= {dist_name(r) for r in extras["test"]}
    assert {dist_name(r) for r in extras["ros2"]} <= {dist_name(r) for r in extras["test"]}
    assert "scikit-fuzzy" not in runtime


def test_what_tests_and_benchmarks_import_is_in_the_test_extra() -> None:
    runtime = {dist_name(r) for r in PROJECT_TABLE["dependencies"]}
    test = {dist_name(r) for r in PROJECT_TABLE["optional-dependencies"]["test"]}
    used = imported_distributions("tests", "bench")
    assert "scikit-fuzzy" in used
    assert used <= runtime | test
    # scikit-fuzzy 0.5.0 declares none of the packages it imports; the test extra names them.
    assert {"scikit-fuzzy", "scipy", "networkx", "packaging"} <= test


def test_a_run_loads_neither_scikit_fuzzy_nor_what_only_it_needs() -> None:
    # numba imports scipy, when it is installed, to check its version; a runtime install has no scipy
    # (only the test extra brings it), so the run here has none either: it must not need it.
    code = (
        "import sys\n"
        "sys.modules['scipy'] = None\n"
        "from saphira.app.cli import main\n"
        "status = main(['run', 'colbert/demo.act', '--world', 'room', '--duration', '2', '-q'])\n"
        "print(sorted(m for m in ('skfuzzy', 'scipy', 'networkx', 'packaging') if sys.modules.get(m)))\n"
        "sys.exit(status)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_readme_lists_the_dependencies_and_the_test_extra() -> None:
    readme = (PROJECT / "README.md").read_text()
    section = re.search(r"^## Dependencies\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has a Dependencies section"
    text = section[1]
    for requirement in PROJECT_TABLE["dependencies"]:
        assert dist_name(requirement) in text.lower()
    for name in ("scikit-fuzzy", "scipy", "networkx", "packaging", "matplotlib"):
        assert name in text
