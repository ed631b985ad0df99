"""A plugin for tests/test_batch_interrupt.py (written for this project): its load_init writes the process id
to the file $SAPHIRA_TEST_ANNOUNCE names (a FIFO the test reads), so the test knows a worker runs a trial."""

from __future__ import annotations

import os
from typing import Any


def load_init(env: Any) -> None:
    path = os.environ.get("SAPHIRA_TEST_ANNOUNCE")
    if path:
        with open(path, "a", encoding="ascii") as fifo:  # one short line: written at once
            fifo.write(f"{os.getpid()}\n")
