"""Metadata filters: `{field: value}` (equality), `{field: {"in": [...]}}`, numeric ranges
`{field: {"gte": a, "lt": b}}` (also `gt`, `lte`, `eq`); fields combine with AND. Validated
against the index's field types, compiled to SQL over the documents' metadata JSON."""

from __future__ import annotations

import sqlite3
from typing import Any

from .errors import QueryError

OPERATORS = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
RANGE = ("gt", "gte", "lt", "lte")
SQLITE_TYPES = {"integer": "int", "real": "float", "text": "str", "true": "bool", "false": "bool"}


def field_types(conn: sqlite3.Connection) -> dict[str, str]:
    """{field: "str"|"int"|"float"|"bool"|"mixed"} over every document's metadata."""
    seen: dict[str, set[str]] = {}
    q = ("SELECT j.key, j.type FROM documents d, json_each(d.metadata) j "
         "GROUP BY j.key, j.type")
    for key, kind in conn.execute(q):
        if kind in SQLITE_TYPES:
            seen.setdefault(key, set()).add(SQLITE_TYPES[kind])
    out = {}
    for key, kinds in sorted(seen.items()):
        if kinds == {"int", "float"}:
            kinds = {"float"}
        out[key] = kinds.pop() if len(kinds) == 1 else "mixed"
    return out


def unknown_field(name: str, types: dict[str, str]) -> QueryError:
    valid = ", ".join(types) or "none (this index has no metadata)"
    return QueryError(f"unknown filter field {name!r}. Valid fields: {valid}")


def json_path(name: str) -> str:
    """The SQLite JSON path of a top-level metadata key, quoted so any key name works."""
    return "$." + '"' + str(name).replace('"', '\\"') + '"'


def field_values(conn: sqlite3.Connection, name: str, limit: int) -> list[Any] | None:
    """The distinct values of metadata field `name`, sorted; None when there are more than
    `limit` of them (a free-text field, say), so callers can offer a list only where it is short."""
    path = json_path(name)
    rows = conn.execute(
        "SELECT DISTINCT json_extract(metadata, ?) FROM documents WHERE json_type(metadata, ?) "
        f"IN ({','.join('?' * len(SQLITE_TYPES))}) LIMIT ?",
        (path, path, *SQLITE_TYPES, limit + 1)).fetchall()
    if len(rows) > limit:
        return None
    return sorted((r[0] for r in rows), key=lambda v: (type(v).__name__, v))


def _check_value(name: str, kind: str, value: Any) -> Any:
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = {"str": isinstance(value, str), "int": numeric, "float": numeric,
          "bool": isinstance(value, bool), "mixed": isinstance(value, (str, int, float))}[kind]
    if not ok:
        raise QueryError(f"filter field {name!r} holds {kind} values; got {value!r} "
                         f"({type(value).__name__})")
    return int(value) if isinstance(value, bool) else value  # JSON true/false read as 1/0


def compile_filter(spec: dict[str, Any], types: dict[str, str]) -> tuple[str, list[Any]]:
    """(SQL condition on `d.metadata`, parameters); raises `QueryError` naming what is wrong."""
    if not isinstance(spec, dict) or not spec:
        raise QueryError("a filter is a non-empty dict like {'category': 'tech'}")
    clauses: list[str] = []
    params: list[Any] = []
    for name, cond in spec.items():
        if name not in types:
            raise unknown_field(name, types)
        kind = types[name]
        path = json_path(name)
        column = "json_extract(d.metadata, ?)"
        if not isinstance(cond, dict):
            cond = {"eq": cond}
        if not cond:
            raise QueryError(f"filter on {name!r} is empty: give a value, 'in' or a range")
        for op, value in cond.items():
            if op == "in":
                if not isinstance(value, (list, tuple, set)) or not value:
                    raise QueryError(f"'in' on {name!r} takes a non-empty list of values")
                values = [_check_value(name, kind, v) for v in value]
                clauses.append(f"{column} IN ({','.join('?' * len(values))})")
                params.extend([path, *values])
            elif op in OPERATORS:
                if op in RANGE and kind not in ("int", "float"):
                    raise QueryError(f"range '{op}' needs a numeric field; {name!r} holds {kind}")
                clauses.append(f"{column} {OPERATORS[op]} ?")
                params.extend([path, _check_value(name, kind, value)])
            else:
                raise QueryError(f"Invalid filter operator {op!r} on {name!r}. "
                                 f"Valid: in, {', '.join(OPERATORS)}")
    return " AND ".join(clauses), params


def matching_chunks(conn: sqlite3.Connection, spec: dict, types: dict[str, str]):
    """(chunk ids of documents that pass, number of such documents)."""
    where, params = compile_filter(spec, types)
    rows = conn.execute(
        f"SELECT c.chunk_id, c.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
        f"WHERE {where}", params).fetchall()
    return [r[0] for r in rows], len({r[1] for r in rows})
