"""``saphira check``: parse and compile Colbert (``.act``) and behavior (``.beh``) files, report every error.

Nothing is run and no robot is needed. Each error prints as ``file:line:col: message`` with the
offending line and a caret under the column. A Python plugin (``.py``, also when an ``.act`` file
loads one) is imported and its ``load_init(env)`` run against the checking environment, which records
what it registers: the names are listed, and later files may use them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from saphira.colbert.behavior_compiler import check_behavior_text
from saphira.colbert.evaluator import Evaluator, plugin_error
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


def check_plugin(path: Path, evaluator: Evaluator, output: Callable[[str], None]) -> list[SourceError]:
    """Import a plugin and run its ``load_init`` against ``evaluator``; list what it registered."""
    try:
        names = evaluator.load_plugin(path)
    except Exception as exc:
        return [plugin_error(path, exc)]
    if not names:
        output(f"{path}: plugin registers nothing (it has no load_init(env), or that adds no names)")
    else:
        output(f"{path}: plugin registers {len(names)} name{'s' if len(names) != 1 else ''}:")
        for name in sorted(names):
            what = f"struct {name}" if name in evaluator.symbols.structs else evaluator.symbols.describe(name)
            output(f"    {name}: {what}")
    return []


def check_files(files: Sequence[str | Path], output: Callable[[str], None] = print) -> int:
    """Check each file; print every error and a summary. Returns 1 if any error was found, else 0."""
    evaluator = Evaluator(output=output, read_init=False)
    total = 0
    for path in files:
        if Path(path).suffix == ".py" and Path(path).is_file():
            errors = check_plugin(Path(path), evaluator, output)
        else:
            errors = check_file(path, evaluator)
        total += len(errors)
        for error in errors:
            output(error.pretty())
    noun = "error" if total == 1 else "errors"
    output(f"{total} {noun} in {len(files)} file{'s' if len(files) != 1 else ''}")
    return 1 if total else 0
