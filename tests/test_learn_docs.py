"""docs/learning.md's examples run as written (the training example needs PyTorch and is shown, not run)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from tests.sim_process import PROJECT

DOC = PROJECT / "docs" / "learning.md"
BLOCKS = re.findall(
    r"^```python\n(.*?)^```\n(?:\n```output\n(.*?)^```\n)?", DOC.read_text(encoding="utf-8"), re.M | re.S
)
SHOWN_ONLY = "# not run in CI"


def test_the_doc_has_runnable_examples_and_one_shown_only() -> None:
    assert len(BLOCKS) == 5
    assert sum(SHOWN_ONLY in code for code, _ in BLOCKS) == 1


@pytest.mark.parametrize("index", [k for k, (code, _) in enumerate(BLOCKS) if SHOWN_ONLY not in code])
def test_example_runs_and_prints_what_the_doc_says(index: int) -> None:
    code, expected = BLOCKS[index]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"{DOC}:block {index}", "exec"), {"__name__": "__doc_example__"})
    if expected:
        assert printed.getvalue() == expected
    else:
        assert printed.getvalue().strip(), "the example prints its result"


def test_the_readme_lists_the_learning_guide() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert "docs/learning.md" in readme
