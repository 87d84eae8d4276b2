"""Metadata filters: `{field: value}` (equality), `{field: {"in": [...]}}`, numeric ranges
`{field: {"gte": a, "lt": b}}` (also `gt`, `lte`, `eq`); fields combine with AND. Validated
against the index's field types into plain conditions that `db.matching_chunks` runs."""

from __future__ import annotations

import math
from typing import Any

from common.metadata import INT64_MAX, INT64_MIN
from common.text import lone_surrogate, surrogate_note

from .errors import QueryError

OPERATORS = ("eq", "gt", "gte", "lt", "lte")
RANGE = ("gt", "gte", "lt", "lte")
Condition = tuple[str, str, list]  # (field, "in" | one of OPERATORS, values)


def unknown_field(name: str, types: dict[str, str]) -> QueryError:
    valid = ", ".join(types) or "none (this index has no metadata)"
    return QueryError(f"unknown filter field {name!r}. Valid fields: {valid}")


def _check_value(name: str, kind: str, value: Any) -> Any:
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = {"str": isinstance(value, str), "int": numeric, "float": numeric,
          "bool": isinstance(value, bool), "mixed": isinstance(value, (str, int, float))}[kind]
    if not ok:
        raise QueryError(f"filter field {name!r} holds {kind} values; got {value!r} "
                         f"({type(value).__name__})")
    if isinstance(value, float) and not math.isfinite(value):  # NaN matches nothing, silently
        raise QueryError(f"filter on {name!r}: {value!r} is not a finite number")
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:  # SQLite overflows
        raise QueryError(f"filter on {name!r}: {value} is an integer beyond 64 bits; no "
                         f"metadata value is (they hold {INT64_MIN:,} to {INT64_MAX:,})")
    if isinstance(value, str) and (at := lone_surrogate(value)) is not None:
        raise QueryError(f"filter on {name!r}: the value {surrogate_note(value, at)}")
    return int(value) if isinstance(value, bool) else value  # JSON true/false read as 1/0


def compile_filter(spec: dict[str, Any], types: dict[str, str]) -> list[Condition]:
    """The conditions of `spec`; raises `QueryError` naming what is wrong."""
    if not isinstance(spec, dict) or not spec:
        raise QueryError("a filter is a non-empty dict like {'category': 'tech'}")
    out: list[Condition] = []
    for name, cond in spec.items():
        if name not in types:
            raise unknown_field(name, types)
        kind = types[name]
        if not isinstance(cond, dict):
            cond = {"eq": cond}
        if not cond:
            raise QueryError(f"filter on {name!r} is empty: give a value, 'in' or a range")
        for op, value in cond.items():
            if op == "in":
                if not isinstance(value, (list, tuple, set)) or not value:
                    raise QueryError(f"'in' on {name!r} takes a non-empty list of values")
                out.append((name, "in", [_check_value(name, kind, v) for v in value]))
            elif op in OPERATORS:
                if op in RANGE and kind not in ("int", "float"):
                    raise QueryError(f"range '{op}' needs a numeric field; {name!r} holds {kind}")
                out.append((name, op, [_check_value(name, kind, value)]))
            else:
                raise QueryError(f"Invalid filter operator {op!r} on {name!r}. "
                                 f"Valid: in, {', '.join(OPERATORS)}")
    return out
