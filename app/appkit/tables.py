"""Nested data (a run's metrics, a model's configuration) as a two-column table a person reads:
one row per field, nested names joined with dots, instead of a raw JSON tree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

LONG_LIST = 10  # a longer list of records is summarised by its length


def field_rows(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, value) pairs: `{"dev": {"spearman": 63.2}}` → `("dev · spearman", "63.2")`; a
    list of plain values on one row, a short list of records numbered (`stages · 1 · loss`), a
    long one as its length."""
    return [row for key, value in data.items() for row in _rows(str(key), value)]


def field_table(data: Mapping[str, Any]) -> pd.DataFrame:
    """`field_rows` as a DataFrame for `st.dataframe` (every value a string: one column type)."""
    return pd.DataFrame(field_rows(data), columns=["field", "value"])


def _rows(name: str, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        return [row for k, v in value.items() for row in _rows(f"{name} · {k}", v)] or [
            (name, "—")]
    if not isinstance(value, (list, tuple)):
        return [(name, _cell(value))]
    if not value:
        return [(name, "none")]
    if not any(isinstance(v, (Mapping, list, tuple)) for v in value):
        return [(name, ", ".join(_cell(v) for v in value))]
    if len(value) > LONG_LIST:
        return [(name, f"{len(value)} entries")]
    return [row for i, v in enumerate(value, start=1) for row in _rows(f"{name} · {i}", v)]


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
