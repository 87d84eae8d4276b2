"""Metadata values an index keeps, the same in every store and every way in (library writes,
builds, the HTTP service, migrations): JSON values whose integers fit in 64 bits (what SQLite's
JSON, Milvus's JSON field and every JSON reader hold), and one kind per field.

A field's kind (str, int, float, bool) is fixed by the first value written to it; an int field
takes floats too and becomes float (both stay numbers to every filter). A value of any other kind
would make the field "mixed", which no range filter takes, and change what every reader of the
index gets: `kind_problem` names such a value so that the write is refused instead. Lists, dicts
and None are kept and shown, never filtered, and have no kind."""

from __future__ import annotations

import math
from typing import Any

from .text import lone_surrogate, surrogate_note

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
RESERVED_NAMES = ("source", "page", "section", "sha256", "format")
RESERVED_NOTE = "source, page, section, sha256, format, and every name starting with _"
# who may see a document (`indexer.access`): a write through the API may give it, checked there;
# a file's front matter never does (sync's --access rules set it for files)
ACCESS = "access"
# the names a user may give, as a JSON Schema `pattern` (the service's OpenAPI schema says it)
ALLOWED_PATTERN = rf"^(?!_)(?!(?:{'|'.join(RESERVED_NAMES)})$)"
MIXED = "mixed"  # a field of an index written before kinds were kept: any scalar goes


def is_reserved(name: object) -> bool:
    """Whether metadata field `name` is one of the product's own (never taken from users)."""
    return isinstance(name, str) and (name in RESERVED_NAMES or name.startswith("_"))


def reserved_problem(name: str) -> str:
    """Why a document from user input may not set metadata field `name` (a reserved one)."""
    return (f"{name[:60]!r} is a metadata name BERTScope writes itself ({RESERVED_NOTE}): "
            "hits cite a file's source, page and section from them and sync treats documents "
            f"carrying them as files it read; rename the field (e.g. {_renamed(name)!r})")


def _renamed(name: str) -> str:
    """A name to suggest in place of reserved `name` (`url` for a link's `source`)."""
    return "url" if name == "source" else "doc_" + (name.lstrip("_")[:40] or "field")


def value_problem(value: Any) -> str | None:
    """Why `value` cannot be stored as metadata, or None when it can."""
    return type_problem(value) or range_problem(value)


def type_problem(value: Any) -> str | None:
    """Why JSON cannot hold `value` (a type it lacks, NaN), or None."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "not a finite number"
    if isinstance(value, (list, tuple)):
        return next((p for p in map(type_problem, value) if p), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return "a dict with non-string keys"
        return next((p for p in map(type_problem, value.values()) if p), None)
    return f"a {type(value).__name__}, which JSON cannot hold (convert it: str(), int(), .item())"


def range_problem(value: Any) -> str | None:
    """Why a JSON value is still no value a store keeps (an integer beyond 64 bits, a string
    with a lone surrogate, here or nested), or None."""
    if isinstance(value, str):
        at = lone_surrogate(value)
        return None if at is None else f"it {surrogate_note(value, at)}"
    if isinstance(value, int) and not isinstance(value, bool):
        if INT64_MIN <= value <= INT64_MAX:
            return None
        return (f"an integer of {len(str(abs(value)))} digits, beyond 64 bits (stores hold "
                f"{INT64_MIN:,} to {INT64_MAX:,}): write it as a string")
    if isinstance(value, (list, tuple)):
        return next((p for p in map(range_problem, value) if p), None)
    if isinstance(value, dict):
        bad = next((k for k in value if isinstance(k, str) and lone_surrogate(k) is not None),
                   None)
        if bad is not None:
            return f"its key {bad!r} {surrogate_note(bad, lone_surrogate(bad))}"
        return next((p for p in map(range_problem, value.values()) if p), None)
    return None


def kind_of(value: Any) -> str | None:
    """"str" | "int" | "float" | "bool" for a scalar; None for what filters never match."""
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if isinstance(value, types):
            return kind
    return None


def combined(have: str, kind: str) -> str:
    """The kind of a field holding values of kinds `have` and `kind`."""
    if have == kind:
        return have
    return "float" if {have, kind} == {"int", "float"} else MIXED


def kind_problem(kinds: dict[str, str], metadata: dict[str, Any]) -> str | None:
    """Why `metadata` would change the kind of a field of `kinds` ({field: kind}), or None; when
    None, `kinds` now holds the kinds `metadata` gives its fields."""
    new = {}
    for key, value in metadata.items():
        kind = kind_of(value)
        have = new.get(key, kinds.get(key))
        if kind is None or have is None or have == MIXED:
            new[key] = kind or have
            continue
        if combined(have, kind) == MIXED:
            return (f"metadata field {key!r} is {value!r} ({kind}), but the field holds {have} "
                    f"values: a field keeps one type, which its filters rely on; write "
                    f"{_example(have)}, or use another field name")
        new[key] = combined(have, kind)
    kinds.update((k, v) for k, v in new.items() if v is not None)
    return None


def _example(kind: str) -> str:
    return {"int": "an integer", "float": "a number", "bool": "true or false",
            "str": "a string"}[kind]
