"""``saphira check``, and the same check ``saphira run`` makes before it opens the robot link.

Nothing is run and no robot is needed. The files are compiled in order, as ``run`` loads them, by a
:class:`~saphira.colbert.checker.Checker`: every syntax, name and type error of every file, then
every ``start`` of a name that no file defines (with the closest known names). Each error prints as
``file:line:col: message`` with the offending line and a caret under the column. A Python plugin
(``.py``, also when an ``.act`` file loads one) is imported and its ``load_init(env)`` run against
the checking environment, which records what it registers: the names are listed, and later files may
use them. That environment has a robot of its own, never connected, so a plugin that starts a
behavior on ``env.robot`` checks as it loads. ``saphira check`` thus runs plugin code; ``saphira run``'s
check (:func:`compile_for_run`) runs each plugin's ``load_init`` once, for the run itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from saphira.app.commands import Command
from saphira.colbert.checker import Checker
from saphira.colbert.evaluator import Evaluator
from saphira.core.errors import SourceError


def compile_files(
    files: Sequence[str | Path],
    output: Callable[[str], None],
    *,
    listing: Callable[[str], None] | None = None,
    load_directory: Path | None = None,
) -> list[SourceError]:
    """Every error of ``files`` checked together, in a throwaway environment; warnings go to ``output``.

    ``listing`` receives what each plugin registers (``saphira check`` shows it); ``load_directory``
    is where relative paths are found (default: as the evaluator's, ``$SAPHIRA_LOAD`` or here).
    """
    from saphira.robot import Robot

    evaluator = Evaluator(Robot(), output=lambda line: None, read_init=False, load_directory=load_directory)
    checker = Checker(evaluator.loader, listing=listing)
    errors: list[SourceError] = []
    for path in files:
        errors.extend(checker.check_path(path))
    errors.extend(checker.resolve_starts())
    errors.extend(checker.close())
    for warning in checker.warnings:
        output(warning)
    return checker.in_order(errors)


def compile_for_run(files: Sequence[str | Path], evaluator: Evaluator) -> list[SourceError]:
    """``saphira run``'s check, before the robot is reached: every error of ``files``, in order.

    Unlike :func:`compile_files` no code runs twice: each plugin is loaded into ``evaluator`` for good
    (``load_init`` once; one that raises is an error), the command line's brains imported into
    ``evaluator.brains`` (``INIT`` is the run's, once connected), the Colbert files compiled against a
    copy of the symbols. With errors the plugins loaded are unloaded again (their ``load_exit`` runs).
    """
    checker = Checker.scratch(evaluator.loader, for_run=True)
    errors: list[SourceError] = []
    for path in files:
        errors.extend(checker.check_path(path))
    errors.extend(checker.resolve_starts())
    if errors:
        errors.extend(checker.close())
    for warning in checker.warnings:
        evaluator.output(warning)
    return checker.in_order(errors)


def check_file(path: str | Path, evaluator: Evaluator) -> list[SourceError]:
    """Every error in one file, against (a copy of) ``evaluator``'s environment; ``start`` is not resolved."""
    return Checker.scratch(evaluator.loader).check_path(path)


def error_count(errors: Sequence[SourceError], files: Sequence[str | Path]) -> str:
    """``2 errors in 3 files``, or ``2 errors in 1 of 3 files`` when only some of the files have errors."""
    noun = "error" if len(errors) == 1 else "errors"
    checked = f"{len(files)} file{'s' if len(files) != 1 else ''}"
    with_errors = len({error.file for error in errors})
    if errors and with_errors < len(files):
        return f"{len(errors)} {noun} in {with_errors} of {checked}"
    return f"{len(errors)} {noun} in {checked}"


def check_files(files: Sequence[str | Path], output: Callable[[str], None] = print) -> int:
    """Check the files together; print every error and a summary. Returns 1 if any error was found, else 0."""
    errors = compile_files(files, output, listing=output)
    for error in errors:
        output(error.pretty())
    output(error_count(errors, files))
    return 1 if errors else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The files ``saphira check`` takes."""
    parser.add_argument("files", nargs="+", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    """``saphira check FILE...``: :func:`check_files`."""
    return check_files(args.files)


COMMAND = Command(
    "check",
    help="check .act/.beh/.py files (runs plugins' load_init)",
    arguments="FILE...",
    summary="parse and compile .act/.beh files, resolve names; report every error; exit 1 if any",
    description="Parse and compile the files together, in order, as 'saphira run' loads them (what a "
    "file or plugin defines is known to the files after it), and report every error found, as "
    "file:line:col with the offending line and a caret: syntax, types, unknown names (with the closest "
    "known ones), and each 'start' of an act or behavior no file defines. 'saphira run' makes the same "
    "check before it connects. A plugin (.py) is imported and its load_init(env) and load_exit(env) run, "
    "on a robot never connected, to learn its names; a brain is imported, its INIT not called. "
    "Exit status 0 when every file checks, 1 if any error was found (a missing file included), 2 for a "
    "bad option.",
    add_arguments=add_arguments,
    run=run,
)
