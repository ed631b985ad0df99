"""saphira: a modern Python reimplementation of SRI's Saphira robot control architecture.

One package per layer, each importing only the ones below it (``docs/architecture.md`` §1, checked by
``import-linter``), bottom up: :mod:`saphira.core` (clock, micro-tasks, errors, geometry),
:mod:`saphira.protocol` (the Pioneer packet codec), :mod:`saphira.params`, :mod:`saphira.world`,
:mod:`saphira.client` (transports, links, reflector, sensors), :mod:`saphira.behavior`,
:mod:`saphira.perception` and :mod:`saphira.display`, the session :mod:`saphira.robot` beside the simulator
:mod:`saphira.sim`, the other wire protocols (:mod:`saphira.flat`, :mod:`saphira.gamebots`), brains,
:mod:`saphira.colbert`, :mod:`saphira.record`, the live view :mod:`saphira.ui`, and on top
:mod:`saphira.app`, where every command is assembled.
"""

__version__ = "0.2.0"

from saphira import _moved

_moved.install()  # the import paths of 0.1 keep working, with a DeprecationWarning (CHANGELOG.md)
