"""The import paths of saphira 0.1, kept working after the 0.2 layout moved their modules (CHANGELOG.md).

:data:`MOVED` is the one table, old module → new (both under ``saphira.``), the table of README's
"Moved in 0.2". Importing an old path gives the new module itself (the same objects, so ``isinstance``
and monkeypatching keep working) and a :class:`DeprecationWarning` naming the new path, attributed to
the line that imported it. Two mechanisms serve the table, both installed by ``saphira/__init__.py``:

* a finder at the front of ``sys.meta_path`` for old modules that no longer exist
  (``saphira.tasks`` → ``saphira.core.tasks``), and their submodules (``saphira.batch.trial``);
* :func:`moved_attribute`, the module ``__getattr__`` of the packages that now stand where an
  old module was (``saphira.app``, ``saphira.params``, ``saphira.colbert.bindings``): their old names
  (``from saphira.params import load_params``) come from the module that holds them now.

:data:`MOVED_NAMES` lists names that left a module which still exists (the compiler's former re-exports);
that module's ``__getattr__`` serves them through :func:`moved_name`, with the same warning.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Sequence

_CORE = (
    "clock tasks events errors rates attached jit paths modules interrupts geometry inputfile suggest argtypes parts"
)
_SYNTAX = "lexer parser fast_lalr ast ast_builder errors diagnose"
_BINDINGS = "accessories display flat link maps robot session tasks"

MOVED: dict[str, str] = {
    **{name: f"core.{name}" for name in _CORE.split()},
    "params": "params.robot_params",
    "robot_models": "params.robot_models",
    "laser_config": "params.laser",
    "sim.world": "world.world",
    "sim.wldfile": "world.wld",
    "sim.mapfile": "world.aria_map",
    "sim.pyroworld": "world.pyro",
    "flat.worldfile": "world.flat_world",
    "sim.objects": "world.objects",
    "sim.placement": "world.placement",
    "sim.geometry": "world.raycast",
    **{name: f"client.{name}" for name in ("reflector", "motion", "odometry", "artifacts", "transport")},
    "link": "client.link.base",
    "velocity_link": "client.link.velocity",
    "link_watch": "client.link.watch",
    **{name: f"client.sensors.{name}" for name in ("sonar", "laser", "accessories")},
    "ui.display": "display.state",
    "ui.drawing": "display.drawing",
    "recording": "record.recording",
    "record_extras": "record.extras",
    "playback": "record.playback",
    "export_mcap": "record.mcap_export",
    "replay_view": "ui.replay_view",
    **{f"colbert.{name}": f"colbert.syntax.{name}" for name in _SYNTAX.split()},
    **{f"colbert.{name}": f"colbert.compile.{name}" for name in ("symbols", "codegen", "expressions", "statements")},
    "colbert.compiler": "colbert.compile.compiler",
    "colbert.manual_names": "colbert.compile.manual_names",
    "colbert.behavior_parser": "colbert.beh.parser",
    "colbert.behavior_compiler": "colbert.beh.compiler",
    "colbert.bindings": "colbert.bindings.table",
    **{f"colbert.bindings_{name}": f"colbert.bindings.{name}" for name in _BINDINGS.split()},
    "colbert.bindings_laser": "client.sensors.laser",
    "cli": "app.cli",
    "app": "app.run",
    "params_cli": "app.params",
    "replay_cli": "app.replay",
    **{name: f"app.{name}" for name in ("console", "trace", "plot", "progress", "robot_options")},
    "colbert.repl": "app.shell",
    "colbert.check": "app.check",
    "sim.standalone": "app.sim",
    "flat.command": "app.sim_flat",
    "sim.exposure": "app.exposure",
    "batch": "app.batch",
    # saphira 0.2's protocol packages split into a client and a server half (issue 36)
    "flat.link": "flat.client.link",
    "flat.server": "flat.server.listener",
    **{f"flat.{name}": f"flat.server.{name}" for name in ("simulation", "laser", "queries")},
    "gamebots.link": "gamebots.client.link",
    "gamebots.server": "gamebots.server.listener",
    **{f"gamebots.{name}": f"gamebots.server.{name}" for name in ("session", "laser")},
}
"""Old module → new module, both relative to ``saphira``."""

STANDING = ("app", "params", "colbert.bindings", "flat.server", "gamebots.server")
"""Old modules whose name is now a package's: served by :func:`moved_attribute`, not the finder."""

_SYMBOLS = (
    "ACTIVITY BEHAVIOR FLOAT INT PTR STRING VOID ActSchema CType ColbertCompileError ColbertRuntimeError Constant "
    "Function GlobalVariable LinkedVariable Ref Slot StructType SymbolTable c_float_text convert_value format_value "
    "parse_type runtime_message struct_type zero_value"
)
_CODEGEN = "TOP_LEVEL_LOOP_LIMIT ActProgram RuntimeHooks StartSpec generated_line generated_position"

MOVED_NAMES: dict[str, dict[str, str]] = {
    "colbert.compile.compiler": {
        **{name: "colbert.compile.symbols" for name in _SYMBOLS.split()},
        **{name: "colbert.compile.codegen" for name in _CODEGEN.split()},
    },
}
"""Names a module that still exists no longer holds: module → name → the module that defines it now
(``saphira.colbert.compile.compiler`` re-exported these until issue 36), served by :func:`moved_name`."""


def new_name(fullname: str) -> str | None:
    """The module that ``fullname`` (an old path, or a submodule of one) is now, or None."""
    if not fullname.startswith("saphira."):
        return None
    old = fullname.removeprefix("saphira.")
    head = old.partition(".")[0]
    for key in (old, head):
        target = MOVED.get(key)
        if target is not None and key not in STANDING:
            return f"saphira.{target}" + (old[len(key) :] if key != old else "")
    return None


def _importer() -> types.FrameType | None:
    """The frame of the line that imported: the first outside importlib, this file and the standing
    packages' ``__getattr__``."""
    frame = sys._getframe(1)
    while frame is not None and (
        frame.f_code.co_filename == __file__
        or "importlib" in frame.f_code.co_filename
        or (frame.f_code.co_name == "__getattr__" and frame.f_globals.get("__name__", "").startswith("saphira."))
    ):
        frame = frame.f_back  # type: ignore[assignment]
    return frame


def _warn(old: str, new: str) -> None:
    """A DeprecationWarning that ``old`` moved to ``new``, attributed to the importing line."""
    message = f"{old} moved to {new} in saphira 0.2; import it from there (CHANGELOG.md lists the moves)"
    frame = _importer()
    if frame is None:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return
    module_globals = frame.f_globals
    warnings.warn_explicit(
        message,
        DeprecationWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=module_globals.get("__name__", "<unknown>"),
        registry=module_globals.setdefault("__warningregistry__", {}),
        module_globals=module_globals,
    )


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and loads it as the new module (the same module object)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if new_name(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        new = new_name(module.__name__)
        assert new is not None
        _warn(module.__name__, new)
        # The import system returns what sys.modules holds under the old name once this returns.
        sys.modules[module.__name__] = importlib.import_module(new)


def moved_attribute(package: str, name: str) -> object:
    """``package.name`` for a package that stands where an old module was: the old module's name, now
    in its new module (with a warning); AttributeError for anything else, submodules included."""
    target = MOVED.get(package.removeprefix("saphira."))
    missing = AttributeError(f"module {package!r} has no attribute {name!r}")
    if target is None or name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is not None:
        raise missing
    module = importlib.import_module(f"saphira.{target}")
    if not hasattr(module, name):
        raise missing
    _warn(f"{package}.{name}", f"saphira.{target}.{name}")
    return getattr(module, name)


def moved_name(module: str, name: str) -> object:
    """``module.name`` for a name :data:`MOVED_NAMES` says moved out of ``module``: the object from the module
    that defines it (with a warning); AttributeError for anything else."""
    target = MOVED_NAMES.get(module.removeprefix("saphira."), {}).get(name)
    if target is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", f"saphira.{target}.{name}")
    return getattr(importlib.import_module(f"saphira.{target}"), name)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the path finder, which would otherwise load
    ``saphira.batch.trial`` a second time from the new package's folder."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
