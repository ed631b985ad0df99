"""Build the API reference (HTML, from the docstrings) of what users import, with pdoc.

Run from the project root: ``python docs/api.py [-o build/api]``, then open ``build/api/index.html``.

pdoc was chosen over MkDocs + mkdocstrings because it needs no configuration or site layout: it reads
the modules' docstrings and type annotations as they are (``-d restructuredtext`` for their reST roles)
and writes static pages, so the reference cannot drift from a second source. Every warning is an error
(an annotation pdoc cannot resolve, a module that does not import), so ``.ci/run`` keeps it clean.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = (
    "saphira.robot",
    "saphira.behavior",
    "saphira.brain",
    "saphira.sim",
    "saphira.perception",
    "saphira.app.batch",
    "saphira.learn",
    "pyrobot",
)
"""What users import: the session, behaviors, brains (and Pyro's brain API), the simulator, perception,
batch experiments and tuning, and the learning environments."""

NAMED_TUPLE_FORWARD_REF = (
    r"Error parsing type annotation ForwardRef\('\w+'\) for saphira\.[\w.]+\.(RayHits|FiredRule)\.__init__"
)
"""pdoc evaluates a NamedTuple's generated ``__init__`` outside its module, so the field types of the two
NamedTuples (postponed annotations) do not resolve there; their fields are documented on the class."""


def build(output: Path) -> None:
    """Write the reference into ``output`` (every pdoc warning but the one above raises)."""
    import pdoc  # imported here: only the docs build needs it (the test extra installs it)

    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=NAMED_TUPLE_FORWARD_REF, category=UserWarning)
        pdoc.pdoc(*MODULES, output_directory=output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "build" / "api", help="folder to write into")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    build(args.output)
    print(f"API reference written to {args.output / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
