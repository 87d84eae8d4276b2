"""Turn the Search page's filter widgets' values into the indexer's filter dict."""

from __future__ import annotations

from typing import Any


def parse_values(text: str, kind: str) -> list[Any]:
    """Comma-separated values typed by a user, converted to the field's type ("str"/"int"/…)."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if kind == "int":
        try:
            return [int(t) for t in items]
        except ValueError as exc:
            raise ValueError(f"Expected whole numbers separated by commas, got {text!r}") from exc
    if kind == "float":
        try:
            return [float(t) for t in items]
        except ValueError as exc:
            raise ValueError(f"Expected numbers separated by commas, got {text!r}") from exc
    if kind == "bool":
        table = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
        try:
            return [table[t.lower()] for t in items]
        except KeyError as exc:
            raise ValueError(f"Expected true or false, got {text!r}") from exc
    return items


def build_filter(
    fields: dict[str, str], typed: dict[str, str | list[Any]]
) -> dict[str, Any] | None:
    """{field: "a, b"} or {field: [a, b]} (a multiselect's choice) → {field: {"in": [a, b]}};
    one value → equality; empty fields are ignored.

    `fields` maps each metadata field to its type as the index reports it.
    """
    out: dict[str, Any] = {}
    for name, given in typed.items():
        if name not in fields:
            continue
        values = list(given) if isinstance(given, list) else parse_values(given, fields[name])
        if values:
            out[name] = values[0] if len(values) == 1 else {"in": values}
    return out or None


def describe_filter(where: dict[str, Any] | None) -> str:
    """`build_filter`'s dict in words for a caption: {"category": {"in": ["sport", "tech"]},
    "year": 2004} → "category is sport or tech, and year is 2004"."""
    if not where:
        return ""
    parts = []
    for field, value in where.items():
        if isinstance(value, dict) and set(value) == {"in"}:
            values = [_shown(v) for v in value["in"]]
            said = ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]
        else:
            said = _shown(value)
        parts.append(f"{field} is {said}")
    return ", ".join(parts[:-1]) + ", and " + parts[-1] if len(parts) > 1 else parts[0]


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
