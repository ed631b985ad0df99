"""Every command, assembled here and only here: the command line and ``run``, ``shell``, ``check``,
``sim``, ``params``, ``replay``, ``export``, ``map`` and ``batch``."""
