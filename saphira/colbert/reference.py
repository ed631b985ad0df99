"""The Colbert language reference (``docs/colbert.md``) read as data: the text of the shell's ``help NAME``.

``docs/colbert.md`` is the one source of the per-name documentation; help does not keep a second
copy. An installed wheel carries it as ``saphira/_data/docs/colbert.md`` (``pyproject.toml``'s
force-include), a checkout has it in ``docs/``. An *entry* is a bullet line that starts with one or
more names in backticks, then an em dash and the text; lines indented by two spaces continue it::

    - `sfSetVelocity(int mms)` — the translational velocity setpoint, mm/s.
    - `sfLEFTTURN`, `sfRIGHTTURN`, `sfNOTURN` — preferred turn directions.

Each backticked span names the identifier it starts with (``move(mm) [timeout n]`` names ``move``),
so one entry may document several names. Adding a binding's documentation is adding one such line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from saphira.core.paths import bundled_file

__all__ = ["Entry", "Reference", "load_reference", "parse_reference", "reference_path"]

_ENTRY_RE = re.compile(r"^- ((?:`[^`]+`(?:, | or )?)+)(?: —(?: (.*))?)?$")
_SPAN_RE = re.compile(r"`([^`]+)`")
_NAME_RE = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Entry:
    """One documented item: the names it covers, its headings as written, its text, and its section."""

    names: tuple[str, ...]
    headings: tuple[str, ...]
    text: str
    section: str

    def heading_for(self, name: str) -> str:
        """The heading (``move(mm) [timeout n] [noblock];``) written for ``name``."""
        return self.headings[self.names.index(name)] if name in self.names else self.headings[0]


@dataclass(frozen=True)
class Reference:
    """The parsed reference: entries by name, and *families* (``sfCOM<NAME>``) by prefix."""

    entries: dict[str, list[Entry]]
    families: dict[str, Entry]

    def lookup(self, name: str) -> list[Entry]:
        """The entries documenting ``name``: its own, else its family's (longest prefix); [] if none."""
        if name in self.entries:
            return self.entries[name]
        prefixes = [p for p in self.families if name.startswith(p) and len(name) > len(p)]
        return [self.families[max(prefixes, key=len)]] if prefixes else []

    def documents(self, name: str) -> bool:
        return bool(self.lookup(name))


def reference_path() -> Path:
    """Where ``docs/colbert.md`` is: in the wheel's data folder, or the checkout's ``docs/``."""
    return bundled_file("docs", "colbert.md")


def parse_reference(text: str) -> Reference:
    """Every entry of the reference; a name documented in several places has all of them, in order."""
    ref = Reference({}, {})
    section = ""
    current: tuple[list[str], list[str], list[str]] | None = None

    def close() -> None:
        if current is None:
            return
        names, headings, lines = current
        entry = Entry(tuple(names), tuple(headings), " ".join(lines).strip(), section)
        for name, heading in zip(names, headings, strict=True):
            if heading.startswith(name + "<"):
                ref.families[name] = entry
            else:
                ref.entries.setdefault(name, []).append(entry)

    in_fence = False
    for line in text.splitlines():
        if line.startswith("```") or line.startswith("#") or in_fence:
            close()
            current = None
            if line.startswith("```"):
                in_fence = not in_fence
            elif line.startswith("#") and not in_fence:
                section = line.lstrip("#").strip()
            continue
        match = _ENTRY_RE.match(line)
        if match:
            close()
            spans = _SPAN_RE.findall(match.group(1))
            named = [(m.group(0), h) for h, m in ((h, _NAME_RE.match(h)) for h in spans) if m]
            current = ([n for n, _ in named], [h for _, h in named], [(match.group(2) or "").strip()])
        elif current is not None and line.startswith("  ") and line.strip():
            current[2].append(line.strip().removeprefix("— "))
        else:
            close()
            current = None
    close()
    return ref


@functools.cache
def load_reference(path: Path | None = None) -> Reference:
    """The entries of ``docs/colbert.md`` (read once); empty when the file cannot be found or read."""
    try:
        source = path or reference_path()
        return parse_reference(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return Reference({}, {})
