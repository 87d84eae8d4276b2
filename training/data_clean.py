"""Cleaning the records of a pairs file into canonical columns: each row whose field is missing,
empty, not a number or out of range becomes a `BadRow` (row number and reason), never dropped
silently."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.text import INVISIBLE_NOTE, has_visible_text

NLI_LABELS = ("entailment", "neutral", "contradiction")  # index = SoftmaxLoss class id


@dataclass(frozen=True)
class BadRow:
    row: int  # 1-based record number in the file (the line number for JSONL)
    reason: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.reason}"


def _text_problem(value: Any, column: str) -> str | None:
    if value is None:
        return f"missing {column}"
    if not isinstance(value, str):
        return f"{column} is not text ({type(value).__name__})"
    if not value.strip():
        return f"empty {column}"
    if not has_visible_text(value):  # a tokenizer reads it as [CLS] [SEP]: empty too
        return f"empty {column} ({INVISIBLE_NOTE})"
    return None


def as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _clean(records, columns: tuple[str, ...], check: Callable[[dict], str | tuple]):
    """The loop every kind shares: `check(record)` gives the row's values for `columns`, or the
    reason it is bad; a record that could not be parsed is already its reason."""
    rows: dict[str, list] = {c: [] for c in columns}
    bad: list[BadRow] = []
    for number, record in records:
        values = record if isinstance(record, str) else check(record)
        if isinstance(values, str):
            bad.append(BadRow(number, values))
            continue
        for column, value in zip(columns, values, strict=True):
            rows[column].append(value)
    return rows, bad


def _first_text_problem(record: dict, columns) -> str | None:
    return next(filter(None, (_text_problem(record.get(c), c) for c in columns)), None)


def clean_pairs(records, fields, kind, score_range):
    low, high = score_range
    s1, s2, col = fields["sentence1"], fields["sentence2"], fields["score"]

    def check(record: dict) -> str | tuple:
        problem = _first_text_problem(record, (s1, s2))
        raw = record.get(col)
        score = as_float(raw)
        if problem is None and score is None:
            problem = f"missing {col}" if raw is None else f"{col} {raw!r} is not a number"
        if problem is None and kind == "binary" and score not in (0.0, 1.0):
            problem = f"{col} {raw!r} is not 0 or 1"
        if problem is None and kind == "scored" and not low <= score <= high:
            problem = f"{col} {raw!r} outside {low:g}-{high:g}"
        return problem or (record[s1], record[s2], score)

    return _clean(records, ("sentence1", "sentence2", "score"), check)


def _nli_label(value: Any) -> str | None:
    """A label name, from a name or SNLI's ids (0 entailment, 1 neutral, 2 contradiction)."""
    if isinstance(value, str):
        value = value.strip().lower()
        return value if value in NLI_LABELS else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(NLI_LABELS):
        return NLI_LABELS[value]
    return None


def clean_nli(records, fields):
    premise, hypothesis = fields["premise"], fields["hypothesis"]

    def check(record: dict) -> str | tuple:
        problem = _first_text_problem(record, (premise, hypothesis))
        raw = record.get(fields["label"])
        label = _nli_label(raw)
        if problem is None and label is None:
            problem = "missing label" if raw is None else \
                f"label {raw!r} is not one of {', '.join(NLI_LABELS)}"
        return problem or (record[premise], record[hypothesis], label)

    return _clean(records, ("premise", "hypothesis", "label"), check)


def clean_texts(records, fields):
    """Rows whose every field is a non-empty text (triplets)."""

    def check(record: dict) -> str | tuple:
        return _first_text_problem(record, fields.values()) or \
            tuple(record[c] for c in fields.values())

    return _clean(records, tuple(fields), check)
