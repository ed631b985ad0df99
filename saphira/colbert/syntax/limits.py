"""The bounds a Colbert ``.act`` or ``.beh`` file is held to, as every other input file (core/inputfile.py).

A Colbert file is a user's input like a world or a parameter file: it may be hostile or just broken,
and reading it must end quickly with a located error, never a traceback or gigabytes of memory:

* :func:`read_source`: a regular file of at most :data:`MAX_SOURCE_BYTES` (the manual's programs are a
  few KiB; a compiled statement costs about a hundred microseconds, so this bounds a check to seconds),
  decoded as UTF-8 with the offending byte named;
* number literals: an integer of at most :data:`MAX_INT_DIGITS` digits and a float that is finite
  (``1e309`` is not a double);
* :func:`too_deep`: at most :data:`MAX_NESTING` nested blocks, statements and operators, so that the
  checker and compiler, which walk the tree recursively, and the Python code they generate (whose own
  parser stops at 200 nested parentheses) never run out of stack;
* ``printf`` widths and precisions (``sfSMessage``) of at most :data:`MAX_FORMAT_WIDTH` characters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from saphira.core.inputfile import KIB, decode_utf8, read_input

MAX_SOURCE_BYTES = 256 * KIB
MAX_INT_DIGITS = 30
MAX_NESTING = 120
MAX_FORMAT_WIDTH = 1000


def read_source(path: str | Path, *, what: str) -> str:
    """The text of the Colbert file ``path``; a located :class:`SourceError` for anything else."""
    return decode_utf8(read_input(path, what=what, limit=MAX_SOURCE_BYTES), str(path), what=what)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(kind: type) -> tuple[str, ...]:
    """The field names of a syntax node's class (none for anything else), computed once per class."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = (
            tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else ()
        )
    return names


def _children(node: Any) -> Iterator[Any]:
    for name in _node_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, tuple) and not hasattr(value, "_fields"):  # a sequence, not a Pos
            yield from (item for item in value if _node_fields(type(item)))
        elif _node_fields(type(value)):
            yield value


def too_deep(tree: Any) -> Any | None:
    """The first node nested more than :data:`MAX_NESTING` levels deep in ``tree``, or None.

    An explicit stack, not recursion: the tree may be a hundred thousand levels deep.
    """
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING and hasattr(node, "pos"):
            return node
        stack.extend((child, depth + 1) for child in _children(node))
    return None
