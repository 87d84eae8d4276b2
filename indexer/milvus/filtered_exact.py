"""Filtered dense search that fills k whenever k chunks pass the filter. milvus-lite's HNSW
walks its graph and drops what the filter refuses: under a narrow filter it returned fewer hits
than k while k passed it (the author filter's recall in bench/results/scale.md, and
tests/indexer/milvus/test_milvus_filtered_hnsw.py). A Milvus server falls back to brute force
itself; here a query left short is answered exactly over the chunks the filter keeps, when they
are few enough to fetch, and otherwise searched again with the widest graph walk.

milvus-lite cannot do that scoring itself: a field indexed HNSW is always searched through
its graph (there is no FLAT search of it, and no search parameter but `ef`), and a wider walk
under a filter still misses chunks the filter keeps, even at the widest `ef`. So the vectors
of the kept chunks are read (`strict_float32`: as one array, not a list of floats a row) and
scored here; what that read costs is milvus-lite's, which builds each row it returns whole."""

from __future__ import annotations

from typing import Any

import numpy as np

EXACT_UP_TO = 16_384  # chunks fetched for an exact answer (Milvus's largest query `limit`)
WIDEST_EF = 16_384

Ranked = list[tuple[int, float]]


def exact_over_filter(client, collection: str, qv: np.ndarray, expr: str, want: int,
                      per_chunk: bool, rows: dict[int, dict]) -> list[Ranked] | None:
    """Exact top `want` of each query row of `qv` among the chunks `expr` keeps (one per
    document unless `per_chunk`), their `doc_id`s put in `rows`; None when more than
    `EXACT_UP_TO` chunks pass (too many to fetch: the caller widens the graph walk)."""
    # strict_float32: pymilvus hands the vectors over as one float32 array (each row's a view of
    # it) instead of decoding a list of Python floats a row, which cost more than our scoring
    kept = client.query(collection, filter=expr, output_fields=["chunk_id", "doc_id", "vector"],
                        limit=EXACT_UP_TO + 1, strict_float32=True)
    if len(kept) > EXACT_UP_TO:
        return None
    if not kept:
        return [[] for _ in qv]
    ids = np.array([int(r["chunk_id"]) for r in kept])
    docs = [r["doc_id"] for r in kept]
    scores = np.asarray(qv, np.float32) @ np.stack([np.asarray(r["vector"], np.float32)
                                                    for r in kept]).T
    out: list[Ranked] = []
    for row in scores:
        ranked: Ranked = []
        seen: set[str] = set()
        for j in np.argsort(-row, kind="stable"):
            if not per_chunk:
                if docs[j] in seen:
                    continue
                seen.add(docs[j])
            ranked.append((int(ids[j]), float(row[j])))
            if len(ranked) == want:
                break
        out.append(ranked)
    doc_of = dict(zip(ids.tolist(), docs, strict=True))
    for cid, _ in (hit for ranked in out for hit in ranked):
        rows.setdefault(cid, {"doc_id": doc_of[cid]})
    return out


def widest(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with the graph walk as wide as Milvus takes."""
    return {**params, "params": {**params.get("params", {}), "ef": WIDEST_EF}}
