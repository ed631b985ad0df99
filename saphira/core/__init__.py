"""The bottom layer: the clock, micro-tasks and their scheduler, events, errors, geometry, compiled kernels,
data paths, signal handling and bounded file input. Imports nothing else of saphira."""
