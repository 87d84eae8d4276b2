"""Which column of a pairs file holds which canonical field (accepted aliases, first match
wins), and the kind of a file guessed from its columns and scores."""

from __future__ import annotations

from collections.abc import Iterable

from .data_clean import as_float
from .errors import TrainingError

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


def column_names(records: list[tuple[int, dict | str]]) -> set[str]:
    names: set[str] = set()
    for _, record in records:
        if isinstance(record, dict):
            names.update(record)
    return names


def has_column(columns: set[str], canonical: str) -> bool:
    return any(a in columns for a in ALIASES[canonical])


def resolve_columns(columns: set[str], wanted: Iterable[str], name: str,
                    kind: str) -> dict[str, str]:
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


def guess_kind(columns: set[str], records: list, name: str) -> str:
    if {"premise", "hypothesis"} <= columns:
        return "nli"
    if {"anchor", "positive"} <= columns or {"query", "positive"} <= columns:
        return "triplet"
    fields = resolve_columns(columns, ("sentence1", "sentence2", "score"), name, "pair")
    values = {as_float(r.get(fields["score"])) for _, r in records if isinstance(r, dict)}
    values.discard(None)
    return "binary" if values and values <= {0.0, 1.0} else "scored"
