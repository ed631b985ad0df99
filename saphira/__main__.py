"""``python -m saphira``: the same as the ``saphira`` command."""

import sys

from saphira.app.cli import program

sys.exit(program())
