"""What the bindings act on, as protocols: the session they are installed in, and its robot connection.

The ``sf*`` bindings (:mod:`saphira.colbert.bindings.table` and its topic modules) reach the evaluator
only through :class:`BindingContext`, never by naming it, so they sit below it (the import contract of
``colbert/`` in ``pyproject.toml``). :class:`~saphira.colbert.evaluator.Evaluator` is one; another front
end gives its own. :class:`Connection` is what ``connect``, ``disconnect``, ``set`` and the ``sfCom*``
variables reach: the app assembles it (:class:`saphira.app.session.ColbertConnection`), since where a
robot is and how to reach it are the session's, not the language's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from saphira.colbert.compile.symbols import CType, Function, Slot, StructType, SymbolTable
    from saphira.colbert.runtime import ColbertRuntime
    from saphira.core.tasks import Scheduler
    from saphira.robot import Robot

__all__ = ["BindingContext", "Connection"]


class Connection(Protocol):
    """How a Colbert session reaches a robot: the defaults ``set`` shows and changes, ``connect``, ``disconnect``."""

    @property
    def settings(self) -> dict[str, str]:
        """``serial``, ``baud``, ``local`` and ``server``: what ``connect`` uses when no address is given."""
        ...

    def connect(self, kind: str, address: str | None, say: Callable[[str], None]) -> None:
        """``connect local|serial|server [address]``; raises ColbertRuntimeError when it cannot."""
        ...

    def disconnect(self, say: Callable[[str], None]) -> None:
        """``disconnect``: close the robot connection (the session stays)."""
        ...


class BindingContext(Protocol):
    """The session the bindings are installed in: its robot (None: no robot), clock and runtime, its
    names, its load directory and connection, and where messages go."""

    @property
    def robot(self) -> Robot | None: ...

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def runtime(self) -> ColbertRuntime: ...

    @property
    def symbols(self) -> SymbolTable: ...

    @property
    def load_directory(self) -> Path: ...

    @property
    def exit_requested(self) -> bool:
        """True once ``exit`` was given."""
        ...

    @property
    def connection(self) -> Connection | None:
        """None: the session cannot connect (``connect`` and ``sfConnectToRobot`` say so)."""
        ...

    def say(self, text: str) -> None:
        """A message for the user, one line per line of ``text``."""
        ...

    def value(self, name: str) -> Any: ...

    def resolve(self, path: str | Path) -> Path:
        """A path as ``load`` sees it: absolute, or relative to the load directory."""
        ...

    def load(self, path: str | Path) -> bool:
        """``load``: a Colbert, behavior or plugin file; False (with the error said) when it failed."""
        ...

    def change_directory(self, path: str) -> None: ...

    def add_function(
        self,
        name: str,
        fn: Callable[..., Any],
        return_type: str | CType = "void",
        arg_types: Iterable[str | CType] = (),
        *,
        varargs: bool = False,
        help: str = "",
    ) -> Function: ...

    def add_variable(
        self,
        name: str,
        type: str | CType,
        *,
        getter: Callable[[], Any] | None = None,
        setter: Callable[[Any], None] | None = None,
        value: Any = None,
        help: str = "",
    ) -> None: ...

    def add_constant(self, name: str, type: str | CType, value: Any, *, help: str = "") -> None: ...

    def add_behavior(self, name: str, definition: Any, *, help: str = "") -> None: ...

    def add_struct(
        self,
        name: str,
        slots: Mapping[str, str | CType | Slot],
        *,
        size: int | None = None,
        factory: Callable[[], Any] | None = None,
        help: str = "",
    ) -> StructType: ...

    def add_help(self, name: str, text: str) -> None: ...

    def get_help(self, name: str) -> str | None: ...
