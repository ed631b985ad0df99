"""Worlds and their file formats (``.wld``, ARIA ``.map``, Pyro and Flat worlds) and ray casting against
their walls: what the simulators move in and what the map tools and perception read."""
