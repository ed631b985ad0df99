"""``python -m saphira``: the same as the ``saphira`` command."""

import sys

from saphira.cli import main

sys.exit(main())
