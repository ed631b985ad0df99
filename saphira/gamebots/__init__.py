"""USARSim's Gamebots protocol: the codec, a server on the simulator, and the usarsim:// robot link (docs/gamebots.md)."""
