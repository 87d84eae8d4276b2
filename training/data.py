"""Load training and evaluation files as `datasets.Dataset`s of one known kind; report bad rows.

Kinds (see ../shared/data/README.md):
- `scored`: sentence1, sentence2, score (float in a range, STS-B 0-5; a file whose scores all
  lie within 0-1 is on a 0-1 scale: `LoadedData.score_max`);
- `binary`: sentence1, sentence2, score in {0, 1} (LCQMC, ATEC);
- `nli`: premise, hypothesis, label in entailment / neutral / contradiction;
- `triplet`: anchor, positive and optionally negative texts (retrieval: query, relevant, hard
  negative); without a negative column, (anchor, positive) pairs whose negatives are the other
  rows of the batch (MNRL's in-batch negatives).
JSONL, CSV, TSV and Parquet files with named columns are read; a name that is not a local file is
tried as a hub data set (needs a network). Rows with a missing, empty, non-numeric or out-of-range
field are skipped and listed in `LoadedData.bad_rows`, never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datasets import Dataset

from common import check_path

from .data_clean import NLI_LABELS, BadRow, clean_nli, clean_pairs, clean_texts
from .data_columns import column_names, guess_kind, has_column, resolve_columns
from .data_read import read_records
from .errors import TrainingError

__all__ = ["KINDS", "NLI_LABELS", "BadRow", "LoadedData", "load_pairs"]

KINDS = ("scored", "binary", "nli", "triplet")


@dataclass
class LoadedData:
    """One file of one kind, cleaned: canonical columns only, bad rows listed."""

    path: str
    kind: str
    dataset: Dataset
    bad_rows: list[BadRow] = field(default_factory=list)
    score_max: float = 5.0  # the top of the score scale: 5 (STS-B), 1 (binary, or scores in 0-1)

    def __len__(self) -> int:
        return len(self.dataset)

    def summary(self, limit: int = 5) -> str:
        text = f"{self.path}: {len(self)} {self.kind} rows"
        if self.kind == "scored":
            text += f" (scores 0-{self.score_max:g})"
        if self.bad_rows:
            shown = "; ".join(str(b) for b in self.bad_rows[:limit])
            more = f"; ... {len(self.bad_rows) - limit} more" if len(self.bad_rows) > limit else ""
            text += f", {len(self.bad_rows)} bad rows skipped ({shown}{more})"
        return text

    def report(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "score_max": self.score_max,
            "rows": len(self),
            "bad_rows": [{"row": b.row, "reason": b.reason} for b in self.bad_rows],
        }


def load_pairs(
    source: str | Path,
    *,
    kind: str | None = None,
    score_range: tuple[float, float] = (0.0, 5.0),
    split: str = "train",
) -> LoadedData:
    """Read `source` and return its valid rows as canonical columns of `kind` (guessed when None).

    Guessing: premise/hypothesis columns -> `nli`; pair columns whose valid scores are all 0/1 ->
    `binary`; otherwise `scored`. Raises `TrainingError` when the file cannot be read, lacks the
    columns its kind needs, or holds no valid row.
    """
    check_path(source, "data file", "a .jsonl/.csv/.tsv/.parquet path (or a hub data set name)")
    if kind is not None and kind not in KINDS:
        raise TrainingError(f"Invalid data kind {kind!r}. Valid: {', '.join(KINDS)}")
    low, high = score_range
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise TrainingError(f"score_range must be two finite numbers, low < high; "
                            f"got {score_range}")
    name = str(source)
    records = list(read_records(name, split))
    if not records:
        raise TrainingError(f"{name}: no rows")
    columns = column_names(records)
    kind = kind or guess_kind(columns, records, name)
    if kind == "nli":
        fields = resolve_columns(columns, ("premise", "hypothesis", "label"), name, kind)
        rows, bad = clean_nli(records, fields)
    elif kind == "triplet":  # the hard negative is optional: MNRL's in-batch negatives do
        wanted = ("anchor", "positive", "negative") if has_column(columns, "negative") \
            else ("anchor", "positive")
        fields = resolve_columns(columns, wanted, name, kind)
        rows, bad = clean_texts(records, fields)
    else:
        fields = resolve_columns(columns, ("sentence1", "sentence2", "score"), name, kind)
        rows, bad = clean_pairs(records, fields, kind, score_range)
    if not rows[next(iter(rows))]:
        first = f" (first: {bad[0]})" if bad else ""
        raise TrainingError(f"{name}: no valid {kind} rows out of {len(records)}{first}")
    top = 1.0 if kind == "binary" else _score_max(rows.get("score", []), name, score_range)
    return LoadedData(name, kind, Dataset.from_dict(rows), bad, top)


def _score_max(scores: list[float], name: str, score_range: tuple[float, float]) -> float:
    """The top of a scored file's scale: `score_range`'s, unless every score lies within 0-1
    while the range allows more — then the file is on a 0-1 scale (the loss that uses the
    scale says so when it trains: see `losses`)."""
    top = float(score_range[1])
    return 1.0 if scores and top > 1.0 and max(scores) <= 1.0 else top
