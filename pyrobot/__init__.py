"""Pyro's brain API on saphira, so Pyro's own brains run unchanged after a ``2to3`` port.

Pyro (Python Robotics, pyrorobotics.org; Blank, Kumar, Meeden, Yanco 2003-2006) programs a robot with a
*brain*: a Python file whose ``INIT(engine)`` returns a :class:`pyrobot.brain.Brain`. This package is
written from Pyro's documented API (not its code) and maps it onto saphira:

* :mod:`pyrobot.brain`: ``Brain`` (saphira's :class:`saphira.brain.Brain`), ``avg``;
* :mod:`pyrobot.brain.behaviors`: ``Behavior``, ``State``, ``BehaviorBasedBrain``, ``FSMBrain``;
  :mod:`pyrobot.brain.behaviors.fsm` (``State``, ``FSMBrain``), :mod:`pyrobot.brain.behaviors.core`
  (Pyro's stock behaviors);
* :mod:`pyrobot.brain.fuzzy`: ``Fuzzy``;
* :mod:`pyrobot.geometry`: ``distance``, ``angleAdd``, ``angleEqual`` and Pyro's angle constants.

The robot a brain sees (``engine.robot``) is :class:`saphira.pyro_robot.PyroRobot`. Run a brain with
``saphira run Brain.py`` (embedded simulator) or ``--robot URL`` (``tcp://``, ``flat://``,
``usarsim://``); docs/pyro.md says what a port changes and what differs from Pyro.
"""
