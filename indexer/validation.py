"""Argument checks for the indexer's public calls. Pure functions: each returns the cleaned value
or raises a `TypeError` (wrong type) / `ValueError` (wrong value) that names the argument, the
offending item and what would be accepted. `SemanticIndex` and `build_index` call them first."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from common.corpus import Document
from common.text import INVISIBLE_NOTE, has_visible_text

from .errors import QueryError
from .presets import PRESETS

DOCUMENT_KEYS = ("id", "text", "title", "metadata")


def _kind(value: Any) -> str:
    return type(value).__name__


def check_doc_id(value: Any, where: str = "id") -> str:
    """A document id: a non-empty string, or an integer (stored as its decimal string)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"{where} must be a string (or an integer), got {value!r} "
                        f"({_kind(value)})")
    text = str(value)
    if not text.strip():
        raise ValueError(f"{where} is empty: give every document a non-empty id")
    return text


def check_doc_ids(doc_ids: Any, what: str = "doc_ids") -> list[str]:
    """A list of document ids; a lone string is refused (it is not a list of its characters)."""
    if isinstance(doc_ids, (str, bytes)):
        raise TypeError(f"{what} must be a list of ids, not a single string: "
                        f"use [{doc_ids!r}]")
    if not isinstance(doc_ids, Iterable) or isinstance(doc_ids, dict):
        raise TypeError(f"{what} must be a list of ids, got {_kind(doc_ids)}")
    return [check_doc_id(d, f"{what}[{i}]") for i, d in enumerate(doc_ids)]


def _json_problem(value: Any) -> str | None:
    """Why `value` cannot be stored as JSON metadata, or None when it can."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else "not a finite number"
    if isinstance(value, (list, tuple)):
        return next((p for p in map(_json_problem, value) if p), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return "a dict with non-string keys"
        return next((p for p in map(_json_problem, value.values()) if p), None)
    return f"a {_kind(value)}, which JSON cannot hold (convert it: str(), int(), .item())"


def check_metadata(metadata: Any, where: str = "metadata") -> dict[str, Any]:
    """A dict of str keys to JSON values. Filters and pick lists use the str / int / float /
    bool ones; lists and dicts are kept and shown, never matched."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise TypeError(f"{where} must be a dict of field -> value, got {_kind(metadata)}")
    for key, value in metadata.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"{where} keys must be non-empty strings, got {key!r}")
        problem = _json_problem(value)
        if problem:
            raise TypeError(f"{where}[{key!r}] is {value!r}: {problem}")
    return dict(metadata)


def check_document_fields(item: dict, where: str) -> tuple[str, str, str, dict[str, Any]]:
    """(id, text, title, metadata) of a document dict, each checked."""
    unknown = [k for k in item if k not in DOCUMENT_KEYS]
    if unknown:
        raise ValueError(f"{where} has unknown keys {', '.join(map(repr, unknown))}: a document "
                         f"takes {', '.join(DOCUMENT_KEYS)} (put other fields in 'metadata')")
    missing = [k for k in ("id", "text") if k not in item]
    if missing:
        raise ValueError(f"{where} has no {' or '.join(map(repr, missing))} key: a document "
                         "needs 'id' and 'text'")
    doc_id = check_doc_id(item["id"], f"{where}['id']")
    text = item["text"]
    if not isinstance(text, str):
        raise TypeError(f"{where}['text'] must be a string, got {text!r} ({_kind(text)})")
    if not text.strip():
        raise ValueError(f"{where}['text'] is empty: a document needs some text")
    if not has_visible_text(text):
        raise ValueError(f"{where}['text'] is empty: it holds {INVISIBLE_NOTE}; a document "
                         "needs some text")
    title = item.get("title")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"{where}['title'] must be a string or None, got {_kind(title)}")
    return doc_id, text, title or "", check_metadata(item.get("metadata"),
                                                     f"{where}['metadata']")


def coerce_document(item: Any, where: str = "document") -> Document:
    """A `Document` from itself or a dict with `id`, `text`, optional `title`, `metadata`;
    wrong types and empty ids or texts raise, naming `where` and the key."""
    if isinstance(item, Document):
        return Document(*check_document_fields(asdict(item), where))
    if not isinstance(item, dict):
        raise TypeError(f"{where} must be a Document or a dict with 'id' and 'text' keys, "
                        f"got {type(item).__name__}")
    return Document(*check_document_fields(item, where))


def check_document_list(documents: Any, what: str = "documents") -> Sequence:
    """A list / tuple of documents (not a lone dict, string or Document)."""
    if isinstance(documents, (str, bytes, dict, Document)) or not isinstance(documents,
                                                                            (list, tuple)):
        hint = "; put one document in a list: [doc]" if isinstance(documents, (dict, Document)) \
            else ""
        raise TypeError(f"{what} must be a list of Document or dict, got "
                        f"{_kind(documents)}{hint}")
    return documents


def check_documents(documents: Any, batch_size: int) -> list:
    """`SemanticIndex.add` / `upsert`: a list of documents, each checked, and the batch size."""
    check_positive_int(batch_size, "batch_size")
    return [coerce_document(d, f"documents[{i}]")
            for i, d in enumerate(check_document_list(documents))]


def check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise QueryError(f"{name} must be True or False, got {value!r} ({_kind(value)})")
    return value


def check_rrf_k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise QueryError(f"rrf_k must be an integer >= 0 (default 60), got {value!r}")
    return value


def check_build_args(preset, batch_size, shard_size, progress) -> None:
    """Settings that would otherwise fail after the corpus is read, or deep inside FAISS."""
    if preset not in PRESETS:
        raise ValueError(f"Invalid index preset {preset!r}. Valid: {', '.join(PRESETS)}")
    check_positive_int(batch_size, "batch_size")
    check_positive_int(shard_size, "shard_size")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable taking a BuildProgress, "
                        f"got {type(progress).__name__}")


def check_encoder(encoder: Any) -> None:
    """`SemanticIndex.open(encoder=...)`: an `Encoder`, not a name (that is `load_encoder`'s)."""
    from encoder import Encoder

    if encoder is not None and not isinstance(encoder, Encoder):
        hint = f": use encoder=load_encoder({encoder!r})" if isinstance(encoder, str) else ""
        raise TypeError(f"encoder must be an Encoder or None (the index's own model), got "
                        f"{type(encoder).__name__}{hint}")
