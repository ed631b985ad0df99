"""Gamebots' client half: the ``usarsim://`` robot link (:mod:`.link`); it never imports a simulator."""
