"""Compiled numeric kernels: :func:`kernel` compiles a function of floats, ints and numpy arrays with numba.

The simulator and perception run a handful of small geometric loops every cycle (casting each sonar's
rays at the walls near the robot, fitting a line to a side sonar buffer). Written as numpy they are
dozens of calls on arrays of 5 to 100 elements, where each call's fixed cost, not the arithmetic, is
the time; written as plain loops and compiled, the same work is a few microseconds. numba compiles the
loops from their Python source, so the kernels stay readable Python, with no C extension to build.

Every kernel is compiled the same way: on its first call for a given argument signature, with the
machine code cached beside the module (``cache=True``: later processes load it in milliseconds instead of
compiling for about half a second), and with numpy's floating-point rules (``error_model="numpy"``:
dividing by zero gives ``inf`` or ``nan``, as the array code it replaces did, instead of raising).
``NUMBA_DISABLE_JIT=1`` runs the kernels as the plain Python they are written in (for a debugger).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit

F = TypeVar("F", bound=Callable[..., Any])

_compile = njit(cache=True, nogil=True, error_model="numpy")


def kernel(function: F) -> F:
    """``function`` compiled by numba (see the module docstring); its signature and types are kept."""
    return cast(F, _compile(function))
