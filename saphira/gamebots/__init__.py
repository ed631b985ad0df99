"""USARSim's Gamebots protocol (docs/gamebots.md), in two halves over a shared wire:

* ``codec`` and ``models``: the message format and the robot classes, used by both halves;
* :mod:`saphira.gamebots.client`: the ``usarsim://`` robot link, registered through the ``saphira.links`` entry point;
* :mod:`saphira.gamebots.server`: our simulator as a Gamebots server (``saphira sim --gamebots PORT``).

The client half never imports the simulator nor the server half (an import-linter contract in ``pyproject.toml``).
"""
