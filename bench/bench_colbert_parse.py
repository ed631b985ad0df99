"""Colbert parsing speed: lines per second for a 5,000-line file, against Python's own parser.

Run: ``python bench/bench_colbert_parse.py``. The Colbert file is the shipped sample activities in
``colbert/`` (the manual's example programs) repeated to 5,000 lines; the baseline is
``ast.parse`` of about as many lines of Python from the standard library, measured in the same run.
Both build a syntax tree from text. Target: at least 50,000 Colbert lines/s.
"""

from __future__ import annotations

import ast as python_ast
import inspect
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from saphira.colbert.syntax.parser import colbert_grammar, parse, parse_all_errors

TARGET_LINES = 5000
ROUNDS = 15

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = "".join(path.read_text() for path in sorted((ROOT / "colbert").glob("*.act")))
"""The shipped sample activities (the manual's example programs)."""


def colbert_corpus(lines: int) -> str:
    return EXAMPLES * (lines // EXAMPLES.count("\n") + 1)


def python_corpus(lines: int) -> str:
    """Whole standard-library modules until about ``lines`` lines of Python."""
    import argparse
    import collections
    import dataclasses
    import inspect as inspect_module
    import typing

    text = ""
    for module in (inspect_module, typing, argparse, dataclasses, collections):
        text += inspect.getsource(module) + "\n"
        if text.count("\n") >= lines:
            break
    return text


def best_seconds(function: object, text: str, clock: object = time.perf_counter) -> float:
    """The fastest of ``ROUNDS`` runs (the least disturbed by other work on the machine)."""
    times = []
    for _ in range(ROUNDS):
        start = clock()  # type: ignore[operator]
        function(text)  # type: ignore[operator]
        times.append(clock() - start)  # type: ignore[operator]
    return min(times)


def main() -> None:
    start = time.perf_counter()
    colbert_grammar()
    build = time.perf_counter() - start

    colbert = colbert_corpus(TARGET_LINES)
    python = python_corpus(TARGET_LINES)
    colbert_lines = colbert.count("\n")
    python_lines = python.count("\n")

    colbert_time = best_seconds(lambda t: parse(t, "bench.act"), colbert)
    python_time = best_seconds(python_ast.parse, python)
    colbert_cpu = best_seconds(lambda t: parse(t, "bench.act"), colbert, time.process_time)
    python_cpu = best_seconds(python_ast.parse, python, time.process_time)
    check_time = best_seconds(lambda t: parse_all_errors(t, "bench.act"), colbert)

    colbert_rate = colbert_lines / colbert_time
    python_rate = python_lines / python_time
    print(f"parser construction (once per process, Lark cache in the user cache dir): {build * 1000:.0f} ms")
    print(f"Colbert parse:    {colbert_lines} lines in {colbert_time * 1000:.1f} ms = {colbert_rate:,.0f} lines/s")
    print(f"Python ast.parse: {python_lines} lines in {python_time * 1000:.1f} ms = {python_rate:,.0f} lines/s")
    print(f"ratio Colbert/Python (lines/s): {colbert_rate / python_rate:.2f}")
    print(
        f"CPU time only: Colbert {colbert_lines / colbert_cpu:,.0f} lines/s, "
        f"Python {python_lines / python_cpu:,.0f} lines/s (less sensitive to a busy machine)"
    )
    print(f"parse_all_errors on the same (clean) file: {check_time * 1000:.1f} ms")
    print(f"target 50,000 lines/s (wall clock): {'met' if colbert_rate >= 50_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
