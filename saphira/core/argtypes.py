"""Command-line value types: each refuses a bad value with a one-line reason before anything runs.

Used as ``type=`` of :mod:`argparse` options, so ``--duration nan`` or ``--seed -1`` is a usage error
(exit status 2) instead of a traceback, or a hang, somewhere in the run.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path


def _positive_number(text: str, number: str, finite: str) -> float:
    """``text`` as a finite float > 0; ``number`` and ``finite`` name the value in the two messages."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {number}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite {finite} greater than 0, got {text}")
    return value


def positive_seconds(text: str) -> float:
    """A duration: a finite number of seconds greater than zero."""
    return _positive_number(text, "a number of seconds", "number of seconds")


def seed(text: str) -> int:
    """A random seed: a whole number >= 0 (what numpy's generators accept)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def plot_file(text: str) -> str:
    """An image file matplotlib can write, judged by its extension, in a folder that exists.

    Checked when the command line is read, so a bad name fails before the run rather than after it.
    """
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise argparse.ArgumentTypeError("needs matplotlib: pip install 'saphira[plot]'") from None
    path = Path(text)
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        what = f"extension '.{suffix}'" if suffix else "no extension"
        raise argparse.ArgumentTypeError(f"{text!r} has {what}; matplotlib writes {', '.join(sorted(formats))}")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: no folder {str(path.parent)!r}")
    return text


def positive_factor(text: str) -> float:
    """A factor such as ``--speed``: a finite number greater than zero."""
    return _positive_number(text, "a number", "factor")


def positive_int(text: str) -> int:
    """A count such as ``--workers``: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def port(text: str) -> int:
    """A TCP port to listen on: a whole number from 0 to 65535 (0 lets the system choose a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0-65535; 0 picks one)")
    return value


def non_negative_seconds(text: str) -> float:
    """A time limit where 0 means none: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """A count that may be zero, such as ``--flat-steps``: a whole number of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {value}")
    return value


def folder(text: str) -> Path:
    """A folder that exists, such as ``--world-dir``."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a folder")
    return path
