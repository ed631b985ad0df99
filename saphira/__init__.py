"""saphira: a modern Python reimplementation of SRI's Saphira robot control architecture.

The layers, bottom up (see ``docs/architecture.md``): :mod:`saphira.core.clock` and :mod:`saphira.core.tasks`
(the micro-task OS), :mod:`saphira.protocol` (the Pioneer packet codec), transports and the link,
the state reflector, the fuzzy behavior executive, Colbert, and the simulator.
"""

__version__ = "0.1.0"
