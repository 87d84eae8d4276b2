"""Metadata fields as typed columns of the chunk collection, so that a filter is a scalar test
Milvus answers from a column instead of parsing every row's JSON.

A filter on the JSON field (`metadata["category"] == "a"`) makes milvus-lite 3.2 parse the JSON
of every chunk row in Python, on every search, count and query: the whole collection's cost
for each call, however few rows the filter keeps (issue 48). A build (and a migration) into
Milvus therefore gives each metadata field of one kind (str, int, float, bool) a nullable column
of that type, named `mf_0`, `mf_1`, ... (a field name may be any string; a column's may not),
indexed INVERTED on a Milvus server (`add_indexes`: not on milvus-lite); the manifest's
`filter_columns` maps each field to its column and kind.
The JSON field stays as it was: hits, documents and migrations read it, and a field with no
column (added after the build, or past `MAX_COLUMNS`) is filtered there as before.

A column holds a row's value when it is of the column's kind (a str within `STR_BYTES`; an int,
never a bool, in an INT64 column; any number in a DOUBLE one) and null otherwise. A condition
is put to the column only while the field's kind is still the column's (an int field that took
a float became float: its INT64 column no longer holds every value) and the column can hold the
value compared (a longer string, a fractional bound on an int column: the JSON is asked); so a
column answers exactly what the JSON would."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

PREFIX = "mf_"
MAX_COLUMNS = 32  # a Milvus server takes 64 fields a collection by default; 11 are ours
STR_BYTES = 65_535  # Milvus's VARCHAR limit
KINDS = ("str", "int", "float", "bool")
Columns = dict[str, dict[str, str]]  # field -> {"column": "mf_3", "kind": "str"}
_KIND = {str: "str", int: "int", float: "float", bool: "bool"}


def plan(fields: Mapping[str, str]) -> Columns:
    """The columns for metadata `fields` ({name: kind}, as the manifest types them): one per
    field of a single kind, the first `MAX_COLUMNS` by name."""
    kept = sorted(name for name, kind in fields.items() if kind in KINDS)[:MAX_COLUMNS]
    return {name: {"column": f"{PREFIX}{i}", "kind": fields[name]} for i, name in enumerate(kept)}


def of(manifest: Mapping[str, Any]) -> Columns:
    """An index's columns (none for an index built before they were kept)."""
    return dict(manifest.get("filter_columns") or {})


def add_fields(schema, columns: Columns) -> None:
    from pymilvus import DataType

    types = {"str": (DataType.VARCHAR, {"max_length": STR_BYTES}), "int": (DataType.INT64, {}),
             "float": (DataType.DOUBLE, {}), "bool": (DataType.BOOL, {})}
    for spec in columns.values():
        dtype, extra = types[spec["kind"]]
        schema.add_field(spec["column"], dtype, nullable=True, **extra)


def add_indexes(index_params, columns: Columns, *, lite: bool = False) -> None:
    """An INVERTED index on each column, on a Milvus server. milvus-lite gets none: it tests a
    typed column as one vectorised comparison, as fast without the index, while loading an
    INVERTED index rebuilds it in Python a row at a time, for every column of every segment,
    at every open (the Index page's first render and the service's warm-up waited on it)."""
    if lite:
        return
    for spec in columns.values():
        index_params.add_index(field_name=spec["column"], index_type="INVERTED")


def fits(kind: str, value: Any) -> bool:
    """Whether a column of `kind` holds `value` exactly."""
    if kind == "str":
        return isinstance(value, str) and len(value.encode("utf-8", "surrogatepass")) <= STR_BYTES
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":  # an int only where a double holds it exactly
        return (isinstance(value, float) and math.isfinite(value)) or (
            isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53)
    return False


def row_values(metadata: Mapping[str, Any], columns: Columns) -> dict[str, Any]:
    """A chunk row's column values from its metadata (None where a column cannot hold it)."""
    out = {}
    for name, spec in columns.items():
        value = metadata.get(name)
        out[spec["column"]] = ((float(value) if spec["kind"] == "float" else value)
                               if fits(spec["kind"], value) else None)
    return out


def partial(columns: Columns, metadatas: Iterable[Mapping[str, Any]]) -> set[str]:
    """The fields of `columns` that some of `metadatas` give a value of the field's kind the
    column cannot hold (a string past `STR_BYTES`, an int past 2**53 in a float field): their
    columns no longer hold every value, and filters on them go to the JSON (`drop`)."""
    out = set()
    for meta in metadatas:
        for name, spec in columns.items():
            value = meta.get(name)
            kind = _KIND.get(type(value))
            held = (spec["kind"], "int") if spec["kind"] == "float" else (spec["kind"],)
            if name not in out and kind in held and not fits(spec["kind"], value):
                out.add(name)
    return out


def drop(columns: Columns, names: set[str]) -> Columns:
    return {k: v for k, v in columns.items() if k not in names}


def usable(columns: Columns, types: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """{field: (column, kind)} of the columns that hold every value of their field now."""
    return {name: (spec["column"], spec["kind"]) for name, spec in columns.items()
            if types.get(name) == spec["kind"]}


def column_values(kind: str, op: str, values: Iterable[Any]) -> list[Any] | None:
    """`values` as the column of `kind` compares them under `op` (a fractional bound on an int
    column as the integer bound it means: `> 2.5` is `> 2`, `>= 2.5` is `>= 3`), or None when
    the column cannot (a string it could not hold, equality with a fraction: the JSON must)."""
    out = []
    for value in values:
        if kind == "int" and isinstance(value, float):
            if not value.is_integer():  # a bound between integers: the integer it means
                if op not in ("gt", "gte", "lt", "lte"):
                    return None
                value = math.floor(value) if op in ("gt", "lte") else math.ceil(value)
            value = int(value)
        if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not fits(kind, value):
            return None
        out.append(value)
    return out
