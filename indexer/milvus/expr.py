"""Metadata filters as Milvus boolean expressions: the conditions `filters.compile_filter` returns
become `metadata["topic"] == 3 and (metadata["group"] == "a" or ...)` over the JSON field that
holds each row's document metadata. Keys and values are only ever written as literals: a string
is double-quoted with its quote, backslash and line breaks escaped (the escapes both milvus-lite's
lexer and the Milvus server's grammar read back), a number in Python's round-trip form; anything
else is refused. So a value such as `x" or 1==1 or "` is a string to compare, never code."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from .columns import column_values

JSON_FIELD = "metadata"
OPERATORS = {"eq": "==", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
# `\'` is left out on purpose: milvus-lite reads it, the server's (Go) unquoting refuses it inside
# double quotes. Any other character, control characters and all of Unicode, stands for itself.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote(text: str) -> str:
    """`text` as a Milvus string literal."""
    if not isinstance(text, str):
        raise TypeError(f"a string literal takes a str; got {type(text).__name__}")
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def literal(value: str | int | float | bool) -> str:
    """`value` as a Milvus literal: a quoted string, `true`/`false`, or a finite number."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):  # repr would write `nan`/`inf`: a name, not a number
            raise ValueError(f"{value!r} is not a finite number")
        return repr(value)
    raise TypeError(f"a filter value is a str, int, float or bool; got {type(value).__name__}")


def to_expr(conditions: Sequence[tuple[str, str, list]], types: Mapping[str, str] | None = None,
            field: str = JSON_FIELD, columns: Mapping[str, tuple[str, str]] | None = None) -> str:
    """The Milvus expression that keeps the rows whose `field` JSON meets every condition; ""
    for none. `types` ({name: "bool"|...}, as `compile_filter` was given) turns the 1/0 that
    `compile_filter` makes of a bool field's True/False back into `true`/`false`. A field of
    `columns` ({name: (column, kind)}, `columns.usable`) is tested on its typed column where
    the column can hold the values compared (`columns.column_values`), not in the JSON."""
    if not _IDENTIFIER.match(field):
        raise ValueError(f"JSON field name {field!r} is not an identifier")
    clauses = []
    for name, op, values in conditions:
        key = f"{field}[{quote(name)}]"
        if types is not None and types.get(name) == "bool":
            values = [bool(v) for v in values]
        if columns and name in columns:
            column, kind = columns[name]
            if not _IDENTIFIER.match(column):
                raise ValueError(f"column name {column!r} is not an identifier")
            typed = column_values(kind, op, values)
            if typed is not None:
                key, values = column, typed
        if op == "in":
            if not values:
                raise ValueError(f"'in' on {name!r} has no values")
            # milvus-lite takes `in [...]` after a plain field only, not after a JSON key: an OR of
            # equalities means the same on both engines.
            tests = [f"{key} == {literal(v)}" for v in values]
            clauses.append(tests[0] if len(tests) == 1 else f"({' or '.join(tests)})")
        elif op in OPERATORS:
            if len(values) != 1:
                raise ValueError(f"{op!r} on {name!r} takes one value; got {len(values)}")
            clauses.append(f"{key} {OPERATORS[op]} {literal(values[0])}")
        else:
            raise ValueError(f"Invalid operator {op!r} on {name!r}. Valid: in, "
                             f"{', '.join(OPERATORS)}")
    return " and ".join(clauses)


def access_expr(readers: frozenset[str] | None, field: str = JSON_FIELD) -> str:
    """The Milvus expression that keeps the rows `readers` may see (`indexer.access`): no
    `access` key (or a null one), one whose list holds a reader's name, or a bare string that is
    a reader's name; "" for no restriction (None).

    A bare string (`"hr"`, written before access values were checked, or by another writer) is
    a list of one, as `indexer.access.access_of` and the folder store read it: without its
    equality, `json_contains_any` (false on a string) hid it from search and counts while
    `documents()` returned it. Milvus takes no `in [...]` after a JSON key, so each name is one
    equality: a parse cost that grows with the readers (10,000 names: 6 s on milvus-lite;
    a principal and its groups: nothing measurable)."""
    if readers is None:
        return ""
    if not _IDENTIFIER.match(field):
        raise ValueError(f"JSON field name {field!r} is not an identifier")
    key = f'{field}["access"]'
    public = f"not exists {key}"
    if not readers:
        return public
    names = [quote(r) for r in sorted(readers)]
    bare = " or ".join(f"{key} == {n}" for n in names)
    return f"({public} or json_contains_any({key}, [{', '.join(names)}]) or {bare})"


def both(*exprs: str) -> str:
    """The expressions given (each "" for none) joined by `and`."""
    kept = [e for e in exprs if e]
    return kept[0] if len(kept) == 1 else " and ".join(f"({e})" for e in kept)
