"""The manifest of a Milvus index: the same facts a folder index keeps in `manifest.json`
(encoder name and fingerprint, backend, dimension, index type, chunking, BM25, counts, metadata
field types), held as one JSON property of the chunk collection, so they travel with it."""

from __future__ import annotations

import json
from typing import Any

from ..errors import CorruptIndexError
from ..manifest import FORMAT, FORMAT_VERSION, now
from .address import MilvusAddress
from .rows import TOKEN_ENCODING

PROPERTY = "bertscope.manifest"
STORE = "milvus"
SKIPPED_KEPT = 1000  # skipped rows listed (the count is always kept)
JSON_KINDS = {bool: "bool", int: "int", float: "float", str: "str"}
VALUES_KEPT = 64  # distinct values a field's `metadata_values` lists; past them: null


def new_manifest(encoder: dict, dim: int, spec, chunking: dict, bm25: dict, source: str,
                 rows: int, duplicates: int, skipped: list[dict],
                 notes: list[dict] | None = None) -> dict:
    stamp = now()
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "store": STORE, "version": 0,
            "built_at": stamp, "updated_at": stamp, "encoder": encoder, "dim": dim,
            "metric": "cosine", "normalized": True, "preset": spec.preset,
            "faiss_spec": spec.factory, "knobs": dict(spec.knobs), "chunking": chunking,
            "bm25": bm25, "source": source, "rows": rows, "duplicates": duplicates,
            "skipped": skipped[:SKIPPED_KEPT], "skipped_count": len(skipped),
            "notes": notes or [],
            "counts": {}, "metadata_kinds": {}, "metadata_fields": {}, "filter_columns": {},
            "files": {},
            "token_encoding": TOKEN_ENCODING}


def read_manifest(client, address: MilvusAddress) -> dict:
    """The manifest of `address`'s collection; FileNotFoundError where there is no such
    collection, `CorruptIndexError` where it is not a BERTScope index."""
    name = address.collection
    if not client.has_collection(name):
        raise FileNotFoundError(f"no Milvus index at {address}: no collection {name!r} there; "
                                f"build one with `python -m indexer build --store milvus "
                                f"--milvus-uri {address.uri} --collection {name} ...`")
    raw = (client.describe_collection(name).get("properties") or {}).get(PROPERTY)
    try:
        manifest = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CorruptIndexError(f"{address}: collection {name!r} holds no BERTScope manifest "
                                f"(property {PROPERTY!r}); it is not an index this tool built")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise CorruptIndexError(f"{address}: index format {manifest.get('format_version')!r}; "
                                f"this BERTScope reads format {FORMAT_VERSION}")
    return manifest


def write_manifest(client, collection: str, manifest: dict) -> None:
    client.alter_collection_properties(
        collection, properties={PROPERTY: json.dumps(manifest, ensure_ascii=False)})


def with_metadata(manifest: dict, metadatas: list[dict[str, Any]]) -> dict:
    """`manifest` with the JSON kinds of `metadatas`' values merged into its field types
    (as the folder store types them: int and float together are float, others mixed), and
    their values into `metadata_values`: each field's distinct values ever written, up to
    `VALUES_KEPT` (null past them), that `field_values` asks the typed columns about one by
    one instead of reading every document (an index written before keeps none)."""
    kinds = {k: set(v) for k, v in manifest.get("metadata_kinds", {}).items()}
    fresh = not manifest.get("metadata_kinds")  # nothing written yet: every value is here
    old = manifest.get("metadata_values")
    values: dict[str, set | None] = {} if old is None and not fresh else {
        k: (None if v is None else set(map(tuple, v))) for k, v in (old or {}).items()}
    for meta in metadatas:
        for key, value in meta.items():
            kind = JSON_KINDS.get(type(value))
            if kind:
                if key not in kinds and (fresh or old is not None):
                    values.setdefault(key, set())
                kinds.setdefault(key, set()).add(kind)
                kept = values.get(key)
                if kept is not None:
                    kept.add((kind, value))
                    if len(kept) > VALUES_KEPT:
                        values[key] = None
    fields = {}
    for key, seen in sorted(kinds.items()):
        if seen == {"int", "float"}:
            seen = {"float"}
        fields[key] = next(iter(seen)) if len(seen) == 1 else "mixed"
    kept = {k: None if v is None else sorted([list(p) for p in v], key=str)
            for k, v in sorted(values.items())}
    return {**manifest, "metadata_kinds": {k: sorted(v) for k, v in sorted(kinds.items())},
            "metadata_fields": fields, **({"metadata_values": kept} if fresh or old is not None
                                          else {})}
