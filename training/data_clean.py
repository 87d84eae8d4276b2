"""Cleaning the records of a pairs file into canonical columns: each row whose field is missing,
empty, not a number or out of range becomes a `BadRow` (row number and reason), never dropped
silently."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
    return None


def as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def clean_pairs(records, fields, kind, score_range):
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
        score = as_float(raw)
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


def clean_nli(records, fields):
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


def clean_texts(records, fields):
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
