"""Compiling files without running them: every error of every file, and the names ``start`` uses resolved.

What ``saphira check`` reports, and what ``saphira run`` does before it opens the robot link. The files
are compiled in order into one environment, so an act, a global or a behavior a file defines is known
to the files after it, as when they are loaded; a top-level ``load`` of another file is followed (and
``cd`` is obeyed for it). A plugin is imported and its ``load_init(env)`` run, since the names it
registers are used further on; :meth:`Checker.close` runs its ``load_exit(env)``. A brain is imported
but not started. Nothing else runs: top-level statements are compiled, never executed.

``saphira run``'s check (``for_run``) runs user code once only: a plugin is loaded into the run's own
evaluator for good (its robot not connected yet) and the run's ``load`` of it keeps it; a brain on the
command line is imported for good (``Loader.brains``), its ``INIT`` called once the robot is connected.
A plugin whose import or ``load_init`` raises, or a brain whose import does, is an error like a syntax
error: the run stops before any robot is reached.

``start NAME`` of a name nothing defines at that point is legal Colbert (a later act may define it),
so it is kept and resolved once every file is compiled (:meth:`Checker.resolve_starts`): still
unknown, it is an error with the closest acts and behaviors as suggestions. A file that loads others
while running (``load`` inside an act, ``sfLoadEvalFile``) may define names no check can see: then
an unknown name is a warning instead.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from saphira.colbert.beh.compiler import check_behavior_text
from saphira.colbert.compile.compiler import Compiler
from saphira.colbert.compile.statements import PendingStart
from saphira.colbert.compile.symbols import (
    BEHAVIOR,
    ActSchema,
    ColbertCompileError,
    ColbertRuntimeError,
    Constant,
    GlobalVariable,
    LinkedVariable,
    SymbolTable,
)
from saphira.colbert.loader import Loader, plugin_error
from saphira.colbert.syntax import ast
from saphira.colbert.syntax.limits import read_source
from saphira.colbert.syntax.parser import parse, parse_all_errors
from saphira.core.errors import SourceError, SourcePosition
from saphira.core.modules import fresh_module
from saphira.core.suggest import did_you_mean

__all__ = ["Checker"]

MAX_DEPTH = 16
"""Files nested deeper than this by ``load`` are an error (a file that loads itself)."""

_ACT_NAME = re.compile(r"^\s*act\s+([A-Za-z_]\w*)", re.MULTILINE)
_BEHAVIOR_NAME = re.compile(r"^\s*BeginBehavior\s+([A-Za-z_]\w*)", re.MULTILINE)
_LOAD_CALL = re.compile(r"\bsfLoadEvalFile\s*\(")
_brain_serial = itertools.count(1)


class Checker:
    """One compile-only pass over files, into the environment ``loader`` loads into (or ``symbols``, a scratch
    copy); plugins are loaded, and brains imported, by ``loader``.

    ``listing`` receives a line per plugin or brain saying what it registered (``saphira check``).
    """

    def __init__(
        self,
        loader: Loader,
        *,
        symbols: SymbolTable | None = None,
        listing: Callable[[str], None] | None = None,
        for_run: bool = False,
    ) -> None:
        self.loader = loader
        self.environment = loader.environment
        self.for_run = for_run
        self.symbols = symbols if symbols is not None else self.environment.symbols
        self.compiler = Compiler(self.symbols, self.environment.runtime)
        self.compiler.pending_starts = []
        self.listing = listing
        self.load_directory = loader.load_directory
        self.defined: set[str] = set()
        """Acts and behaviors the files define, also those that failed to compile (known: no second error)."""
        self.loads_while_running: list[SourcePosition] = []
        self.warnings: list[str] = []
        self.files: list[str] = []
        """The files checked, in order (errors are reported in this order)."""
        self._depth = 0

    @classmethod
    def scratch(cls, loader: Loader, *, for_run: bool = False) -> Checker:
        """A checker on a copy of the environment's symbols: checking leaves the environment as it was
        (but for the plugins it loads with ``for_run``)."""
        own = loader.environment.symbols
        symbols = SymbolTable()
        symbols.symbols = dict(own.symbols)
        symbols.structs = dict(own.structs)
        symbols.values = list(own.values)
        return cls(loader, symbols=symbols, for_run=for_run)

    # ------------------------------------------------------------------ files
    def check_path(self, path: str | Path, at: SourceError | None = None) -> list[SourceError]:
        """Every error of one file, by its kind (``.act``, ``.beh``, plugin or brain ``.py``).

        ``at``: where a ``load`` names the file (a missing file is reported there).
        """
        p = self.resolve(path)
        if not p.is_file():
            what = "a folder, not a file" if p.is_dir() else "no such file"
            if at is not None:
                return [SourceError(f"load: {what}: {p}", at.position, at.source_line)]
            return [SourceError(f"{what}: {p}", SourcePosition(str(path), 0))]
        if self._depth >= MAX_DEPTH:
            where = at.position if at is not None else SourcePosition(str(path), 0)
            return [SourceError(f"load: files nested more than {MAX_DEPTH} deep (does {p.name} load itself?)", where)]
        if p.suffix == ".py":
            self.files.append(str(p))  # a plugin's errors name its resolved path (its traceback's)
            from saphira.brain import is_brain_file  # only for a .py: an evaluator need not load Pyro's API

            if is_brain_file(p):  # a run imports the brains it starts (its command line's) here, once
                if self.for_run:
                    return self.import_brain(p) if at is None else []
                return self.check_brain(p)
            if self.for_run and (syntax := self.compile_python(p)):  # an error before anything runs
                return syntax
            return self.check_plugin(p)
        try:
            text = read_source(p, what="behavior file" if p.suffix == ".beh" else "Colbert file")
        except SourceError as exc:
            return [exc]
        name = str(path) if at is None else str(p)
        self.files.append(name)
        self._depth += 1
        try:
            return self.check_behaviors(text, name) if p.suffix == ".beh" else self.check_text(text, name)
        finally:
            self._depth -= 1

    def in_order(self, errors: list[SourceError]) -> list[SourceError]:
        """``errors`` by file, in the order the files were checked, then by line and column."""
        rank = {name: index for index, name in reversed(list(enumerate(self.files)))}
        return sorted(errors, key=lambda e: (rank.get(e.file, len(rank)), e.line, e.column))

    def resolve(self, path: str | Path) -> Path:
        """A path as ``load`` sees it: absolute, or relative to the load directory (``cd`` moves it)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.load_directory / p

    def check_text(self, text: str, filename: str) -> list[SourceError]:
        """Every syntax error of Colbert text or, when it parses, every name and type error of each item."""
        call = _LOAD_CALL.search(text)
        if call is not None:
            self.loads_while_running.append(SourcePosition(filename, text.count("\n", 0, call.start()) + 1))
        syntax: list[SourceError] = list(parse_all_errors(text, filename, self.symbols.struct_names()))
        if syntax:
            self.defined.update(_ACT_NAME.findall(text))  # its acts exist, broken: no "unknown act" elsewhere
            return syntax
        program = parse(text, filename, self.symbols.struct_names())
        lines = text.split("\n")
        errors: list[SourceError] = []
        for item in program.items:
            errors.extend(self._check_item(item, filename, lines))
        return errors

    def _check_item(self, item: ast.TopLevel, filename: str, lines: list[str]) -> list[SourceError]:
        compiler = self.compiler
        try:
            if isinstance(item, ast.Load) and item.path is not None:
                here = SourceError("", item.pos.at(filename), _line(lines, item.pos.line))
                return self.check_path(item.path, at=here)
            if isinstance(item, ast.ChangeDirectory):
                target = self.resolve(item.path).resolve()
                if not target.is_dir():
                    message = f"cd: no such directory: {target}"
                    return [SourceError(message, item.pos.at(filename), _line(lines, item.pos.line))]
                self.load_directory = target
            elif isinstance(item, ast.VarDecl):
                compiler.declare(item, filename, lines)
            elif isinstance(item, ast.ActDef):
                return self._check_act(item, lines)
            elif not isinstance(item, ast.UTILITY_COMMANDS):
                compiler.compile_statement(item, filename, lines)
        except ColbertCompileError as exc:
            return [exc]
        return []

    def _check_act(self, act: ast.ActDef, lines: list[str]) -> list[SourceError]:
        self.defined.add(act.name)
        for load in _loads_in(act.body):
            self.loads_while_running.append(load.pos.at(act.filename))
        collected: list[ColbertCompileError] = []
        self.compiler.collected = collected
        try:
            program = self.compiler.compile_act(act, lines)
        except ColbertCompileError as exc:
            return list(collected) if exc in collected else [*collected, exc]
        finally:
            self.compiler.collected = None
        existing = self.symbols.lookup(act.name)
        if isinstance(existing, ActSchema):
            existing.program = program
        else:
            self.symbols.symbols[act.name] = ActSchema(program)
        return []

    def check_behaviors(self, text: str, filename: str) -> list[SourceError]:
        """Every error of a ``.beh`` file; its behaviors become known to the files after it."""
        self.defined.update(_BEHAVIOR_NAME.findall(text))
        return check_behavior_text(text, filename, self.environment, symbols=self.symbols, define=True)

    def check_plugin(self, path: Path) -> list[SourceError]:
        """Import a plugin and run its ``load_init``; what it registers is known further on.

        A failure is an error at the plugin's line that raised: for a run, one that stops it before the
        robot is reached, as a syntax error does.
        """
        loader = self.loader
        if self.for_run and path.resolve() in loader.plugins:  # loaded by an earlier file: not twice
            return []
        try:
            names = loader.load_plugin(path)
        except Exception as exc:
            if self.for_run:  # its load_init ran: the run does not run it again
                loader.preloaded.add(path.resolve())
            return [plugin_error(path, exc)]
        if self.for_run:
            loader.preloaded.add(path.resolve())
        own = self.environment.symbols
        if self.symbols is not own:
            self.symbols.symbols.update(own.symbols)
            self.symbols.structs.update(own.structs)
        if self.listing is not None:
            self._list(path, names)
        return []

    def _list(self, path: Path, names: set[str]) -> None:
        assert self.listing is not None
        if not names:
            self.listing(f"{path}: plugin registers nothing (it has no load_init(env), or that adds no names)")
            return
        self.listing(f"{path}: plugin registers {len(names)} name{'s' if len(names) != 1 else ''}:")
        for name in sorted(names):
            what = f"struct {name}" if name in self.symbols.structs else self.symbols.describe(name)
            self.listing(f"    {name}: {what}")

    def check_brain(self, path: Path) -> list[SourceError]:
        """Import a brain file (an error in it, or in what it imports, is found here); ``INIT`` is not called."""
        module_name = f"saphira_brain_check_{next(_brain_serial)}_{path.stem}"
        try:
            with fresh_module(path.resolve(), module_name):
                pass
        except Exception as exc:
            return [plugin_error(path, exc, "brain failed to load")]
        finally:
            sys.modules.pop(module_name, None)
        if self.listing is not None:
            self.listing(f"{path}: a brain (INIT(engine) is called when it runs)")
        return []

    def import_brain(self, path: Path) -> list[SourceError]:
        """For a run: import a brain for good (``loader.brains``; its ``INIT`` is called once the robot
        is connected); an error in it, or in what it imports, stops the run before the robot is reached."""
        from saphira.brain import import_brain

        try:
            self.loader.brains[path.resolve()] = import_brain(path)
        except Exception as exc:
            return [plugin_error(path, exc, "brain failed to load")]
        return []

    def compile_python(self, path: Path) -> list[SourceError]:
        """A plugin's (or an unparsable brain's) syntax error, without running any of it."""
        try:
            compile(path.read_bytes(), str(path.resolve()), "exec")
        except (SyntaxError, ValueError, OSError) as exc:
            return [plugin_error(path, exc)]
        return []

    # ------------------------------------------------------------------ after every file
    def resolve_starts(self) -> list[SourceError]:
        """The ``start`` statements whose name no file defined: errors (or warnings, see the module doc)."""
        startable = [name for name, sym in self.symbols.symbols.items() if _startable(sym)]
        errors: list[SourceError] = []
        for pending in self.compiler.pending_starts or ():
            error = self._resolve(pending, startable)
            if error is None:
                continue
            if self.loads_while_running and self.symbols.lookup(pending.spec.schema) is None:
                where = ", ".join(str(p) for p in self.loads_while_running[:3])
                self.warnings.append(f"warning: {error}, unless a file loaded while running defines it ({where})")
                continue
            errors.append(error)
        return errors

    def _resolve(self, pending: PendingStart, startable: list[str]) -> SourceError | None:
        name = pending.spec.schema
        sym = self.symbols.lookup(name)

        def error(message: str) -> SourceError:
            return ColbertCompileError(message, pending.position, pending.source)

        if isinstance(sym, ActSchema):
            if pending.priority:
                return error(f"'priority' applies only to behaviors; '{name}' is an act")
            try:
                self.compiler.check_start_args(pending.spec, sym.program.params, None)
            except ColbertRuntimeError as exc:
                return error(str(exc))
            return None
        if _startable(sym) or (sym is None and name in self.defined):
            return None
        if sym is not None:
            return error(f"cannot start '{name}': it is {self.symbols.describe(name)}, not an act or a behavior")
        known = [*startable, *self.defined]
        return error(f"cannot start '{name}': there is no act or behavior of that name{did_you_mean(name, known)}")

    def close(self) -> list[SourceError]:
        """Run the ``load_exit(env)`` of the plugins loaded (the last first); a failing one is an error."""
        errors: list[SourceError] = []
        for path in reversed(list(self.loader.plugins)):
            try:
                self.loader.unload(str(path))
            except Exception as exc:
                errors.append(plugin_error(path, exc, "plugin's load_exit failed"))
        return errors


def _startable(sym: object) -> bool:
    return isinstance(sym, ActSchema) or (
        isinstance(sym, Constant | GlobalVariable | LinkedVariable) and sym.type == BEHAVIOR
    )


def _line(lines: list[str], line: int) -> str | None:
    return lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else None


def _loads_in(items: tuple[ast.BodyItem, ...] | tuple[ast.Statement, ...]) -> Iterator[ast.Load]:
    """The ``load`` statements in an act's body (they run while the act runs), nested ones included."""
    for item in items:
        if isinstance(item, ast.Load):
            yield item
        elif isinstance(item, ast.Block):
            yield from _loads_in(item.body)
        elif isinstance(item, ast.If):
            yield from _loads_in((item.then,) if item.otherwise is None else (item.then, item.otherwise))
        elif isinstance(item, ast.While):
            yield from _loads_in((item.body,))
