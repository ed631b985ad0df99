"""``saphira check``: parse and compile Colbert (``.act``) and behavior (``.beh``) files, report every error.

Nothing is run and no robot is needed. Each error prints as ``file:line:col: message`` with the
offending line and a caret under the column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from saphira.colbert.behavior_compiler import check_behavior_text
from saphira.colbert.evaluator import Evaluator
from saphira.errors import SourceError, SourcePosition


def check_file(path: str | Path, evaluator: Evaluator) -> list[SourceError]:
    """Every error in one file (syntax, names, types); an unreadable file is one error at line 0."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [SourceError(f"cannot read file: {exc}", SourcePosition(str(p), 0))]
    if p.suffix == ".beh":
        return check_behavior_text(text, str(p), evaluator)
    return evaluator.check_text(text, str(p))


def check_files(files: Sequence[str | Path], output: Callable[[str], None] = print) -> int:
    """Check each file; print every error and a summary. Returns 1 if any error was found, else 0."""
    evaluator = Evaluator(output=output, read_init=False)
    total = 0
    for path in files:
        errors = check_file(path, evaluator)
        total += len(errors)
        for error in errors:
            output(error.pretty())
    noun = "error" if total == 1 else "errors"
    output(f"{total} {noun} in {len(files)} file{'s' if len(files) != 1 else ''}")
    return 1 if total else 0
