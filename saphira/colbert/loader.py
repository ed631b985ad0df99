"""Loading into a Colbert environment: ``.act`` files, ``.beh`` behavior files and Python plugins.

:class:`Loader` is what ``load``, ``unload``, ``cd`` and ``pwd`` act on (docs/colbert.md §6):

* The load directory starts as ``$SAPHIRA_LOAD`` if set, else the current directory (docs/colbert.md §6;
  Appendix A.2); ``sfLoadDirectory`` reads and changes it. ``init.act`` in it is loaded at start.
* A ``.act`` file's text is run by the ``run_text`` it is given (the evaluator's), so loading stops at the
  first error with everything before it loaded. Files may load files, :data:`MAX_LOAD_DEPTH` deep.
* A plugin is a ``.py`` file; ``load_init(env)`` runs after it is imported, ``load_exit(env)`` before
  it is unloaded or reloaded, ``env`` being the environment loaded into. Names it registered are removed
  again when it is unloaded. A plugin that fails to load while a run goes on is reported with its line,
  announced on ``on_plugin_failed`` (the run lists it; one given to ``saphira run`` fails its check
  instead, before any robot), and the motion channels its ``load_init`` set before raising are stopped.
"""

from __future__ import annotations

import linecache
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from saphira.colbert.beh.compiler import define_behaviors
from saphira.colbert.compile.symbols import ColbertRuntimeError
from saphira.colbert.environment import Environment
from saphira.colbert.syntax.limits import read_source
from saphira.core.errors import SourceError, SourcePosition
from saphira.core.events import Event
from saphira.core.modules import fresh_module

__all__ = ["MAX_LOAD_DEPTH", "Loader", "plugin_error"]

MAX_LOAD_DEPTH = 16
"""Files nested deeper than this by ``load`` are an error (a file that loads itself)."""


class Loader:
    """Finds and loads files into ``environment``; ``run_text(text, filename)`` runs a Colbert file's text."""

    def __init__(
        self,
        environment: Environment,
        run_text: Callable[[str, str], bool],
        *,
        load_directory: str | Path | None = None,
    ) -> None:
        self.environment = environment
        self.run_text = run_text
        env_dir = os.environ.get("SAPHIRA_LOAD")
        self.load_directory = Path(load_directory or env_dir or Path.cwd()).expanduser().resolve()
        self.plugins: dict[Path, ModuleType] = {}
        self._plugin_names: dict[Path, set[str]] = {}
        self.on_plugin_failed: Event[[SourceError]] = Event("plugin_failed")
        self.preloaded: set[Path] = set()
        """Plugins ``saphira run``'s check loaded already: the first ``load`` of each keeps it (no second load_init)."""
        self.brains: dict[Path, ModuleType] = {}
        """Brain files ``saphira run``'s check imported, by resolved path: the run calls their ``INIT``."""
        self.depth = 0
        """How many ``.act`` files are being loaded, one inside the other (0 at the prompt)."""
        self._plugin_serial = 0

    # ================================================================== files
    def load(self, path: str | Path) -> bool:
        """Load a Colbert file, a behavior file or a Python plugin (by extension); True on success."""
        env = self.environment
        resolved = self.resolve(path)
        if not resolved.is_file():
            env.say(f"load: no such file: {resolved}")
            return False
        if resolved.suffix == ".py":
            return self._load_plugin(resolved)
        if resolved.suffix == ".beh":
            try:
                define_behaviors(env, resolved)
            except SourceError as exc:
                env.report(exc)
                return False
            return True
        if self.depth >= MAX_LOAD_DEPTH:
            env.say(f"load: files nested more than {MAX_LOAD_DEPTH} deep (does {resolved.name} load itself?)")
            return False
        try:
            text = read_source(resolved, what="Colbert file")
        except SourceError as exc:
            env.report(exc)
            return False
        self.depth += 1
        try:
            return self.run_text(text, str(resolved))
        finally:
            self.depth -= 1

    def read_init(self) -> bool:
        """Load ``init.act`` from the load directory if it exists (the manual's autoconfiguration hook)."""
        init = self.load_directory / "init.act"
        return self.load(init) if init.is_file() else True

    def resolve(self, path: str | Path) -> Path:
        """A path as ``load`` sees it: absolute, or relative to the load directory."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.load_directory / p

    def change_directory(self, path: str) -> None:
        """``cd``: change the load directory and print the new one."""
        target = self.resolve(path).resolve()
        if not target.is_dir():
            raise ColbertRuntimeError(f"cd: no such directory: {target}")
        self.load_directory = target
        self.environment.say(str(target))

    # ================================================================== plugins
    def _load_plugin(self, path: Path) -> bool:
        key = path.resolve()
        if key in self.preloaded:
            self.preloaded.discard(key)
            return key in self.plugins
        try:
            self.load_plugin(path)
        except Exception as exc:  # a broken plugin is reported, never raised
            error = plugin_error(path, exc)
            self.environment.say(error.pretty())
            self.on_plugin_failed.emit(error)
            return False
        return True

    def load_plugin(self, path: Path) -> set[str]:
        """Import a Python plugin and run its ``load_init(env)`` with the environment; the names it registered.

        Raises what the plugin raised; the plugin is then not loaded and what it registered is removed.
        """
        env = self.environment
        symbols = env.symbols
        key = path.resolve()
        if key in self.plugins:
            self.unload(str(key))
        self._plugin_serial += 1
        module_name = f"saphira_colbert_plugin_{self._plugin_serial}_{key.stem}"
        before = set(symbols.symbols) | set(symbols.structs)
        motion = env.robot.motion if env.robot is not None else None
        takes = motion.takes() if motion is not None else {}
        try:
            with fresh_module(key, module_name) as module:
                init = getattr(module, "load_init", None)
                if callable(init):
                    init(env)
        except BaseException:
            if motion is not None:  # what the failed load_init set going does not run on
                motion.stop_channels([ch for ch, n in motion.takes().items() if n != takes[ch] and motion.direct[ch]])
            for name in (set(symbols.symbols) | set(symbols.structs)) - before:
                symbols.symbols.pop(name, None)
                symbols.structs.pop(name, None)
            raise
        self.plugins[key] = module
        names = (set(symbols.symbols) | set(symbols.structs)) - before
        self._plugin_names[key] = names
        return names

    def unload(self, path: str | None = None) -> None:
        """Unload a plugin (the most recently loaded one without a path): ``load_exit(env)`` then forget it."""
        if not self.plugins:
            raise ColbertRuntimeError("unload: no plugin is loaded")
        key = next(reversed(self.plugins)) if path is None else self.resolve(path).resolve()
        module = self.plugins.get(key)
        if module is None:
            raise ColbertRuntimeError(f"unload: {key} is not loaded")
        symbols = self.environment.symbols
        try:
            exit_fn = getattr(module, "load_exit", None)
            if callable(exit_fn):
                exit_fn(self.environment)
        finally:
            del self.plugins[key]
            sys.modules.pop(module.__name__, None)
            for name in self._plugin_names.pop(key, set()):
                symbols.symbols.pop(name, None)
                symbols.structs.pop(name, None)

    def list_plugins(self) -> None:
        """``load`` without a file: say the loaded plugins' paths."""
        if not self.plugins:
            self.environment.say("no plugins loaded")
        for key in self.plugins:
            self.environment.say(str(key))


def plugin_error(path: Path, exc: BaseException, what: str = "plugin failed to load") -> SourceError:
    """A plugin's import or ``load_init`` error at the plugin's own line that raised it (or called what did).

    ``what`` starts the message (a brain's import, a plugin's ``load_exit``).
    """
    message = f"{what}: {type(exc).__name__}: {exc}"
    plugin = str(path.resolve())
    if isinstance(exc, SyntaxError) and exc.filename == plugin:
        position = SourcePosition(str(path), exc.lineno or 0, exc.offset or 0)
        return SourceError(f"{what}: SyntaxError: {exc.msg}", position, (exc.text or "").rstrip())
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == plugin and frame.lineno is not None:
            line = frame.lineno
    source = linecache.getline(plugin, line).rstrip("\n") if line else None
    return SourceError(message, SourcePosition(str(path), line), source or None)
