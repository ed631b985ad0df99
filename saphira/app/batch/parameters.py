"""An experiment's parameters against the names its activity declares, checked before the first trial.

Each trial sets a grid or sample key (:func:`saphira.app.batch.trial.assign_values`) on what
:func:`find_parameter` finds: a Colbert global ``key``, or ``key_`` when ``key`` is a Colbert keyword
(``speed`` is the ``speed`` statement, so the file declares ``float speed_;``), a linked variable that can
be set, or an attribute of a Python plugin the activity loads. :func:`check_parameters` compiles the
activity as ``saphira check`` does (a plugin's ``load_init`` runs, on a robot never connected) and refuses
an activity that does not compile, or a key that names none of these, with the closest names: the batch
stops at once (exit status 2) instead of starting every trial to fail each one.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from saphira.app.batch.experiment import Experiment, ExperimentError
from saphira.app.batch.inputs import recording_inputs
from saphira.colbert.checker import Checker
from saphira.colbert.compile.symbols import GlobalVariable, LinkedVariable
from saphira.colbert.evaluator import Evaluator
from saphira.core.suggest import did_you_mean

Parameter = GlobalVariable | LinkedVariable | ModuleType
"""Where a key's value goes: a Colbert global, a settable linked variable, or the plugin module holding it."""


def find_parameter(evaluator: Evaluator, key: str) -> Parameter | None:
    """What the key ``key`` sets in ``evaluator``'s environment (see the module docstring), or None."""
    for name in (key, key + "_"):
        symbol = evaluator.symbols.lookup(name)
        if isinstance(symbol, GlobalVariable) or (isinstance(symbol, LinkedVariable) and symbol.setter is not None):
            return symbol
    return next((module for module in evaluator.plugins.values() if hasattr(module, key)), None)


def undeclared(key: str, filename: str) -> str:
    """The reason a key that :func:`find_parameter` does not find is refused."""
    return (f"{Path(filename).name} declares no global {key!r} (nor {key + '_'!r}, the name to use when "
            f"{key!r} is a Colbert keyword)")  # fmt: skip


def _known_keys(evaluator: Evaluator) -> set[str]:
    """The keys an experiment could give: the globals (``speed`` for ``speed_``) and the plugins' values."""
    keys: set[str] = set()
    for name, symbol in evaluator.symbols.symbols.items():
        if isinstance(symbol, GlobalVariable) or (isinstance(symbol, LinkedVariable) and symbol.setter is not None):
            keys.add(name[:-1] if name.endswith("_") and len(name) > 1 else name)
    for module in evaluator.plugins.values():
        keys.update(n for n, v in vars(module).items() if not n.startswith("_") and not callable(v)
                    and not isinstance(v, ModuleType))  # fmt: skip
    return keys


def check_parameters(exp: Experiment) -> None:
    """Raise :class:`ExperimentError` when the activity does not compile or a parameter key names nothing in it."""
    from saphira.robot import Robot

    activity = exp.activity
    evaluator = Evaluator(Robot(), output=lambda line: None, read_init=False, load_directory=activity.parent)
    checker = Checker(evaluator.loader)
    # The modules the plugins import stay imported in this process, as a trial's would: listed as they
    # are for the trials run here after it (a trial forked from here never imports them itself).
    with recording_inputs():
        errors = [*checker.check_path(activity), *checker.resolve_starts()]
    try:
        if errors:
            shown = "\n".join(error.pretty() for error in checker.in_order(errors))
            raise ExperimentError(f"{exp.path}: [run] activity: {activity.name} does not compile; no trial was "
                                  f"run:\n{shown}")  # fmt: skip
        for key in exp.parameter_names:
            if find_parameter(evaluator, key) is None:
                section = "grid" if key in exp.grid else "sample"
                where = f"{exp.path}:{line}" if (line := _key_line(exp.path, section, key)) else str(exp.path)
                raise ExperimentError(f"{where}: [{section}] {key}: {undeclared(key, str(activity))}"
                                      f"{did_you_mean(key, _known_keys(evaluator))}")  # fmt: skip
    finally:
        checker.close()  # the plugins' load_exit


def _key_line(path: Path, section: str, key: str) -> int | None:
    """The line of ``key = ...`` in the table ``[section]`` of the TOML file at ``path`` (None if not found)."""
    table = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        header = re.match(r"\s*\[\s*([^\]\s]+)\s*\]", line)
        if header is not None:
            table = header[1]
        elif table == section and re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
            return number
    return None
