"""Colbert bindings for loading files, error messages and the exit flag; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`. Choices the manual leaves open:

* ``sfLoadEvalFile(name)`` is the ``load`` command as a function: a Colbert, behavior or plugin file,
  relative to ``sfLoadDirectory``. ``sfLoadParamFile(name)`` takes a path (absolute, or relative to
  the load directory) or a bare name looked up like the robot's own file (``$SAPHIRA_PARAMS``, then
  the bundled ``params/``; the manual's ``sfParamDir``). The robot adopts it at once: conversion
  factors, sonar geometry and limits. The odometric pose carries on from where it was. A later
  connection chooses its file from the robot's identity again, as the manual's connect does. Both return
  0 on success; on failure they print why (file and line for a bad parameter file) and return -1.
* ``sfErrMessage(text)`` and ``sfErrSMessage(fmt, ...)`` print like ``sfMessage``/``sfSMessage``
  with ``error: `` in front, so an error line stands out in the interaction area and in a log.
* ``sfIsExited`` is 1 once ``exit`` has been given (the manual's Connect→Exit), else 0; read-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from saphira.colbert.bindings.table import BindingTable, c_format
from saphira.core.errors import SaphiraError, SourceError
from saphira.params.robot_params import find_params_file, load_params

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["ERROR_PREFIX", "table"]

ERROR_PREFIX = "error: "
"""What ``sfErrMessage`` and ``sfErrSMessage`` put in front of their text."""


def _load_param_file(s: Bindings, name: str) -> int:
    ctx = s.ctx
    robot = s.robot
    try:
        local = ctx.resolve(name)
        params = load_params(local if local.is_file() else find_params_file(name))
    except SourceError as exc:
        ctx.say(f"sfLoadParamFile: {exc.pretty()}")
        return -1
    except SaphiraError as exc:
        ctx.say(f"sfLoadParamFile: {exc}")
        return -1
    odometry = robot.reflector.odometry
    robot.reflector.configure(params)
    robot.reflector.odometry.set_pose(odometry.x, odometry.y, odometry.th)
    return 0


def _load_eval_file(s: Bindings, name: str) -> int:
    return 0 if s.ctx.load(name) else -1


def _error(s: Bindings, fmt: str, *args: Any) -> None:
    s.ctx.say(ERROR_PREFIX + c_format(fmt, args))


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    return BindingTable(
        variables=[
            ("sfIsExited", "int", lambda: int(s.ctx.exit_requested), None, "1 once 'exit' was given"),
        ],
        functions=[
            ("sfLoadEvalFile", "int(string)", lambda n: _load_eval_file(s, n), "load a file as 'load' does; 0 ok"),
            ("sfLoadParamFile", "int(string)", lambda n: _load_param_file(s, n), "adopt a parameter file; 0 ok"),
            ("sfErrMessage", "void(string)", lambda text: _error(s, "%s", text), "print an error message"),
            ("sfErrSMessage", "void(string, ...)", lambda fmt, *a: _error(s, fmt, *a), "printf an error message"),
        ],
    )
