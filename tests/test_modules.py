"""saphira.core.modules.fresh_module: the one way user Python files (behaviors, brains, plugins, hooks) are executed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from saphira.behavior.library import load_behavior_file
from saphira.core.errors import SourceError
from saphira.core.modules import NotAModule, fresh_module


def test_a_file_defining_a_dataclass_loads_and_stays_registered_under_its_name(tmp_path: Path) -> None:
    path = tmp_path / "params.py"
    path.write_text("from dataclasses import dataclass\n\n@dataclass\nclass Gains:\n    k: float = 1.5\n")
    with fresh_module(path, "saphira_test_params") as module:
        assert module.Gains().k == 1.5
    assert sys.modules.pop("saphira_test_params") is module


def test_a_failure_after_loading_undoes_the_registration_and_puts_back_the_previous_module(tmp_path: Path) -> None:
    path = tmp_path / "plugin.py"
    path.write_text("VALUE = 2\n")
    previous = type(sys)("saphira_test_plugin")
    sys.modules["saphira_test_plugin"] = previous
    try:
        with pytest.raises(KeyError), fresh_module(path, "saphira_test_plugin") as module:
            assert module.VALUE == 2
            raise KeyError("load_init failed")
        assert sys.modules["saphira_test_plugin"] is previous
    finally:
        sys.modules.pop("saphira_test_plugin", None)


def test_a_file_that_raises_while_executing_is_not_left_registered(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("x = 1 / 0\n")
    with pytest.raises(ZeroDivisionError), fresh_module(path, "saphira_test_broken"):
        pass
    assert "saphira_test_broken" not in sys.modules


def test_a_file_python_cannot_load_is_not_a_module(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("VALUE = 1\n")
    with pytest.raises(NotAModule, match=r"notes\.txt is not a Python module"), fresh_module(path, "saphira_test_txt"):
        pass


def test_a_behavior_file_whose_own_import_fails_reports_that_import_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "behaviors.py"
    path.write_text("'''Behaviors.'''\n\nimport saphira_no_such_module\n")
    with pytest.raises(SourceError) as caught:
        load_behavior_file(path)
    message = str(caught.value)
    assert "behaviors.py:3" in message and "ModuleNotFoundError" in message and "saphira_no_such_module" in message
