"""Compiled numeric kernels: :func:`kernel` compiles a function of floats, ints and numpy arrays with numba.

The simulator and perception run a handful of small geometric loops every cycle (casting each sonar's
rays at the walls near the robot, fitting a line to a side sonar buffer). Written as numpy they are
dozens of calls on arrays of 5 to 100 elements, where each call's fixed cost, not the arithmetic, is
the time; written as plain loops and compiled, the same work is a few microseconds. numba compiles the
loops from their Python source, so the kernels stay readable Python, with no C extension to build.

Every kernel is compiled the same way: for each argument signature it is called with, with the
machine code cached beside the module (``cache=True``: later processes load it in milliseconds instead of
compiling for about half a second), and with numpy's floating-point rules (``error_model="numpy"``:
dividing by zero gives ``inf`` or ``nan``, as the array code it replaces did, instead of raising).
``NUMBA_DISABLE_JIT=1`` runs the kernels as the plain Python they are written in (for a debugger).

Compiling, or even loading from the cache, takes long enough to stall a cycle paced by real time (and,
on the first run after an install, a connection's handshake). So a kernel called from Python names an
``example``: arguments of exactly the types it is called with at run time (read-only arrays where it
gets read-only ones). :func:`warm_up` calls every kernel defined so far with its example once; sessions
call it before their cycles start, and a test checks that a whole run then compiles nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit

F = TypeVar("F", bound=Callable[..., Any])
Example = Callable[[], tuple[Any, ...]]

_compile = njit(cache=True, nogil=True, error_model="numpy")
_defined: list[tuple[Any, Example]] = []
_cold: list[tuple[Any, Example]] = []


def kernel(example: Example | None = None) -> Callable[[F], F]:
    """Decorator: the function compiled by numba (see the module docstring), its signature kept.

    ``example`` gives arguments of the run-time types, for :func:`warm_up`; a kernel called only from
    other kernels needs none (it is compiled into them).
    """

    def compile_kernel(function: F) -> F:
        compiled = _compile(function)
        if example is not None:
            _defined.append((compiled, example))
            _cold.append((compiled, example))
        return cast(F, compiled)

    return compile_kernel


def warm_up() -> None:
    """Compile, or load from the cache, every kernel defined so far that has not been warmed up yet,
    for its example's argument types."""
    while _cold:
        compiled, example = _cold.pop()
        compiled(*example())


def compiled_signatures() -> int:
    """How many (kernel, argument types) compilations this process holds (what a warm run keeps fixed)."""
    return sum(len(compiled.signatures) for compiled, _ in _defined)
