"""Load training and evaluation files as `datasets.Dataset`s of one known kind; report bad rows.

Kinds (see ../shared/data/README.md):
- `scored`: sentence1, sentence2, score (float in a range, STS-B 0-5; a file whose scores all
  lie within 0-1 is on a 0-1 scale: `LoadedData.score_max`);
- `binary`: sentence1, sentence2, score in {0, 1} (LCQMC, ATEC);
- `nli`: premise, hypothesis, label in entailment / neutral / contradiction;
- `triplet`: anchor, positive, negative texts (retrieval: query, relevant, hard negative).
JSONL, CSV, TSV and Parquet files with named columns are read; a name that is not a local file is
tried as a hub data set (needs a network). Rows with a missing, empty, non-numeric or out-of-range
field are skipped and listed in `LoadedData.bad_rows`, never dropped silently.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datasets import Dataset, load_dataset

from common import check_path
from common.jsonl import jsonl_objects

from .errors import TrainingError

NLI_LABELS = ("entailment", "neutral", "contradiction")  # index = SoftmaxLoss class id
KINDS = ("scored", "binary", "nli", "triplet")
# Accepted column names for each canonical field, first match wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "sentence1": ("sentence1", "text1", "sentence_a", "query1", "s1"),
    "sentence2": ("sentence2", "text2", "sentence_b", "query2", "s2"),
    "score": ("score", "label", "similarity", "gold"),
    "premise": ("premise", "sentence1"),
    "hypothesis": ("hypothesis", "sentence2"),
    "anchor": ("anchor", "query"),
    "positive": ("positive", "pos"),
    "negative": ("negative", "neg", "hard_negative"),
}
READERS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}


@dataclass(frozen=True)
class BadRow:
    row: int  # 1-based record number in the file (the line number for JSONL)
    reason: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.reason}"


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
    records = list(_read_records(name, split))
    if not records:
        raise TrainingError(f"{name}: no rows")
    columns = _columns(records)
    kind = kind or _guess_kind(columns, records, name)
    if kind == "nli":
        fields = _resolve(columns, ("premise", "hypothesis", "label"), name, kind)
        rows, bad = _clean_nli(records, fields)
    elif kind == "triplet":
        fields = _resolve(columns, ("anchor", "positive", "negative"), name, kind)
        rows, bad = _clean_texts(records, fields)
    else:
        fields = _resolve(columns, ("sentence1", "sentence2", "score"), name, kind)
        rows, bad = _clean_pairs(records, fields, kind, score_range)
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


# -- reading ------------------------------------------------------------------------------------
def _read_records(name: str, split: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(row number, record) pairs; a record is a string when the row could not be parsed."""
    path = Path(name).expanduser()
    if not path.exists() and (path.suffix.lower() in READERS or name.startswith((".", "/", "~"))):
        raise TrainingError(f"{name} not found (a file; a hub data set name has no extension)")
    if not path.exists():
        yield from _read_hub(name, split)
        return
    if path.is_dir():
        raise TrainingError(f"{name} is a folder; pass a .jsonl, .csv, .tsv or .parquet file")
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise TrainingError(
            f"{name}: unknown file type {path.suffix!r}. Valid: {', '.join(sorted(READERS))}"
        )
    if reader == "jsonl":
        yield from jsonl_objects(path)
        return
    try:
        if reader == "parquet":
            table = load_dataset("parquet", data_files=str(path), split="train")
        else:
            table = load_dataset(
                "csv",
                data_files=str(path),
                split="train",
                delimiter="\t" if reader == "tsv" else ",",
            )
    except Exception as exc:  # a file datasets cannot parse at all
        raise TrainingError(f"{name}: cannot read as {reader}: {_first_line(_root(exc))}") \
            from exc
    yield from enumerate(table, start=1)




def _read_hub(name: str, split: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        table = load_dataset(name, split=split)
    except Exception as exc:  # offline or unknown name: one line for the user
        raise TrainingError(
            f"{name}: not a local file, and not loadable as a hub data set "
            f"({type(exc).__name__}: {_first_line(exc)})"
        ) from exc
    yield from enumerate(table, start=1)


def _root(exc: BaseException) -> BaseException:
    """The innermost cause: datasets wraps the parser's own message ("Error tokenizing data.
    C error: EOF inside string starting at row 1") in a generic one."""
    seen = exc
    while (seen.__cause__ or seen.__context__) is not None:
        seen = seen.__cause__ or seen.__context__
    return seen


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


# -- columns and kinds --------------------------------------------------------------------------
def _columns(records: list[tuple[int, dict | str]]) -> set[str]:
    names: set[str] = set()
    for _, record in records:
        if isinstance(record, dict):
            names.update(record)
    return names


def _resolve(columns: set[str], wanted: Iterable[str], name: str, kind: str) -> dict[str, str]:
    fields = {}
    for canonical in wanted:
        aliases = ("label",) if canonical == "label" else ALIASES[canonical]
        found = next((a for a in aliases if a in columns), None)
        if found is None:
            raise TrainingError(
                f"{name}: {kind} data needs a {canonical!r} column "
                f"(or one of {', '.join(aliases)}); "
                f"found {', '.join(sorted(columns)) or 'none'}"
            )
        fields[canonical] = found
    if len(set(fields.values())) < len(fields):
        raise TrainingError(f"{name}: one column serves two fields {fields}; rename the columns")
    return fields


def _guess_kind(columns: set[str], records: list, name: str) -> str:
    if {"premise", "hypothesis"} <= columns:
        return "nli"
    if {"anchor", "positive"} <= columns or {"query", "positive"} <= columns:
        return "triplet"
    fields = _resolve(columns, ("sentence1", "sentence2", "score"), name, "pair")
    values = {_as_float(r.get(fields["score"])) for _, r in records if isinstance(r, dict)}
    values.discard(None)
    return "binary" if values and values <= {0.0, 1.0} else "scored"


# -- cleaning -----------------------------------------------------------------------------------
def _text_problem(value: Any, column: str) -> str | None:
    if value is None:
        return f"missing {column}"
    if not isinstance(value, str):
        return f"{column} is not text ({type(value).__name__})"
    if not value.strip():
        return f"empty {column}"
    return None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _clean_pairs(records, fields, kind, score_range):
    low, high = score_range
    rows: dict[str, list] = {"sentence1": [], "sentence2": [], "score": []}
    bad: list[BadRow] = []
    for number, record in records:
        if isinstance(record, str):
            bad.append(BadRow(number, record))
            continue
        problem = _text_problem(
            record.get(fields["sentence1"]), fields["sentence1"]
        ) or _text_problem(record.get(fields["sentence2"]), fields["sentence2"])
        raw = record.get(fields["score"])
        score = _as_float(raw)
        if problem is None and score is None:
            problem = (
                f"missing {fields['score']}"
                if raw is None
                else f"{fields['score']} {raw!r} is not a number"
            )
        if problem is None and kind == "binary" and score not in (0.0, 1.0):
            problem = f"{fields['score']} {raw!r} is not 0 or 1"
        if problem is None and kind == "scored" and not low <= score <= high:
            problem = f"{fields['score']} {raw!r} outside {low:g}-{high:g}"
        if problem:
            bad.append(BadRow(number, problem))
            continue
        rows["sentence1"].append(record[fields["sentence1"]])
        rows["sentence2"].append(record[fields["sentence2"]])
        rows["score"].append(score)
    return rows, bad


def _nli_label(value: Any) -> str | None:
    """A label name, from a name or SNLI's ids (0 entailment, 1 neutral, 2 contradiction)."""
    if isinstance(value, str):
        value = value.strip().lower()
        return value if value in NLI_LABELS else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(NLI_LABELS):
        return NLI_LABELS[value]
    return None


def _clean_nli(records, fields):
    rows: dict[str, list] = {"premise": [], "hypothesis": [], "label": []}
    bad: list[BadRow] = []
    for number, record in records:
        if isinstance(record, str):
            bad.append(BadRow(number, record))
            continue
        problem = _text_problem(record.get(fields["premise"]), fields["premise"]) or _text_problem(
            record.get(fields["hypothesis"]), fields["hypothesis"]
        )
        raw = record.get(fields["label"])
        label = _nli_label(raw)
        if problem is None and label is None:
            problem = (
                "missing label"
                if raw is None
                else f"label {raw!r} is not one of {', '.join(NLI_LABELS)}"
            )
        if problem:
            bad.append(BadRow(number, problem))
            continue
        rows["premise"].append(record[fields["premise"]])
        rows["hypothesis"].append(record[fields["hypothesis"]])
        rows["label"].append(label)
    return rows, bad


def _clean_texts(records, fields):
    """Rows whose every field is a non-empty text (triplets)."""
    rows: dict[str, list] = {canonical: [] for canonical in fields}
    bad: list[BadRow] = []
    for number, record in records:
        problem = record if isinstance(record, str) else None
        for column in fields.values():
            problem = problem or _text_problem(record.get(column), column)
        if problem:
            bad.append(BadRow(number, problem))
            continue
        for canonical, column in fields.items():
            rows[canonical].append(record[column])
    return rows, bad
