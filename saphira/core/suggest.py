"""``did you mean …?`` for a mistyped name: the closest known names, as people misspell them.

Matching ignores case (``sfavoidcollision`` finds ``sfAvoidCollision``) and keeps only close
matches (:data:`CUTOFF`), so an unrelated name gets no suggestion rather than a misleading one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["CUTOFF", "close_names", "did_you_mean"]

CUTOFF = 0.75
"""Similarity (difflib's ratio, 0..1) a known name needs to be suggested: one or two letters off."""


def close_names(name: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """The known names closest to ``name``, best first (at most ``limit``)."""
    by_folded: dict[str, str] = {}
    for candidate in known:
        by_folded.setdefault(candidate.lower(), candidate)
    matches = difflib.get_close_matches(name.lower(), list(by_folded), n=limit, cutoff=CUTOFF)
    return [by_folded[match] for match in matches if by_folded[match] != name]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'a' or 'b'?"`` to end a message with, or ``""`` when nothing is close."""
    names = [f"'{match}'" for match in close_names(name, known)]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"
    return f"; did you mean {listed}?"
