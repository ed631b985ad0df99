"""Where a batch's results go, as they arrive: ``trials.csv``, ``paths.jsonl`` and kept recordings.

**CSV, not Parquet.** A batch writes each row the moment its trial ends, so that a batch killed at any
point has lost at most the trial that was running, and resumes from the file. CSV is appended a line
at a time and flushed; a Parquet file is written whole (row groups, footer), so streaming into it means
rewriting it per trial or leaving many small files, and reading a half-written one fails. CSV also
needs nothing beyond the standard library (pyarrow is a large dependency), opens in any spreadsheet,
and its few hundred to few thousand rows are read in milliseconds by ``csv``, pandas or polars.

The columns grow as results come in (a new user metric, a new activity): the file is then rewritten
once with the wider header, through a temporary file and a rename, so it is never half-written. On
resume a line cut short by the kill is dropped. ``paths.jsonl`` holds each trial's true path for the
trajectory plots, one JSON line per trial; ``recordings/<trial>.rec`` the recordings the experiment
asked to keep (``saphira replay`` reads them).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from saphira.app.batch.experiment import TrialSpec
from saphira.app.batch.inputs import INPUTS_COLUMN, inputs_unchanged
from saphira.app.batch.metrics import MetricValue
from saphira.app.batch.trial import TrialResult
from saphira.core.outfile import OutputFile

TRIALS_FILE = "trials.csv"
PATHS_FILE = "paths.jsonl"
RECORDINGS_DIR = "recordings"

Row = dict[str, str]


class ResultsDir:
    """The output folder of one batch: reads what an earlier run left, appends each new result."""

    def __init__(self, folder: str | Path, leading: Iterable[str] = ()) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.csv_path = self.folder / TRIALS_FILE
        self.paths_path = self.folder / PATHS_FILE
        self.rows: list[Row] = _read_rows(self.csv_path)
        self.columns: list[str] = list(leading)
        for row in self.rows:
            self._widen(row)
        self._rewrite()  # drops a line cut short by a kill, and settles the header
        self._paths: TextIO = self.paths_path.open("a", encoding="utf-8")

    @property
    def finished(self) -> set[str]:
        """Ids of the trials already in ``trials.csv`` (failed ones too: a rerun would fail the same way)."""
        return {row["trial"] for row in self.rows}

    def current(self, trials: Sequence[TrialSpec]) -> dict[str, Row]:
        """The row of each of ``trials`` that is still valid: the last one with its id whose loaded files
        (the ``inputs`` column) are unchanged. Rows of other ids, or stale ones, stay in the file only."""
        bases = {t.trial_id: Path(t.activity).parent for t in trials}
        digests: dict[str, str] = {}
        out: dict[str, Row] = {}
        for row in reversed(self.rows):
            trial = row["trial"]
            if (
                trial in bases
                and trial not in out
                and inputs_unchanged(row.get(INPUTS_COLUMN, ""), bases[trial], digests)
            ):
                out[trial] = row
        return out

    def add(self, result: TrialResult) -> None:
        """Append one trial's row (widening the file's columns if it brings new ones), path and recording."""
        row = {key: _text(value) for key, value in result.row.items()}
        trial = row["trial"]
        if result.recording is not None:
            folder = self.folder / RECORDINGS_DIR
            folder.mkdir(exist_ok=True)
            OutputFile(folder / f"{trial}.rec").write_bytes(result.recording)
        if result.path:
            self._paths.write(json.dumps({"trial": trial, "path": result.path}, separators=(",", ":")) + "\n")
            self._paths.flush()
        self.rows.append(row)
        if self._widen(row):
            self._rewrite()
        else:
            with self.csv_path.open("a", encoding="utf-8", newline="") as out:
                csv.DictWriter(out, self.columns, restval="", lineterminator="\n").writerow(row)

    def paths(self) -> dict[str, list[tuple[int, int]]]:
        """The true paths of the trials, by id (the last one written wins)."""
        out: dict[str, list[tuple[int, int]]] = {}
        if self.paths_path.is_file():
            for line in self.paths_path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    out[str(entry["trial"])] = [(int(p[0]), int(p[1])) for p in entry["path"]]
                except (ValueError, KeyError, TypeError, IndexError):
                    continue  # a line cut short by a kill
        return out

    def close(self) -> None:
        self._paths.close()

    def _widen(self, row: Row) -> bool:
        new = [key for key in row if key not in self.columns]
        self.columns.extend(new)
        return bool(new)

    def _rewrite(self) -> None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, self.columns, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        OutputFile(self.csv_path).write_text(buffer.getvalue())


def _text(value: MetricValue) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _read_rows(path: Path) -> list[Row]:
    """The complete rows of an earlier run's ``trials.csv`` (a last line without its newline is dropped)."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.DictReader(io.StringIO(text))
    fields = reader.fieldnames or []
    rows = [row for row in reader if row.get("trial") and None not in row and len(row) == len(fields)]
    return [{key: value or "" for key, value in row.items()} for row in rows]
