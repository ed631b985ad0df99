"""Hostile ``.act`` and ``.beh`` files end in a located error, quickly and in bounded memory (issue 37, N11).

The review's cases, through the CLI (``saphira check`` and ``saphira run``): a float literal that is
not a double, an integer of 5,000 digits, 20,000 nested blocks, 5,000 nested ``if``, a sum of
10,000 terms (all far past the interpreter's 1,000 frames), a 2,000-deep ``Not`` in a rule, a huge
``printf`` width, files larger than the limit.
Before the bounds each was a traceback (``OverflowError``, ``ValueError``, ``RecursionError``), a
``MemoryError`` after gigabytes, or minutes of work. The seeded fuzz test (tests/test_fuzz_readers.py)
mutates a valid file of each kind on top of these.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from saphira.app.cli import main
from saphira.colbert.syntax.limits import MAX_FORMAT_WIDTH, MAX_INT_DIGITS, MAX_NESTING, MAX_SOURCE_BYTES

BEHAVIOR = """\
BeginBehavior cruise
Params
  sfFLOAT velocity
Rules
  "Cruise" If CONDITION Then Speed VALUE
Init
Update
Activity
  Speed 1.0
EndBehavior
"""

CASES = {
    "float-overflow": ("int x;\nx = 1e309;\n", 2, 5, "1e309 is too large for a float"),
    "float-overflow-f": ("float x;\nx = -1e400f;\n", 2, 6, "1e400f is too large for a float"),
    "digits": (f"int x;\nx = {'9' * 5000};\n", 2, 5, f"has more than {MAX_INT_DIGITS} digits"),
    "hex-digits": (f"int x;\nx = 0x{'f' * 5000};\n", 2, 5, f"has more than {MAX_INT_DIGITS} digits"),
    "blocks": ("int x;\nact a { " + "{" * 20_000 + "x = 1;" + "}" * 20_000 + " }\n", 2, None, "nested more than"),
    "ifs": ("int x;\nact a { " + "if (x == 0) " * 5_000 + "x = 1; }\n", 2, None, "nested more than"),
    "sum": ("int x;\nx = " + " + ".join(["1"] * 10_000) + ";\n", 2, None, "nested more than"),
    "beh-float": (BEHAVIOR.replace("CONDITION", "1.0").replace("VALUE", "1e309"), 5, 30, "too large for a float"),
    "beh-digits": (BEHAVIOR.replace("CONDITION", "1.0").replace("VALUE", "9" * 5000), 5, 30, "more than 30 digits"),
    "beh-not": (BEHAVIOR.replace("CONDITION", "Not " * 2000 + "1.0").replace("VALUE", "1"), 5, None, "nested more"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_number_or_nesting_is_a_located_error(case: str, tmp_path: Path, capsys) -> None:
    text, line, column, message = CASES[case]
    path = tmp_path / ("crash.beh" if case.startswith("beh") else "crash.act")
    path.write_text(text, encoding="utf-8")
    for command, expected in ((["check", str(path)], 1), (["run", str(path), "--duration", "1"], 2)):
        status = main(command)
        out = capsys.readouterr().out
        assert status == expected, out
        found = re.search(rf"^(?:.*/)?{re.escape(path.name)}:(\d+):(\d+): (.*)$", out, re.MULTILINE)
        assert found is not None, out[:500]
        assert int(found.group(1)) == line and (column is None or int(found.group(2)) == column), found.group(0)
        assert message in found.group(3)
        assert "Traceback" not in out


def test_the_nesting_limit_leaves_room_for_every_later_pass(tmp_path: Path, capsys) -> None:
    """Just inside the limit, the program compiles and runs (no RecursionError in the checker, the
    compiler, nor the Python parser of the generated code); one level more is refused."""
    depth = MAX_NESTING - 5  # Program, act, its body and the statement take the other levels
    inside = "int x;\nact a { " + "if (x == 0) " * depth + "x = 1; }\nstart a;\n"
    deep_sum = "int x;\nx = " + " + ".join(["1"] * (MAX_NESTING - 1)) + ';\nsfSMessage("sum %d", x);\n'
    for index, text in enumerate((inside, deep_sum)):
        path = tmp_path / f"inside{index}.act"
        path.write_text(text, encoding="utf-8")
        assert main(["run", str(path), "--duration", "0.5"]) == 0, capsys.readouterr().out
    assert f"sum {MAX_NESTING - 1}" in capsys.readouterr().out
    path.write_text(deep_sum.replace("x = ", "x = 1 + "), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    assert "nested more than" in capsys.readouterr().out


def test_a_printf_width_beyond_the_bound_is_a_located_runtime_error(tmp_path: Path, capsys) -> None:
    """``sfSMessage("%999999999d")`` took 2 GB and died of MemoryError; now the activity stops there."""
    path = tmp_path / "fmt.act"
    path.write_text(
        'act a {\n  sfSMessage("%5d|%-8.3f|", 42, 2.5);\n  sfSMessage("%999999999d", 1);\n}\nstart a;\n'
        'act b { sfSMessage("%.*f", 2000000000, 1.0); }\nstart b;\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "--duration", "1"]) == 1
    out = capsys.readouterr().out
    assert "   42|2.500   |" in out
    assert f"fmt.act:3:3: act a: format width 999999999 in '%999999999d' is over {MAX_FORMAT_WIDTH}" in out
    assert f"fmt.act:6:9: act b: format precision 2000000000 in '%.*f' is over {MAX_FORMAT_WIDTH}" in out


@pytest.mark.parametrize("suffix", [".act", ".beh"])
def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(suffix: str, tmp_path: Path, capsys) -> None:
    """1e6 lines of ``1 + 1;`` took 74 s and 570 MB in ``check``; a 10 MB string 2.8 GB."""
    lines = tmp_path / f"lines{suffix}"
    lines.write_bytes(b"1 + 1;\n" * (MAX_SOURCE_BYTES // 7 + 1))
    string = tmp_path / f"string{suffix}"
    string.write_bytes(b's = "' + b"a" * MAX_SOURCE_BYTES + b'";\n')
    for path in (lines, string):
        for command, expected in ((["check", str(path)], 1), (["run", str(path)], 2)):
            assert main(command) == expected
            out = capsys.readouterr().out
            assert f"{path}: " in out and f"too large: {path.stat().st_size} bytes (at most 262144 bytes)" in out
    loader = tmp_path / "loads.act"
    loader.write_text(f'load "{lines}";\n', encoding="utf-8")
    assert main(["run", str(loader), "--duration", "0.5"]) == 2  # found by the check before the run
    assert "too large" in capsys.readouterr().out
