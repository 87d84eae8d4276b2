"""Metadata field kinds of a folder index: the documents per (field, JSON type), counted by one
scan at a build and kept by a writer as it writes (`WorkingCopy.counts`), and the kinds read
from them (`field_types`). The manifest keeps the counts (`metadata_kind_counts`), so a save
never scans every document's metadata."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence

from .db import JSON_TYPES, in_parts


def field_types(conn: sqlite3.Connection) -> dict[str, str]:
    """{field: "str"|"int"|"float"|"bool"|"mixed"} over every document's metadata."""
    return kinds_of(kind_counts(conn))


def kind_counts(conn: sqlite3.Connection, doc_ids: Sequence[str] | None = None
                ) -> Counter[tuple[str, str]]:
    """{(field, JSON type): documents holding it} over `doc_ids` (None: every document, one
    scan of all metadata; a writer keeps these counts as it changes documents instead)."""
    q = "SELECT j.key, j.type, COUNT(*) FROM documents d, json_each(d.metadata) j "
    out: Counter[tuple[str, str]] = Counter()
    parts = [None] if doc_ids is None else list(in_parts(doc_ids))
    for part in parts:
        where = "" if part is None else f"WHERE d.doc_id IN ({','.join('?' * len(part))}) "
        for key, kind, n in conn.execute(q + where + "GROUP BY j.key, j.type", part or ()):
            if kind in JSON_TYPES:
                out[(key, kind)] += n
    return out


def counts_to_json(counts: Counter[tuple[str, str]]) -> list[list]:
    """The manifest's `metadata_kind_counts`: [field, JSON type, documents] rows, sorted."""
    return [[key, kind, n] for (key, kind), n in sorted(counts.items()) if n > 0]


def counts_from_json(rows: object) -> Counter[tuple[str, str]] | None:
    """`counts_to_json` read back; None where absent (a version written before it) or not
    well formed (then the writer counts them again)."""
    if not isinstance(rows, list):
        return None
    out: Counter[tuple[str, str]] = Counter()
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)
                and row[1] in JSON_TYPES and isinstance(row[2], int)
                and not isinstance(row[2], bool) and row[2] > 0):
            return None
        out[(row[0], row[1])] += row[2]
    return out


def kinds_of(counts: Counter[tuple[str, str]]) -> dict[str, str]:
    """`field_types` from `kind_counts`: the kinds some document still holds."""
    seen: dict[str, set[str]] = {}
    for (key, kind), n in counts.items():
        if n > 0:
            seen.setdefault(key, set()).add(JSON_TYPES[kind])
    out = {}
    for key, kinds in sorted(seen.items()):
        if kinds == {"int", "float"}:
            kinds = {"float"}
        out[key] = kinds.pop() if len(kinds) == 1 else "mixed"
    return out
