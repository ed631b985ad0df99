"""USARSim's Gamebots protocol: codec, a server on the simulator, the usarsim:// robot link (docs/gamebots.md)."""
