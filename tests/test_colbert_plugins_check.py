"""Python plugins as ``saphira check`` and ``load`` meet them: checked by running load_init, quoted or bare names."""

from __future__ import annotations

from pathlib import Path

from saphira.colbert.evaluator import Evaluator
from tests.test_cli import saphira

HELPERS = '''"""A plugin: one function, one constant."""


def twice(x: int) -> int:
    return 2 * x


def load_init(env):
    env.add_function("twice", twice, "int", ["int"], help="twice x")
    env.add_constant("ANSWER", "int", 42)
'''

USES_HELPERS = "int y;\ny = twice(ANSWER);\n"


def test_check_runs_a_plugins_load_init_and_lists_what_it_registers(tmp_path: Path) -> None:
    plugin = tmp_path / "helpers.py"
    plugin.write_text(HELPERS)
    user = tmp_path / "user.act"
    user.write_text(USES_HELPERS)
    result = saphira("check", str(plugin), str(user))
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines() == [
        f"{plugin}: plugin registers 2 names:",
        "    ANSWER: a constant of type int",
        "    twice: a function (int twice(int))",
        "0 errors in 2 files",
    ]


def test_check_reports_a_broken_plugin_at_its_file_and_line(tmp_path: Path) -> None:
    raises = tmp_path / "raises.py"
    raises.write_text("def load_init(env):\n    env.add_constant('HALF', 'int', 1)\n    return 1 / 0\n")
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def load_init(env)\n    pass\n")
    result = saphira("check", str(raises), str(syntax))
    assert result.returncode == 1
    expected = f"{raises}:3: plugin failed to load: ZeroDivisionError: division by zero\n        return 1 / 0\n"
    assert expected in result.stdout
    assert f"{syntax}:1:19: plugin failed to load: SyntaxError: expected ':'" in result.stdout
    assert "2 errors in 2 files" in result.stdout


def test_a_broken_plugin_leaves_nothing_registered(tmp_path: Path) -> None:
    (tmp_path / "raises.py").write_text("def load_init(env):\n    env.add_constant('HALF', 'int', 1)\n    1 / 0\n")
    lines: list[str] = []
    ev = Evaluator(output=lines.append, read_init=False, load_directory=tmp_path)
    assert not ev.load("raises.py")
    assert ev.symbols.lookup("HALF") is None and not ev.plugins


def test_load_accepts_a_quoted_file_name_as_the_bare_one(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    for spelling in ('"helpers.py"', "helpers.py", "'helpers.py'"):
        act = tmp_path / "user.act"
        act.write_text(f"load {spelling}\n{USES_HELPERS}")
        lines: list[str] = []
        ev = Evaluator(output=lines.append, read_init=False, load_directory=tmp_path)
        assert ev.load(act), (spelling, lines)
        assert ev.value("y") == 84
        assert ev.check_text(act.read_text(), str(act)) == []


def test_an_unclosed_quote_in_a_file_name_is_a_syntax_error(tmp_path: Path) -> None:
    lines: list[str] = []
    ev = Evaluator(output=lines.append, read_init=False, load_directory=tmp_path)
    assert not ev.eval_text('load "helpers.py\n', "q.act", interactive=False)
    assert lines[0] == "q.act:1:6: 'load': the file name \"helpers.py has no closing quote"


def test_saphira_run_with_a_quoted_plugin_load(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    act = tmp_path / "user.act"
    act.write_text(f'load "{tmp_path / "helpers.py"}"\n' + USES_HELPERS + 'sfMessage("y is fine");\n')
    result = saphira("run", str(act), timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "y is fine" in result.stdout
