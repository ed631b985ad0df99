"""Names the manual writes that are not ordinary bindings: TRUE/FALSE, and the ones Colbert lacks on purpose."""

from __future__ import annotations

from pathlib import Path

from saphira.colbert.compile.manual_names import NOT_IN_COLBERT
from saphira.colbert.evaluator import Evaluator
from tests.test_cli import saphira


def prompt() -> tuple[Evaluator, list[str]]:
    lines: list[str] = []
    return Evaluator(output=lines.append, read_init=False), lines


def test_true_and_false_are_the_manuals_int_constants() -> None:
    ev, lines = prompt()
    assert ev.eval_text("TRUE"), lines
    assert ev.eval_text("FALSE"), lines
    assert ev.eval_text("int on; on = TRUE; if (on == TRUE && !FALSE) on = 7"), lines
    assert lines == ["1 (int)", "0 (int)"]
    assert ev.value("on") == 7
    assert ev.eval_text("sfSetDisplayState(1, TRUE)"), lines


def test_a_name_not_in_colbert_is_refused_with_what_to_use_instead() -> None:
    ev, lines = prompt()
    assert not ev.eval_text("sfPause(100)")
    assert lines[0].startswith("<prompt>:1:1: 'sfPause' is C's way to let the OS run and is not in Colbert;")
    assert "waitfor 0 timeout N;" in lines[0]
    assert "unknown function" not in lines[0]
    lines.clear()
    assert not ev.eval_text("act a { sfInitBehavior(1); }")
    assert "'sfInitBehavior' is Saphira 5.3 API, gone in 6.x; start a behavior with 'start NAME(args)" in lines[0]
    lines.clear()
    assert not ev.eval_text("int x; x = sbucket")
    assert "'sbucket' is a C array and Colbert has no arrays; read one sonar with sfSonarRange(i)" in lines[0]
    assert ev.help("sfPause").startswith("'sfPause' is C's way")


def test_every_replacement_the_table_names_exists() -> None:
    ev, _ = prompt()
    for reason in NOT_IN_COLBERT.values():
        for word in reason.replace("(", " ").replace("'", " ").replace(",", " ").split():
            if word.startswith("sf"):
                assert ev.symbols.lookup(word) is not None, word
    assert not set(NOT_IN_COLBERT) & set(ev.symbols.symbols)  # a bound name never hits the table


def test_check_reports_the_manual_name_with_file_line_and_column(tmp_path: Path) -> None:
    act = tmp_path / "pause.act"
    act.write_text("int t;\nt = TRUE + FALSE;\nact a\n{\n  sfPause(100);\n}\n")
    result = saphira("check", str(act))
    assert result.returncode == 1
    assert f"{act}:5:3: 'sfPause' is C's way to let the OS run and is not in Colbert" in result.stdout
    assert "1 error in 1 file" in result.stdout
