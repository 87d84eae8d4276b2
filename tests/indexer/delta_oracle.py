"""What the delta tests (segmented BM25, the vectors delta) compare an index with: every chunk
and the top documents of each query under each filter, and a fresh build over the index's live
documents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer import build_index

FILTERS = [None, {"group": "a"}, {"topic": {"in": [1, 3]}}]


def ranked(index, queries: list[str], mode: str, k: int, top_k: int,
           top: Callable = lambda hit: hit.doc_id) -> list:
    """Per query and filter: every chunk ranked (id, span, score), then `top` of the top
    documents."""
    out = []
    for query in queries:
        for flt in FILTERS:
            hits = index.search(query, k=k, mode=mode, per_chunk=True, filter=flt)
            out.append([(h.doc_id, h.start, h.end, h.score) for h in hits])
            out.append([top(h) for h in index.search(query, k=top_k, mode=mode, filter=flt)])
    return out


def fresh_build(index, out: Path, tiny_encoder, preset: str):
    """`preset` built anew at `out` over `index`'s live documents."""
    docs = [{"id": d.id, "title": d.title, "text": d.text, "metadata": d.metadata}
            for d in index.all_documents()]
    return build_index(docs, out, model=tiny_encoder, preset=preset)


def write_new(index, rng, op: str, ids: list[str], fresh: list[dict]) -> list[str]:
    """`add` the `fresh` documents, or (op "upsert") let some of them replace existing ones (old
    chunks deleted); returns the live ids after."""
    if op == "upsert":
        for d in fresh[:rng.randint(0, len(fresh))]:
            d["id"] = rng.choice(ids)
        fresh = list({d["id"]: d for d in fresh}.values())
        index.upsert(fresh)
    else:
        index.add(fresh)
    return ids + [d["id"] for d in fresh if d["id"] not in ids]


def random_changes(index, rng, ids: list[str], made: int, new_doc: Callable, ops: list[str],
                   most_new: int) -> tuple[list[str], int]:
    """One to three changes drawn from `ops` ("add", "upsert", "delete", "compact"), new
    documents numbered from `made` on (at most `most_new` a change); returns (live ids, how
    many documents were made in all)."""
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(ops)
        if op == "compact":
            index.compact()
        elif op == "delete":
            gone = rng.sample(ids, rng.randint(1, 3))
            index.delete(gone)
            ids = [i for i in ids if i not in gone]
        else:
            fresh = [new_doc(rng, made + j) for j in range(rng.randint(1, most_new))]
            made += len(fresh)
            ids = write_new(index, rng, op, ids, fresh)
    return ids, made
