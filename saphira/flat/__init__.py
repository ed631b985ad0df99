"""Flat4, UT Austin's simulator protocol, both ways (docs/flat.md), in two halves over a shared wire:

* ``codec`` and ``robot``: the line format and Flat's robot, used by both halves;
* :mod:`saphira.flat.client`: the ``flat://`` robot link, registered through the ``saphira.links`` entry point;
* :mod:`saphira.flat.server`: our simulator as a Flat server (``saphira sim --flat PORT``).

The client half never imports the simulator nor the server half (an import-linter contract in
``pyproject.toml``), so a robot program that connects to ``flat://`` loads no simulation code.
"""
