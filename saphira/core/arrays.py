"""The numpy array types the project annotates with, named once."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "Float32Array", "FloatArray", "Int32Array", "IntArray"]

FloatArray = npt.NDArray[np.float64]
"""Coordinates, ranges, weights: every float array the project computes with."""
Float32Array = npt.NDArray[np.float32]
Int32Array = npt.NDArray[np.int32]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]
