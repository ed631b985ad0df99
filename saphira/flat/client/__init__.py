"""Flat4's client half: the ``flat://`` robot link (:mod:`.link`). It never imports a simulator (pyproject.toml)."""
